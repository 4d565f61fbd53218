#!/bin/sh
# A program that forbids things is recorded without failing for it
# (tests/progs/rec_sandbox.c): one that disables the TSC, one in seccomp
# strict mode (recorded on, with no syscall but write), one under a seccomp allow-list that kills on any other
# syscall, one under a filter that fails getcwd, fcntl, fstat and readlink
# with EPERM. Each gives the same output (every errno in it), and exit
# status recorded as natively, under iorecord and under a plain LD_PRELOAD,
# and its trace counts every call made or says with a `lost` record what
# it is missing: the fork child's 100 writes (its relative path made
# absolute from the cwd the recorder kept), the open that failed.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_sandbox
need_built "$IORECORD" "$LIBIORECORD" "$IOANALYZE" "$PROG"
case $(uname -m) in x86_64) ;; *) skip "the test's seccomp filter is written for x86_64" ;; esac
work_dir sandbox
ASAN_RT=$(asan_runtime "$LIBIORECORD")
# A sanitized library needs its runtime, which makes syscalls of its own
# (the killing filter's SIGSYS) and cannot be in strict mode: those two
# modes are for plain builds.
MODES="tsc strict kill eperm"
[ -z "$ASAN_RT" ] || MODES="tsc eperm"

mkdir "$work/dir" && dir=$(cd "$work/dir" && pwd -P) || exit 1

# run MODE HOW: the program in a fresh directory; output in $work/MODE.HOW
run() {
    rm -rf "$work/dir" && mkdir "$work/dir" || exit 1
    case $2 in
    native)   "$PROG" "$1" "$work/dir" ;;
    iorecord) env ${ASAN_RT:+LD_PRELOAD=$ASAN_RT ASAN_OPTIONS=detect_leaks=0} \
                  "$IORECORD" -o "$work/$1.iorecord.zst" "$PROG" "$1" "$work/dir" ;;
    preload)  env LD_PRELOAD="${ASAN_RT:+$ASAN_RT:}$LIBIORECORD" \
                  ${ASAN_RT:+ASAN_OPTIONS=detect_leaks=0} \
                  IORECORD_OUTPUT="$work/$1.preload.zst" "$PROG" "$1" "$work/dir" ;;
    esac < /dev/null > "$work/$1.$2" 2> "$work/$1.$2.err"
    echo $? > "$work/$1.$2.rc"
}

# count TRACE PATTERN...: events of the trace's dump matching every PATTERN
count() {
    _t=$1
    shift
    "$IOANALYZE" dump --format jsonl "$_t" > "$work/dump" 2>&1 || { echo -1; return; }
    for _p in "$@"; do
        grep -F -- "$_p" "$work/dump" > "$work/dump.k"
        mv "$work/dump.k" "$work/dump"
    done
    wc -l < "$work/dump" | tr -d ' '
}

for mode in $MODES; do
    run $mode native
    rc=$(cat "$work/$mode.native.rc")
    [ "$rc" = 0 ] || { not_ok "$mode natively: exit $rc: $(cat "$work/$mode.native.err")"; continue; }
    for how in iorecord preload; do
        run $mode $how
        rc=$(cat "$work/$mode.$how.rc")
        [ "$rc" = 0 ] || { not_ok "$mode $how: exit $rc (natively 0; 139 SIGSEGV, 159 SIGSYS)"; continue; }
        cmp -s "$work/$mode.native" "$work/$mode.$how" ||
            not_ok "$mode $how: output differs: $(diff "$work/$mode.native" "$work/$mode.$how" | head -4)"
        t=$work/$mode.$how.zst
        "$IOANALYZE" info "$t" > "$work/info" 2>&1 || { not_ok "$mode $how: trace unreadable"; continue; }
        grep -q 'damage: none' "$work/info" || not_ok "$mode $how: trace damaged"
        if [ $mode = strict ]; then
            # recording goes on in strict mode, with no syscall but write:
            # the 5 writes and the read made there, and the exit by SYS_exit
            n=$(count "$t" '"op":"write"' "\"path\":\"$dir/strict.dat\"")
            [ "$n" = 5 ] || not_ok "$mode $how: the writes in strict mode recorded: $n, want 5"
            n=$(count "$t" '"op":"read"' '"path":"/dev/zero"')
            [ "$n" = 1 ] || not_ok "$mode $how: the read in strict mode recorded $n times, want 1"
            grep -q 'exit status 0' "$work/info" || not_ok "$mode $how: no exit status 0"
            continue
        fi
        # relative paths recorded absolute, without a getcwd under a filter
        n=$(count "$t" '"op":"write"' "\"path\":\"$dir/child.dat\"")
        [ "$n" = 100 ] || not_ok "$mode $how: the child's writes to $dir/child.dat recorded: $n, want 100"
        n=$(count "$t" '"op":"open"' "\"path\":\"$dir/sub/in-sub.dat\"")
        [ "$n" = 1 ] || not_ok "$mode $how: the open after chdir recorded $n times as $dir/sub/in-sub.dat"
        n=$(count "$t" '"op":"open"' 'missing.dat"' '"errno":2,')
        [ "$n" = 1 ] || not_ok "$mode $how: the failed open recorded $n times with ENOENT, want 1"
        grep -q 'exit status 0' "$work/info" || not_ok "$mode $how: no exit status 0"
        case $mode in
        tsc)
            # the coarse clock's stamps do not go back past the TSC's: the
            # open made before the prctl (late in a coarse tick) comes
            # first in time order
            "$IOANALYZE" dump --format jsonl "$t" | grep '"op":"open"' | head -1 |
                grep -q 'before.dat"' || not_ok "$mode $how: calls after PR_SET_TSC stamped before the open made before it" ;;
        kill|eperm)
            # no fstat at close under a filter: said so, in both processes
            n=$(count "$t" '"op":"lost"' '"mode":"file_size_skipped"')
            [ "$n" = 2 ] || not_ok "$mode $how: file_size_skipped in $n lost records, want 2" ;;
        esac
    done
done
[ $fail = 0 ] && echo "ok   $MODES: same results recorded, the trace whole or saying what it lacks"
exit $fail
