#!/bin/sh
# ioanalyze fleet: traces per second on a dask-scheduler with 1 and then 2
# dask-workers (BENCH_FLEET_RATE traces, default 2,000; goal >= 1.7x with 2
# on 2 cores), and on a LocalCluster of 2 (its start included); the
# client's peak RSS for BENCH_FLEET_TRACES (default 20,000) traces on the
# scheduler with two workers, so that only the client process is measured,
# beside the same for a tenth as many, which bounded memory keeps about
# equal. The traces are copies of four small labelled recordings of the
# samples. Figures only: never pass/fail.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
R=$BUILD/bin/iorecord
PY=/usr/bin/python3
RATE_N=${BENCH_FLEET_RATE:-2000}
RSS_N=${BENCH_FLEET_TRACES:-20000}
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
# N copies under DIR, in directories of 1,000
corpus() {
    $PY - "$1" "$2" <<'PY'
import os, shutil, sys
names = sorted(os.listdir("base"))
for i in range(int(sys.argv[2])):
    d = "%s/%03d" % (sys.argv[1], i // 1000)
    if i % 1000 == 0:
        os.makedirs(d)
    shutil.copyfile("base/" + names[i % len(names)], "%s/t%05d.zst" % (d, i))
PY
}
now() { date +%s.%N; }
corpus rate "$RATE_N"
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dask-scheduler --host 127.0.0.1 --port "$port" --no-dashboard >/dev/null 2>&1 &
started="$started $!"
for w in 1 2; do
    dask-worker tcp://127.0.0.1:$port --nthreads 1 --no-nanny --no-dashboard \
        --host 127.0.0.1 >/dev/null 2>&1 &
    started="$started $!"
    $PY -c "
from dask.distributed import Client
c = Client('tcp://127.0.0.1:$port', timeout=60); c.wait_for_workers($w, timeout=60); c.close()" ||
        { echo "bench_fleet: the cluster did not start"; exit 0; }
    t0=$(now)
    "$A" fleet --scheduler tcp://127.0.0.1:$port --progress never -o /dev/null rate 2>/dev/null
    t1=$(now)
    echo "fleet, dask-scheduler with $w dask-worker(s): $RATE_N traces in" \
         "$(echo "$t1 - $t0" | bc) s, $(echo "$RATE_N / ($t1 - $t0)" | bc) traces/s"
done
t0=$(now)
"$A" fleet --workers 2 --progress never -o /dev/null rate 2>/dev/null
t1=$(now)
echo "fleet, LocalCluster of 2 workers: $RATE_N traces in $(echo "$t1 - $t0" | bc) s," \
     "$(echo "$RATE_N / ($t1 - $t0)" | bc) traces/s (cluster start included)"
rm -rf rate
for n in $((RSS_N / 10)) $RSS_N; do
    corpus rss$n $n
    t0=$(now)
    /usr/bin/time -f %M -o rss "$A" fleet --scheduler tcp://127.0.0.1:$port --progress never \
        -o /dev/null rss$n 2>/dev/null
    t1=$(now)
    echo "fleet client on a scheduler with 2 workers: $n traces in $(echo "$t1 - $t0" | bc) s," \
         "client peak RSS $(cat rss) KiB"
    rm -rf rss$n
done
