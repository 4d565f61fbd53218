#!/bin/sh
# Runs tests/e2e/test_*.sh; each exits 0 (pass), 77 (skipped, with a
# reason on stdout) or anything else (fail). BUILD names the build tree.
#
#   run.sh          every test (make test)
#   run.sh --fast   all but the slow ones (make check)
#   run.sh --slow   the slow ones only (make e2e-slow: with make check, make test's)
#
# A test is slow when it has a line "# e2e: slow (about N s CPU here: why)";
# those lines are the only list of the slow tests. A test that takes more
# than about 5 s of CPU gets one, which keeps make check under two minutes
# on a 2-core machine.
#
# A test that passes with a part of it not run says so on a line
# "SKIP <part>: <reason>" (lib.sh's skip_part): each is shown under the
# test and counted in the summary. Each test's time is shown: seconds of
# CPU (its own and its children's, which load on the machine does not
# inflate) and of wall clock.
BUILD=${BUILD:-build}
export BUILD
export TOP=$(cd "$(dirname "$0")/../.." && pwd)
mode=all
case ${1:-} in
    --fast) mode=fast ;;
    --slow) mode=slow ;;
    "") ;;
    *) echo "usage: run.sh [--fast|--slow]" >&2; exit 2 ;;
esac

# The CPU seconds this shell's children have used: the second line of
# `times`, which must run in this shell (in a $(...) subshell it would
# count that subshell's children), so it goes through a file.
times_file=$(mktemp "${TMPDIR:-/tmp}/ioscope-e2e-times.XXXXXX") || exit 1
trap 'rm -f "$times_file"' EXIT
children_cpu() {
    awk 'NR == 2 {
        n = split($0, f, " "); s = 0
        for (i = 1; i <= n; i++) { split(f[i], ms, "m"); sub("s", "", ms[2]); s += ms[1] * 60 + ms[2] }
        printf "%.1f", s }' "$times_file"
}

pass=0 fail=0 skip=0 slow=0 parts=0 failed=""
start=$(date +%s)
for t in "$TOP"/tests/e2e/test_*.sh; do
    [ -e "$t" ] || continue
    is_slow=0
    grep -q '^# e2e: slow' "$t" && is_slow=1
    if { [ $mode = fast ] && [ $is_slow = 1 ]; } || { [ $mode = slow ] && [ $is_slow = 0 ]; }; then
        slow=$((slow + 1))
        continue
    fi
    name=$(basename "$t" .sh)
    times >"$times_file"; cpu0=$(children_cpu)
    t0=$(date +%s)
    out=$(sh "$t" 2>&1)
    rc=$?
    times >"$times_file"; cpu=$(awk -v a="$cpu0" -v b="$(children_cpu)" 'BEGIN { printf "%.1f", b - a }')
    took="($cpu s CPU, $(($(date +%s) - t0)) s)"
    if [ $rc -eq 0 ]; then
        pass=$((pass + 1)); echo "PASS $name $took"
    elif [ $rc -eq 77 ]; then
        skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -n 1) $took"
    else
        fail=$((fail + 1)); failed="$failed $name"
        echo "FAIL $name (exit $rc) $took"; echo "$out" | tail -n 30 | sed 's/^/    /'
    fi
    if [ $rc -ne 77 ]; then
        # the parts it did not run: "SKIP <part>: <reason>" lines
        n=$(echo "$out" | grep -c '^ *SKIP [^:]*: ')
        if [ "$n" -gt 0 ]; then
            parts=$((parts + n))
            echo "$out" | grep '^ *SKIP [^:]*: ' | sed 's/^ */    part not run: /; s/^    part not run: SKIP /    part not run: /'
        fi
    fi
done
summary="e2e: $pass passed, $fail failed, $skip skipped, $parts parts skipped (SKIP lines above)"
case $mode in
    fast) [ $slow -eq 0 ] || summary="$summary, $slow slow not run (make test runs them)" ;;
    slow) summary="$summary (the slow tests; make check runs the $slow others)" ;;
esac
echo "$summary; $(($(date +%s) - start)) s"
[ $fail -eq 0 ]
