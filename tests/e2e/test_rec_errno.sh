#!/bin/sh
# errno is the program's (tests/unit/test_recorder_errno.c drives every
# wrapper): a failing read called from JIT code (anonymous executable
# memory, no perf map) leaves EAGAIN recorded as natively, and Erlang, whose
# runtime aborts when its wakeup pipe's read reports anything but EAGAIN,
# starts recorded 20 times in 20 with its output and exit status.
# e2e: slow (about 20 s here: 20 recorded Erlang VM starts)
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_jiterrno
need_built "$IORECORD" "$PROG"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir errno
cd "$work" || exit 1

"$PROG" > native.txt; rc=$?
[ $rc = 3 ] && skip "writable executable memory is refused here"
[ $rc = 0 ] || die "plain run: exit $rc"
[ "$(cat native.txt)" = "11 11 11 11 11 11 11 11" ] || die "plain run: $(cat native.txt) (not EAGAIN)"
for stacks in --stacks --no-stacks; do
    "$IORECORD" $stacks -o jit.zst -- "$PROG" > rec.txt; rc=$?
    [ $rc = 0 ] || not_ok "jit $stacks: exit $rc"
    cmp -s native.txt rec.txt || not_ok "jit $stacks: recorded '$(cat rec.txt)', plain '$(cat native.txt)'"
done

if ! have erl; then
    echo "SKIP erl: Erlang is not installed"
else
    ok=0
    for i in $(seq 1 20); do
        out=$("$IORECORD" -o "erl$i.zst" -- erl -noshell -eval 'io:format("hi~n"), halt().' 2> "erl$i.err"); rc=$?
        if [ $rc = 0 ] && [ "$out" = hi ]; then
            ok=$((ok + 1))
        else
            echo "erl run $i: exit $rc, output '$out', stderr: $(head -c 300 "erl$i.err")"
        fi
        rm -f "erl$i.zst"
    done
    [ $ok = 20 ] || not_ok "erl started recorded $ok times in 20"
fi
[ $fail = 0 ] && echo "ok   errno of JIT code's failing read as native; erl starts recorded 20 in 20"
exit $fail
