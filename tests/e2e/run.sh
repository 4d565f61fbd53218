#!/bin/sh
# Runs every tests/e2e/test_*.sh; each exits 0 (pass), 77 (skipped, with a
# reason on stdout) or anything else (fail). BUILD names the build tree.
BUILD=${BUILD:-build}
export BUILD
export TOP=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0 skip=0 failed=""
for t in "$TOP"/tests/e2e/test_*.sh; do
    [ -e "$t" ] || continue
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
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
