#!/bin/sh
# Many processes: the analyzer's per-process and per-(process, path) tables.
#   procs   a native trace of N processes (5,000 and 30,000: bench/gen_procs)
#           each opening, reading (slowly, on its main thread) and closing
#           the same path and leaving two files open, beside a worker
#           thread; analyze's time for both and their ratio (linear: 30k/5k
#           near 6, never near 36)
#   strace  an strace -f log of 200,000 pids, each an open, a read, a close
#           and its exit; info's and analyze's time and peak RSS (what the
#           importer keeps of an exited process is a few hundred bytes)
# BENCH_MANY_PIDS overrides the strace log's 200,000. Figures only: never
# pass/fail on time.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
G=$BUILD/bin/bench/gen_procs
PIDS=${BENCH_MANY_PIDS:-200000}
[ -x "$A" ] || { echo "bench_many_procs: $A is not built"; exit 0; }
[ -x "$G" ] || { echo "bench_many_procs: $G is not built"; exit 0; }
command -v awk >/dev/null 2>&1 || { echo "bench_many_procs: awk is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-mp.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

"$G" 5000 "$work/p5k.zst" || exit 0
"$G" 30000 "$work/p30k.zst" || exit 0
awk -v n="$PIDS" 'BEGIN { for (i = 0; i < n; i++) { p = 10000 + i; s = i % 1000000
    printf "%d 1700000000.%06d openat(AT_FDCWD, \"/data/shared.conf\", O_RDONLY) = 3 <0.000010>\n", p, s
    printf "%d 1700000000.%06d read(3, \"x\"..., 4096) = 100 <0.000002>\n", p, s
    printf "%d 1700000000.%06d close(3) = 0 <0.000001>\n", p, s
    printf "%d 1700000000.%06d +++ exited with 0 +++\n", p, s } }' >"$work/pids.log"

. "$TOP/bench/lib.sh"

printf '%-22s %9s %8s %12s\n' input events "s" "RSS KB"
a=$(run "$A" analyze --format json "$work/p5k.zst")
b=$(run "$A" analyze --format json "$work/p30k.zst")
printf '%-22s %9s %8s %12s\n' "analyze 5k processes" 40000 "${a% *}" "${a#* }"
printf '%-22s %9s %8s %12s\n' "analyze 30k processes" 240000 "${b% *}" "${b#* }"
echo "${a% *} ${b% *}" | awk '{ if ($1 > 0) printf "30k/5k time ratio: %.1f (linear: 6)\n", $2 / $1 }'
c=$(run "$A" info "$work/pids.log")
printf '%-22s %9s %8s %12s\n' "strace info $PIDS pids" $((PIDS * 4)) "${c% *}" "${c#* }"
c=$(run "$A" analyze --format json "$work/pids.log")
printf '%-22s %9s %8s %12s\n' "strace analyze" $((PIDS * 4)) "${c% *}" "${c#* }"
