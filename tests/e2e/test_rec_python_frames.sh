#!/bin/sh
# Python frames with no flag: Debian's /usr/bin/python3 and every pyenv
# CPython 3.8 to 3.13 present run a script whose function write_records
# abandons 40 handles while keep_log, which opens through the same
# os.open of the interpreter, closes its file each time. Recorded twice
# with no option, the leak must be found, its stack must start with
# write_records (leak.py:11), main (leak.py:20), <module> (leak.py:23)
# above the interpreter's frames, keep_log must be in no leak's stack, the
# SARIF location must be leak.py line 11, the fingerprint must be equal in
# both runs, and the output and exit status as without the recorder. Any
# interpreter with no Python frame fails. Then the recorder's layout table
# is compared with offsetof() from each version's own headers, and a thread
# state whose frame pointer is unmapped, or points at bytes that loop to
# themselves, must not crash the program nor give it a Python frame; two
# threads' opens name each its own function.
# e2e: slow (seven interpreters, each run six times: about 70 s on the loaded team VM)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "no python3"
work_dir python-frames
cd "$work" || exit 1
REC_ENV=$(asan_env "$LIBIORECORD")

cat > leak.py <<'EOF'
import os, sys

def keep_log(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(fd, b"started\n")
    os.close(fd)

def write_records(d, n):
    held = []
    for i in range(n):
        fd = os.open(os.path.join(d, "rec%d" % i), os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"x")
        held.append(fd)
    return held

def main():
    d = sys.argv[1]
    for i in range(20):
        keep_log(os.path.join(d, "log"))
    held = write_records(d, 40)
    print("wrote", len(held), os.path.getsize(os.path.join(d, "log")))

main()
EOF

pythons=""
if [ -x /usr/bin/python3 ]; then
    pythons=/usr/bin/python3
else
    echo "SKIP debian python3: /usr/bin/python3 is not installed"
fi
for v in 8 9 10 11 12 13; do
    p=$(ls -d "$HOME"/.pyenv/versions/3.$v.*/bin/python3.$v 2>/dev/null | tail -n 1)
    if [ -n "$p" ] && "$p" -c '' 2>/dev/null; then
        pythons="$pythons $p"
    else
        echo "SKIP CPython 3.$v: not installed under ~/.pyenv/versions"
    fi
done
[ -n "$pythons" ] || skip "no CPython 3.8 to 3.13 here"

n=0
for py in $pythons; do
    n=$((n + 1))
    for run in native 1 2; do
        rm -rf "d$n"
        mkdir "d$n"
        if [ $run = native ]; then
            "$py" leak.py "d$n" > "out$n.$run" 2>&1
        else
            env $REC_ENV "$IORECORD" -o "t$n.$run.zst" -- "$py" leak.py "d$n" > "out$n.$run" 2>&1
        fi
        echo "rc=$?" >> "out$n.$run"
    done
    for run in 1 2; do
        cmp -s "out$n.native" "out$n.$run" ||
            not_ok "$py: output differs when recorded: $(cat "out$n.$run")"
        "$IOANALYZE" analyze -f json "t$n.$run.zst" > "i$n.$run.json" 2> /dev/null ||
            not_ok "$py: analyze run $run"
    done
    "$IOANALYZE" analyze -f sarif "t$n.1.zst" > "s$n.sarif" 2> /dev/null || not_ok "$py: sarif"
    "$IOANALYZE" analyze -f text "t$n.1.zst" > "r$n.txt" 2> /dev/null || not_ok "$py: text"
    python3 - "$py" "i$n.1.json" "i$n.2.json" "s$n.sarif" "r$n.txt" <<'PY' || not_ok "$py: frames"
import json, sys
py, one, two, sarif, text = sys.argv[1:]

def leaks(path):
    return [i for i in json.load(open(path)) if i["rule"] == "leak"]

first, second = leaks(one), leaks(two)
assert len(first) == 1 and len(second) == 1, (py, first, second)
frames = first[0]["frames"]
top = [(f["function"], (f["file"] or "").rsplit("/", 1)[-1], f["line"]) for f in frames[:3]]
assert top == [("write_records", "leak.py", 11), ("main", "leak.py", 20),
               ("<module>", "leak.py", 23)], (py, top)
# the interpreter's own frames follow the script's
assert len(frames) > 3 and not (frames[3]["file"] or "").endswith(".py"), (py, frames[3])
assert first[0]["detail"]["leaked"] == second[0]["detail"]["leaked"] >= 30, (py, first[0]["detail"])
assert all(f["function"] != "keep_log" for i in first for f in i["frames"]), py
assert first[0]["fingerprint"] == second[0]["fingerprint"], (py, first[0]["fingerprint"],
                                                            second[0]["fingerprint"])
loc = [r for r in json.load(open(sarif))["runs"][0]["results"]
       if r["ruleId"].endswith("leak")][0]["locations"][0]["physicalLocation"]
assert (loc["artifactLocation"]["uri"], loc["region"]["startLine"]) == ("leak.py", 11), (py, loc)
assert "write_records (leak.py:11)" in open(text).read(), py
print("ok: %s: write_records (leak.py:11), fingerprint %s twice" % (py, first[0]["fingerprint"]))
PY
done

# Threads: two threads (the main one waiting) leak through os.open in two
# functions; each leak names its own function (each thread's own frame
# chain is walked, not the main thread's).
cat > threads.py <<'EOF'
import os, sys, threading
held = []
def leak_in_a(d):
    for i in range(30):
        held.append(os.open(os.path.join(d, "a%d" % i), os.O_WRONLY | os.O_CREAT, 0o644))
def leak_in_b(d):
    for i in range(30):
        held.append(os.open(os.path.join(d, "b%d" % i), os.O_WRONLY | os.O_CREAT, 0o644))
ts = [threading.Thread(target=f, args=(sys.argv[1],)) for f in (leak_in_a, leak_in_b)]
# one after the other: the leak rule's judgement of two interleaved loops
# is not what this checks
for t in ts:
    t.start()
    t.join()
print(len(held))
EOF
n=0
for py in $pythons; do
    n=$((n + 1))
    rm -rf "th$n"
    mkdir "th$n"
    env $REC_ENV "$IORECORD" -o "th$n.zst" -- "$py" threads.py "th$n" > "tho$n" 2>&1
    echo "rc=$?" >> "tho$n"
    printf '60\nrc=0\n' | cmp -s - "tho$n" || not_ok "$py: threads.py: $(cat "tho$n")"
    "$IOANALYZE" dump -f jsonl "th$n.zst" > "th$n.jsonl" 2> /dev/null || not_ok "$py: dump threads"
    python3 - "$py" "th$n.jsonl" "$work/th$n/" <<'PY' || not_ok "$py: thread frames"
import json, re, sys
py, path, d = sys.argv[1:]
evs = [json.loads(l) for l in open(path)]
names = {(e["pid"], e["code"]): e["qualname"] for e in evs if e["ev"] == "py_code"}
main_tid = [e["tid"] for e in evs if e["ev"] == "process"][0]
seen = {}
for e in evs:
    if e["ev"] == "call" and e["op"] == "open" and (e["path"] or "").startswith(d):
        who = e["path"].rsplit("/", 1)[1][0]
        m = re.match(r"\[py:(\d+)\]\+0x([0-9a-f]+)\+0x[0-9a-f]+$", e["stack"].split("\n")[0])
        assert m and e["tid"] != main_tid, (py, e["stack"])
        seen.setdefault(who, set()).add((e["tid"], names[(int(m.group(1)), int(m.group(2), 16))]))
tops = {k: sorted(v) for k, v in seen.items()}
assert [len(v) for v in tops.values()] == [1, 1] and tops["a"][0][0] != tops["b"][0][0], (py, tops)
tops = {k: v[0][1] for k, v in tops.items()}
assert tops == {"a": "leak_in_a", "b": "leak_in_b"}, (py, tops)
PY
done

# The layout table against each version's headers: offsetof() of every
# member the recorder reads, in the table's column order.
if have cc; then
    cat > off.c <<'EOF'
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030b0000
#include <internal/pycore_frame.h>
#include <internal/pycore_code.h>
#define FR _PyInterpreterFrame
#else
#include <frameobject.h>
#define FR PyFrameObject
#endif
int main(void)
{
    long v[21] = { PY_MINOR_VERSION };
#if PY_VERSION_HEX >= 0x030d0000
    v[1] = offsetof(PyThreadState, current_frame); v[2] = -1;
#elif PY_VERSION_HEX >= 0x030b0000
    v[1] = offsetof(PyThreadState, cframe); v[2] = offsetof(_PyCFrame, current_frame);
#else
    v[1] = offsetof(PyThreadState, frame); v[2] = -1;
#endif
#if PY_VERSION_HEX >= 0x030b0000
    v[3] = offsetof(FR, previous); v[5] = -1; v[6] = 0;
#if PY_VERSION_HEX >= 0x030d0000
    v[4] = offsetof(FR, f_executable); v[7] = offsetof(FR, instr_ptr);
#else
    v[4] = offsetof(FR, f_code); v[7] = offsetof(FR, prev_instr);
#endif
    v[8] = offsetof(FR, owner); v[9] = offsetof(FR, owner) + 1;
    v[12] = offsetof(PyCodeObject, co_qualname); v[14] = offsetof(PyCodeObject, co_linetable);
    v[15] = -1; v[16] = offsetof(PyCodeObject, co_code_adaptive);
#else
    v[3] = offsetof(FR, f_back); v[4] = offsetof(FR, f_code); v[5] = offsetof(FR, f_lasti);
    v[6] = PY_VERSION_HEX >= 0x030a0000 ? 2 : 1; v[7] = -1; v[8] = -1;
    v[9] = offsetof(FR, f_lasti) + 4; v[12] = -1;
#if PY_VERSION_HEX >= 0x030a0000
    v[14] = offsetof(PyCodeObject, co_linetable);
#else
    v[14] = offsetof(PyCodeObject, co_lnotab);
#endif
    v[15] = offsetof(PyCodeObject, co_code); v[16] = -1;
#endif
    v[10] = offsetof(PyCodeObject, co_filename); v[11] = offsetof(PyCodeObject, co_name);
    v[13] = offsetof(PyCodeObject, co_firstlineno);
    v[17] = sizeof(PyASCIIObject); v[18] = sizeof(PyCompactUnicodeObject);
    v[19] = offsetof(FR, f_globals);
#if PY_VERSION_HEX >= 0x030b0000
    v[20] = offsetof(PyThreadState, datastack_chunk);
    if (offsetof(PyThreadState, datastack_top) != v[20] + 8)
        v[20] = -2;
#else
    v[20] = -1;
#endif
    for (int i = 0; i < 21; i++)
        printf("%s%ld", i ? ", " : "{ ", v[i]);
    printf(" }\n");
    return 0;
}
EOF
    # the table's rows, spaces squeezed: "{ 8, 24, -1, ... }"
    sed -n '/^static const struct rec_py_layout layouts/,/^};/p' "$TOP/recorder/preload/pyframe.c" |
        grep '^ *{ [0-9]' | sed 's/^ *//; s/},*$/}/; s/  */ /g' > table.txt
    for v in 8 9 10 11 12 13; do
        inc=$(ls -d "$HOME"/.pyenv/versions/3.$v.*/include/python3.$v 2>/dev/null | tail -n 1)
        if [ -z "$inc" ]; then
            echo "SKIP layout 3.$v: no headers under ~/.pyenv/versions"
            continue
        fi
        if ! cc -w -I"$inc" -I"$inc/internal" off.c -o "off$v" 2> "off$v.err"; then
            not_ok "layout 3.$v: the headers do not compile: $(head -n 3 "off$v.err")"
            continue
        fi
        got=$("./off$v")
        grep -qxF "$got" table.txt || not_ok "layout 3.$v: headers say $got, not in the table:
$(cat table.txt)"
    done
else
    echo "SKIP layout check: no C compiler"
fi

# Hostile thread states: the current frame pointer made unmapped, then made
# to point at bytes that hold their own address (a chain that loops, a code
# object that is none), at a page the program cannot read, and into a
# region it mapped and unmapped again with a raw system call (which no
# wrapper sees); on 3.11+ the data stack chunk made one whose header lies
# about its size and one unmapped before it was named. Each around an open
# through ctypes (which releases the GIL), on the main thread and on
# another; restored before any Python code runs. The open must happen, the
# program must go on, and the stack of that open must hold no Python frame
# (the frame pointer cases) or still the Python frames (the chunk cases:
# those frames are then read through the kernel).
cat > hostile.py <<'EOF'
import ctypes, os, sys, threading
v = sys.version_info[:2]
ts = ctypes.pythonapi.PyGILState_GetThisThreadState
ts.restype = ctypes.c_void_p
libc = ctypes.CDLL(None, use_errno=True)
libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.syscall.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_size_t]
PAGE = 4096
def mapped(pages, prot=3):
    return libc.mmap(None, pages * PAGE, prot, 0x22, -1, 0)   # MAP_PRIVATE|MAP_ANONYMOUS
