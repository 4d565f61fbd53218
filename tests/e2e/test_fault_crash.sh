#!/bin/sh
# A program with its own SIGSEGV/SIGABRT handlers crashes under the
# recorder (tests/progs/fault_crash.c): its handlers still run (same output),
# it ends as it does without the recorder (same status: killed by the
# signal, or its handler's _exit), and the trace up to the last flush
# reads: every call made before the program's 2.5 s pause is in it.
# e2e: slow (about 16 s here: deliberate crashes, many runs)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PROG=$BUILD/bin/progs/fault_crash
CALLS=20000
need_built "$PROG" "$IORECORD" "$IOANALYZE" "$LIBIORECORD"

work_dir crash
failed=0
bad() {
    echo "FAIL [$mode]: $*"
    failed=1
}

for mode in segv abort segv-exit; do
    mkdir "$work/$mode"
    # No core files from the deliberate crashes, and no "Segmentation
    # fault" from the shell: the subshell's stderr is the test's to drop.
    (ulimit -c 0; "$PROG" "$work/$mode" $mode $CALLS >"$work/$mode.ref") 2>/dev/null
    ref_rc=$?
    (ulimit -c 0; asan_preload "$LIBIORECORD"; "$IORECORD" -o "$work/$mode.zst" -- "$PROG" "$work/$mode" $mode $CALLS \
        >"$work/$mode.out" 2>"$work/$mode.err") 2>/dev/null
    rc=$?
    # iorecord reports death by signal N as 128+N, as the shell does.
    [ $rc -eq $ref_rc ] || bad "exit status $rc under the recorder, $ref_rc without"
    grep -q '^handler: SIG' "$work/$mode.ref" || bad "the program's handler did not run even without the recorder"
    cmp -s "$work/$mode.ref" "$work/$mode.out" || { bad "output differs (did its handler run?)"; diff "$work/$mode.ref" "$work/$mode.out"; }
    if ! "$IOANALYZE" info "$work/$mode.zst" >"$work/$mode.info" 2>"$work/$mode.ierr"; then
        bad "the trace does not read: $(cat "$work/$mode.ierr")"
        continue
    fi
    want=$(sed -n 's/^before the last flush: \([0-9]*\) calls$/\1/p' "$work/$mode.ref")
    # pwrite+pread pairs and the open before the pause, per op
    for op in pwrite pread; do
        n=$(sed -n "s/^  $op  *\([0-9]*\)\$/\1/p" "$work/$mode.info")
        [ "${n:-0}" -ge $CALLS ] || bad "$op: ${n:-0} calls in the trace, at least $CALLS were made before the last flush"
    done
    echo "  [$mode] exit $rc, $(grep '^events:' "$work/$mode.info"); $(grep '^damage:' "$work/$mode.info"); $want calls before the pause"
done
[ $failed -eq 0 ] && echo "ok: crashing programs keep their handlers and status; traces up to the last flush read"
exit $failed
