#!/bin/sh
# The reports and exports on a generated trace of N events (default 1 M,
# BENCH_REPORT_EVENTS overrides): seconds (best of 3, one core) and output
# size of the issues as JSON (the baseline), --format text, --format html,
# dump --format jsonl and dump --format perfetto. Figures only: never
# pass/fail on time. Goals: a million events in seconds from the Perfetto
# export, and an HTML page that stays small at 10^6 events.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
GEN=$BUILD/bin/bench/gen_trace
N=${BENCH_REPORT_EVENTS:-1000000}
for f in "$A" "$GEN"; do
    [ -x "$f" ] || { echo "bench_reports: $f is not built (make bench builds it)"; exit 0; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-rep.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
ONE=""
command -v taskset >/dev/null 2>&1 && ONE="taskset -c 0"

"$GEN" "$N" "$work/t.zst" 2>/dev/null || { echo "bench_reports: gen_trace failed"; exit 0; }
printf "%-28s %10s %14s\n" "$N events" "seconds" "output bytes"
# what the output is written to: a file, as a user would
row() {
    label=$1
    shift
    best=""
    for i in 1 2 3; do
        s=$(date +%s.%N)
        $ONE "$A" "$@" "$work/t.zst" >"$work/out" 2>/dev/null
        e=$(date +%s.%N)
        best=$(awk -v a="$best" -v s="$s" -v e="$e" 'BEGIN {t = e - s; print (a == "" || t < a + 0) ? t : a}')
    done
    printf "%-28s %10.3f %14d\n" "$label" "$best" "$(wc -c <"$work/out")"
}
row "analyze (JSON issues)" --format json
row "analyze --format text" --format text
row "analyze --format html" --format html
row "dump --format jsonl" dump --format jsonl
row "dump --format perfetto" dump --format perfetto
