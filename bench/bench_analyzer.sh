#!/bin/sh
# Analyzer throughput and memory: a generated trace of N events (default
# 50 M, BENCH_EVENTS overrides) analysed on one core, beside `zstd -dc` of
# the same file; peak RSS for it and for a trace 10x shorter.
# Goals: >= 30 M events/s, within 3x of zstd -dc, RSS(long) <=
# 1.2 x RSS(short). Figures only: never pass/fail on time.
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
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-an.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
ONE=""
command -v taskset >/dev/null 2>&1 && ONE="taskset -c 0"

now() { date +%s.%N; }
# peak RSS in KiB of a command (GNU time), its output discarded
rss() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$work/rss" $ONE "$@" >/dev/null 2>/dev/null
        cat "$work/rss"
    else
        echo "?"
    fi
}
# wall-clock seconds of one run
secs1() {
    s=$(now); $ONE "$@" >/dev/null 2>&1; e=$(now)
    echo "$s $e" | awk '{print $2 - $1}'
}
# the smaller of a best so far ("" at first) and a new figure
min() { awk -v a="$1" -v b="$2" 'BEGIN {print (a == "" || b + 0 < a + 0) ? b : a}'; }

short=$((N / 10))
"$GEN" "$N" "$work/long.zst" 2>/dev/null || { echo "bench_analyzer: gen_trace failed"; exit 0; }
"$GEN" "$short" "$work/short.zst" 2>/dev/null || exit 0
size=$(wc -c <"$work/long.zst")

# Best of ROUNDS runs each, the tools taking turns in every round: this VM's
# speed drifts by 10-20% over minutes, and turns keep the ratios fair.
ROUNDS=${BENCH_ROUNDS:-5}
t_zstd="" t_read="" t_an="" t_prof=""
for i in $(seq "$ROUNDS"); do
    t_zstd=$(min "$t_zstd" "$(secs1 zstd -dc "$work/long.zst")")
    # the format library's reader alone: the floor under any analysis
    [ -x "$READ" ] && t_read=$(min "$t_read" "$(secs1 "$READ" "$work/long.zst")")
    t_an=$(min "$t_an" "$(secs1 "$A" "$work/long.zst")")
    t_prof=$(min "$t_prof" "$(secs1 "$A" profile "$work/long.zst")")
done
rss_read="?"
if [ -x "$READ" ]; then
    rss_read=$(rss "$READ" "$work/long.zst")
else
    t_read=0
fi
rss_long=$(rss "$A" "$work/long.zst")
rss_short=$(rss "$A" "$work/short.zst")

awk -v rounds="$ROUNDS" -v n="$N" -v sz="$size" -v tz="$t_zstd" -v ta="$t_an" -v tp="$t_prof" -v tr="$t_read" -v rr="$rss_read" \
    -v rl="$rss_long" -v rs="$rss_short" -v ns="$short" 'BEGIN {
    printf "trace: %d events, %.1f MB, %.2f bytes/event (bench/gen_trace --mixed)\n", n, sz/1e6, sz/n
    printf "%-34s %10s %14s\n", "best of " rounds " runs, in turns", "seconds", "M events/s"
    printf "%-34s %10.3f %14.1f\n", "zstd -dc (decompression only)", tz, n/tz/1e6
    if (tr > 0)
        printf "%-34s %10.3f %14.1f\n", "reader alone (bench/read_trace)", tr, n/tr/1e6
    printf "%-34s %10.3f %14.1f   (goal >= 30)\n", "ioanalyze (all rules)", ta, n/ta/1e6
    printf "%-34s %10.3f %14.1f\n", "ioanalyze profile", tp, n/tp/1e6
    printf "analyze / zstd -dc: %.2fx (goal <= 3x)\n", ta/tz
    if (rl != "?" && rs != "?")
        printf "peak RSS: %d KiB for %d events, %d KiB for %d events: %.2fx (goal <= 1.2x)\n", rl, n, rs, ns, rl/rs
    if (rr != "?")
        printf "peak RSS of the reader alone on the long trace: %d KiB\n", rr
}'
