#!/bin/sh
# ioanalyze fleet at scale, traces recorded with stacks (the default), on a
# LocalCluster (--workers N). Figures only: never pass/fail.
#
# The traces: two samples (sync_per_write, state_rewrite) each compiled
# BENCH_SCALE_IDS/2 times with a varying -DBENCH_VARIANT=I (a constant the
# binary keeps), so BENCH_SCALE_IDS (default 50) distinct build-ids, each
# recorded once with stacks and once with --no-stacks, labelled
# version=I, host=hI%7. A fleet of N traces is N copies of them, in turn.
#
#  0. The analyzer alone: `ioanalyze analyze --each` (what a fleet task
#     runs) over BENCH_SCALE_SMALL traces in one process, cold cache, warm
#     cache and bare traces: the symbolizer's cost without Dask's.
#  1. Symbol cache, cold and warm: the fleet of BENCH_SCALE_SMALL traces
#     (default N/10) on 2 workers with an empty $XDG_CACHE_HOME, again with
#     the cache it left (warm), and the same fleet recorded --no-stacks:
#     wall and CPU seconds (the whole process tree's), stacked over bare.
#  2. Scale: N = BENCH_SCALE_TRACES (default 100,000) stacked traces and
#     N/10, warm cache, on 1 and on 2 workers: traces/s of the whole command
#     and at the margin ((N - N/10) / (t(N) - t(N/10)), which leaves the
#     cluster's start out), CPU per trace, and the peak RSS of the client,
#     of the largest worker process and of the largest ioanalyze (sampled
#     from /proc, bench/fleet_measure.py).
#
# Generating 100,000 traces writes about 1 GB and takes minutes; the runs
# take longer on a loaded machine. `make bench-fleet-scale` runs this alone;
# BENCH_SCALE_TRACES=10000 is a quicker run.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
R=$BUILD/bin/iorecord
PY=/usr/bin/python3
N=${BENCH_SCALE_TRACES:-100000}
SMALL=$((N / 10))
CACHE_N=${BENCH_SCALE_SMALL:-$SMALL}
IDS=${BENCH_SCALE_IDS:-50}
for f in "$A" "$R" "$BUILD/lib/fleet/ioanalyze-fleet"; do
    [ -x "$f" ] || { echo "bench_fleet_scale: $f is not built"; exit 0; }
