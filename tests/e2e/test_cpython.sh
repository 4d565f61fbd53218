#!/bin/sh
# A real program's own I/O test suite under the recorder: CPython's
# `python3 -m test test_fileio test_os` must pass exactly as it does without
# it (same status, same counts of tests run, skipped and failed), and the
# trace of its ~100 processes must read undamaged. Skipped when the Python
# test package is not installed (Debian: libpython3.X-testsuite).
# e2e: slow (about 12 s here: CPython's I/O tests, recorded and not)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "no python3"
python3 -c 'import test.test_fileio, test.test_os' >/dev/null 2>&1 ||
    skip "the python3 test package (test_fileio, test_os) is not installed"

# test_os runs children with an emptied environment; the recorder puts
# itself back into their LD_PRELOAD, but an ASan-built recorder would also
# need the ASan runtime there, which it does not know about.
if ldd "$LIBIORECORD" 2>/dev/null | grep -q libasan; then
    echo "skip: the recorder is built with ASan (children with a cleared environment cannot load it)"
    exit 77
fi

work_dir cpython
mkdir "$work/plain" "$work/rec"

# What a run says about itself, without timings: the per-test results and
# the totals ("Total tests: run=410 skipped=51", "Result: SUCCESS").
summary() {
    grep -E '^(Total tests|Total test files|Result):|^[0-9]+ tests? (OK|failed|skipped)|^All [0-9]+ tests OK' "$1"
}

(cd "$work/plain" && python3 -m test test_fileio test_os >"$work/plain.out" 2>&1)
plain_rc=$?
(cd "$work/rec" && asan_preload "$LIBIORECORD" && "$IORECORD" -o "$work/trace.zst" -- python3 -m test test_fileio test_os >"$work/rec.out" 2>&1)
rec_rc=$?

failed=0
if [ $rec_rc -ne $plain_rc ]; then
    echo "FAIL: exit status $rec_rc under the recorder, $plain_rc without"
    tail -n 30 "$work/rec.out"
    failed=1
fi
summary "$work/plain.out" >"$work/plain.sum"
summary "$work/rec.out" >"$work/rec.sum"
[ -s "$work/plain.sum" ] || { echo "FAIL: no test summary from python3 -m test"; tail -n 20 "$work/plain.out"; exit 1; }
if ! cmp -s "$work/plain.sum" "$work/rec.sum"; then
    echo "FAIL: the test results differ under the recorder (< without, > with)"
    diff "$work/plain.sum" "$work/rec.sum"
    failed=1
fi
if ! "$IOANALYZE" info "$work/trace.zst" >"$work/info" 2>"$work/info.err"; then
    echo "FAIL: ioanalyze info: $(cat "$work/info.err")"
    failed=1
elif ! grep -q '^damage: none' "$work/info"; then
    echo "FAIL: the trace is damaged: $(grep '^damage:' "$work/info")"
    failed=1
fi
[ $failed -eq 0 ] && echo "ok: $(grep '^Total tests' "$work/rec.sum") under the recorder as without; $(grep '^events:' "$work/info"), $(grep '^processes:' "$work/info")"
exit $failed
