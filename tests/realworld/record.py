"""Running one program's workload: its directories and HOMEs, the busy
loops, the recorder or strace around it, a server under its load client.

Nothing here judges: it leaves traces, strace logs and what the commands
printed in the program's output directory, and says what went wrong in
a one-line reason.
"""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from programs import DATA

PY = "/usr/bin/python3"
STEP_TIMEOUT = 180          # seconds any one step may take before it is a failure
READY_TIMEOUT = 30          # seconds a server may take to listen


class RunError(Exception):
    """A run that could not be made; its message is the one-line reason."""


def missing(row):
    """The first command the row needs that is not installed, or None."""
    for need in row["needs"]:
        if os.path.isabs(need):
            if not os.access(need, os.X_OK):
                return need
        elif shutil.which(need) is None:
            return need
    if row["user"]:
        try:
            pwd.getpwnam(row["user"])
        except KeyError:
            return "user " + row["user"]
    return None


class Run:
    """One run of a row: a fresh directory and HOME under `base_dir`.

    `how` is "record" (iorecord) or "strace"; `busy` adds two busy loops
    for the recorded part."""

    def __init__(self, row, label, base_dir, out_dir, build, how, busy):
        self.row, self.label, self.how, self.busy = row, label, how, busy
        self.build = build
        self.base = tempfile.mkdtemp(prefix="rw-%s-" % row["name"], dir=base_dir)
        # other names in each run, so that nothing can pass by chance, of
        # one length, so that a program writing its paths writes as many bytes
        self.run_dir = os.path.join(self.base, "work-" + label[0])
        self.home = os.path.join(self.base, "home-" + label[0])
        # a fresh TMPDIR too, of one name in every run (it maps with the base)
        self.tmp = os.path.join(self.base, "tmp")
        os.makedirs(self.run_dir)
        os.makedirs(self.home)
        os.makedirs(self.tmp)
        self.out = os.path.join(out_dir, label)
        os.makedirs(self.out, exist_ok=True)
        self.trace = os.path.join(self.base, "trace.zst" if how == "record" else "strace.log")
        if row["user"]:
            pw = pwd.getpwnam(row["user"])
            for d in (self.base, self.run_dir, self.home, self.tmp):
                os.chown(d, pw.pw_uid, pw.pw_gid)

    def env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "IORECORD", "IOSCOPE", "LD_PRELOAD", "PYTHON", "PYENV", "VIRTUAL_ENV"))}
        env.update(HOME=self.home, TMPDIR=self.tmp, RUN=self.run_dir, PORT=str(self.row["port"]), DATA=DATA, PY=PY,
                   LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="dumb", USER=self.row["user"] or "root")
        env["PATH"] = "/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"
        return env

    def _as_user(self, argv):
        if self.row["user"]:
            return ["runuser", "-u", self.row["user"], "--"] + argv
        return argv

    def _wrap(self, argv):
        """argv under the recorder or strace, as the row's user."""
        if self.how == "record":
            tool = [os.path.join(self.build, "bin", "iorecord"), "-o", self.trace,
                    "--label", "program=" + self.row["name"], "--"]
        else:
            tool = ["strace", "-f", "-tt", "-T", "-y", "-o", self.trace]
        return self._as_user(["env"] + ["%s=%s" % kv for kv in sorted(self.env().items())] + tool + argv)

    def _sh(self, script, what, log):
        if not script.strip():
            return
        with open(os.path.join(self.out, log), "ab") as f:
            p = subprocess.run(self._as_user(["sh", "-c", script]), cwd=self.run_dir, env=self.env(),
                               stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=STEP_TIMEOUT)
        if p.returncode != 0:
            raise RunError("%s failed (exit %d; see %s)" % (what, p.returncode, os.path.join(self.out, log)))

    def go(self):
        """Setup, the recorded part, teardown; returns the path of the trace
        or log, copied into the output directory."""
        self._sh(self.row["setup"], "setup", "setup.log")
        loops = []
        if self.busy:
            loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
        try:
            if self.row["server"]:
                self._serve()
            else:
                self._workload()
        finally:
            for p in loops:
                p.kill()
                p.wait()
        self._sh(self.row["teardown"], "teardown", "teardown.log")
        name = os.path.basename(self.trace)
        dest = os.path.join(self.out, name)
        shutil.copyfile(self.trace, dest)
        return dest

    def _workload(self):
        with open(os.path.join(self.out, "workload.log"), "wb") as f:
            p = subprocess.run(self._wrap(["sh", "-c", self.row["workload"]]), cwd=self.run_dir,
                               stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=STEP_TIMEOUT)
        if p.returncode != 0:
            raise RunError("workload under %s failed (exit %d; see %s/workload.log)" % (self.how, p.returncode, self.out))

    def _serve(self):
        row = self.row
        log = open(os.path.join(self.out, "server.log"), "wb")
        p = subprocess.Popen(self._wrap(["sh", "-c", "exec " + row["server"]]), cwd=self.run_dir,
                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        try:
            if not _wait_port(row["port"], p):
                raise RunError("%s did not listen on port %d within %d s (see %s/server.log)"
                               % (row["comm"], row["port"], READY_TIMEOUT, self.out))
            self._sh(row["client"], "load client", "client.log")
            server = _find_descendant(p.pid, row["comm"])
            if server is None:
                raise RunError("no process named %s under the %s" % (row["comm"], self.how))
            os.kill(server, getattr(signal, "SIG" + row["stop"]))
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                raise RunError("%s did not stop within 60 s of SIG%s" % (row["comm"], row["stop"]))
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            log.close()


def _wait_port(port, proc):
    end = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def _children():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        kids.setdefault(int(rest[1]), []).append((int(d), comm))
    return kids


def _find_descendant(root, comm):
    """The topmost process below `root` named `comm` (a server's master)."""
    kids = _children()
    queue = [root]
    while queue:
        nxt = []
        for pid in queue:
            for child, name in kids.get(pid, []):
                if name == comm[:15]:
                    return child
                nxt.append(child)
        queue = nxt
    return None
