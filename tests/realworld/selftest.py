#!/usr/bin/python3
"""The harness's own checks on made-up inputs whose answers are known: each
check must pass on the right figures and fail on wrong ones. Run by
tests/e2e/test_realworld_selftest.sh (no program, no recorder needed)."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strace_view import StraceView     # noqa: E402
from judge import judge, norm, shape   # noqa: E402

LOG = """\
100 10:00:00.000001 execve("/usr/bin/prog", ["prog"], 0x7ffd /* 3 vars */) = 0 <0.000100>
100 10:00:00.000002 openat(AT_FDCWD</s/run>, "db", O_RDWR|O_CREAT, 0644) = 3</s/run/db> <0.000010>
100 10:00:00.000003 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, child_tid=0x7f}, 88) = 101 <0.000050>
100 10:00:00.000004 write(3</s/run/db>, "abc", 3) = 3 <0.000010>
100 10:00:00.000005 fdatasync(3</s/run/db> <unfinished ...>
101 10:00:00.000006 write(3</s/run/db>, "abcd", 4) = 4 <0.000010>
101 10:00:00.000007 pwrite64(3</s/run/db>, "ab", 2, 100 <unfinished ...>
100 10:00:00.000008 <... fdatasync resumed>) = 0 <0.000100>
101 10:00:00.000009 <... pwrite64 resumed>) = 2 <0.000010>
101 10:00:00.000010 fsync(3</s/run/db>) = 0 <0.000100>
101 10:00:00.000011 write(3</s/run/db>, "x", 1) = 1 <0.000010>
101 10:00:00.000012 newfstatat(AT_FDCWD</s/run>, "gone", 0x7ffd, 0) = -1 ENOENT (No such file or directory) <0.000010>
100 10:00:00.000013 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD, child_tidptr=0x7f) = 102 <0.000050>
102 10:00:00.000014 read(0<pipe:[555]>, "q", 1) = 1 <0.000010>
100 10:00:00.000014 getdents64(4</s/run>, 0x55 /* 3 entries */, 32768) = 72 <0.000010>
100 10:00:00.000015 vfork( <unfinished ...>
103 10:00:00.000015 execve("/usr/bin/other", ["other"], 0x7ffd /* 3 vars */) = 0 <0.000100>
100 10:00:00.000015 <... vfork resumed>) = 103 <0.000200>
104 10:00:00.000016 execve("/usr/lib/erlang/bin/beam.smp", ["/usr/bin/rebar3", "-B"], 0x7ffd /* 3 vars */) = 0 <0.000100>
105 10:00:00.000016 execve("/usr/lib/erlang/bin/beam.smp", ["/usr/lib/erlang/erts-13.1.5/bin/b"..., "-B"], 0x7ffd /* 3 vars */) = 0 <0.000100>
100 10:00:00.000016 +++ exited with 0 +++
"""

ROW = {"name": "prog", "kind": "database", "spread": 0.0}
QDIRS = ("/q", "/q/run", "/q/home")
BDIRS = ("/b", "/b/run", "/b/home")
failures = []


def expect(what, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


def issue(fp, rule, path, sev="high", tid=100, **detail):
    return {"rule": rule, "path": path, "process": "prog", "pid": 100, "tid": tid, "fingerprint": fp,
            "severity": sev, "repeat": detail.get("syncs", 0), "detail": dict(detail)}


def runs(quiet, busy, quiet_ci=None, busy_ci=None):
    def one(dirs, low, ci):
        ci = low if ci is None else ci
        return {"dirs": dirs, "low": low, "default": low, "ci_low": ci, "ci": ci}
    return {"quiet": one(QDIRS, quiet, quiet_ci), "busy": one(BDIRS, busy, busy_ci)}


with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
    f.write(LOG)
view = StraceView(f.name, "/s/run")
os.unlink(f.name)
SDIRS = ("/s", "/s/run", "/s/home")

tot = view.totals("/s/run/db")
expect("strace totals", tot, {"reads": 0, "read_bytes": 0, "writes": 4, "write_bytes": 10, "syncs": 2, "opens": 1})
expect("thread 101 is of process 100", view.leader.get(101), 100)
expect("process 102 is its own", view.leader.get(102), 102)
expect("102 runs prog", view.exe.get(102), "/usr/bin/prog")
expect("103 exec'd other before its vfork returned", view.exe.get(103), "/usr/bin/other")
expect("104 was given argv[0] /usr/bin/rebar3", view.argv0.get(104), "/usr/bin/rebar3")
expect("105's argv[0] was cut short: not kept", view.argv0.get(105), None)
expect("103's argv[0] is other's", view.argv0.get(103), "other")
expect("the failed lookup is seen", "/s/run/gone" in view.seen, True)
expect("the pipe is seen", "pipe:[555]" in view.seen, True)
expect("norm", norm("/q/home/.cache/x", QDIRS), "<HOME>/.cache/x")
expect("norm ~", norm("~/x", QDIRS), "<HOME>/x")
expect("shape", shape("<RUN>/repo/0123456789abcdef0123/sortAb3xYz"), "<RUN>/repo/<ID>/#")

# right figures, same on both runs: nothing fails
good = issue("f1", "sync_storm", "/q/run/db", syncs=2, writes=4, write_bytes=10)
goodb = dict(good, path="/b/run/db")
v = judge(ROW, runs([good], [goodb]), [issue("s1", "sync_storm", "/s/run/db", syncs=2, writes=4, write_bytes=10)],
          view, SDIRS)
expect("good: wrong", v.wrong, 0)
expect("good: checked", v.checked, 8)
expect("good: facts", (v.facts_checked, v.facts_wrong), (4, 0))
expect("good: failed", v.failed, False)

# a sync count strace does not show, in both checks
bad = issue("f1", "sync_storm", "/q/run/db", syncs=3)
v = judge(ROW, runs([bad], [dict(bad, path="/b/run/db")]), [issue("s1", "sync_storm", "/s/run/db", syncs=2)], view, SDIRS)
expect("bad syncs: wrong", v.wrong, 6)
expect("bad syncs: failed", v.failed, True)

# more bytes than strace saw on the path, no strace issue to match
bad = issue("f1", "small_buffer", "/q/run/db", write_bytes=11)
v = judge(ROW, runs([bad], [dict(bad, path="/b/run/db")]), [], view, SDIRS)
expect("bytes over the path's: wrong", v.wrong, 2)

# a stdio-layer issue: its calls are not strace's syscalls, its syscalls are
st = dict(issue("f4", "small_buffer", "/q/run/db"), op=195, detail={"layer": "stdio", "syscalls": 4})
v = judge(ROW, runs([st], [dict(st, path="/b/run/db")]), [dict(issue("s4", "small_buffer", "/s/run/db", syscalls=4), op=4)],
          view, SDIRS)
expect("stdio layer: checked, wrong", (v.checked, v.wrong), (2, 0))
st["detail"]["syscalls"] = 3
v = judge(ROW, runs([st], [dict(st, path="/b/run/db")]), [dict(issue("s4", "small_buffer", "/s/run/db", syscalls=4), op=4)],
          view, SDIRS)
expect("stdio layer, syscalls wrong", v.wrong, 2)

# grouped by stack: strace's one issue bounds the recorded one
rr = dict(issue("f5", "repeat_read", "/q/run/db"), repeat=6, opSize=442)
srr = dict(issue("s5", "repeat_read", "/s/run/db"), repeat=8, opSize=440)
v = judge(ROW, runs([rr], [dict(rr, path="/b/run/db")]), [srr], view, SDIRS)
expect("stack-grouped bound", (v.checked, v.wrong), (2, 0))
v = judge(ROW, runs([dict(rr, repeat=9)], [dict(rr, path="/b/run/db")]), [srr], view, SDIRS)
expect("stack-grouped over the bound", v.wrong, 1)

# a main_thread issue on a path the first thread made 2 of 6 calls on
mt = issue("f2", "main_thread", "/q/run/db")
v = judge(ROW, runs([mt], [dict(mt, path="/b/run/db")]), [], view, SDIRS)
expect("main thread share: false", v.facts_wrong, 2)
mt2 = dict(mt, detail={"threads": 2})
v = judge(ROW, runs([mt2], [dict(mt2, path="/b/run/db")]), [], view, SDIRS)
expect("main thread share said: false", v.facts_wrong, 0)

# a path strace never names
ghost = issue("f3", "repeat_open", "/q/run/nothere")
v = judge(ROW, runs([ghost], [dict(ghost, path="/b/run/nothere")]), [], view, SDIRS)
expect("unknown path: false", v.facts_wrong, 2)

# a repeat_read of a directory strace saw listed, never read
rd = issue("f6", "repeat_read", "/q/run")
v = judge(ROW, runs([rd], [dict(rd, path="/b/run")]), [], view, SDIRS)
expect("reads of a directory: false", v.facts_wrong, 2)

# severity flip with the same figures; the same with other figures
v = judge(ROW, runs([good], [dict(goodb, severity="medium")]), [], view, SDIRS)
expect("flip", (v.flips, v.flips_explained), (1, 0))
other = dict(goodb, severity="medium", detail=dict(goodb["detail"], syncs=1))
v = judge(ROW, runs([good], [other]), [], view, SDIRS)
expect("explained flip", (v.flips, v.flips_explained), (0, 1))

# one finding under two fingerprints across directories
v = judge(ROW, runs([good], [dict(goodb, fingerprint="f9")]), [], view, SDIRS)
expect("fingerprint moved", (v.fp_diffs, v.flips), (1, 0))

# a program whose work depends on time: a bound has the tolerance an
# equality has (strace's log: 2 syncs, 4 writes on the path)
TROW = dict(ROW, spread=0.5)
t = issue("f1", "sync_storm", "/q/run/db", syncs=3, writes=7)
v = judge(TROW, runs([t], [dict(t, path="/b/run/db")]), [], view, SDIRS)
expect("time-dependent, within the spread", v.wrong, 0)
t = issue("f1", "sync_storm", "/q/run/db", syncs=3, writes=9)
v = judge(TROW, runs([t], [dict(t, path="/b/run/db")]), [], view, SDIRS)
expect("time-dependent, writes over the spread", v.wrong, 2)

# default against --ci
v = judge(ROW, runs([good], [goodb], quiet_ci=[dict(good, severity="medium")]), [], view, SDIRS)
expect("ci", v.ci_diffs, 1)

if failures:
    for line in failures:
        print("not ok " + line)
    sys.exit(1)
print("ok   the realworld harness's checks pass right figures and fail wrong ones")
