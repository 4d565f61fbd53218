#!/bin/sh
# Rust programs probe statx with a NULL path at start (the standard library
# checks that statx is there by expecting EFAULT): ripgrep and fd-find give
# the same output and exit status recorded as natively.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
have rg || have fdfind || skip "neither rg (ripgrep) nor fdfind (fd-find) is installed"
work_dir rust
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
mkdir -p "$work/tree/sub" && printf 'one needle\ntwo\n' > "$work/tree/a.txt" &&
    printf 'needle again\n' > "$work/tree/sub/b.txt" || exit 1

# same NAME CMD...: CMD's output and exit status natively and recorded
same() {
    name=$1
    shift
    (cd "$work/tree" && "$@") > "$work/native" 2>&1
    rc_native=$?
    (cd "$work/tree" && "$IORECORD" -o "$work/$name.zst" "$@") > "$work/rec" 2>&1
    rc_rec=$?
    [ $rc_rec = $rc_native ] || not_ok "$name: exit $rc_rec recorded, $rc_native natively (139 is SIGSEGV)"
    cmp -s "$work/native" "$work/rec" || not_ok "$name: output differs: $(diff "$work/native" "$work/rec" | head -4)"
    "$IOANALYZE" info "$work/$name.zst" > "$work/info" 2>&1 || not_ok "$name: trace unreadable"
    grep -q "exit status $rc_native" "$work/info" || not_ok "$name: no exit status $rc_native in the trace"
}

checked=
if have rg; then
    same rg-match rg needle a.txt
    same rg-tree rg --sort path needle
    same rg-none rg nothing-like-this a.txt
    checked="$checked rg"
fi
if have fdfind; then
    same fd fdfind --color never -j 1 txt
    checked="$checked fdfind"
fi
[ $fail = 0 ] && echo "ok  $checked: the same output and exit status recorded"
exit $fail
