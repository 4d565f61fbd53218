#!/bin/sh
# An fd number reused by a pipe after closedir() closed a directory inside
# libc: the recorder sees the closedir, the pipe, socketpair and socket, and
# the analyzer charges none of the pipe's reads to the directory.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD"
PRELOAD_ENV=$(asan_env "$LIBIORECORD")
work_dir fdreuse
mkdir "$work/dir"
out=$(env $PRELOAD_ENV "$IORECORD" --no-stacks -o "$work/t.zst" -- "$BUILD/bin/progs/rec_fdreuse" "$work/dir") ||
    { echo "FAIL: recording failed"; exit 1; }
"$IOANALYZE" dump --format jsonl "$work/t.zst" >"$work/t.jsonl" || exit 1
"$IOANALYZE" profile "$work/t.zst" >"$work/p.csv" 2>/dev/null || exit 1
python3 - "$out" "$work/t.jsonl" "$work/p.csv" "$work/dir" <<'PY'
import csv, json, re, sys
m = re.fullmatch(r"dir=(\d+) pipe=(\d+),(\d+) pair=(\d+),(\d+) sock=(\d+)", sys.argv[1].strip())
assert m, sys.argv[1]
dfd, r, w, a, b, s = map(int, m.groups())
assert r == dfd, "the pipe did not reuse the directory's fd: %s" % sys.argv[1]
calls = [e for e in map(json.loads, open(sys.argv[2])) if e["ev"] == "call"]
def one(pred, what):
    got = [e for e in calls if pred(e)]
    assert len(got) == 1, "%s: %d events" % (what, len(got))
one(lambda e: e["op"] == "open" and e.get("path") == sys.argv[4] and e["ret"] == dfd, "open of the directory")
one(lambda e: e["op"] == "close" and e.get("fd") == dfd and e["ret"] == 0, "closedir's close")
one(lambda e: e["op"] == "pipe" and e.get("fd") == r and e.get("newfd") == w and e["ret"] == 0, "pipe")
one(lambda e: e["op"] == "pipe" and e.get("fd") == a and e.get("newfd") == b, "socketpair")
one(lambda e: e["op"] == "socket" and e.get("fd") == s and e["ret"] == s, "socket")
assert sum(1 for e in calls if e["op"] == "read" and e.get("fd") == r) == 30
for row in csv.DictReader(open(sys.argv[3])):
    if row["path"] == sys.argv[4]:
        assert row["reads"] == "0", "pipe reads charged to the directory: %s" % row
PY
