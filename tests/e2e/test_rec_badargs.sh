#!/bin/sh
# A wrapper never touches an argument the kernel or libc rejects: every
# wrapped function called with NULL and unmapped pointers, fds that are not
# open and sizes of zero (tests/progs/rec_badargs.c) gives the same output,
# errno by errno, and the same exit status natively, under iorecord and
# under a plain LD_PRELOAD; the trace it leaves reads whole.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_badargs
need_built "$IORECORD" "$LIBIORECORD" "$IOANALYZE" "$PROG"
work_dir badargs
ASAN_RT=$(asan_runtime "$LIBIORECORD")
# ASan's own interceptors (accept, ...) read these arguments before we do
[ -z "$ASAN_RT" ] || skip "the sanitizer runtime's interceptors dereference the bad arguments themselves"

# run HOW: the program in a fresh directory, its output in $work/HOW.out
run() {
    rm -rf "$work/dir" && mkdir "$work/dir" || exit 1
    case $1 in
    native)  "$PROG" "$work/dir" ;;
    iorecord) "$IORECORD" -o "$work/rec.zst" "$PROG" "$work/dir" ;;
    preload)  LD_PRELOAD="$LIBIORECORD" IORECORD_OUTPUT="$work/pre.zst" "$PROG" "$work/dir" ;;
    esac < /dev/null > "$work/$1.out" 2> "$work/$1.err"
    echo $? > "$work/$1.rc"
}

run native
[ "$(cat "$work/native.rc")" = 0 ] || die "natively: exit $(cat "$work/native.rc")"
for how in iorecord preload; do
    run $how
    rc=$(cat "$work/$how.rc")
    [ "$rc" = 0 ] || not_ok "$how: exit $rc (natively 0; 139 is SIGSEGV)"
    cmp -s "$work/native.out" "$work/$how.out" ||
        not_ok "$how: output differs from the native run: $(diff "$work/native.out" "$work/$how.out" | head -5)"
done
for t in rec pre; do
    "$IOANALYZE" info "$work/$t.zst" > "$work/$t.info" 2>&1 || not_ok "$t.zst unreadable"
    grep -q 'damage: none' "$work/$t.info" || not_ok "$t.zst damaged: $(grep damage "$work/$t.info")"
    grep -q 'exit status 0' "$work/$t.info" || not_ok "$t.zst: no exit record"
done
[ $fail = 0 ] && echo "ok   $(wc -l < "$work/native.out") calls with rejected arguments: same results recorded"
exit $fail
