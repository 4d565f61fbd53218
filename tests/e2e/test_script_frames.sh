#!/bin/sh
# Script functions in stacks: a node script and a python3.12 script whose
# named function makes 2000 one-byte unbuffered writes, recorded with the
# runtime's perf map on (node --perf-basic-prof --interpreted-frames-native-stack,
# python3.12 -X perf). The issue on the file must name the script's function
# and file and line (node: the function's; python: the write's, from the
# interpreter's own frames) among its frames, and fingerprint
# the same in a second recording; the trace must carry only perf map lines
# that cover recorded frames, and not the recorder's reading of the map;
# the program's output, exit status and file must be the same with and
# without the recorder. A runtime that is not installed is skipped (node:
# Debian's nodejs; python3.12: pyenv).
# e2e: slow (about 6 s CPU here: script runtimes recorded with their frames)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "no python3"
work_dir script-frames
# node writes its isolate-*-v8.log into the working directory
cd "$work" || exit 1
REC_ENV=$(asan_env "$LIBIORECORD")

# A C program's own JIT-like code (tests/progs/rec_jit.c), on every
# machine: frames with a frame pointer, CPython 3.12's frameless trampoline,
# a frame whose rbp points off the stack (the walk stops there, the program
# runs on), and a frame pointer walk on a second thread; the program
# removes its perf map before it exits, so the names come from the trace.
JIT=$BUILD/bin/progs/rec_jit
need_built "$JIT"
mkdir "$work/jit.native" "$work/jit.rec"
"$JIT" "$work/jit.native" > "$work/jit.native.stdout" 2>&1
jit_rc=$?
if [ $jit_rc = 3 ]; then
    echo "(rec_jit part skipped: writable executable memory is refused here)"
else
    env $REC_ENV "$IORECORD" -o "$work/jit.zst" -- "$JIT" "$work/jit.rec" > "$work/jit.rec.stdout" 2>&1
    echo "$jit_rc $? $(cat "$work/jit.native.stdout") / $(cat "$work/jit.rec.stdout")" > "$work/jit.rcs"
    "$IOANALYZE" dump --format jsonl "$work/jit.zst" > "$work/jit.jsonl" || not_ok "rec_jit: dump"
    "$IOANALYZE" analyze --set leak.min_count=1 --min-severity low "$work/jit.zst" \
        > "$work/jit.json" 2> "$work/jit.err" || not_ok "rec_jit: analyze"
    python3 - "$work" <<'PY' || not_ok "rec_jit: frames"
import json, os, sys
work = sys.argv[1]
assert open(work + "/jit.rcs").read() == "0 0 opened 4 / opened 4\n", open(work + "/jit.rcs").read()

def own(frames):
    """Without a sanitizer interceptor's leading frames."""
    while frames and (frames[0]["module"] or "").rsplit("/", 1)[-1].startswith("libasan"):
        frames = frames[1:]
    return frames

leaks = {i["path"].rsplit("/", 1)[1]: own(i["frames"]) for i in json.load(open(work + "/jit.json"))
         if i["rule"] == "leak" and i["path"].startswith(work + "/jit.rec/")}
assert sorted(leaks) == ["badfp", "fp", "stub", "thread"], sorted(leaks)
js, py = "/src/app/fake.js", "/src/app/fake.py"
want = {
    "fp": [("opener", None), ("fpFunction", js, 12, js), ("call_stub", None), ("main", None)],
    "stub": [("opener", None), ("stub_function", py, None, py), ("call_stub", None), ("main", None)],
    "badfp": [("opener", None), ("badFrame", js, 40, js)],
    "thread": [("opener", None), ("fpFunction", js, 12, js), ("call_stub", None),
               ("thread_main", None)],
}
for name, frames in want.items():
    got = leaks[name]
    # badfp: nothing past the frame whose rbp is off the stack
    assert len(got) >= len(frames) and (name != "badfp" or len(got) == 2), (name, got)
    for f, w in zip(got, frames):
        assert f["function"] == w[0], (name, f, w)
        if w[1]:
            assert (f["file"], f["line"], f["module"], f["offset"]) == (w[1], w[2], w[3], None), f

