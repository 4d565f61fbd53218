#!/bin/sh
# Typed data (docs/analyzer.md, "JSONL for data tools"): `dump --schema`
# gives every column's type, and the loaders under examples/data/ read the
# dump with them: pandas (Debian's python3-pandas) with nullable integer
# dtypes and no digit lost, DuckDB (@duckdb/node-api, fetched by npm only
# with IOSCOPE_NPM=1) with no column typed JSON or HUGEINT. A path that is
# not UTF-8 keeps its bytes in path_hex, and reads back as those bytes.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir data_types
cd "$work" || exit 1

# Integers beyond a double's 2^53 (a start in ns, an offset), columns null
# on most lines (newfd, in_fd, last_fd, newpath, signal), and two paths
# whose last byte is not UTF-8 (Latin-1 e-acute and e-grave): their text is
# the same, their bytes are not.
cat >in.jsonl <<'JSONL'
{"ev":"process","t":0,"pid":10,"ppid":1,"exe":"/usr/bin/app","cmdline":["app","-v"],"start_unix_ns":1763800000123456789}
{"ev":"call","t":1000,"pid":10,"tid":10,"op":"open","dur":100,"ret":3,"path_hex":"2f642f636166e9","flags":0}
{"ev":"call","t":2000,"pid":10,"tid":10,"op":"open","dur":100,"ret":4,"path_hex":"2f642f636166e8","flags":0}
{"ev":"call","t":3000,"pid":10,"tid":10,"op":"pread","dur":100,"ret":10,"fd":3,"size":10,"offset":9007199254740993}
{"ev":"call","t":4000,"pid":10,"tid":10,"op":"dup","dur":10,"ret":5,"fd":3,"newfd":5,"flags":0}
{"ev":"call","t":5000,"pid":10,"tid":10,"op":"sendfile","dur":10,"ret":100,"fd":4,"in_fd":3,"size":100}
{"ev":"call","t":6000,"pid":10,"tid":10,"op":"rename","dur":10,"ret":0,"path":"/d/a","newpath":"/d/b","flags":0}
{"ev":"call","t":7000,"pid":10,"tid":10,"op":"close_range","dur":10,"ret":0,"fd":3,"last_fd":10}
{"ev":"exit","t":8000,"pid":10,"status":137,"signal":9}
JSONL
"$IOANALYZE" dump in.jsonl >dump.jsonl 2>err || die "dump: exit $?: $(cat err)"
"$IOANALYZE" dump --schema >schema.json 2>err || die "dump --schema: exit $?: $(cat err)"
"$IOANALYZE" dump --schema in.jsonl >/dev/null 2>&1 && not_ok "dump --schema with an INPUT: not refused"
"$IOANALYZE" dump --schema --format text >/dev/null 2>&1 && not_ok "dump --schema --format text: not refused"

# The lossless path reads back as the bytes: a dump of the dump is the dump.
"$IOANALYZE" dump dump.jsonl >again.jsonl 2>/dev/null || not_ok "dump of the dump"
cmp -s dump.jsonl again.jsonl || not_ok "the dump of the dump differs"
"$IOANALYZE" dump --format text --op open dump.jsonl 2>/dev/null | grep -c 'caf\\x' | grep -qx 2 ||
    not_ok "the text dump does not show the two paths' bytes"

tools=""
pandas_py=
for py in python3 /usr/bin/python3; do
    if have "$py" && "$py" -c 'import pandas' 2>/dev/null; then
        pandas_py=$py
        break
    fi
done
if [ -n "$pandas_py" ]; then
    "$pandas_py" - "$TOP/examples/data" schema.json dump.jsonl <<'EOF' || not_ok "pandas: the columns are not typed as the schema says"
import sys
sys.path.insert(0, sys.argv[1])
import load_pandas
df = load_pandas.load(sys.argv[2], sys.argv[3])
assert len(df) == 9, len(df)
d = {c: str(t) for c, t in df.dtypes.items()}
want = {"t": "Int64", "unix_ms": "Int64", "pid": "Int32", "ret": "Int64", "dur": "Int64",
        "fd": "Int32", "newfd": "Int32", "in_fd": "Int32", "last_fd": "Int32", "signal": "Int32",
        "offset": "Int64", "start_unix_ns": "Int64", "stream": "UInt64", "path": "string",
        "path_hex": "string", "newpath": "string", "start_unix_ns_str": "string"}
assert all(d[c] == t for c, t in want.items()), {c: d[c] for c in want}
p = df[df["ev"] == "process"].iloc[0]
assert p["start_unix_ns"] == 1763800000123456789 and p["start_unix_ns_str"] == "1763800000123456789", p
assert df[df["op"] == "pread"]["offset"].iloc[0] == 9007199254740993
opens = df[df["op"] == "open"]
assert opens["path"].nunique() == 1 and list(opens["path_hex"]) == ["2f642f636166e9", "2f642f636166e8"], opens
assert df[df["ev"] == "exit"]["signal"].iloc[0] == 9
assert df["newfd"].isna().sum() == 8
EOF
    "$pandas_py" "$TOP/examples/data/load_pandas.py" schema.json dump.jsonl >out 2>err ||
        not_ok "load_pandas.py: $(cat err)"
    head -n 1 out | grep -qx "9 events, 7 calls" || not_ok "load_pandas.py: $(cat out)"
    tools=pandas
else
    skip_part pandas "python3-pandas is not installed"
fi

duck=$BUILD/npm
if ! have node; then
    skip_part DuckDB "node is not installed (Debian: nodejs)"
elif npm_package "$duck" @duckdb/node-api 120; then
    cp "$TOP/examples/data/load_duckdb.mjs" "$duck/"
    node "$duck/load_duckdb.mjs" schema.json dump.jsonl \
        "select (select start_unix_ns from events where ev = 'process') as ns,
                (select \"offset\" from events where op = 'pread') as off,
                (select count(distinct path_hex) from events where op = 'open') as hexes,
                (select count(distinct path) from events where op = 'open') as texts" >duck.json 2>err ||
        die "load_duckdb.mjs: $(cat err)"
    python3 - duck.json <<'EOF' || not_ok "duckdb: the columns are not typed as the schema says"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["columns"]
want = {"ret": "BIGINT", "newfd": "INTEGER", "in_fd": "INTEGER", "last_fd": "INTEGER",
        "newpath": "VARCHAR", "signal": "INTEGER", "start_unix_ns": "BIGINT", "offset": "BIGINT",
        "stream": "UBIGINT", "cmdline": "VARCHAR[]", "path_hex": "VARCHAR", "pid": "INTEGER"}
assert all(c[k] == t for k, t in want.items()), {k: c[k] for k in want}
assert "JSON" not in c.values() and "HUGEINT" not in c.values(), c
# exact beyond 2^53 (node-api gives BIGINTs as strings); two files, one text
assert d["rows"] == [{"ns": "1763800000123456789", "off": "9007199254740993",
                      "hexes": "2", "texts": "1"}], d["rows"]
EOF
    tools="$tools${tools:+, }duckdb"
fi
[ $fail = 0 ] || exit 1
[ -n "$tools" ] || skip "schema and lossless paths checked; neither pandas nor DuckDB could be had"
echo "data_types: columns typed by dump --schema in $tools; non-UTF-8 paths kept in path_hex"
