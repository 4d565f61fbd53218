#!/bin/sh
# Trace format: encode and decode rates and bytes/event for (a) a tight loop
# of identical 1-byte reads and (b) a mixed realistic sequence of calls, beside
# `zstd -dc` of the same file. Figures only.
BUILD=${BUILD:-build}
B=$BUILD/bin/bench
N=${BENCH_FORMAT_EVENTS:-20000000}
tmp=$(mktemp -d /tmp/ioscope-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

secs() {  # run a command, print its wall time in seconds
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    echo "$s $e" | awk '{printf "%.3f", $2 - $1}'
}

printf '%-8s %12s %12s %14s %14s %12s\n' case events bytes/event "encode Mev/s" "decode Mev/s" "zstd -dc s"
for kind in tight mixed; do
    f=$tmp/$kind.zst
    enc=$($B/gen_trace --$kind "$N" "$f" 2>&1 | sed -n 's/.*, \([0-9.]*\) bytes\/event, encode \([0-9.]*\) M.*/\1 \2/p')
    dec=$($B/read_trace "$f" | sed -n 's/.*: \([0-9.]*\) M events.*/\1/p')
    z=$(secs zstd -q -dc "$f")
    set -- $enc
    printf '%-8s %12s %12s %14s %14s %12s\n' "$kind" "$N" "$1" "$2" "$dec" "$z"
done
echo "goals: tight <= 4 bytes/event; tight decode >= 50 M events/s on one core"
