#!/usr/bin/env python3
"""kernel_twins.py WHAT A B - two recordings of one program compared: one
by the preload (A), one by the kernel path (B), made in the same directory.

WHAT is "issues" (ioanalyze analyze --format json of each) or "calls"
(ioanalyze dump --format jsonl of each). Prints each difference on a line
of its own and exits 1 when there is one, 0 when they agree.

issues: every field that says what was found, where and how much, equal;
left out are what the two paths cannot share: the time and ids of the run
(time, pid, tid), the executable (exe: the kernel path runs a static
copy), the call stacks (the kernel path takes none) and what is
made from them (fingerprint, group), and what is measured in time (the
impact's time_ms and io_share, severity and cost, which follow the
timings, and the detail's timings).

calls: the program's calls on its files and fds, in order per thread
(main or other), as (op, fd, newfd, path, flags) with repeats counted;
each thread's last name, and the labels. Calls on the standard streams
and on /proc are left out: the preload sees printf (and
pthread_setname_np), the kernel the write(1) (and the open and write of
the thread's comm file) they make.
"""
import json
import sys

TIMED_IMPACT = {"time_ms", "io_share"}
TIMED_DETAIL = {"max_continual_us", "max_once_us", "open_sites"}
NOT_SHARED = {"time", "pid", "tid", "exe", "stack", "frames", "open_stack", "open_frames",
              "fingerprint", "group", "severity", "cost"}
# ops both paths record of this program's own calls
OPS = {"open", "close", "read", "write", "dup", "fcntl", "pipe", "socket", "anonfd",
       "memfd", "mmap", "munmap", "cwd", "stat", "unlink", "mkdir"}


def issue_key(i):
    out = {k: v for k, v in i.items() if k not in NOT_SHARED}
    out["impact"] = {k: v for k, v in i.get("impact", {}).items() if k not in TIMED_IMPACT}
    out["detail"] = {k: v for k, v in i.get("detail", {}).items() if k not in TIMED_DETAIL}
    return out


def issues(a, b):
    with open(a) as f:
        ia = sorted((issue_key(i) for i in json.load(f)), key=json.dumps)
    with open(b) as f:
        ib = sorted((issue_key(i) for i in json.load(f)), key=json.dumps)
    diffs = []
    if len(ia) != len(ib):
        diffs.append(f"{len(ia)} issues by the preload, {len(ib)} by the kernel path")
    for x, y in zip(ia, ib):
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                diffs.append(f"{x.get('rule')} {x.get('path')}: {k}: preload {x.get(k)!r}, "
                             f"kernel {y.get(k)!r}")
    return diffs


def calls(path):
    per_thread = {}
    names, labels = {}, []   # tid -> its last name, in the order first named
    pid = None
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e["ev"] == "process" and pid is None:
                pid = e["pid"]
            if e["pid"] != pid:
                continue
            role = "main" if e["tid"] == e["pid"] else "thread"
            if e["ev"] == "thread":
                names[e["tid"]] = e["name"]
            elif e["ev"] == "label":
                labels.append((e["key"], e["value"]))
            elif e["ev"] == "call" and e["op"] in OPS:
                if e["fd"] is not None and 0 <= e["fd"] <= 2:
                    continue
                if (e["path"] or "").startswith("/proc/"):
                    continue
                t = (e["op"], e["fd"], e["newfd"], e["path"], e["flags"], e["errno"])
                seq = per_thread.setdefault(role, [])
                if seq and seq[-1][0] == t:
                    seq[-1][1] += 1
                else:
                    seq.append([t, 1])
    return per_thread, list(names.values()), labels


def compare_calls(a, b):
    (ca, na, la), (cb, nb, lb) = calls(a), calls(b)
    diffs = []
    for role in sorted(set(ca) | set(cb)):
        sa, sb = ca.get(role, []), cb.get(role, [])
        for i in range(max(len(sa), len(sb))):
            x = sa[i] if i < len(sa) else None
            y = sb[i] if i < len(sb) else None
            if x != y:
                diffs.append(f"{role} call {i}: preload {x}, kernel {y}")
                break
    if na != nb:
        diffs.append(f"thread names: preload {na}, kernel {nb}")
    if la != lb:
        diffs.append(f"labels: preload {la}, kernel {lb}")
    return diffs


def main():
    what, a, b = sys.argv[1:4]
    diffs = issues(a, b) if what == "issues" else compare_calls(a, b)
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
