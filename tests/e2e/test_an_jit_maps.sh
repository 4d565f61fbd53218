#!/bin/sh
# The symbol maps a JIT writes for profilers when a flag asks
# (/tmp/perf-PID.map, /tmp/jit-PID.dump) are not judged by default: the
# same small writes to a file of another name are (docs/analyzer.md,
# "Configuration"); a config's own ignore_paths replaces the default.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed to parse the JSON"
work_dir jit_maps
cd "$work" || exit 1

# One process writes 2,000 lines of 60 bytes to each of three files, one
# line a millisecond: its perf map, its jitdump, and a map of its own name.
python3 - >in.jsonl <<'PY'
import json
ev = [{"ev": "process", "t": 0, "pid": 4242, "ppid": 1, "exe": "/usr/bin/java",
       "cmdline": ["java", "App"], "start_unix_ns": 1763800000000000000}]
t = 1000
for fd, path in ((3, "/tmp/perf-4242.map"), (4, "/tmp/jit-4242.dump"), (5, "/tmp/app-4242.map")):
    ev.append({"ev": "call", "t": t, "pid": 4242, "tid": 4242, "op": "open", "dur": 1000,
               "ret": fd, "path": path, "flags": 577})
    t += 2000
for i in range(2000):
    for fd in (3, 4, 5):
        ev.append({"ev": "call", "t": t, "pid": 4242, "tid": 4242, "op": "write", "dur": 5000,
                   "ret": 60, "fd": fd, "size": 60})
        t += 1000000
for fd in (3, 4, 5):
    ev.append({"ev": "call", "t": t, "pid": 4242, "tid": 4242, "op": "close", "dur": 500, "ret": 0, "fd": fd})
    t += 1000
ev.append({"ev": "exit", "t": t, "pid": 4242, "status": 0})
for e in ev:
    print(json.dumps(e))
PY

# paths WANT ARGS...: the sorted, distinct paths of the issues ioanalyze finds
paths() {
    want=$1
    shift
    "$IOANALYZE" --min-severity low "$@" in.jsonl >out.json 2>err || { not_ok "$*: exit $?: $(cat err)"; return; }
    got=$(python3 -c 'import json,sys; print(" ".join(sorted({i["path"] for i in json.load(open(sys.argv[1]))})))' out.json)
    [ "$got" = "$want" ] || not_ok "${*:-default}: issues on '$got', want '$want'"
}

paths "/tmp/app-4242.map"
echo '{"ignore_paths": ["^/proc/"]}' >own.json
paths "/tmp/app-4242.map /tmp/jit-4242.dump /tmp/perf-4242.map" --config own.json
exit $fail
