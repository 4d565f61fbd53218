#!/bin/sh
# What a Python frame walk costs per stacked call: a Python loop of
# os.open + os.close, each open stacked, called 2 and 20 Python frames
# deep, natively, recorded (the C stack and the interpreter's frames) and
# recorded with --no-stacks; the process's CPU ns per open+close (its
# threads' time.process_time() over the loop: the recorder's work in the
# program, not the launcher's), the median of 3 runs, for
# Debian's python3 and each pyenv CPython 3.8 to 3.13 present. On 3.11+
# the walk reads the thread state, the main thread's stack and its data
# stack chunk directly (no system call once the chunk was checked); on
# 3.8-3.10 a current frame object the thread's last walk read, and its
# callers (else one process_vm_readv for the chain). The C stack alone
# costs what bench_recorder's "open" says. Figures only: never pass/fail on
# time (on a loaded machine, count system calls with perf stat -e
# syscalls:sys_enter_process_vm_readv too).
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
IORECORD=$BUILD/bin/iorecord
[ -x "$IORECORD" ] || { echo "(skipped: $IORECORD is not built)"; exit 0; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-py.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cat > "$dir/loop.py" <<'PY'
import os, sys, time
def opener(path, n):
    for _ in range(n):
        os.close(os.open(path, os.O_RDONLY))
def deeper(path, n, depth):
    return opener(path, n) if depth <= 2 else deeper(path, n, depth - 1)
path, n, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
open(path, "w").close()
deeper(path, 1000, depth)
t = time.process_time()
deeper(path, n, depth)
print("%.0f" % ((time.process_time() - t) / n * 1e9))
PY
median() { sort -n | sed -n 2p; }
pythons=""
[ -x /usr/bin/python3 ] && pythons=/usr/bin/python3
for v in 8 9 10 11 12 13; do
    p=$(ls -d "$HOME"/.pyenv/versions/3.$v.*/bin/python3.$v 2>/dev/null | tail -n 1)
    [ -n "$p" ] && pythons="$pythons $p"
done
printf '%-40s %5s %9s %9s %9s %9s\n' python depth native stacks nostacks "walk+C"
for py in $pythons; do
    for depth in 2 20; do
        nat=$(for i in 1 2 3; do "$py" "$dir/loop.py" "$dir/f" 20000 $depth; done | median)
        st=$(for i in 1 2 3; do "$IORECORD" -o "$dir/t.zst" -- "$py" "$dir/loop.py" "$dir/f" 20000 $depth; done | median)
        no=$(for i in 1 2 3; do "$IORECORD" --no-stacks -o "$dir/t.zst" -- "$py" "$dir/loop.py" "$dir/f" 20000 $depth; done | median)
        printf '%-40s %5s %9s %9s %9s %9s\n' "$py" $depth $nat $st $no $((st - no))
    done
done
