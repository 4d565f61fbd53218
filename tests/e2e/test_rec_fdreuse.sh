#!/bin/sh
# An fd number reused by a pipe after closedir() closed a directory inside
# libc: the recorder sees the closedir, the pipe, socketpair and socket, and
# the analyzer charges none of the pipe's reads to the directory.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
[ -x "$B/bin/iorecord" ] || { echo "iorecord not built"; exit 77; }
. "$TOP/tests/e2e/lib.sh"
PRELOAD_ENV=$(asan_env "$B/lib/libiorecord.so")
tmp=$(mktemp -d /tmp/ioscope-e2e-fdreuse.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/dir"
out=$(env $PRELOAD_ENV "$B/bin/iorecord" --no-stacks -o "$tmp/t.zst" -- "$B/bin/progs/rec_fdreuse" "$tmp/dir") ||
    { echo "FAIL: recording failed"; exit 1; }
"$B/bin/ioanalyze" dump --format jsonl "$tmp/t.zst" >"$tmp/t.jsonl" || exit 1
"$B/bin/ioanalyze" profile "$tmp/t.zst" >"$tmp/p.csv" 2>/dev/null || exit 1
python3 - "$out" "$tmp/t.jsonl" "$tmp/p.csv" "$tmp/dir" <<'PY'
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