def gone(pages):
    at = mapped(pages)
    ctypes.memset(at, 0x41, pages * PAGE)
    libc.syscall(11, at, pages * PAGE)                           # SYS_munmap: no wrapper sees it
    return at
def frame_slot(state):
    if v >= (3, 13):
        return state + 72
    if v >= (3, 11):
        return ctypes.c_void_p.from_address(state + 56).value + (8 if v == (3, 11) else 0)
    return state + 24
loop = (ctypes.c_uint64 * 64)()
loop[:] = [ctypes.addressof(loop)] * 64
cases = [("unmapped", "frame", 0xdead0000beef), ("loop", "frame", ctypes.addressof(loop)),
         ("prot_none", "frame", mapped(1, 0)), ("gone", "frame", gone(4) + 2 * PAGE)]
if v >= (3, 11):
    liar = mapped(1)
    # previous, size (1 MiB: its end is not mapped), top
    ctypes.memmove(liar, (ctypes.c_uint64 * 3)(0, 1 << 20, liar + 2 * PAGE), 24)
    cases += [("chunk_liar", "chunk", liar), ("chunk_gone", "chunk", gone(2))]
def run(name, what, bad, d):
    state = ts()
    if what == "frame":
        slots = [(frame_slot(state), bad)]
    else:
        # datastack_chunk, and datastack_top two pages in (past the liar's page)
        at = state + (296 if v == (3, 11) else 232)
        slots = [(at, bad), (at + 8, bad + 2 * PAGE)]
    words = [ctypes.c_void_p.from_address(a) for a, _ in slots]
    saved = [w.value for w in words]
    path = os.path.join(d, name).encode()
    for w, (_, b) in zip(words, slots):
        w.value = b
    fd = libc.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    for w, s in zip(words, saved):
        w.value = s
    print(name, fd >= 0)
    os.close(fd)
