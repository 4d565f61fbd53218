#!/bin/sh
# A file a shell opened (`rg PATTERN > hits.txt`) and only the threads of
# the program it forked wrote: the issue names that program's process, pid
# and writing thread, one process's, and keeps the shell as
# detail.opened_by (ripgrep's searcher threads: the issue named the shell's
# pid with a thread of rg). Writes from a thread of the shell itself too
# leave it the shell's.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir an-thread-user

# trace OUT SHELL_WRITES: sh (pid 100) opens hits.txt as fd 3 and forks rg
# (pid 101), whose threads 102 and 103 make 300 writes of 64 bytes (200 and
# 100); with SHELL_WRITES, sh writes 10 more itself
trace() {
    python3 - "$2" >"$1" <<'PYEOF'
import json, sys
shell_writes = int(sys.argv[1])
ev = [{"ev": "process", "t": 0, "pid": 100, "ppid": 1, "exe": "/usr/bin/dash", "cmdline": ["sh"],
       "start_unix_ns": 1763800000000000000},
      {"ev": "thread", "t": 0, "pid": 100, "tid": 100, "name": "sh"},
      {"ev": "call", "t": 1000, "pid": 100, "tid": 100, "op": "open", "dur": 1000, "ret": 3,
       "path": "/srv/w/hits.txt", "flags": 577},
      {"ev": "call", "t": 3000, "pid": 100, "tid": 100, "op": "fork", "dur": 1000, "ret": 101},
      {"ev": "process", "t": 5000, "pid": 101, "ppid": 100, "exe": "/usr/bin/rg", "cmdline": ["rg"],
       "start_unix_ns": 1763800000000005000},
      {"ev": "thread", "t": 5000, "pid": 101, "tid": 101, "name": "rg"},
      {"ev": "thread", "t": 6000, "pid": 101, "tid": 102, "name": "rg-search-1"},
      {"ev": "thread", "t": 6000, "pid": 101, "tid": 103, "name": "rg-search-2"}]
t = 10000
for i in range(300):
    ev.append({"ev": "call", "t": t, "pid": 101, "tid": 102 if i % 3 else 103, "op": "write",
               "dur": 1000, "ret": 64, "fd": 3, "size": 64, "stack": "print_match+0x10 (/usr/bin/rg)"})
    t += 10000
for _ in range(shell_writes):
    ev.append({"ev": "call", "t": t, "pid": 100, "tid": 100, "op": "write", "dur": 1000,
               "ret": 64, "fd": 3, "size": 64})
    t += 10000
ev.append({"ev": "exit", "t": t, "pid": 101, "status": 0})
ev.append({"ev": "call", "t": t + 1000, "pid": 100, "tid": 100, "op": "close", "dur": 1000, "ret": 0, "fd": 3})
ev.append({"ev": "exit", "t": t + 2000, "pid": 100, "status": 0})
for e in ev:
    print(json.dumps(e))
PYEOF
}
# process pid tid thread opened_by.process of the one small_buffer issue
who() {
    "$IOANALYZE" --ci --min-severity low --rules small_buffer --format json "$work/$1.jsonl" \
        >"$work/$1.json" 2>"$work/$1.err" || die "analysing $1 failed: $(cat "$work/$1.err")"
    python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
assert len(i) == 1, len(i)
i = i[0]
print(i["process"], i["pid"], i["tid"], i["thread"], (i["detail"].get("opened_by") or {}).get("process"))' \
        "$work/$1.json" || die "$1: not one small_buffer issue"
}
trace "$work/rg.jsonl" 0
trace "$work/both.jsonl" 10
got=$(who rg)
[ "$got" = "rg 101 102 rg-search-1 sh" ] ||
    not_ok "the threads' writes: '$got', 'rg 101 102 rg-search-1 sh' expected"
got=$(who both)
case "$got" in
    "sh 100 "*) ;;
    *) not_ok "the threads' and the shell's writes: '$got', the shell's process (pid 100) expected" ;;
esac
exit $fail
