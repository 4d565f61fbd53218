#!/bin/sh
# ioanalyze fleet at scale: BENCH_SCALE_TRACES (default 100,000) traces
# recorded with stacks (the default) on a LocalCluster of 1 and of 2
# workers (one thread each), side by side. Figures only: never pass/fail.
#
# The traces: two samples (sync_per_write, state_rewrite) each compiled
# BENCH_SCALE_IDS/2 times with a varying -DBENCH_VARIANT=I (a constant the
# binary keeps), so BENCH_SCALE_IDS (default 50) distinct build-ids, each
# recorded once with stacks and once with --no-stacks, labelled version=I
# and host=@@@@@@@@. bench/gen_fleet makes a fleet of N from them in
# seconds: trace i is template i % IDS with the host label h(i % HOSTS)
# (BENCH_SCALE_HOSTS, default 1,000) written into it, the first
# lcm(IDS, HOSTS) written as files and the others hard links to them. Every
# trace is still opened and read by the analyzer; the disk holds a few MB.
#
#  0. The analyzer alone: `ioanalyze analyze --each` (what a fleet task
#     runs) over S = N/10 traces, cold cache, warm cache and --no-stacks:
#     the symbolizer's cost without Dask's.
#  1. The symbol cache on the cluster: the same S traces on 2 workers with
#     an empty $XDG_CACHE_HOME (cold), again with the cache it left (warm),
#     and the --no-stacks fleet: stacked over bare, wall and CPU.
#  2. Scale: BENCH_SCALE_ROUNDS rounds (default 3), each running 1 and 2
#     workers (order 1,2 in odd rounds and 2,1 in even ones, so that a drift
#     of the machine's other load falls on both alike) over S and then N
#     traces, warm cache. Per run: the traces/s of the whole command, CPU
#     split into the client's own (X: the reduction, and the LocalCluster's
#     scheduler, which runs in its process), the Dask workers' and the
#     ioanalyze runs'; peak RSS of the client, of the largest worker and of
#     the largest ioanalyze. Per round and worker count, the margin: the
#     slope between the two fleet sizes, (N - S) / (t(N) - t(S)), which
#     leaves out the cluster's start and Python's imports. Reported: medians
#     over the rounds with their spread (min-max), the 2/1 ratio per round
#     (its two runs' conditions are the closest) and its median, and the
#     bound the CPU sets on 2 cores, 2W/(W+X) at the margin, which does not
#     depend on the machine's other load. Each run shows the CPU the rest
#     of the machine used meanwhile (in cores): the wall figures are a
#     quiet machine's only where it stays near 0.
#
# About 5 minutes on an idle 2-core machine at the defaults;
# BENCH_SCALE_TRACES=10000 BENCH_SCALE_ROUNDS=1 is a quick check of the
# method. `make bench` runs it with the others, `make bench-fleet-scale`
# alone.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
R=$BUILD/bin/iorecord
GEN=$BUILD/bin/bench/gen_fleet
PY=/usr/bin/python3
N=${BENCH_SCALE_TRACES:-100000}
SMALL=$((N / 10))
IDS=${BENCH_SCALE_IDS:-50}
HOSTS=${BENCH_SCALE_HOSTS:-1000}
ROUNDS=${BENCH_SCALE_ROUNDS:-3}
for f in "$A" "$R" "$GEN" "$BUILD/lib/fleet/ioanalyze-fleet"; do
    [ -x "$f" ] || { echo "bench_fleet_scale: $f is not built"; exit 0; }
