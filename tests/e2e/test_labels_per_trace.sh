#!/bin/sh
# Labels per trace: three samples recorded with different labels into one
# directory (and a README beside them). `ioanalyze DIR` gives each issue the
# labels of the trace it came from, exactly, not the first trace's; `analyze
# --each DIR` writes one line per trace, in path order, each with its
# trace's labels and issues, and none for the README.
set -u
. "$(dirname "$0")/lib.sh"
for s in small_writes state_rewrite sync_per_write; do need_built "$BUILD/bin/samples/$s"; done
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "python3 is not installed"
work_dir labels-per-trace
cd "$work" || exit 1
REC_ENV=$(asan_env "$LIBIORECORD")
mkdir d data
echo "traces of the nightly run" >d/README
rec() {
    env $REC_ENV "$IORECORD" -o "d/$1.zst" --label host="$2" --label build="$3" -- \
        "$BUILD/bin/samples/$1" "$work/data/$1" >/dev/null 2>"$1.err" ||
        die "recording $1 failed: $(cat "$1.err")"
}
rec small_writes web-1 101
rec state_rewrite db-2 202
rec sync_per_write queue-3 303

"$IOANALYZE" --format json --min-severity low d >all.json 2>all.err ||
    die "ioanalyze d failed: $(cat all.err)"
"$IOANALYZE" analyze --each d >each.jsonl 2>each.err || die "--each d failed: $(cat each.err)"
python3 - <<'PY' || not_ok "labels per trace (above)"
import json, sys

want = {"small_writes": {"host": "web-1", "build": "101"},
        "state_rewrite": {"host": "db-2", "build": "202"},
        "sync_per_write": {"host": "queue-3", "build": "303"}}
ok = True
issues = json.load(open("all.json"))
seen = set()
for i in issues:
    p = i["process"]
    seen.add(p)
    if i["labels"] != want.get(p):
        print("FAIL: %s's %s issue has labels %s, not %s" % (p, i["rule"], i["labels"], want.get(p)))
        ok = False
if seen != set(want):
    print("FAIL: issues of %s, not of each sample" % sorted(seen))
    ok = False
lines = [json.loads(l) for l in open("each.jsonl")]
names = [l["input"] for l in lines]
expect = ["d/%s.zst" % p for p in sorted(want)]
if names != expect:
    print("FAIL: --each d wrote lines for %s, not %s" % (names, expect))
    ok = False
for l in lines:
    p = l["input"].rsplit("/", 1)[-1][:-4]
    if l.get("labels") != want.get(p):
        print("FAIL: --each line of %s has labels %s" % (p, l.get("labels")))
        ok = False
    procs = {i["process"] for i in l.get("issues", [])}
    if procs != {p}:
        print("FAIL: --each line of %s has issues of %s" % (p, sorted(procs)))
        ok = False
sys.exit(0 if ok else 1)
PY
exit $fail
