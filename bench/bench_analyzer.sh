#!/bin/sh
# Analyzer throughput and memory: a generated trace of N events (default
# 50 M, BENCH_EVENTS overrides) analysed on one CPU (-j1, pinned), on two
# threads (-j2: the reader's thread decodes and merges, the calling one runs
# the engine, and on two CPUs both decompress ahead while they would wait;
# docs/analyzer.md, "Threads") and by default (two threads where the process may use two CPUs
# and the trace has 8 MiB or more), beside `zstd --no-asyncio -dc` of the
# same file on one CPU and on all (Debian's zstd 1.5.4 otherwise
# decompresses with asynchronous I/O, which is 2.5x slower on 2 cores).
# Each row: median wall seconds, median CPU seconds (user + system), M
# events/s, wall over zstd's on as many CPUs, peak RSS; then peak RSS for a
# trace 10x shorter.
# Goals: -j2 >= 45 M events/s and within 2x of zstd (1.5x the stretch);
# -j1 within 3x; RSS(long) <= 1.2 x RSS(short). Figures only: never
# pass/fail on time.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
GEN=$BUILD/bin/bench/gen_trace
READ=$BUILD/bin/bench/read_trace
N=${BENCH_EVENTS:-50000000}
for f in "$A" "$GEN"; do
    [ -x "$f" ] || { echo "bench_analyzer: $f is not built (make bench builds it)"; exit 0; }
done
command -v zstd >/dev/null 2>&1 || { echo "bench_analyzer: zstd is not installed"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench_analyzer: /usr/bin/time (Debian: time) is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-an.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
ONE=""
command -v taskset >/dev/null 2>&1 && ONE="taskset -c 0"
# zstd's own switch; an older zstd has no asynchronous I/O to turn off
ZSTD="zstd --no-asyncio"
echo x | zstd -q -c | zstd --no-asyncio -dc >/dev/null 2>&1 || ZSTD=zstd

now() { date +%s.%N; }
# measure TAG CMD...: one run of CMD, its output discarded; appends to
# $work/TAG.wall, .cpu (user + system) and .rss (peak KiB)
measure() {
    tag=$1
    shift
    s=$(now)
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>/dev/null
    e=$(now)
    echo "$s $e" | awk '{print $2 - $1}' >>"$work/$tag.wall"
    awk 'END {print $1 + $2}' "$work/time" >>"$work/$tag.cpu"
    awk 'END {print $3}' "$work/time" >>"$work/$tag.rss"
}
# the median of the figures in file $1
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

short=$((N / 10))
load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$GEN" "$N" "$work/long.zst" 2>/dev/null || { echo "bench_analyzer: gen_trace failed"; exit 0; }
"$GEN" "$short" "$work/short.zst" 2>/dev/null || exit 0
size=$(wc -c <"$work/long.zst")

# Medians of ROUNDS runs each, the tools taking turns in every round: this
# VM's speed drifts by 10-20% over minutes, and turns keep the ratios fair.
ROUNDS=${BENCH_ROUNDS:-5}
for i in $(seq "$ROUNDS"); do
    measure zstd1 $ONE $ZSTD -dc "$work/long.zst"
    measure zstd2 $ZSTD -dc "$work/long.zst"
    # the format library's reader alone: the floor under any analysis
    [ -x "$READ" ] && measure read1 $ONE "$READ" "$work/long.zst"
    measure an1 $ONE "$A" -j1 "$work/long.zst"
    measure an2 "$A" -j2 "$work/long.zst"
    measure and "$A" "$work/long.zst"
    measure prof1 $ONE "$A" profile "$work/long.zst"
done
measure short1 $ONE "$A" -j1 "$work/short.zst"
measure short2 "$A" -j2 "$work/short.zst"

echo "CPUs: $(nproc); load average before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $N events, $(awk -v s="$size" -v n="$N" 'BEGIN {printf "%.1f MB, %.2f bytes/event", s/1e6, s/n}') (bench/gen_trace --mixed)"
printf "%-38s %8s %8s %11s %9s %9s\n" "median of $ROUNDS runs, in turns" "wall s" "CPU s" "M events/s" "x zstd" "RSS KiB"
# row TAG LABEL ZSTD_TAG: one line of the table
row() {
    [ -s "$work/$1.wall" ] || return 0
    awk -v label="$2" -v w="$(med "$work/$1.wall")" -v c="$(med "$work/$1.cpu")" \
        -v r="$(sort -n "$work/$1.rss" | tail -1)" -v z="$(med "$work/$3.wall")" -v n="$N" 'BEGIN {
        printf "%-38s %8.3f %8.3f %11.1f %8.2fx %9d\n", label, w, c, n / w / 1e6, w / z, r
    }'
}
row zstd1 "$ZSTD -dc, one CPU" zstd1
row zstd2 "$ZSTD -dc, two CPUs" zstd2
row read1 "reader alone (read_trace), one CPU" zstd1
row an1 "ioanalyze -j1, one CPU" zstd1
row an2 "ioanalyze -j2, two CPUs" zstd2
row and "ioanalyze (default), two CPUs" zstd2
row prof1 "ioanalyze profile, one CPU" zstd1
echo "x zstd: over zstd's wall time on as many CPUs; goals: -j1 <= 3x, -j2 <= 2x (stretch 1.5x) and >= 45 M events/s"
awk -v a="$(sort -n "$work/an1.rss" | tail -1)" -v b="$(med "$work/short1.rss")" \
    -v c="$(sort -n "$work/an2.rss" | tail -1)" -v d="$(med "$work/short2.rss")" -v n="$N" -v s="$short" 'BEGIN {
    printf "peak RSS -j1: %d KiB for %d events, %d KiB for %d: %.2fx (goal <= 1.2x)\n", a, n, b, s, a / b
    printf "peak RSS -j2: %d KiB for %d events, %d KiB for %d: %.2fx (goal <= 1.2x)\n", c, n, d, s, c / d
}'
