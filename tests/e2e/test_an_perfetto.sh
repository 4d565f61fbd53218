#!/bin/sh
# ioanalyze dump --format perfetto: Chrome trace-event JSON. It parses as
# JSON with one "X" event per call (path from the fd's open, size, result),
# process and thread names as "M" events, exits and issues as instants on
# the trace's clock; and the same from a recorded native trace.
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
want = Counter({("M", "process_name"): 1, ("M", "thread_name"): 2, ("X", "io"): 5,
                ("i", "process"): 1, ("i", "issue"): 1})
assert got == want, got
names = {(e["tid"], e["args"]["name"]) for e in ev if e["ph"] == "M"}
assert names == {(100, "app"), (101, "worker")}, names
x = [e for e in ev if e["ph"] == "X"]
r = x[1]
assert (r["name"], r["pid"], r["tid"], r["ts"], r["dur"]) == ("read", 100, 101, 10.0, 2.0), r
assert r["args"] == {"path": "/data/a", "fd": 3, "size": 4096, "ret": 4096}, r
assert x[2]["dur"] == 1.5, x[2]
assert x[3]["args"] == {"path": "/missing", "errno": 2, "ret": -1}, x[3]
leak = [e for e in ev if e.get("cat") == "issue"][0]
# the leak's evidence ends at the exit: 2 ms after the process's start
assert (leak["name"], leak["tid"], leak["ts"]) == ("leak", 100, 2000.0), leak
assert leak["args"]["path"] == "/data/a" and leak["args"]["type"] == 4, leak
EOF

# A recorded trace: as many X events as the trace has calls. (Not with a
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
assert len(x) == int(sys.argv[2]), (len(x), sys.argv[2])
w = [e for e in x if e["name"] == "write" and e["args"].get("path", "").endswith("app.log")]
assert len(w) == 100000, len(w)
assert any(e.get("cat") == "issue" and e["name"] == "small_buffer" for e in ev)
EOF
fi
echo "perfetto: names, calls with paths, exits and issues as expected"
