#!/bin/sh
# A reused pid is a new process. In a new pid namespace (root, unshare),
# tests/progs/rec_pidreuse forces its children onto pids it picks through
# /proc/sys/kernel/ns_last_pid: 5 children all with pid 100 (10 writes
# each), then 300 children cycling over 7 pids, as past pid_max (2 writes
# each). Native and recorded print the same line and exit 0; the trace
# keeps every write of every child, each child as its own process (a
# process and an exit record each, none of the 5 snapshots superseded),
# `info` lists each, and the trace and its JSONL dump give the same issues.
# Then two live processes with one pid (each pid 1 of its own namespace):
# the trace says so, a `lost` record pid_shared.
# e2e: slow (300 recorded processes: about 10 s here, more under load)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$BUILD/bin/progs/rec_pidreuse"
[ "$(id -u)" = 0 ] || skip "needs root (a pid namespace and ns_last_pid)"
have unshare || skip "unshare is not installed"
unshare -pf --mount-proc true 2>/dev/null || skip "cannot make a pid namespace here"
PROG=$BUILD/bin/progs/rec_pidreuse
PRELOAD_ENV=$(asan_env "$LIBIORECORD")
work_dir pidreuse
cd "$work" || exit 1

# run_case NAME K D W: native and recorded, same line, then the trace's counts
run_case() {
    name=$1 k=$2 d=$3 w=$4
    want="children $k pid_as_asked $k distinct $d bytes $((k * w))"
    native=$(unshare -pf --mount-proc "$PROG" "$k" "$d" "$w" "$work/$name.native.out") ||
        die "$name: native run failed"
    [ "$native" = "$want" ] || die "$name: native run printed '$native', not '$want'"
    rec=$(env $PRELOAD_ENV unshare -pf --mount-proc "$IORECORD" -o "$work/$name.zst" -- \
        "$PROG" "$k" "$d" "$w" "$work/$name.out") || die "$name: recorded run failed"
    [ "$rec" = "$native" ] || not_ok "$name: recorded run printed '$rec', natively '$native'"
    "$IOANALYZE" dump --format jsonl "$work/$name.zst" >"$work/$name.jsonl" || die "$name: dump failed"
    "$IOANALYZE" info "$work/$name.zst" >"$work/$name.info" || die "$name: info failed"
    python3 - "$work/$name.jsonl" "$work/$name.info" "$k" "$d" "$w" "$name" <<'PY' || not_ok "$name: counts"
import json, re, sys
path, info, k, d, w, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
evs = [json.loads(l) for l in open(path)]
kids = set(range(100, 100 + d))
parent = [e["pid"] for e in evs if e["ev"] == "process" and e["pid"] not in kids]
assert len(parent) == 1, "%s: the parent's process records: %s" % (name, parent)
writes = sum(1 for e in evs if e["ev"] == "call" and e["op"] == "write" and e["pid"] in kids)
procs = sum(1 for e in evs if e["ev"] == "process" and e["pid"] in kids)
exits = sum(1 for e in evs if e["ev"] == "exit" and e["pid"] in kids)
assert writes == k * w, "%s: %d writes of children kept, want %d" % (name, writes, k * w)
assert procs == k, "%s: %d process records of children, want %d" % (name, procs, k)
assert exits == k, "%s: %d exit records of children, want %d" % (name, exits, k)
text = open(info).read()
m = re.search(r"^processes: (\d+)$", text, re.M)
assert m and int(m.group(1)) == k + 1, "%s: info lists %s processes, want %d" % (name, m and m.group(1), k + 1)
assert re.search(r"\(0 partial snapshots superseded\)", text) or "partial" not in text, \
    "%s: snapshots superseded: %s" % (name, re.findall(r".*partial.*", text))
assert "damage: none" in text, "%s: damage: %s" % (name, re.findall(r"damage.*", text))
PY
    # the trace and its dump give the same issues (leaks included: each child leaves its fd open)
    "$IOANALYZE" --min-severity low --set leak.min_count=1 "$work/$name.zst" >"$work/$name.t.json" 2>"$work/$name.t.err" ||
        not_ok "$name: analyze failed"
    "$IOANALYZE" --min-severity low --set leak.min_count=1 "$work/$name.jsonl" >"$work/$name.j.json" 2>"$work/$name.j.err" ||
        not_ok "$name: analyze of the dump failed"
    cmp -s "$work/$name.t.json" "$work/$name.j.json" || not_ok "$name: issues differ between the trace and its dump"
    grep -q " from $((k + 1)) processes" "$work/$name.t.err" ||
        not_ok "$name: the summary does not count $((k + 1)) processes: $(cat "$work/$name.t.err")"
}

run_case one_pid 5 1 10
run_case wrap 300 7 2

# Two live processes with pid 1, each in its own namespace: said in the trace.
cat >"$work/two.sh" <<'EOF'
unshare -pf --mount-proc sh -c 'sleep 0.5; echo a >/dev/null' &
unshare -pf --mount-proc sh -c 'sleep 0.5; echo b >/dev/null' &
wait
EOF
env $PRELOAD_ENV "$IORECORD" -o "$work/two.zst" -- sh "$work/two.sh" || not_ok "two namespaces: recorded run failed"
"$IOANALYZE" info "$work/two.zst" >"$work/two.info" || not_ok "two namespaces: info failed"
grep -q "^  pid 1 lost: pid_shared, [1-9]" "$work/two.info" ||
    not_ok "two live processes with pid 1, no pid_shared lost record: $(grep lost "$work/two.info")"
exit $fail
