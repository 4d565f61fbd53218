#!/bin/sh
# dump --format jsonl for data tools (docs/analyzer.md, "JSONL for data
# tools"): every line has every key of one schema, in one order; every call
# names its file and process; unix times in ms are exact in doubles; and the
# dump loads with default settings in pandas (Debian python3-pandas) and,
# with IOSCOPE_NPM=1 (npm installs it), DuckDB (@duckdb/node-api), with the
# stdio keys that first appear after DuckDB's 20480 sampled lines still there.
# e2e: slow (about 9 s here: pandas and DuckDB load a 25,000-line dump)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir data_tools

# A process that reads one file 25000 times, then writes through stdio.
python3 - "$work/in.jsonl" <<'EOF'
import json, sys
out = open(sys.argv[1], "w")
def w(o): out.write(json.dumps(o) + "\n")
w({"ev": "process", "t": 0, "pid": 10, "ppid": 1, "exe": "/usr/bin/loader", "cmdline": ["loader"],
   "start_unix_ns": 1763800000123456789})
w({"ev": "call", "t": 1000, "pid": 10, "tid": 10, "op": "open", "dur": 100, "ret": 3, "path": "/d/in", "flags": 0})
t = 2000
for i in range(25000):
    w({"ev": "call", "t": t, "pid": 10, "tid": 10, "op": "read", "dur": 50, "ret": 16, "fd": 3, "size": 16})
    t += 100
w({"ev": "call", "t": t, "pid": 10, "tid": 10, "op": "close", "dur": 10, "ret": 0, "fd": 3})
w({"ev": "call", "t": t + 100, "pid": 10, "tid": 10, "op": "fopen", "dur": 100, "ret": 7, "fd": 4,
   "stream": 7, "path": "/d/out", "mode": "w", "size": 4096})
w({"ev": "call", "t": t + 200, "pid": 10, "tid": 10, "op": "setvbuf", "dur": 10, "ret": 0, "fd": 4,
   "stream": 7, "bufmode": "line", "size": 1024})
w({"ev": "call", "t": t + 300, "pid": 10, "tid": 10, "op": "fwrite", "dur": 10, "ret": 100, "fd": 4,
   "stream": 7, "size": 100})
w({"ev": "call", "t": t + 400, "pid": 10, "tid": 10, "op": "fclose", "dur": 10, "ret": 0, "fd": 4, "stream": 7})
w({"ev": "exit", "t": t + 500, "pid": 10, "status": 0})
EOF
"$IOANALYZE" dump "$work/in.jsonl" >"$work/dump.jsonl" 2>"$work/err" || die "dump: exit $?: $(cat "$work/err")"

python3 - "$work/dump.jsonl" <<'EOF' || die "the dump's schema is not as documented"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 25008, len(lines)
keys = list(lines[0])
assert all(list(l) == keys for l in lines), "keys differ between lines"
assert keys[:9] == ["ev", "t", "unix_ms", "pid", "tid", "process", "op", "dur", "ret"], keys
calls = [l for l in lines if l["ev"] == "call"]
assert all(l["process"] == "loader" for l in lines)
reads = [l for l in calls if l["op"] == "read"]
assert len(reads) == 25000 and all(l["path"] == "/d/in" for l in reads)
assert [l["path"] for l in calls if l["op"] in ("fwrite", "fclose")] == ["/d/out", "/d/out"]
p = lines[0]
assert p["start_unix_ns"] == 1763800000123456789 and p["start_unix_ms"] == 1763800000123, p
assert p["unix_ms"] == 1763800000123
assert reads[-1]["unix_ms"] == (1763800000123456789 + reads[-1]["t"]) // 10**6, reads[-1]
assert lines[-1]["ev"] == "exit" and lines[-1]["status"] == 0 and lines[-1]["op"] is None
EOF

# The dump is events ioanalyze reads back as the same ones.
"$IOANALYZE" "$work/in.jsonl" >"$work/a.json" 2>/dev/null || die "analyze of the input"
"$IOANALYZE" "$work/dump.jsonl" >"$work/b.json" 2>/dev/null || die "analyze of the dump"
cmp -s "$work/a.json" "$work/b.json" || die "the dump's issues differ from the input's"

# pandas, with its defaults: the Debian package is for the system python.
pandas_py=
for py in python3 /usr/bin/python3; do
    if have "$py" && "$py" -c 'import pandas' 2>/dev/null; then
        pandas_py=$py
        break
    fi
done
tools=""
if [ -n "$pandas_py" ]; then
    "$pandas_py" - "$work/dump.jsonl" <<'EOF' || die "pandas"
import sys
import pandas as pd
df = pd.read_json(sys.argv[1], lines=True)
assert len(df) == 25008, len(df)
calls = df[df["ev"] == "call"]
by_path = calls.groupby("path").size().to_dict()
assert by_path == {"/d/in": 25002, "/d/out": 4}, by_path
assert set(calls["process"]) == {"loader"}
# the ms columns survive the nulls that turn a column into doubles
p = df[df["ev"] == "process"].iloc[0]
assert int(p["start_unix_ms"]) == 1763800000123, p["start_unix_ms"]
assert int(df["unix_ms"].iloc[-1]) == (1763800000123456789 + int(df["t"].iloc[-1])) // 10**6
assert list(calls[calls["op"] == "setvbuf"]["bufmode"]) == ["line"]
assert int(calls[calls["op"] == "fwrite"]["stream"].iloc[0]) == 7
EOF
    tools="pandas"
fi

# DuckDB through npm's @duckdb/node-api (its binary is inside the npm package),
# installed once under the build tree when IOSCOPE_NPM=1 (see npm_package).
duck=$BUILD/npm
if have node && npm_package "$duck" @duckdb/node-api 120; then
    cat >"$duck/query.mjs" <<'EOF'
// node query.mjs SQL: the rows of SQL as JSON on stdout (the test's DuckDB).
import { DuckDBInstance } from "@duckdb/node-api";
const db = await DuckDBInstance.create(":memory:");
const con = await db.connect();
const r = await con.runAndReadAll(process.argv[2]);
console.log(JSON.stringify(r.getRowObjectsJson()));
EOF
    q() {
        node "$duck/query.mjs" "$1" 2>"$work/duck.err" || die "duckdb: $(cat "$work/duck.err")"
    }
    got=$(q "select path, count(*) as n from read_json('$work/dump.jsonl') where ev = 'call' group by path order by path")
    [ "$got" = '[{"path":"/d/in","n":"25002"},{"path":"/d/out","n":"4"}]' ] || die "duckdb group by path: $got"
    got=$(q "select bufmode, mode, stream::bigint as stream from read_json('$work/dump.jsonl') where op in ('fopen', 'setvbuf') order by t")
    [ "$got" = '[{"bufmode":null,"mode":"w","stream":"7"},{"bufmode":"\"line\"","mode":null,"stream":"7"}]' ] ||
        [ "$got" = '[{"bufmode":null,"mode":"\"w\"","stream":"7"},{"bufmode":"\"line\"","mode":null,"stream":"7"}]' ] ||
        die "duckdb stdio keys: $got"
    got=$(q "select start_unix_ns, start_unix_ms from read_json('$work/dump.jsonl') where ev = 'process'")
    [ "$got" = '[{"start_unix_ns":"1763800000123456789","start_unix_ms":"1763800000123"}]' ] ||
        die "duckdb unix times: $got"
    tools="$tools${tools:+, }duckdb"
fi
[ -n "$tools" ] || skip "schema checked; neither pandas nor DuckDB could be had"
echo "data_tools: one schema, paths and processes on every call; loaded by $tools"
