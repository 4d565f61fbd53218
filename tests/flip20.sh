#!/bin/sh
# flip20.sh - does the CI gate flip under load? The workload of
# tests/e2e/flip.sh recorded in 20 pairs, each pair while a busy loop runs
# on every core; each pair diffed without and with --ci. Prints one line a
# pair and the tally: how many pairs found something new or fixed.
#
# usage: BUILD=build sh tests/flip20.sh [PAIRS]   (after make; about a minute)
# Exit: 0 when --ci found nothing new or fixed in any pair, 1 otherwise.
. "$(dirname "$0")/e2e/lib.sh"
. "$(dirname "$0")/e2e/flip.sh"
need_built "$IOANALYZE" "$IORECORD" "$BUILD/bin/progs/ci_flip"
pairs=${1:-20}
work_dir flip20
cleanup() {
    flip_busy_stop
    rm -rf "$work"
}
plain_flips=0 ci_flips=0 i=1
while [ "$i" -le "$pairs" ]; do
    line=$(flip_pair "pair$i") || { echo "$line"; exit 2; }
    echo "$line"
    set -- $line
    [ "$3 $4" = "0 0" ] || plain_flips=$((plain_flips + 1))
    [ "$6 $7" = "0 0" ] || ci_flips=$((ci_flips + 1))
    i=$((i + 1))
done
echo "flip20: $pairs pairs under load: without --ci $plain_flips flipped (something new or fixed), with --ci $ci_flips"
[ "$ci_flips" -eq 0 ]
