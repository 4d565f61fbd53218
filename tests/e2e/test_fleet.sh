#!/bin/sh
# ioanalyze fleet on Dask: 2,000 traces made from the samples, labelled
# with a release (version) and a host, one release with a planted
# regression (fd_leak's leak only in 1.3), three traces that cannot be
# read and one damaged in its middle (read as far as it can be). Analysed
#   - on a LocalCluster (the default) from a list file (@list) in reverse
#     path order,
#   - on a real dask-scheduler and two dask-worker processes this test
#     starts on 127.0.0.1 (free ports) and tears down however it ends,
#   - on that cluster again with one worker killed (SIGKILL) mid-run;
# each time the reduction (fingerprints, traces per fingerprint, per label
# value, hosts, traces analysed and not, severity, first and last seen,
# impact, the worst example: the most time, the smallest path on a tie)
# must equal that of a sequential loop of `ioanalyze` over the same
# traces, and the three reports must be the same byte for byte, however
# the batches were cut, ran and arrived. The fleet diff of
# release 1.3 against 1.2 must find the leak as new (exit 1); 1.2 against
# itself must find nothing (exit 0). The csv, text and html outputs are
# checked on the 40 base recordings. An ioanalyze that crashes on one trace
# of a batch loses that trace only (said, with the signal), not the batch.
# A batch of paths too long for one command line is cut short of it.
# e2e: slow (about 113 s CPU here: a local Dask cluster)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$BUILD/lib/fleet/ioanalyze-fleet"
for s in clean state_rewrite sync_per_write fd_leak; do need_built "$BUILD/bin/samples/$s"; done
PY=/usr/bin/python3
[ -x $PY ] && $PY -c 'import distributed' 2>/dev/null ||
    skip "/usr/bin/python3 cannot import distributed (Debian: python3-distributed)"
have dask-scheduler && have dask-worker || skip "dask-scheduler or dask-worker is not installed"
if [ -n "${LD_PRELOAD:-}" ] || ldd "$LIBIORECORD" | grep -q libasan; then
    ASAN_RUN=1
else
    ASAN_RUN=0
fi
work_dir fleet
started=""   # the pids of the Dask processes this test started
cleanup() {
    for p in $started; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work"
}
cd "$work" || exit 1
[ "$ASAN_RUN" = 1 ] && asan_preload "$LIBIORECORD"

# 40 recordings: 3 releases x 4 hosts x 3 samples, and fd_leak in 1.3
mkdir base traces data
for rel in 1.1 1.2 1.3; do
    for h in h0 h1 h2 h3; do
        samples="clean state_rewrite sync_per_write"
        [ $rel = 1.3 ] && samples="$samples fd_leak"
        for s in $samples; do
            "$IORECORD" --no-stacks -o "base/$rel-$h-$s.zst" --label version=$rel --label host=$h \
                -- "$BUILD/bin/samples/$s" "$work/data/$s" >/dev/null 2>&1 ||
                die "recording $s failed"
        done
    done
done
# a trace of several chunks (small_writes: small_buffer), damaged below
"$IORECORD" --no-stacks -o big.zst --label version=1.1 --label host=h0 \
    -- "$BUILD/bin/samples/small_writes" "$work/data/small_writes" >/dev/null 2>&1 ||
    die "recording small_writes failed"
