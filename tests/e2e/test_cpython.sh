#!/bin/sh
# A real program's own I/O test suite under the recorder: CPython's
# `python3 -m test test_fileio test_os` must pass exactly as it does without
# it (same status, same counts of tests run, skipped and failed), and the
# trace of its ~100 processes must read undamaged. Skipped when the Python
# test package is not installed (Debian: libpython3.X-testsuite).
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
for f in "$IORECORD" "$IOANALYZE" "$BUILD/lib/libiorecord.so"; do
    [ -e "$f" ] || { echo "skip: '$f' is not built"; exit 77; }
done
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
python3 -c 'import test.test_fileio, test.test_os' >/dev/null 2>&1 ||
    { echo "skip: the python3 test package (test_fileio, test_os) is not installed"; exit 77; }

. "$TOP/tests/e2e/lib.sh"

# test_os runs children with an emptied environment; the recorder puts
# itself back into their LD_PRELOAD, but an ASan-built recorder would also
# need the ASan runtime there, which it does not know about.
if ldd "$BUILD/lib/libiorecord.so" 2>/dev/null | grep -q libasan; then
    echo "skip: the recorder is built with ASan (children with a cleared environment cannot load it)"
    exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-cpython.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/plain" "$T/rec"

# What a run says about itself, without timings: the per-test results and
# the totals ("Total tests: run=410 skipped=51", "Result: SUCCESS").
summary() {
    grep -E '^(Total tests|Total test files|Result):|^[0-9]+ tests? (OK|failed|skipped)|^All [0-9]+ tests OK' "$1"
}

(cd "$T/plain" && python3 -m test test_fileio test_os >"$T/plain.out" 2>&1)
plain_rc=$?
(cd "$T/rec" && asan_preload "$BUILD/lib/libiorecord.so" && "$IORECORD" -o "$T/trace.zst" -- python3 -m test test_fileio test_os >"$T/rec.out" 2>&1)
rec_rc=$?

failed=0
if [ $rec_rc -ne $plain_rc ]; then
    echo "FAIL: exit status $rec_rc under the recorder, $plain_rc without"
    tail -n 30 "$T/rec.out"
    failed=1
fi
summary "$T/plain.out" >"$T/plain.sum"
summary "$T/rec.out" >"$T/rec.sum"
[ -s "$T/plain.sum" ] || { echo "FAIL: no test summary from python3 -m test"; tail -n 20 "$T/plain.out"; exit 1; }
if ! cmp -s "$T/plain.sum" "$T/rec.sum"; then
    echo "FAIL: the test results differ under the recorder (< without, > with)"
    diff "$T/plain.sum" "$T/rec.sum"
    failed=1
fi
if ! "$IOANALYZE" info "$T/trace.zst" >"$T/info" 2>"$T/info.err"; then
    echo "FAIL: ioanalyze info: $(cat "$T/info.err")"
    failed=1
elif ! grep -q '^damage: none' "$T/info"; then
    echo "FAIL: the trace is damaged: $(grep '^damage:' "$T/info")"
    failed=1
fi
[ $failed -eq 0 ] && echo "ok: $(grep '^Total tests' "$T/rec.sum") under the recorder as without; $(grep '^events:' "$T/info"), $(grep '^processes:' "$T/info")"
exit $failed