def every_case(d, prefix):
    for name, what, bad in cases:
        run(prefix + name, what, bad, d)
every_case(sys.argv[1], "")
t = threading.Thread(target=every_case, args=(sys.argv[1], "t_"))
t.start()
t.join()
# an untouched open: the frames the chunk cases must keep
os.close(libc.open(os.path.join(sys.argv[1], "plain").encode(), os.O_WRONLY | os.O_CREAT, 0o644))
print("cases", " ".join(c[0] for c in cases))
EOF
n=0
for py in $pythons; do
    n=$((n + 1))
    rm -rf "h$n"
    mkdir "h$n"
    "$py" hostile.py "h$n" > "hn$n" 2>&1
    echo "rc=$?" >> "hn$n"
    rm -rf "h$n"
    mkdir "h$n"
    env $REC_ENV "$IORECORD" -o "h$n.zst" -- "$py" hostile.py "h$n" > "hr$n" 2>&1
    echo "rc=$?" >> "hr$n"
    cases=$(sed -n 's/^cases //p' "hn$n")
    { for c in $cases; do echo "$c True"; done
      for c in $cases; do echo "t_$c True"; done
      echo "cases $cases"; echo rc=0; } > "hx$n"
    [ -n "$cases" ] && cmp -s "hx$n" "hn$n" || not_ok "$py: hostile.py natively: $(cat "hn$n")"
    cmp -s "hn$n" "hr$n" || not_ok "$py: hostile.py recorded: $(cat "hr$n")"
    "$IOANALYZE" dump -f jsonl "h$n.zst" > "h$n.jsonl" 2> /dev/null || not_ok "$py: dump hostile"
    python3 - "$py" "h$n.jsonl" "$work/h$n" <<'PY' || not_ok "$py: hostile stacks"
