#!/bin/sh
# ioanalyze fleet: traces per second on a dask-scheduler with 1 and with 2
# dask-workers (goal >= 1.7x with 2 on 2 cores), measured in
# BENCH_FLEET_ROUNDS rounds (default 3), 1 and 2 workers interleaved so
# that the machine's other load falls on both alike, each on a cluster
# started for it; then on a LocalCluster of 2 (its start included). Each
# measurement runs the fleet over BENCH_FLEET_TRACES traces (default
# 20,000) and over a tenth as many: the rate of the whole command (the
# client's start, about 0.6 s of Python and Dask, included) and the
# marginal rate, (N - N/10) / (t(N) - t(N/10)), which leaves that fixed
# start out. And where the CPU goes on the larger run (/proc/PID/stat of
# the scheduler and the workers, children included; the client's from GNU
# time): W, the workers' CPU a trace, and X, the client's and the
# scheduler's, which bound the ratio on 2 cores to 2W/(W+X) whatever else
# runs on the machine. The client's peak RSS for both sizes (bounded memory
# keeps them about equal). The traces are hard links to four small labelled
# recordings of the samples (1 to 3 KB, as the e2e test's): each path is
# still opened and read, and making them costs no disk. Figures only:
# never pass/fail. (bench_fleet_scale.sh: 100,000 stacked traces on a
# LocalCluster, and the symbol cache.)
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
R=$BUILD/bin/iorecord
PY=/usr/bin/python3
BIG=${BENCH_FLEET_TRACES:-20000}
SMALL=$((BIG / 10))
ROUNDS=${BENCH_FLEET_ROUNDS:-3}
for f in "$A" "$R" "$BUILD/lib/fleet/ioanalyze-fleet"; do
    [ -x "$f" ] || { echo "bench_fleet: $f is not built"; exit 0; }
done
$PY -c 'import distributed' 2>/dev/null ||
    { echo "bench_fleet: /usr/bin/python3 cannot import distributed (python3-distributed)"; exit 0; }
[ -x /usr/bin/time ] || { echo "bench_fleet: /usr/bin/time (GNU time) is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-fleet.XXXXXX") || exit 1
started=""
trap 'for p in $started; do kill -9 $p 2>/dev/null; done; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work" || exit 1
mkdir base data
for s in clean state_rewrite sync_per_write fd_leak; do
    "$R" --no-stacks -o base/$s.zst --label version=1 --label host=bench -- \
        "$BUILD/bin/samples/$s" "$work/data/$s" >/dev/null 2>&1
