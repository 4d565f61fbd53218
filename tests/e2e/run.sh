#!/bin/sh
# Runs tests/e2e/test_*.sh; each exits 0 (pass), 77 (skipped, with a
# reason on stdout) or anything else (fail). BUILD names the build tree.
#
#   run.sh          every test (make test)
#   run.sh --fast   all but the slow ones (make check)
#
# A test is slow when it has a line "# e2e: slow (about N s here: why)";
# those lines are the only list of the slow tests. A test that takes more
# than 5 s on a loaded 2-core machine gets one, which keeps make check
# under two minutes there.
BUILD=${BUILD:-build}
export BUILD
export TOP=$(cd "$(dirname "$0")/../.." && pwd)
fast=0
case ${1:-} in
    --fast) fast=1 ;;
    "") ;;
    *) echo "usage: run.sh [--fast]" >&2; exit 2 ;;
esac
pass=0 fail=0 skip=0 slow=0 failed=""
for t in "$TOP"/tests/e2e/test_*.sh; do
    [ -e "$t" ] || continue
    if [ $fast -eq 1 ] && grep -q '^# e2e: slow' "$t"; then
        slow=$((slow + 1))
        continue
    fi
    name=$(basename "$t" .sh)
    out=$(sh "$t" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "PASS $name"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -n 1)"
    else
        fail=$((fail + 1)); failed="$failed $name"
        echo "FAIL $name (exit $rc)"; echo "$out" | tail -n 30 | sed 's/^/    /'
    fi
done
summary="e2e: $pass passed, $fail failed, $skip skipped"
[ $slow -eq 0 ] || summary="$summary, $slow slow not run (make test runs them)"
echo "$summary"
[ $fail -eq 0 ]
