#!/bin/sh
# The recorder leaves the program's shape as it is (issue 16): run natively,
# under iorecord and preloaded without it, a program sees the same threads,
# the same children to wait for, the same signal mask and dispositions; its
# last thread's pthread_exit ends it; a thread can fork; unshare(CLONE_NEWUSER)
# (which needs a single-threaded caller) behaves as it does natively; and
# CPython's test of a join in a process forked from a thread passes. The
# traces hold what each did.
# e2e: slow (about 6 s CPU here: the recorder's shapes over many calls)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/bin/progs/rec_shape"
work_dir rec-shape
prog=$BUILD/bin/progs/rec_shape
asan=$(asan_env "$LIBIORECORD")
[ -z "$asan" ] || skip "sanitizer build: a sanitizer runtime brings threads of its own"

# each MODE: native, under iorecord, preloaded; same output, same status
for mode in shape pthread_exit fork_thread unshare; do
    timeout 30 "$prog" $mode >"$work/$mode.native" 2>&1
    nrc=$?
    [ $nrc -ne 124 ] || not_ok "$mode: hangs natively"
    timeout 30 "$IORECORD" -o "$work/$mode.zst" -- "$prog" $mode >"$work/$mode.rec" 2>&1
    rc=$?
    [ $rc -ne 124 ] || not_ok "$mode: hangs under iorecord"
    [ $rc -eq $nrc ] || not_ok "$mode: exit $rc under iorecord, $nrc natively"
    cmp -s "$work/$mode.native" "$work/$mode.rec" ||
        not_ok "$mode under iorecord: $(diff "$work/$mode.native" "$work/$mode.rec")"
    # the preload for the program alone, not for timeout
    timeout 30 sh -c 'LD_PRELOAD=$1 IORECORD_OUTPUT=$2 exec "$3" "$4"' sh \
        "$LIBIORECORD" "$work/$mode.pre.zst" "$prog" $mode >"$work/$mode.pre" 2>&1
    rc=$?
    [ $rc -ne 124 ] || not_ok "$mode: hangs preloaded"
    [ $rc -eq $nrc ] || not_ok "$mode: exit $rc preloaded, $nrc natively"
    cmp -s "$work/$mode.native" "$work/$mode.pre" ||
        not_ok "$mode preloaded: $(diff "$work/$mode.native" "$work/$mode.pre")"
    for t in "$work/$mode.zst" "$work/$mode.pre.zst"; do
        "$IOANALYZE" info "$t" >"$t.info" 2>&1 || not_ok "$mode: info on $t failed"
        grep -q '^damage: none' "$t.info" || not_ok "$mode: $(grep damage "$t.info")"
    done
done
grep -qx 'threads: 1' "$work/shape.native" || not_ok "shape: $(head -1 "$work/shape.native")"

# what the traces hold: the exit of a process whose main thread left
# first; a child forked by a thread with its own process record
for t in "$work/pthread_exit.zst" "$work/pthread_exit.pre.zst"; do
    grep -q '^processes: 1$' "$t.info" || not_ok "pthread_exit: $(grep -A2 '^processes' "$t.info")"
    grep -q 'exit status 0' "$t.info" || not_ok "pthread_exit: no exit recorded"
    "$IOANALYZE" dump "$t" | grep -c '"op":"fopen".*"/proc/self/stat"' >"$work/n"
    [ "$(cat "$work/n")" -eq 3 ] || not_ok "pthread_exit: $(cat "$work/n") fopens recorded, not 3"
done
for t in "$work/fork_thread.zst" "$work/fork_thread.pre.zst"; do
    grep -q '^processes: 2$' "$t.info" || not_ok "fork_thread: $(grep -A3 '^processes' "$t.info")"
    # its 3 calls (the cwd note after its process record is not a call)
    grep -q "rec_shape fork_thread\] 3 calls, exit status 7" "$t.info" ||
        not_ok "fork_thread: the child: $(grep '^  pid' "$t.info")"
done

# CPython: a join in a process forked from a thread (it hung with the
# recorder's own thread)
if have python3 && python3 -c 'import test.test_threading' 2>/dev/null; then
    set -- python3 -m test test_threading -m test_3_join_in_forked_from_thread
    (cd "$work" && timeout 120 "$@" >"$work/py.native" 2>&1)
    nrc=$?
    (cd "$work" && timeout 120 "$IORECORD" -o "$work/py.zst" -- "$@" >"$work/py.rec" 2>&1)
    rc=$?
    [ $rc -eq $nrc ] || not_ok "CPython join in a forked thread: exit $rc under iorecord, $nrc natively"
    grep -q '^Result: SUCCESS' "$work/py.rec" || not_ok "CPython: $(tail -3 "$work/py.rec")"
fi
# Python 3.12 warns on fork() in a multi-threaded process: not here
if python3.12 -c pass 2>/dev/null; then
    out=$("$IORECORD" -o "$work/py12.zst" -- python3.12 -W error::DeprecationWarning \
        -c 'import os; pid = os.fork(); os._exit(0) if pid == 0 else os.waitpid(pid, 0)' 2>&1) ||
        not_ok "python3.12 fork under iorecord: $out"
fi
exit $fail
