#!/bin/sh
# Analyzer throughput and memory: a generated trace of N events (default
# 50 M, BENCH_EVENTS overrides) analysed on one core (-j1, pinned), on two
# threads (-j2: the reader on one, the engine on another; docs/analyzer.md,
# "Threads") and by default (two threads when the load average leaves two
# CPUs free, else one), beside `zstd --no-asyncio -dc` of the same
# file (Debian's zstd 1.5.4 otherwise decompresses with asynchronous I/O,
# which is 2.5x slower on 2 cores); peak RSS for it and for a trace 10x
# shorter.
# Goals: -j2 >= 45 M events/s and within 2x of zstd (1.5x the
# stretch); -j1 >= 30 M events/s, within 3x; RSS(long) <= 1.2 x
# RSS(short). Figures only: never pass/fail on time.
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
# zstd's own switch; an older zstd has no asynchronous I/O to turn off
ZSTD="zstd --no-asyncio"
echo x | zstd -q -c | zstd --no-asyncio -dc >/dev/null 2>&1 || ZSTD=zstd

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
# wall-clock seconds of one run, pinned to one CPU
secs1() {
    s=$(now); $ONE "$@" >/dev/null 2>&1; e=$(now)
    echo "$s $e" | awk '{print $2 - $1}'
}
# the same on every CPU the bench may use
secs() {
    s=$(now); "$@" >/dev/null 2>&1; e=$(now)
    echo "$s $e" | awk '{print $2 - $1}'
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
    secs1 $ZSTD -dc "$work/long.zst" >>"$work/t_zstd1"
    secs $ZSTD -dc "$work/long.zst" >>"$work/t_zstd"
    # the format library's reader alone: the floor under any analysis
    [ -x "$READ" ] && secs1 "$READ" "$work/long.zst" >>"$work/t_read"
    secs1 "$A" -j1 "$work/long.zst" >>"$work/t_an1"
    secs "$A" -j2 "$work/long.zst" >>"$work/t_an"
    secs "$A" "$work/long.zst" >>"$work/t_and"
    secs1 "$A" profile "$work/long.zst" >>"$work/t_prof"
done
t_zstd1=$(med "$work/t_zstd1") t_zstd=$(med "$work/t_zstd") t_an1=$(med "$work/t_an1")
t_an=$(med "$work/t_an") t_and=$(med "$work/t_and") t_prof=$(med "$work/t_prof") t_read=0
[ -x "$READ" ] && t_read=$(med "$work/t_read")
rss_read="?"
if [ -x "$READ" ]; then
    rss_read=$(rss "$READ" "$work/long.zst")
else
    t_read=0
fi
rss_long=$(rss "$A" -j1 "$work/long.zst")
rss_short=$(rss "$A" -j1 "$work/short.zst")
ONE=""
rss_long2=$(rss "$A" -j2 "$work/long.zst")
rss_short2=$(rss "$A" -j2 "$work/short.zst")

echo "CPUs: $(nproc); load average before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v rounds="$ROUNDS" -v n="$N" -v sz="$size" -v tz1="$t_zstd1" -v tz="$t_zstd" -v ta1="$t_an1" \
    -v ta="$t_an" -v tad="$t_and" -v tp="$t_prof" -v tr="$t_read" -v rr="$rss_read" -v zs="$ZSTD" \
    -v rl="$rss_long" -v rs="$rss_short" -v rl2="$rss_long2" -v rs2="$rss_short2" -v ns="$short" 'BEGIN {
    printf "trace: %d events, %.1f MB, %.2f bytes/event (bench/gen_trace --mixed)\n", n, sz/1e6, sz/n
    printf "%-40s %10s %14s\n", "median of " rounds " runs, in turns", "seconds", "M events/s"
    printf "%-40s %10.3f %14.1f\n", zs " -dc, one CPU", tz1, n/tz1/1e6
    printf "%-40s %10.3f %14.1f\n", zs " -dc", tz, n/tz/1e6
    if (tr > 0)
        printf "%-40s %10.3f %14.1f\n", "reader alone (bench/read_trace), one CPU", tr, n/tr/1e6
    printf "%-40s %10.3f %14.1f   (goal >= 30)\n", "ioanalyze -j1 (all rules), one CPU", ta1, n/ta1/1e6
    printf "%-40s %10.3f %14.1f   (goal >= 45)\n", "ioanalyze -j2 (two threads)", ta, n/ta/1e6
    printf "%-40s %10.3f %14.1f\n", "ioanalyze (default, by the load)", tad, n/tad/1e6
    printf "%-40s %10.3f %14.1f\n", "ioanalyze profile, one CPU", tp, n/tp/1e6
    printf "ioanalyze -j1 / zstd -dc on one CPU: %.2fx (goal <= 3x)\n", ta1/tz1
    printf "ioanalyze -j2 / zstd -dc: %.2fx (goal <= 2x, stretch 1.5x)\n", ta/tz
    if (rl != "?" && rs != "?")
        printf "peak RSS -j1: %d KiB for %d events, %d KiB for %d events: %.2fx (goal <= 1.2x)\n", rl, n, rs, ns, rl/rs
    if (rl2 != "?" && rs2 != "?")
        printf "peak RSS -j2: %d KiB for %d events, %d KiB for %d events: %.2fx (goal <= 1.2x)\n", rl2, n, rs2, ns, rl2/rs2
    if (rr != "?")
        printf "peak RSS of the reader alone on the long trace: %d KiB\n", rr
}'