[ "$ASAN_RUN" = 1 ] && unset LD_PRELOAD
# 1,996 copies spread over them, three traces that cannot be read and one
# with 8 bytes of its middle overwritten
$PY - <<'PY' || die "making the traces failed"
import os, shutil
rels, hosts = ["1.1", "1.2", "1.3"], ["h0", "h1", "h2", "h3"]
for i in range(1996):
    r, h = rels[i % 3], hosts[(i // 3) % 4]
    samples = ["clean", "state_rewrite", "sync_per_write"] + (["fd_leak"] if r == "1.3" else [])
    s = samples[(i // 12) % len(samples)]
    os.makedirs("traces/" + r, exist_ok=True)
    shutil.copyfile("base/%s-%s-%s.zst" % (r, h, s), "traces/%s/t%04d.zst" % (r, i))
open("traces/1.2/garbage.zst", "wb").write(b"not a trace\n")
open("traces/1.3/empty.zst", "wb").close()
open("traces/1.1/truncated.zst", "wb").write(open("base/1.1-h0-state_rewrite.zst", "rb").read()[:200])
big = bytearray(open("big.zst", "rb").read())
assert len(big) > 20000, len(big)   # chunks of 64 KiB before compression: several
mid = len(big) // 2
big[mid:mid + 8] = b"\xff" * 8
open("traces/1.1/damaged.zst", "wb").write(big)
PY
find traces -type f | sort >list.txt
[ "$(wc -l <list.txt)" -eq 2000 ] || die "$(wc -l <list.txt) traces made, 2000 expected"

# the sequential loop: each trace analysed by ioanalyze, counted here
$PY - "$IOANALYZE" <<'PY' >expected.json || die "the sequential loop failed"
import json, math, os, subprocess, sys
fps, ok, failed, hosts, leak_versions = {}, 0, 0, set(), {}
more = {}   # fingerprint -> what else the fleet reduces of its traces
sev_rank = {"low": 0, "medium": 1, "high": 2}
for t in open("list.txt").read().split():
    r = subprocess.run([sys.argv[1], "--format", "json", "--min-severity", "low", t],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if r.returncode:
        failed += 1
        continue
    ok += 1
    firsts = {}
    for i in json.loads(r.stdout):
        firsts.setdefault(i["fingerprint"], i)   # a trace counts its first issue of each
    path = os.path.abspath(t)
    for fp, i in firsts.items():
        m = more.setdefault(fp, {"sev": [], "times": [], "seen": [], "worst": None})
        m["sev"].append(i["severity"])
        m["seen"].append(i["time"])
        ms = (i.get("impact") or {}).get("time_ms")
        if isinstance(ms, (int, float)):
            m["times"].append(float(ms))
        key = (float(ms) if isinstance(ms, (int, float)) else -0.5, path)
        # the worst: the most time, then the smallest path
        if m["worst"] is None or (-key[0], key[1]) < (-m["worst"][0], m["worst"][1]):
            m["worst"] = (key[0], path, i["message"], i["time"])
    for fp in {i["fingerprint"]: i for i in json.loads(r.stdout)}.values():
        e = fps.setdefault(fp["fingerprint"], {"rule": fp["rule"], "traces": 0, "labels": {}, "hosts": set()})
        e["traces"] += 1
        e["hosts"].add(fp["labels"]["host"])
        for k, v in fp["labels"].items():
            e["labels"].setdefault(k, {}).setdefault(v, 0)
            e["labels"][k][v] += 1
for e in fps.values():
    e["hosts"] = len(e["hosts"])
for fp, m in more.items():
    s = sorted(m["times"])
    n = len(s)
    med = None if not n else s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    fps[fp]["more"] = {
        "severity": max(m["sev"], key=sev_rank.get),
        "first_seen": min(m["seen"]), "last_seen": max(m["seen"]),
        "impact": {"traces_timed": n, "total_time_ms": round(math.fsum(s), 4),
                   "median_time_ms": None if med is None else round(med, 4)},
        "worst": {"trace": m["worst"][1], "message": m["worst"][2], "time": m["worst"][3]},
        "message": m["worst"][2]}
json.dump({"analysed": ok, "failed": failed, "fps": fps}, sys.stdout, indent=1, sort_keys=True)
PY

# compare RUN.json with the loop's counts; also what the construction says
compare() {
    $PY - "$1" <<'PY' || not_ok "$1 differs from the sequential loop (above)"
import json, sys
exp = json.load(open("expected.json"))
rep = json.load(open(sys.argv[1]))
got = {o["fingerprint"]: {"rule": o["rule"], "traces": o["traces"], "labels": o["labels"],
                          "hosts": o["hosts"],
                          "more": {"severity": o["severity"], "first_seen": o["first_seen"],
                                   "last_seen": o["last_seen"], "impact": o["impact"],
                                   "worst": {"trace": o["worst"]["trace"],
                                             "message": o["worst"]["issue"]["message"],
                                             "time": o["worst"]["issue"]["time"]},
                                   "message": o["message"]}}
       for o in rep["issues"]}
ok = True
def check(what, a, b):
    global ok
    if a != b:
        print("%s: %s: fleet %r, loop %r" % (sys.argv[1], what, a, b))
        ok = False
check("traces", rep["traces"], 2000)
check("analysed", rep["analysed"], exp["analysed"])
check("failed", rep["failed"], exp["failed"])
check("hosts", rep["hosts"], 4)
check("fingerprints", sorted(got), sorted(exp["fps"]))
for fp in exp["fps"]:
    check(fp, got.get(fp), exp["fps"][fp])
# by construction: 1,997 readable traces (one damaged), 665 of 1.3 of
# which every 4th group of 12 is fd_leak's, the leak in 1.3 only; the
# samples' rules are there (a rule judged on timings may fire in some
# recordings on a loaded machine too: the loop counts it alike)
check("analysed by construction", rep["analysed"], 1997)
check("damaged", [d["trace"].split("/")[-1] for d in rep["damaged_traces"]], ["damaged.zst"])
check("rules", {"leak", "small_buffer", "sync_storm", "write_amplification"} -
      {o["rule"] for o in rep["issues"]}, set())
leak = [o for o in rep["issues"] if o["rule"] == "leak"]
n13 = sum(1 for i in range(1996) if i % 3 == 2 and (i // 12) % 4 == 3)
check("leak per version", leak and leak[0]["labels"]["version"], {"1.3": n13})
check("label totals", rep["labels"]["version"],
      {"1.1": 667, "1.2": 665, "1.3": 665})
check("not analysed, by path", [e["trace"].split("/")[-1] for e in rep["errors"]],
      ["truncated.zst", "garbage.zst", "empty.zst"])
sys.exit(0 if ok else 1)
PY
}

# 1. a LocalCluster (the default), from a list file in another order than
# the paths' (its reverse): the report does not follow the order of inputs
sort -r list.txt >reversed.txt
"$IOANALYZE" fleet --workers 2 --progress never -o local.json @reversed.txt 2>local.err
rc=$?
[ $rc -eq 0 ] || not_ok "fleet on a LocalCluster: exit $rc: $(tail -3 local.err)"
compare local.json
n=$(grep -c 'not analysed: ' local.err)
[ "$n" -eq 3 ] || not_ok "$n traces said not analysed on stderr, 3 expected"

# 2. a dask-scheduler and two dask-workers on 127.0.0.1, free ports
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
addr=tcp://127.0.0.1:$port
dask-scheduler --host 127.0.0.1 --port "$port" --no-dashboard >scheduler.log 2>&1 &
started="$started $!"
workers=""
for w in 1 2; do
    dask-worker "$addr" --nthreads 1 --no-nanny --no-dashboard --host 127.0.0.1 >worker$w.log 2>&1 &
    started="$started $!"
    workers="$workers $!"
done
$PY - "$addr" <<'PY' || die "the cluster did not come up: $(tail -3 scheduler.log)"
import sys
from dask.distributed import Client
c = Client(sys.argv[1], timeout=60)
c.wait_for_workers(2, timeout=60)
c.close()
PY
"$IOANALYZE" fleet --scheduler "$addr" --progress never -o cluster.json traces 2>cluster.err
rc=$?
[ $rc -eq 0 ] || not_ok "fleet on the cluster: exit $rc: $(tail -3 cluster.err)"
compare cluster.json

# 3. the same with one worker killed mid-run: its tasks are run again
"$IOANALYZE" fleet --scheduler "$addr" --progress always --batch 4 -o killed.json traces \
    2>killed.err &
fleet=$!
victim=${workers# }; victim=${victim%% *}
done_n=0
for i in $(seq 1 600); do
    done_n=$(tr '\r' '\n' <killed.err | sed -n 's/^\[*[#.]*\]* *\([0-9]*\)[ /].*/\1/p' | tail -1)
    [ "${done_n:-0}" -ge 400 ] && break
    kill -0 $fleet 2>/dev/null || break
    sleep 0.1
done
if kill -0 $fleet 2>/dev/null; then
    kill -9 "$victim"
    killed_at=$done_n
else
    killed_at=""
fi
wait $fleet
rc=$?
[ -n "$killed_at" ] || not_ok "the fleet ended before a worker could be killed"
[ $rc -eq 0 ] || not_ok "fleet with a worker killed: exit $rc: $(tail -3 killed.err)"
compare killed.json
echo "(a worker killed after $killed_at of 2000 traces)"
# the same report however the traces were batched, ran and arrived
cmp -s local.json cluster.json || not_ok "local.json and cluster.json differ"
cmp -s cluster.json killed.json || not_ok "cluster.json and killed.json differ"

# 4. fleet diff: 1.3 against 1.2 finds the leak new, exit 1; 1.2 against itself nothing
"$IOANALYZE" fleet --scheduler "$addr" --progress never --baseline-label version=1.2 \
    --label version=1.3 -o diff.json traces/1.2 traces/1.3 2>diff.err
rc=$?
[ $rc -eq 1 ] || not_ok "fleet diff 1.2 -> 1.3: exit $rc, 1 expected: $(tail -3 diff.err)"
$PY - <<'PY' || not_ok "fleet diff 1.2 -> 1.3 (above)"
import json
d = json.load(open("diff.json"))
exp = json.load(open("expected.json"))["fps"]
leak = [fp for fp, e in exp.items() if e["rule"] == "leak"]
assert [r["fingerprint"] for r in d["new"]] == leak, d["new"]
n13 = sum(1 for i in range(1996) if i % 3 == 2 and (i // 12) % 4 == 3)
assert d["new"][0]["cur_traces"] == n13 and d["new"][0]["base_traces"] == 0, d["new"]
assert d["gone"] == [], d
assert (d["base_traces"], d["cur_traces"]) == (665, 665), d
# what is in both sets is rising or steady, by the counts the report shows
both = [fp for fp, e in exp.items()
        if "1.2" in e["labels"]["version"] and "1.3" in e["labels"]["version"]]
assert len(both) >= 2, both     # sync_storm and write_amplification at least
assert len(d["rising"]) + d["steady"] == len(both), (d, both)
for r in d["rising"]:
    e = exp[r["fingerprint"]]["labels"]["version"]
    assert (r["base_traces"], r["cur_traces"]) == (e["1.2"], e["1.3"]), (r, e)
    assert r["p"] < 0.01 and r["cur_traces"] >= 5, r
PY
"$IOANALYZE" fleet --scheduler "$addr" --progress never --baseline-label version=1.2 \
    --label version=1.2 --format text -o self.txt traces/1.2 2>self.err
rc=$?
[ $rc -eq 0 ] || not_ok "fleet diff 1.2 -> 1.2: exit $rc, 0 expected: $(tail -3 self.err)"
tail -1 self.txt | grep -qx '0 new, 0 rising, 0 gone, [0-9]* steady' ||
    not_ok "fleet diff 1.2 -> 1.2 said: $(tail -1 self.txt)"

# 5. csv, text and html of the 40 base recordings
for f in csv text html; do
    "$IOANALYZE" fleet --scheduler "$addr" --progress never --format $f -o base.$f base \
        2>/dev/null || not_ok "--format $f failed"
done
nfp=$(for t in base/*.zst; do "$IOANALYZE" --format json --min-severity low "$t" 2>/dev/null; done |
    grep -o '"fingerprint": "[0-9a-f]*"' | sort -u | wc -l)
[ "$(wc -l <base.csv)" -eq $((nfp + 1)) ] ||
    not_ok "base.csv: $(wc -l <base.csv) lines, a header and $nfp rows expected"
head -1 base.csv | grep -q '^rank,fingerprint,rule,severity,traces,share,hosts' ||
    not_ok "base.csv header: $(head -1 base.csv)"
grep -q '^40 traces: 40 analysed, 0 not' base.text || not_ok "base.text: $(head -1 base.text)"
grep -q 'leak' base.html || not_ok "base.html names no leak"
grep -Eqi '(src|href)=' base.html && not_ok "base.html loads an external asset"

# 6. an ioanalyze that crashes on one trace of a batch: that trace is not
# analysed (said), the batch's others before and after it are
mkdir crashing
cp base/*.zst crashing/
cp base/1.1-h0-clean.zst crashing/1.2-h2-crash.zst
cat >crashing-ioanalyze <<SH
#!/bin/sh
# the real ioanalyze on the arguments before the crash trace, then SIGSEGV
exec $PY - "$IOANALYZE" "\$@" <<'PY2'
import os, signal, subprocess, sys
real, args = sys.argv[1], sys.argv[2:]
cut = next((i for i, a in enumerate(args) if a.endswith("crash.zst")), None)
if cut is None:
    os.execv(real, [real] + args)
subprocess.run([real] + args[:cut])
sys.stdout.flush()
os.kill(os.getpid(), signal.SIGSEGV)
PY2
SH
chmod +x crashing-ioanalyze
IOANALYZE=$work/crashing-ioanalyze $PY "$BUILD/lib/fleet/ioanalyze-fleet" --scheduler "$addr" \
    --progress never -o crashing.json crashing 2>crashing.err
rc=$?
[ $rc -eq 0 ] || not_ok "fleet with a crashing ioanalyze: exit $rc: $(tail -3 crashing.err)"
"$IOANALYZE" fleet --scheduler "$addr" --progress never -o base.json base 2>/dev/null
$PY - <<'PY' || not_ok "fleet with a crashing ioanalyze (above)"
import json
got, want = json.load(open("crashing.json")), json.load(open("base.json"))
assert (got["traces"], got["analysed"], got["failed"]) == (41, 40, 1), got
assert [e["trace"].split("/")[-1] for e in got["errors"]] == ["1.2-h2-crash.zst"], got["errors"]
assert "SIGSEGV" in got["errors"][0]["error"], got["errors"]
strip = lambda r: [(o["fingerprint"], o["traces"], o["labels"]) for o in r["issues"]]
assert strip(got) == strip(want), (strip(got), strip(want))
PY

# 7. 600 traces with paths of about 3,900 bytes, --batch 1000: one command
# line of them would pass the kernel's ARG_MAX (2 MiB here); a task takes
# no more paths than one command line holds, and every trace is analysed
$PY - <<'PY' || die "making the long paths failed"
import os, shutil
d = "long"
for i in range(15):
    d = os.path.join(d, "d%02d" % i + "x" * 250)
os.makedirs(d)
for i in range(600):
    shutil.copyfile("base/1.3-h1-fd_leak.zst", os.path.join(d, "t%04d" % i + "y" * 100 + ".zst"))
PY
"$IOANALYZE" fleet --scheduler "$addr" --progress never --batch 1000 -o long.json long 2>long.err
rc=$?
[ $rc -eq 0 ] || not_ok "fleet over long paths: exit $rc: $(tail -1 long.err | cut -c1-200)"
$PY - <<'PY' || not_ok "fleet over long paths (above)"
import json
r = json.load(open("long.json"))
assert (r["traces"], r["analysed"], r["failed"]) == (600, 600, 0), (r["traces"], r["analysed"], r["failed"])
assert [(o["rule"], o["traces"]) for o in r["issues"]] == [("leak", 600)], r["issues"]
PY
exit $fail
