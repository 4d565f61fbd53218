#!/bin/sh
# strace import: ioanalyze info on generated strace logs, beside a plain read
# of the same file (cat), with peak RSS. Two shapes:
#   unfinished  1 M lines "PID T read(3, <unfinished ...>" from 100,000 pids,
#               the worst case for the importer's task and pending-call
#               bookkeeping (it must stay linear in the number of pids)
#   calls       1 M complete read/write lines of one process (strace -f -ttt -T -y)
# BENCH_STRACE_LINES overrides 1 M. Figures only: never pass/fail on time.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
N=${BENCH_STRACE_LINES:-1000000}
[ -x "$A" ] || { echo "bench_strace: $A is not built"; exit 0; }
command -v awk >/dev/null 2>&1 || { echo "bench_strace: awk is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-st.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
    printf "%d 1700000000.%06d read(3, <unfinished ...>\n", 100000 + i % 100000, i % 1000000 }' \
    >"$work/unfinished.log"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
    printf "4242 1700000000.%06d %s(3</data/f.bin>, \"x\"..., 4096) = 4096 <0.000002>\n",
           i % 1000000, i % 2 ? "write" : "read" }' >"$work/calls.log"

. "$TOP/bench/lib.sh"

printf '%-11s %9s %10s %10s %10s %12s\n' log lines MB "cat s" "info s" "info RSS KB"
for log in unfinished calls; do
    f=$work/$log.log
    mb=$(wc -c <"$f" | awk '{printf "%.1f", $1 / 1048576}')
    c=$(run cat "$f")
    i=$(run "$A" info "$f")
    printf '%-11s %9s %10s %10s %10s %12s\n' "$log" "$N" "$mb" "${c% *}" "${i% *}" "${i#* }"
done
