#!/bin/sh
# Runs every bench/bench_*.sh in order. Figures only: never pass/fail on time.
BUILD=${BUILD:-build}
export BUILD
export TOP=$(cd "$(dirname "$0")/.." && pwd)
for b in "$TOP"/bench/bench_*.sh; do
    [ -e "$b" ] || continue
    echo "== $(basename "$b" .sh)"
    sh "$b" || echo "(bench $(basename "$b") failed: exit $?)"
done
