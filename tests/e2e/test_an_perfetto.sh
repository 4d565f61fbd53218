#!/bin/sh
# ioanalyze dump --format perfetto: Chrome trace-event JSON. It parses as
# JSON with an "X" event per call or per run of small calls of a thread on
# one fd (path from the fd's open, size, result; a run's count, bytes and
# busy time), each track's name once as an "M" event, exits and issues as
# instants on the trace's clock; its size is bounded by the runs, not the
# calls; and the same from a recorded native trace.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed to parse the JSON"
work_dir perfetto

cat >"$work/in.jsonl" <<'JSONL'
{"ev":"process","t":0,"pid":100,"ppid":1,"exe":"/usr/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}
{"ev":"thread","t":0,"pid":100,"tid":101,"name":"worker"}
{"ev":"call","t":1000,"pid":100,"tid":100,"op":"open","dur":5000,"ret":3,"path":"/data/a","flags":0,"stack":"main+0x2a (/usr/bin/app)"}
{"ev":"call","t":10000,"pid":100,"tid":101,"op":"read","dur":2000,"ret":4096,"fd":3,"size":4096}
{"ev":"call","t":20000,"pid":100,"tid":101,"op":"read","dur":1500,"ret":100,"fd":3,"size":4096}
{"ev":"call","t":30000,"pid":100,"tid":100,"op":"open","dur":1000,"ret":-1,"errno":2,"path":"/missing","flags":0}
{"ev":"call","t":40000,"pid":100,"tid":100,"op":"open","dur":1000,"ret":4,"path":"/data/a","flags":0,"stack":"main+0x2a (/usr/bin/app)"}
{"ev":"exit","t":2000000,"pid":100,"status":0}
JSONL

"$IOANALYZE" dump --format perfetto --no-symbolize "$work/in.jsonl" >"$work/out.json" 2>"$work/err" &&
    die "--no-symbolize is not a dump option"
"$IOANALYZE" dump --format perfetto "$work/in.jsonl" >"$work/out.json" 2>"$work/err" ||
    die "exit $?: $(cat "$work/err")"
python3 - "$work/out.json" <<'EOF' || die "the JSON is not as expected"
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
got = Counter((e["ph"], e.get("cat", e["name"])) for e in ev)
want = Counter({("M", "process_name"): 1, ("M", "thread_name"): 2, ("X", "io"): 4,
                ("i", "process"): 1, ("i", "issue"): 1})
assert got == want, got
names = {(e["tid"], e["args"]["name"]) for e in ev if e["ph"] == "M"}
assert names == {(100, "app"), (101, "worker")}, names
x = [e for e in ev if e["ph"] == "X"]
# the worker's two small reads of fd 3, 8 us apart: one slice
(r,) = [e for e in x if e["name"] == "read"]
assert (r["pid"], r["tid"], r["ts"], r["dur"]) == (100, 101, 10.0, 11.5), r
assert r["args"] == {"path": "/data/a", "fd": 3, "calls": 2, "bytes": 4196, "busy_us": 3.5}, r
opens = sorted((e for e in x if e["name"] == "open"), key=lambda e: e["ts"])
assert [e["ts"] for e in opens] == [1.0, 30.0, 40.0], opens
assert opens[0]["args"] == {"path": "/data/a", "ret": 3}, opens[0]
assert opens[1]["args"] == {"path": "/missing", "errno": 2, "ret": -1}, opens[1]
leak = [e for e in ev if e.get("cat") == "issue"][0]
# the leak's evidence ends at the exit: 2 ms after the process's start
assert (leak["name"], leak["tid"], leak["ts"]) == ("leak", 100, 2000.0), leak
assert leak["args"]["path"] == "/data/a" and leak["args"]["type"] == 4, leak
EOF

# Bounded: 15,003 calls make 16 slices. Thread 1 reads fd 3 in ten runs of
# 1000 small reads 2 us apart, 8 ms between runs; a failed read in the
# fourth run stands alone and splits it. Thread 2 writes fd 4 5000 times
# 15 us apart (one run), then an fsync of 2 ms stands alone. The writer's
# name comes three times, twice the same: two thread_name events.
python3 - "$work/big.jsonl" <<'EOF'
import json, sys
out = open(sys.argv[1], "w")
def w(**o): out.write(json.dumps(o) + "\n")
w(ev="process", t=0, pid=1, ppid=0, exe="/usr/bin/app", cmdline=["app"], start_unix_ns=1763800000000000000)
w(ev="thread", t=0, pid=1, tid=2, name="writer")
w(ev="thread", t=10, pid=1, tid=2, name="writer")
w(ev="call", t=1000, pid=1, tid=1, op="open", dur=10000, ret=3, path="/d/in", flags=0)
w(ev="call", t=2000, pid=1, tid=2, op="open", dur=10000, ret=4, path="/d/out", flags=577)
calls = []
for k in range(10):
    for i in range(1000):
        c = dict(ev="call", t=1000000 + k * 10000000 + i * 2000, pid=1, tid=1, op="read", dur=1000, ret=4096, fd=3, size=4096)
        if k == 3 and i == 500:
            c.update(ret=-1, errno=4)
        calls.append(c)
for j in range(5000):
    calls.append(dict(ev="call", t=1000500 + j * 20000, pid=1, tid=2, op="write", dur=5000, ret=100, fd=4, size=100))
calls.append(dict(ev="call", t=200000000, pid=1, tid=2, op="fsync", dur=2000000, ret=0, fd=4))
calls.sort(key=lambda c: c["t"])
w(ev="thread", t=1500000, pid=1, tid=2, name="writer2")
for c in calls:
    w(**c)
w(ev="exit", t=300000000, pid=1, status=0)
EOF
"$IOANALYZE" dump --format perfetto "$work/big.jsonl" >"$work/big.json" 2>"$work/err" ||
    die "exit $?: $(cat "$work/err")"
python3 - "$work/big.json" <<'EOF' || die "the bounded JSON is not as expected"
import json, os, sys
d = json.load(open(sys.argv[1]))["traceEvents"]
x = [e for e in d if e["ph"] == "X"]
assert len(x) == 16, len(x)
assert sum(e["args"].get("calls", 1) for e in x) == 15003
m = [(e["tid"], e["name"], e["args"]["name"]) for e in d if e["ph"] == "M"]
assert sorted(m) == [(1, "process_name", "app"), (1, "thread_name", "app"),
                     (2, "thread_name", "writer"), (2, "thread_name", "writer2")], m
reads = sorted((e for e in x if e["name"] == "read" and "calls" in e["args"]), key=lambda e: e["ts"])
assert [e["args"]["calls"] for e in reads] == [1000] * 3 + [500, 499] + [1000] * 6, reads
r = reads[0]
assert (r["ts"], r["dur"]) == (1000.0, 1999.0), r
assert r["args"] == {"path": "/d/in", "fd": 3, "calls": 1000, "bytes": 4096000, "busy_us": 1000.0}, r
(bad,) = [e for e in x if e["args"].get("errno")]
assert (bad["name"], bad["ts"], bad["args"]["ret"]) == ("read", 32000.0, -1), bad
(wr,) = [e for e in x if e["name"] == "write"]
assert wr["args"] == {"path": "/d/out", "fd": 4, "calls": 5000, "bytes": 500000, "busy_us": 25000.0}, wr
(fs,) = [e for e in x if e["name"] == "fsync"]
assert fs["dur"] == 2000.0 and "calls" not in fs["args"], fs
size = os.path.getsize(sys.argv[1])
assert size < 20000, size
EOF

# A recorded trace: every call in one slice, alone or in a run. (Not with a
# sanitized recorder, which needs its runtime preloaded before it.)
if [ -e "$IORECORD" ] && [ -e "$LIBIORECORD" ] && [ -x "$BUILD/bin/samples/small_writes" ] &&
    ! ldd "$LIBIORECORD" 2>/dev/null | grep -q libasan; then
    mkdir "$work/files"
    "$IORECORD" -o "$work/t.zst" -- "$BUILD/bin/samples/small_writes" "$work/files" >/dev/null 2>&1 ||
        die "iorecord failed"
    calls=$("$IOANALYZE" dump "$work/t.zst" 2>/dev/null | grep -c '"ev":"call"')
    "$IOANALYZE" dump --format perfetto "$work/t.zst" >"$work/t.json" 2>/dev/null || die "exit $?"
    python3 - "$work/t.json" "$calls" <<'EOF' || die "the recorded trace's JSON is not as expected"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
assert sum(e["args"].get("calls", 1) for e in x) == int(sys.argv[2]), (len(x), sys.argv[2])
w = [e for e in x if e["name"] == "write" and e["args"].get("path", "").endswith("app.log")]
assert sum(e["args"].get("calls", 1) for e in w) == 100000, len(w)
assert any(e.get("cat") == "issue" and e["name"] == "small_buffer" for e in ev)
EOF
fi
echo "perfetto: names, calls with paths, exits and issues as expected"
