#!/bin/sh
# A name a process makes from its own pid (postgres's pg_wal/xlogtemp.PID,
# a lock file app.lock.PID) is another name in every run: its fingerprint
# folds the pid to "<pid>", so that two runs whose processes had other pids
# give one fingerprint. Only the process's own pid folds: the same name
# written by a process of another pid keeps its digits (another file), and
# so do digits that are no pid of the writer (a segment number).
# e2e: slow (about 7 s CPU here: recordings folded by pid)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir ci-fold-pid

# trace PID NAME OUT: process PID makes 300 writes of 64 bytes to
# /srv/pg/pg_wal/NAME, from one stack
trace() {
    python3 - "$1" "$2" >"$3" <<'PYEOF'
import json, sys
pid, name = int(sys.argv[1]), sys.argv[2]
st = "XLogFileInit+0x40 (/usr/lib/postgresql/bin/postgres)\nmain+0x10 (/usr/lib/postgresql/bin/postgres)"
ev = [{"ev": "process", "t": 0, "pid": pid, "ppid": 1, "exe": "/usr/lib/postgresql/bin/postgres",
       "cmdline": ["postgres"], "start_unix_ns": 1763800000000000000},
      {"ev": "thread", "t": 0, "pid": pid, "tid": pid, "name": "postgres"},
      {"ev": "call", "t": 1000, "pid": pid, "tid": pid, "op": "open", "dur": 1000, "ret": 3,
       "path": "/srv/pg/pg_wal/" + name, "flags": 577, "stack": st}]
t = 10000
for _ in range(300):
    ev.append({"ev": "call", "t": t, "pid": pid, "tid": pid, "op": "write", "dur": 1000,
               "ret": 64, "fd": 3, "size": 64, "stack": st})
    t += 10000
ev.append({"ev": "call", "t": t, "pid": pid, "tid": pid, "op": "close", "dur": 1000, "ret": 0, "fd": 3})
ev.append({"ev": "exit", "t": t + 1000, "pid": pid, "status": 0})
for e in ev:
    print(json.dumps(e))
PYEOF
}
# the small_buffer issue's fingerprint and path, one line
fp() {
    "$IOANALYZE" --ci --min-severity low --rules small_buffer --format json "$work/$1.jsonl" \
        >"$work/$1.json" 2>"$work/$1.err" || die "analysing $1 failed: $(cat "$work/$1.err")"
    python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
assert len(i) == 1, len(i)
print(i[0]["fingerprint"], i[0]["path"])' "$work/$1.json" || die "$1: not one small_buffer issue"
}
trace 4242 xlogtemp.4242 "$work/a.jsonl"
trace 5151 xlogtemp.5151 "$work/b.jsonl"
trace 5151 xlogtemp.4242 "$work/c.jsonl"
trace 5151 xlogtemp.515 "$work/d.jsonl"
trace 5151 000000010000000000005151 "$work/e.jsonl"
a=$(fp a) b=$(fp b) c=$(fp c) d=$(fp d) e=$(fp e)
[ "${a%% *}" = "${b%% *}" ] || not_ok "xlogtemp.4242 of pid 4242 and xlogtemp.5151 of pid 5151: two fingerprints ($a; $b)"
# the path shown is the one the program used
[ "${a#* }" = /srv/pg/pg_wal/xlogtemp.4242 ] || not_ok "the issue names ${a#* }, not the path written"
[ "${c%% *}" != "${b%% *}" ] || not_ok "xlogtemp.4242 written by pid 5151 folded as its own pid"
[ "${d%% *}" != "${b%% *}" ] || not_ok "xlogtemp.515 (a part of pid 5151's digits) folded as the pid"
e2=$(sed 's/5151/6161/g' "$work/e.jsonl" | sed 's/0000000000006161/0000000000005151/' >"$work/f.jsonl"; fp f)
[ "${e%% *}" = "${e2%% *}" ] || not_ok "a segment name ending in the pid's digits changed with the pid ($e; $e2)"
exit $fail