evs = [json.loads(l) for l in open(work + "/jit.jsonl")]
syms = sorted((e["start"], e["code_size"], e["symbol"]) for e in evs if e["ev"] == "jit_symbol")
# one record per map line that covers a recorded frame: fp's once, though
# two stacks hold it
assert [(s[1], s[2]) for s in syms] == [(8, "JS:~fpFunction /src/app/fake.js:12:5"),
                                        (11, "py::stub_function:/src/app/fake.py"),
                                        (19, "JS:*badFrame /src/app/fake.js:40:1")], syms
assert syms[1][0] - syms[0][0] == 64 and syms[2][0] - syms[1][0] == 64, syms
pid = [e["pid"] for e in evs if e["ev"] == "process"][0]
assert not os.path.exists(f"/tmp/perf-{pid}.map")
PY
fi

NODE=$(command -v node)
# a pyenv shim on PATH may name a python3.12 that it will not run
PY312=$(ls "$HOME"/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -n 1)
if [ -z "$PY312" ] && python3.12 -c '' >/dev/null 2>&1; then
    PY312=$(command -v python3.12)
fi

cat > "$work/app.js" <<'EOF'
const fs = require('fs');
function writeMany(path) {
  const fd = fs.openSync(path, 'w');
  for (let i = 0; i < 2000; i++) fs.writeSync(fd, 'x');
  fs.closeSync(fd);
}
writeMany(process.argv[2]);
console.log('wrote', fs.statSync(process.argv[2]).size);
EOF
cat > "$work/app.py" <<'EOF'
import os, sys

def write_many(path):
    with open(path, "wb", buffering=0) as f:
        for _ in range(2000):
            f.write(b"x")

write_many(sys.argv[1])
print("wrote", os.path.getsize(sys.argv[1]))
EOF

# run NAME RUNTIME ARGS...: the script NAME (app.js, app.py) natively, then
# recorded twice, each time writing $work/NAME.out (the fingerprint takes
# the path); each run's stdout, status and file beside the traces
run() {
    name=$1
    shift
    for n in native 1 2; do
        rm -f "$work/$name.out"
        if [ $n = native ]; then
            sh -c 'echo $$ > "$0"; exec "$@"' "$work/native.pid" "$@" "$work/$name" "$work/$name.out" \
                > "$work/$name.$n.stdout" 2>&1
        else
            env $REC_ENV "$IORECORD" -o "$work/$name.$n.zst" -- "$@" "$work/$name" "$work/$name.out" \
                > "$work/$name.$n.stdout" 2>&1
        fi
        echo $? > "$work/$name.$n.rc"
        cp "$work/$name.out" "$work/$name.$n.out" 2>/dev/null
        if [ $n = native ]; then
            rm -f "/tmp/perf-$(cat "$work/native.pid").map"
            continue
        fi
        "$IOANALYZE" dump --format jsonl "$work/$name.$n.zst" > "$work/$name.$n.jsonl" ||
            not_ok "$name: dump $n"
        # the runtime's perf maps: /tmp/perf-PID.map of each recorded process
        for pid in $(sed -n 's/^{"ev":"process",[^}]*"pid":\([0-9]*\),.*/\1/p' "$work/$name.$n.jsonl"); do
            rm -f "/tmp/perf-$pid.map"
        done
        # every severity: the issue's impact is measured time, which load moves
        "$IOANALYZE" analyze --min-severity low "$work/$name.$n.zst" > "$work/$name.$n.json" \
            2> "$work/$name.$n.err" ||
            not_ok "$name: analyze $n"
    done
}