done
command -v cc >/dev/null 2>&1 || { echo "bench_fleet_scale: no C compiler"; exit 0; }
$PY -c 'import distributed' 2>/dev/null ||
    { echo "bench_fleet_scale: /usr/bin/python3 cannot import distributed (python3-distributed)"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-scale.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work" || exit 1
mkdir bin stk bare data
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
        "$R" $flag -o "$k/$s.$i.zst" --label version=$i --label host=h$((i % 7)) -- \
            "bin/$s.$i" "data/$k.$i" >/dev/null 2>&1
    done
    rm -rf "data/stk.$i" "data/bare.$i"
    i=$((i + 1))
done
ids=$(for f in bin/*; do readelf -n "$f" | sed -n 's/.*Build ID: //p'; done | sort -u | wc -l)
echo "fleet scale: $IDS binaries, $ids distinct build-ids, traces of $(du -k stk | cut -f1) KiB" \
     "($(ls stk | wc -l) stacked), $(du -k bare | cut -f1) KiB (bare)"

# corpus FROM DIR COUNT: COUNT copies of FROM's traces in turn, 1,000 a directory
corpus() {
    $PY - "$@" <<'PY'
import os, shutil, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(src))
for i in range(n):
    d = "%s/%03d" % (dst, i // 1000)
    if i % 1000 == 0:
        os.makedirs(d)
    shutil.copyfile("%s/%s" % (src, names[i % len(names)]), "%s/t%06d.zst" % (d, i))
PY
}
t0=$(date +%s)
corpus stk c_stk "$CACHE_N"
corpus bare c_bare "$CACHE_N"
corpus stk big "$N"
[ "$SMALL" = "$CACHE_N" ] && ln -s c_stk small || corpus stk small "$SMALL"
echo "fleet scale: corpora of $CACHE_N, $N and $SMALL traces made in $(($(date +%s) - t0)) s"

# run NAME WORKERS DIR: one measured fleet, its JSON line appended to runs
run() {
    line=$($PY "$TOP/bench/fleet_measure.py" -- "$A" fleet --workers "$2" --progress never \
        -o "$work/$1.json" "$3")
    echo "$1 $2 $line" >>runs
    echo "  $1, $2 worker(s): $line"
}
# each NAME DIR: one measured ioanalyze analyze --each over DIR's traces
each() {
    line=$($PY "$TOP/bench/fleet_measure.py" -- "$A" analyze --each --format json \
        --min-severity low "$2")
    echo "$1 0 $line" >>runs
    echo "  $1: $line"
}
: >runs
XDG_CACHE_HOME=$work/cache
export XDG_CACHE_HOME
unset IOSCOPE_SYMCACHE
echo "fleet scale: 0. ioanalyze analyze --each over $CACHE_N traces"
each each_cold c_stk
each each_warm c_stk
each each_bare c_bare
rm -rf "$XDG_CACHE_HOME"
echo "fleet scale: 1. the symbol cache ($CACHE_N traces, 2 workers)"
run cold 2 c_stk
run warm 2 c_stk
run bare 2 c_bare
echo "fleet scale: 2. $N and $SMALL stacked traces, warm cache"
for w in 1 2; do
    run small$w $w small
    run big$w $w big
done
$PY - "$N" "$SMALL" "$CACHE_N" <<'PY'
import json, sys
n, small, cn = (int(a) for a in sys.argv[1:4])
runs = {}
for line in open("runs"):
    name, w, js = line.split(" ", 2)
    runs[name] = json.loads(js)
bad = [k for k, v in runs.items() if v["rc"] != 0]
if bad:
    print("fleet scale: runs failed: %s" % ", ".join("%s (%s)" % (k, runs[k]["err"]) for k in bad))
c, wm, b = runs["each_cold"], runs["each_warm"], runs["each_bare"]
print("fleet scale, ioanalyze analyze --each over %d traces of 50+ build-ids: cold cache "
      "%.2f s CPU (%.2f wall), warm %.2f s (%.2f), without stacks %.2f s (%.2f): stacked/bare "
      "%.2fx CPU warm, %.2fx cold; %.3f ms CPU a stacked trace warm"
      % (cn, c["cpu"], c["wall"], wm["cpu"], wm["wall"], b["cpu"], b["wall"],
         wm["cpu"] / b["cpu"], c["cpu"] / b["cpu"], wm["cpu"] / cn * 1e3))
c, wm, b = runs["cold"], runs["warm"], runs["bare"]
print("fleet scale, symbol cache, %d traces of 50+ build-ids on 2 workers: cold %.1f s "
      "(%.1f s CPU), warm %.1f s (%.1f s CPU), without stacks %.1f s (%.1f s CPU): "
      "stacked/bare %.2fx wall, %.2fx CPU warm; %.2fx wall, %.2fx CPU cold"
      % (cn, c["wall"], c["cpu"], wm["wall"], wm["cpu"], b["wall"], b["cpu"],
         wm["wall"] / b["wall"], wm["cpu"] / b["cpu"], c["wall"] / b["wall"], c["cpu"] / b["cpu"]))
rate = {}
for w in (1, 2):
    s, g = runs["small%d" % w], runs["big%d" % w]
    whole = n / g["wall"]
    margin = (n - small) / (g["wall"] - s["wall"]) if g["wall"] > s["wall"] else float("nan")
    rate[w] = (whole, margin)
    print("fleet scale, %d worker(s): %d traces in %.1f s, %.0f traces/s whole, %.0f at the "
          "margin; CPU %.3f ms a trace, %.3f at the margin; peak RSS client %d KiB (%d KiB "
          "for %d traces), worker %d KiB (%d), ioanalyze %d KiB"
          % (w, n, g["wall"], whole, margin, g["cpu"] / n * 1e3,
             (g["cpu"] - s["cpu"]) / (n - small) * 1e3, g["client_kib"], s["client_kib"], small,
             g["worker_kib"], s["worker_kib"], g["ioanalyze_kib"]))
print("fleet scale, 2 workers against 1: %.2fx whole, %.2fx at the margin"
      % (rate[2][0] / rate[1][0], rate[2][1] / rate[1][1]))
# where the CPU goes at the margin: W in the workers and their ioanalyze
# runs, X in the client (a LocalCluster's scheduler is in it); on 2 cores
# the ratio cannot pass 2W/(W+X) whatever else runs
s, g = runs["small2"], runs["big2"]
if "client_cpu" in g:
    x = (g["client_cpu"] - s["client_cpu"]) / (n - small) * 1e3
    w = ((g["cpu"] - g["client_cpu"]) - (s["cpu"] - s["client_cpu"])) / (n - small) * 1e3
    if w + x > 0:
        print("fleet scale, CPU a trace at the margin on 2 workers: workers W %.3f ms, client "
              "and scheduler X %.3f ms: 2 workers at most 2W/(W+X) = %.2fx" % (w, x, 2 * w / (w + x)))
PY