done
# N hard links under DIR, in directories of 1,000
corpus() {
    $PY - "$1" "$2" <<'PY'
import os, sys
names = sorted(os.listdir("base"))
for i in range(int(sys.argv[2])):
    d = "%s/%03d" % (sys.argv[1], i // 1000)
    if i % 1000 == 0:
        os.makedirs(d)
    os.link("base/" + names[i % len(names)], "%s/t%05d.zst" % (d, i))
PY
}
corpus small $SMALL
corpus big $BIG
now() { date +%s.%N; }

# cluster_up N: a dask-scheduler and N dask-workers on 127.0.0.1; $port
cluster_up() {
    port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    dask-scheduler --host 127.0.0.1 --port "$port" --no-dashboard >/dev/null 2>&1 &
    cluster=$!
    for _ in $(seq "$1"); do
        dask-worker tcp://127.0.0.1:$port --nthreads 1 --no-nanny --no-dashboard \
            --host 127.0.0.1 >/dev/null 2>&1 &
        cluster="$cluster $!"
    done
    started=$cluster   # only the cluster that is up: the others are gone
    $PY -c "
from dask.distributed import Client
c = Client('tcp://127.0.0.1:$port', timeout=60); c.wait_for_workers($1, timeout=60); c.close()"
}
# running PID: not yet exited (a zombie child has exited, not yet waited for)
running() {
    [ -r "/proc/$1/stat" ] && ! awk '{ sub(/^.*\) /, ""); exit $1 == "Z" ? 0 : 1 }' "/proc/$1/stat"
}
cluster_down() {
    for p in $cluster; do kill "$p" 2>/dev/null; done
    # a worker whose scheduler went first may sit on the TERM: 10 s, then KILL
    i=0
    while [ $i -lt 100 ]; do
        up=""
        for p in $cluster; do running "$p" && up="$up $p"; done
        [ -z "$up" ] && break
        sleep 0.1
        i=$((i + 1))
    done
    for p in $cluster; do kill -9 "$p" 2>/dev/null; done
    for p in $cluster; do wait "$p" 2>/dev/null; done
    started=""
}

# cpu PID...: their CPU time and their waited-for children's, in clock ticks
cpu() {
    for p in "$@"; do cat /proc/$p/stat; done 2>/dev/null |
        awk '{ sub(/^.*\) /, ""); t += $12 + $13 + $14 + $15 } END { print t + 0 }'
}

# timed DIR: seconds of the fleet over DIR on the cluster; the client's
# peak RSS (KiB), user and system seconds in rss
timed() {
    t0=$(now)
    /usr/bin/time -f "%M %U %S" -o rss "$A" fleet --scheduler tcp://127.0.0.1:$port --progress never \
        -o /dev/null "$1" 2>/dev/null
    t1=$(now)
    echo "$t1 - $t0" | bc
}

: >runs
for r in $(seq "$ROUNDS"); do
    for w in 1 2; do
        cluster_up $w || { echo "bench_fleet: the cluster did not start"; exit 0; }
        ts=$(timed small); rs=$(cut -d' ' -f1 rss); cs=$(cut -d' ' -f2- rss | tr ' ' +)
        # shellcheck disable=SC2086
        s0=$(cpu ${cluster%% *}); w0=$(cpu ${cluster#* })
        tb=$(timed big); rb=$(cut -d' ' -f1 rss); cb=$(cut -d' ' -f2- rss | tr ' ' +)
        # shellcheck disable=SC2086
        s1=$(cpu ${cluster%% *}); w1=$(cpu ${cluster#* })
        cluster_down
        echo "$r $w $ts $tb $rs $rb $((w1 - w0)) $((s1 - s0)) $cb $cs" >>runs
        $PY -c "
ts, tb = $ts, $tb
print('fleet, round $r, dask-scheduler with $w dask-worker(s): $BIG traces in %.2f s, '
      '%.0f traces/s; marginal (less the $SMALL in %.2f s) %.0f traces/s'
      % (tb, $BIG / tb, ts, ($BIG - $SMALL) / (tb - ts)))"
    done
done
$PY - "$BIG" "$SMALL" <<'PY'
import os, statistics, sys
big, small = int(sys.argv[1]), int(sys.argv[2])
runs = [l.split() for l in open("runs")]
by = {1: [], 2: []}
hz = os.sysconf("SC_CLK_TCK")
work, rest, margin = [], [], []
for r, w, ts, tb, rs, rb, wt, st, ct, cs in runs:
    by[int(w)].append((big / float(tb), (big - small) / (float(tb) - float(ts))))
    work.append(int(wt) / hz / big * 1e3)
    rest.append((int(st) / hz + eval(ct)) / big * 1e3)
    # the client's start left out: its CPU beyond the small run's
    margin.append((int(st) / hz / big + (eval(ct) - eval(cs)) / (big - small)) * 1e3)
for name, k in (("whole command", 0), ("marginal", 1)):
    one = [x[k] for x in by[1]]
    two = [x[k] for x in by[2]]
    ratios = [b / a for a, b in zip(one, two)]
    print("fleet, %s: 1 worker %.0f traces/s, 2 workers %.0f (medians of %d): %.2fx; "
          "per round %s" % (name, statistics.median(one), statistics.median(two), len(one),
                            statistics.median(two) / statistics.median(one),
                            ", ".join("%.2fx" % x for x in ratios)))
W, X, M = statistics.median(work), statistics.median(rest), statistics.median(margin)
print("fleet, CPU a trace (medians of %d runs of %d): workers W %.3f ms (%.3f to %.3f), "
      "client and scheduler X %.3f ms (%.3f to %.3f), %.3f ms less the client's start "
      "(%.3f to %.3f): on 2 cores at most 2W/(W+X) = %.2fx, %.2fx at the margin"
      % (len(work), big, W, min(work), max(work), X, min(rest), max(rest), M, min(margin),
         max(margin), 2 * W / (W + X), 2 * W / (W + M)))
rss = [(int(r[4]), int(r[5])) for r in runs if r[1] == "2"]
print("fleet client on a scheduler with 2 workers: peak RSS %d KiB for %d traces, "
      "%d KiB for %d" % (max(x[0] for x in rss), small, max(x[1] for x in rss), big))
PY
t0=$(now)
"$A" fleet --workers 2 --progress never -o /dev/null big 2>/dev/null
t1=$(now)
echo "fleet, LocalCluster of 2 workers: $BIG traces in $(echo "$t1 - $t0" | bc) s," \
     "$(echo "$BIG / ($t1 - $t0)" | bc) traces/s (cluster start included)"