# check NAME FUNCTION LINE: the issues and the trace of NAME's runs
check() {
    python3 - "$work" "$1" "$2" "$3" <<'PY' || not_ok "$1: frames"
import json, re, sys
work, name, func, line = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
script = work + "/" + name

def read(path):
    return open(path, encoding="utf-8", errors="replace").read()

# the program ran the same with and without the recorder
native = (read(f"{work}/{name}.native.stdout"), read(f"{work}/{name}.native.rc"),
          read(f"{work}/{name}.native.out"))
assert native[0] == "wrote 2000\n" and native[1] == "0\n" and native[2] == "x" * 2000, native
for n in (1, 2):
    got = (read(f"{work}/{name}.{n}.stdout"), read(f"{work}/{name}.{n}.rc"),
           read(f"{work}/{name}.{n}.out"))
    assert got == native, (n, got[:2], len(got[2]))

fps = []
for n in (1, 2):
    out = f"{work}/{name}.out"
    issues = [i for i in json.load(open(f"{work}/{name}.{n}.json")) if i["path"] == out]
    small = [i for i in issues if i["rule"] == "small_buffer"]
    assert len(small) == 1, [i["rule"] for i in issues]
    issue = small[0]
    assert issue["detail"]["syscalls"] == 2000, issue["detail"]
    mine = [f for f in issue["frames"] if f["function"] == func]
    assert mine, issue["stack"]
    f = mine[0]
    assert f["file"] == script and f["module"] == script, f
    assert f["line"] == (line or None), f
    shown = f"{func} ({name}:{line})" if line else f"{func} ({name})"
    assert shown in issue["stack"].split("\n"), issue["stack"]
    fps.append(issue["fingerprint"])

    # the trace names JIT frames by process, and carries only the perf map
    # lines that cover one of them, each once
    evs = [json.loads(l) for l in open(f"{work}/{name}.{n}.jsonl")]
    frames = set()
    for e in evs:
        for fr in (e.get("stack") or "").split("\n"):
            m = re.fullmatch(r"\[jit:(\d+)\]\+0x([0-9a-f]+)", fr)
            if m:
                assert int(m.group(1)) == e["pid"], (fr, e["pid"])
                frames.add((e["pid"], int(m.group(2), 16)))
    syms = [e for e in evs if e["ev"] == "jit_symbol"]
    assert syms, "no jit_symbol record"
    keys = [(e["pid"], e["start"], e["code_size"], e["symbol"]) for e in syms]
    assert len(keys) == len(set(keys)), "a perf map line recorded twice"
    for pid, start, size, sym in keys:
        assert any(p == pid and start <= a - 1 < start + size for p, a in frames), (sym, hex(start))
    assert any(func in k[3] and script in k[3] for k in keys), keys
    # the recorder's own reads of the map are not in the trace: the
    # runtime only writes it
    for e in evs:
        if re.fullmatch(r"/tmp/perf-\d+\.map", e.get("path") or "") and e["ev"] == "call":
            assert e["op"] not in ("read", "pread", "readv", "fread", "fgets"), e
            assert e["op"] != "open" or e["flags"] & 3, e

# JIT addresses change from run to run; what the issue is keyed on does not
assert fps[0] == fps[1], fps
PY
}

tested=" rec_jit"
if [ -n "$NODE" ]; then
    run app.js "$NODE" --perf-basic-prof --interpreted-frames-native-stack
    check app.js writeMany "$(grep -n '^function writeMany' "$work/app.js" | cut -d: -f1)"
    tested="$tested node"
else
    echo "(node part skipped: node is not installed)"
fi
if [ -n "$PY312" ]; then
    run app.py "$PY312" -X perf
    # the interpreter's own frames name the line too (test_rec_python_frames.sh),
    # above the perf map's trampoline frame, which names no line
    check app.py write_many "$(grep -n 'f.write(b"x")' "$work/app.py" | cut -d: -f1)"
    tested="$tested python3.12"
else
    echo "(python3.12 part skipped: no python3.12 on PATH or under ~/.pyenv)"
fi
echo "tested:$tested"
exit $fail