done
command -v cc >/dev/null 2>&1 || { echo "bench_fleet_scale: no C compiler"; exit 0; }
$PY -c 'import distributed' 2>/dev/null ||
    { echo "bench_fleet_scale: /usr/bin/python3 cannot import distributed (python3-distributed)"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-scale.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work" || exit 1
echo "fleet scale: in $work, $(df -Pk . | awk 'NR == 2 { print int($4 / 1024) }') MB free"
mkdir bin stk bare data
t0=$(date +%s)
echo 'static const volatile int bench_variant __attribute__((used)) = BENCH_VARIANT;' >variant.h
i=0
while [ $i -lt "$IDS" ]; do
    s=sync_per_write
    [ $((i % 2)) = 1 ] && s=state_rewrite
    cc -std=c11 -O1 -g -D_GNU_SOURCE -rdynamic -I"$TOP/samples" -DBENCH_VARIANT=$i \
        -include variant.h -o "bin/$s.$i" "$TOP/samples/$s.c" -lpthread ||
        { echo "bench_fleet_scale: cannot compile $s"; exit 0; }
    for k in stk bare; do
        flag=
        [ $k = bare ] && flag=--no-stacks
        "$R" $flag -o "$k/$(printf %03d $i).zst" --label version=$i --label host=@@@@@@@@ -- \
            "bin/$s.$i" "data/$k.$i" >/dev/null 2>&1 ||
            { echo "bench_fleet_scale: recording $s failed"; exit 0; }
    done
    rm -rf "data/stk.$i" "data/bare.$i"
    i=$((i + 1))
done
ids=$(for f in bin/*; do readelf -n "$f" | sed -n 's/.*Build ID: //p'; done | sort -u | wc -l)
echo "fleet scale: $IDS binaries, $ids distinct build-ids, recorded in $(($(date +%s) - t0)) s;" \
     "templates $(du -k stk | cut -f1) KiB with stacks, $(du -k bare | cut -f1) KiB without"

# the pool of distinct files: a multiple of both, so that a hard link has
# its target's template and host
pool=$($PY -c "import math; print($IDS * $HOSTS // math.gcd($IDS, $HOSTS))")
t0=$(date +%s)
"$GEN" --pool "$pool" --hosts "$HOSTS" big "$N" stk/*.zst >gen.out &&
    "$GEN" --pool "$pool" --hosts "$HOSTS" small "$SMALL" stk/*.zst >>gen.out &&
    "$GEN" --pool "$pool" --hosts "$HOSTS" small_bare "$SMALL" bare/*.zst >>gen.out ||
    { echo "bench_fleet_scale: generating the fleets failed"; exit 0; }
sed 's/^/  /' gen.out
echo "fleet scale: fleets of $N, $SMALL and $SMALL (bare) traces made in" \
     "$(($(date +%s) - t0)) s; $(du -sk . | cut -f1) KiB on disk here"

# measure PHASE ROUND WORKERS TRACES COMMAND...: one measured run, its JSON
# line appended to runs
measure() {
    tag="$1 $2 $3 $4"
    shift 4
    line=$($PY "$TOP/bench/fleet_measure.py" -- "$@")
    echo "$tag $line" >>runs
    $PY - "$tag" "$line" <<'PY'
import json, sys
p, r, w, n = sys.argv[1].split()
j = json.loads(sys.argv[2])
who = "--each" if w == "0" else "%s worker(s)" % w
print("  %s%s, %s, %s traces: %.2f s, CPU %.2f s (client %.2f, Dask %.2f), peak RSS client "
      "%d KiB, worker %d, ioanalyze %d; others' CPU %.2f cores%s"
      % (p, "" if r == "-" else " round " + r, who, n, j["wall"], j["cpu"], j["client_cpu"],
         j["dask_cpu"], j["client_kib"], j["worker_kib"], j["ioanalyze_kib"],
         j["others_cpu"] / j["wall"], "" if j["rc"] == 0 else "; FAILED: " + j["err"]))
PY
}
# fleet PHASE ROUND WORKERS TRACES DIR: ioanalyze fleet over DIR
fleet() {
    measure "$1" "$2" "$3" "$4" "$A" fleet --workers "$3" --progress never -o /dev/null "$work/$5"
}
# each PHASE TRACES DIR: ioanalyze analyze --each over DIR's traces, as many
# a process as a command line holds (xargs)
each() {
    measure "$1" - 0 "$2" sh -c 'find "$1" -type f -print0 | sort -z |
        xargs -0 "$2" analyze --each --format json --min-severity low >/dev/null' sh "$work/$3" "$A"
}
: >runs
XDG_CACHE_HOME=$work/cache
export XDG_CACHE_HOME
unset IOSCOPE_SYMCACHE IOSCOPE_SYMCACHE_MAX_MB
echo "fleet scale: 0. ioanalyze analyze --each over $SMALL traces"
each each_cold "$SMALL" small
each each_warm "$SMALL" small
each each_bare "$SMALL" small_bare
rm -rf "$XDG_CACHE_HOME"
echo "fleet scale: 1. the symbol cache, $SMALL traces on 2 workers"
fleet cold - 2 "$SMALL" small
fleet warm - 2 "$SMALL" small
fleet bare - 2 "$SMALL" small_bare
echo "fleet scale: 2. $SMALL and $N traces on 1 and 2 workers, $ROUNDS round(s), warm cache"
r=1
while [ $r -le "$ROUNDS" ]; do
    order="1 2"
    [ $((r % 2)) = 0 ] && order="2 1"
    for w in $order; do
        fleet scale $r $w "$SMALL" small
        fleet scale $r $w "$N" big
    done
    r=$((r + 1))
done
$PY "$TOP/bench/fleet_scale_report.py" runs "$N" "$SMALL" "$ids"
echo "fleet scale: $(du -sk . | cut -f1) KiB here before clean-up; the symbol cache" \
     "$(du -sk cache 2>/dev/null | cut -f1) KiB"