import json, sys
py, dump, d = sys.argv[1:]
opens = {e["path"].rsplit("/", 1)[1]: e for e in map(json.loads, open(dump))
         if e["ev"] == "call" and e["op"] == "open" and (e["path"] or "").startswith(d + "/")}
frames = ["unmapped", "loop", "prot_none", "gone"]
chunks = ["chunk_liar", "chunk_gone"] if "chunk_liar" in opens else []
names = frames + chunks
assert sorted(opens) == sorted(names + ["t_" + c for c in names] + ["plain"]), (py, sorted(opens))
def py_frames(e):
    return [f for f in (e["stack"] or "").split("\n") if f.startswith("[py:")]
assert len(py_frames(opens["plain"])) == 1, (py, opens["plain"]["stack"])
for c in frames:
    for name in (c, "t_" + c):
        assert opens[name]["stack"] and not py_frames(opens[name]), (py, name, opens[name]["stack"])
# run(), every_case() and, on the main thread, the module's code
for c in chunks:
    assert len(py_frames(opens[c])) == 3, (py, c, opens[c]["stack"])
    assert len(py_frames(opens["t_" + c])) >= 2, (py, "t_" + c, opens["t_" + c]["stack"])
PY
done
[ $fail = 0 ] && echo "ok: Python frames in $n interpreters; layouts as their headers say; hostile thread states walked safely"
exit $fail
