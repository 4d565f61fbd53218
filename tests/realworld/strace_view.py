"""What an `strace -f -tt -T -y` log shows, read independently of ioanalyze:
per path, the calls of each kind and their bytes, and which tasks made them
(a process's first thread or another one, and the program it ran).
"""

import os
import re
from collections import Counter, defaultdict

READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
SYNCS = {"fsync", "fdatasync"}
OPENS = {"open", "openat", "openat2", "creat"}
FORKS = {"clone", "clone3", "fork", "vfork"}

_LINE = re.compile(r"^(\d+)\s+\d\d:\d\d:\d\d\.\d+\s+(.*)$")
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
_CALL = re.compile(r"^(\w+)\((.*)$")
_RET = re.compile(r"\)\s+=\s+(-?\d+|\?|0x[0-9a-f]+)(?:<(.*?)>)?(?:\s+([A-Z][A-Z0-9_]+)\b.*?)?(?:\s+<[\d.]+>)?$")
_FD0 = re.compile(r"^(?:AT_FDCWD|-?\d+)<(.+?)>(?=,|\)|$)")
_FDANY = re.compile(r"\b\d+<(/.+?|(?:pipe|socket|anon_inode):.+?)>(?=[,)\]}]|$)")
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ARGV0 = re.compile(r'^"(?:[^"\\]|\\.)*",\s*\["((?:[^"\\]|\\.)*)"(\.\.\.)?')
_QSTR = re.compile(r'^(?:AT_FDCWD(?:<(.+?)>)?|\d+<(.+?)>)?,?\s*"((?:[^"\\]|\\.)*)"')


class PathFacts:
    __slots__ = ("calls", "bytes", "tasks")

    def __init__(self):
        self.calls = Counter()          # syscall name -> successful calls
        self.bytes = Counter()          # syscall name -> bytes returned
        self.tasks = Counter()          # (tid, tgid) -> calls

    def totals(self):
        """Calls and bytes of reads, writes, syncs, opens."""
        def n(names):
            return sum(self.calls[x] for x in names)
        def b(names):
            return sum(self.bytes[x] for x in names)
        return {"reads": n(READS), "read_bytes": b(READS), "writes": n(WRITES),
                "write_bytes": b(WRITES), "syncs": n(SYNCS), "opens": n(OPENS)}


class StraceView:
    def __init__(self, log, cwd):
        self.paths = defaultdict(PathFacts)
        self.seen = set()               # every path the log names
        self.leader = {}                # tid -> tgid
        self.exe = {}                   # tgid -> the program's path as execve named it
        self.argv0 = {}                 # tgid -> the argv[0] it was given (not cut short)
        self.unfinished = {}
        self.cwd = cwd
        with open(log, errors="replace") as f:
            for line in f:
                self._line(line.rstrip("\n"))

    def _tgid(self, tid):
        return self.leader.setdefault(tid, tid)

    def _line(self, line):
        m = _LINE.match(line)
        if not m:
            return
        tid, rest = int(m.group(1)), m.group(2)
        self._tgid(tid)
        if rest.endswith("<unfinished ...>"):
            self.unfinished[tid] = rest[:-len("<unfinished ...>")].rstrip()
            return
        r = _RESUMED.match(rest)
        if r:
            head = self.unfinished.pop(tid, None)
            if head is None:
                return
            rest = head + r.group(2)
        c = _CALL.match(rest)
        if not c:
            return
        self._call(tid, c.group(1), c.group(2))

    def _call(self, tid, name, tail):
        ret = _RET.search(tail)
        if not ret:
            return
        args = tail[:ret.start()]
        val, retpath, err = ret.group(1), ret.group(2), ret.group(3)
        ok = val not in ("?",) and not val.startswith("-")
        for p in _FDANY.findall(args):
            self.seen.add(p)
        if retpath:
            self.seen.add(retpath)
        q = _QSTR.match(args)
        named = None
        if q:
            base = q.group(1) or q.group(2) or self.cwd
            s = q.group(3)
            if s:
                named = os.path.normpath(s if s.startswith("/") else os.path.join(base, s))
                self.seen.add(named)
        tgid = self._tgid(tid)
        if name in FORKS and ok and val.isdigit():
            child = int(val)
            self.leader[child] = tgid if "CLONE_THREAD" in args else child
            # the child's own execve may be in the log before this return
            # line (a vfork's parent resumes after the child's exec): kept
            if self.leader[child] == child:
                self.exe.setdefault(child, self.exe.get(tgid, ""))
                if tgid in self.argv0:
                    self.argv0.setdefault(child, self.argv0[tgid])
            return
        if name == "execve" and ok and named:
            self.exe[tgid] = named
            a0 = _ARGV0.match(args)
            if a0 and not a0.group(2):
                self.argv0[tgid] = a0.group(1)
            else:
                self.argv0.pop(tgid, None)
            return
        if name in OPENS:
            target = retpath if ok and retpath else named
            if target and ok:
                self._count(target, name, tid, tgid, 0)
            return
        fd = _FD0.match(args)
        path = fd.group(1) if fd else named
        if not path or not ok:
            return
        nbytes = int(val) if (name in READS or name in WRITES) and val.isdigit() else 0
        self._count(path, name, tid, tgid, nbytes)

    def _count(self, path, name, tid, tgid, nbytes):
        self.seen.add(path)
        facts = self.paths[path]
        facts.calls[name] += 1
        facts.bytes[name] += nbytes
        facts.tasks[(tid, tgid)] += 1

    def totals(self, path):
        """The path's figures by kind (PathFacts.totals), None if unseen."""
        f = self.paths.get(path)
        return None if f is None else f.totals()


def program_names(path, argv0=""):
    """The names a process running `path` goes by: its file's, the argv[0]
    it was given (what ps shows: BEAM's emulator runs as the escript that
    started it), and for a script its interpreter's (`#!/usr/bin/python3`,
    `#!/usr/bin/env python3`)."""
    names = {os.path.basename(path)}
    if argv0:
        names.add(os.path.basename(argv0))
    try:
        with open(path, "rb") as f:
            head = f.readline(256)
    except OSError:
        return names
    if head.startswith(b"#!"):
        words = head[2:].decode(errors="replace").split()
        if words:
            names.add(os.path.basename(words[0]))
            if os.path.basename(words[0]) == "env" and len(words) > 1:
                names.add(os.path.basename(words[1]))
    return names
