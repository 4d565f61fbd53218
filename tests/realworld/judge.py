"""The checks of `make realworld`, on the documented issue JSON only.

For one program: its issues from the quiet and the busy recorded runs (each
analysed by default and with --ci, at the default severity and at low), the
issues ioanalyze finds in the strace log of the third run, and that log read
on its own (strace_view). Each check adds to a figure of the table and, when
it fails, one line saying why.
"""

import re
from collections import defaultdict

from strace_view import PathFacts, program_names

SEVERITY = {"low": 1, "medium": 2, "high": 3}
MOVING_RUNTIMES = ("go", "java")
# rules whose documented grouping takes the stack, which strace lacks
STACK_GROUPED = ("repeat_read", "leak", "main_thread")
# rules about an op class: strace must show that class on the issue's path
RULE_OPS = {"repeat_read": "reads", "redundant_read": "reads", "random_read": "reads",
            "random_write": "writes", "write_amplification": "writes", "sync_storm": "syncs"}
# figures that are no sums: not bounded by a larger group's
_AVERAGE = re.compile(r"^(opSize|size|buffer)$|avg|per_")
# the stdio layer's figures that count syscalls
SYSCALL_FIGURES = ("detail.syscalls",)

# A figure is a count or a byte figure unless its name says it is a time,
# a share, an identity or a position.
# slow_calls counts calls over a time limit: a time, not the program's work.
# threads and thread_calls (present only when several threads shared a
# session's calls) say how the scheduler spread the work over a pool
# (ripgrep's searchers take turns at its output): a share, not the work.
_NOT_FIGURE = re.compile(r"(_us|_ms|_ns|_s|time|slow|share|ratio|pct|percent|occurrences|spread|offset|"
                         r"^threads$|^thread_calls$|"
                         r"^pid$|^tid$|^fd$|^first|^last|mask|bit|type|version)", re.I)
# detail keys whose meaning the docs give in terms strace counts too
_KERNEL_KEYS = ("syncs", "writes", "write_bytes", "reads", "read_bytes", "opens")
_ID = re.compile(r"[0-9a-fA-F]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ALNUM = re.compile(r"[A-Za-z0-9]{6,}")
_DIGITS = re.compile(r"\d+")
_MKSTEMP = re.compile(r"(?=[A-Za-z]*[a-z])(?=[A-Za-z]*[A-Z])[A-Za-z]{6}(?=$|/)")


def norm(path, dirs):
    """A path with the run's own directories as placeholders, and kernel
    object numbers dropped."""
    if not path:
        return path
    if path == "~" or path.startswith("~/"):
        path = "<HOME>" + path[1:]
    base, run, home = dirs
    for d, name in ((home, "<HOME>"), (run, "<RUN>"), (base, "<BASE>")):
        if path == d or path.startswith(d + "/"):
            path = name + path[len(d):]
    return re.sub(r"^(pipe|socket|anon_inode):\[?\d+\]?", r"\1:[]", path)


def shape(path):
    """A normalised path with names a program randomises folded (long hex
    ids, UUIDs, mkstemp-like mixes of letters and digits, numbers such as
    pytest's pytest-N)."""
    path = _ID.sub("<ID>", path or "")
    path = _ALNUM.sub(lambda m: "#" if re.search(r"\d", m.group()) and re.search(r"[A-Za-z]", m.group())
                      else m.group(), path)
    path = _MKSTEMP.sub("#", path)
    return _DIGITS.sub("#", path)


def figures(issue):
    """The issue's count and byte figures, by name."""
    out = {}
    for key in ("repeat", "op", "opSize", "size", "buffer"):
        v = issue.get(key)
        if key == "repeat" and issue.get("rule") == "main_thread":
            continue                    # a bitmask, not a count
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            out[key] = v
    for obj in ("detail", "impact"):
        for k, v in (issue.get(obj) or {}).items():
            if isinstance(v, int) and not isinstance(v, bool) and not _NOT_FIGURE.search(k):
                out["%s.%s" % (obj, k)] = v
    return out


def within(a, b, spread):
    return abs(a - b) <= spread * max(abs(a), abs(b))


def at_most(a, b, spread):
    """a counts no more than b, or more by no more than within() allows: a
    bound has the same tolerance as an equality (redis's AOF: 341 syncs and
    340 writes quiet against strace's 213 and 212, both within 0.5)."""
    return a <= b or within(a, b, spread)


class Verdict:
    def __init__(self, row):
        self.row = row
        self.shown = self.all = 0
        self.checked = self.wrong = self.unchecked = 0
        self.facts_checked = self.facts_wrong = 0
        self.flips = self.flips_explained = 0
        self.ci_diffs = self.fp_diffs = 0
        self.problems = []

    def fail(self, what):
        self.problems.append(what)

    @property
    def failed(self):
        return bool(self.wrong or self.facts_wrong or self.flips or self.ci_diffs or self.fp_diffs)


def judge(row, runs, strace_issues, view, strace_dirs):
    """runs: {"quiet"/"busy": {"dirs": (base, run, home), "default": [...],
    "low": [...], "ci": [...], "ci_low": [...]}}."""
    v = Verdict(row)
    quiet = runs["quiet"]
    v.shown = len(quiet["default"])
    v.all = len(quiet["low"])
    spread = row["spread"]

    # strace's view, by normalised path
    facts = defaultdict(PathFacts)
    for p, f in view.paths.items():
        g = facts[norm(p, strace_dirs)]
        g.calls.update(f.calls)
        g.bytes.update(f.bytes)
        g.tasks.update(f.tasks)
    # the same by shape, for paths a program names anew each run
    facts_shape = defaultdict(PathFacts)
    for p, f in facts.items():
        g = facts_shape[shape(p)]
        g.calls.update(f.calls)
        g.bytes.update(f.bytes)
        g.tasks.update(f.tasks)
    seen = {norm(p, strace_dirs) for p in view.seen}
    seen_shape = {shape(p) for p in seen}
    by_rule_path = defaultdict(list)
    for i in strace_issues:
        by_rule_path[(i.get("rule"), norm(i.get("path"), strace_dirs))].append(i)

    for label in ("quiet", "busy"):
        run = runs[label]
        groups = defaultdict(list)
        # the issues of both judgements: --ci's own are issues a user sees too
        fps = {i.get("fingerprint") for i in run["low"]}
        for i in run["low"] + [i for i in run["ci_low"] if i.get("fingerprint") not in fps]:
            groups[(i.get("rule"), norm(i.get("path"), run["dirs"]), i.get("process"))].append(i)
        for (rule, path, proc), issues in groups.items():
            for issue in issues:
                _check_issue(v, label, issue, rule, path, len(issues), by_rule_path, facts, facts_shape,
                             seen, seen_shape, view, spread)
    _compare_runs(v, runs)
    return v


def _tag(label, issue):
    return "%s %s %s [%s]" % (label, issue.get("rule"), issue.get("path") or "-", issue.get("fingerprint"))


def _check_issue(v, label, issue, rule, path, group_size, by_rule_path, facts, facts_shape, seen, seen_shape,
                 view, spread):
    figs = figures(issue)
    done = set()
    # 1. the same issue from strace's log of the third run
    cands = by_rule_path.get((rule, path), [])
    same = [c for c in cands if c.get("process") == issue.get("process")] or cands
    if len(same) == 1:
        other = figures(same[0])
        # strace has no stacks: where the rule groups by stack, or several
        # recorded sites share one strace issue, the issue's sums are bounds;
        # so are a search's, as strace also sees the failed lookups glibc
        # makes inside libc (the loader's library search, locale and NSS
        # files), which no preload sees (docs/recorder.md)
        libc_unseen = rule == "metadata_storm" and (issue.get("detail") or {}).get("pattern") == "missing"
        bound = group_size > 1 or rule in STACK_GROUPED or libc_unseen
        # figures of the stdio layer are calls strace cannot see; only the
        # syscalls they made compare
        layer = (issue.get("detail") or {}).get("layer") != (same[0].get("detail") or {}).get("layer")
        for k, a in figs.items():
            if k not in other or (bound and _AVERAGE.search(k)) or (layer and k not in SYSCALL_FIGURES):
                continue
            done.add(k)
            b = other[k]
            ok = at_most(a, b, spread) if bound else (a == b or within(a, b, spread))
            v.checked += 1
            if not ok:
                v.wrong += 1
                v.fail("%s: %s = %d, strace's log gives %d%s" % (_tag(label, issue), k, a, b,
                       "" if not bound else " (the issue cannot count more)"))
    # 2. the path's totals as strace counted them
    f = facts.get(path)
    detail = issue.get("detail") or {}
    if f is not None and detail.get("layer") != "stdio":
        tot = f.totals()
        for key in _KERNEL_KEYS:
            k = "detail." + key
            if k not in figs:
                continue
            a, b = figs[k], tot[key]
            exact = rule == "sync_storm" and key == "syncs"
            ok = within(a, b, spread) if exact else at_most(a, b, spread)
            v.checked += 1 if k not in done else 0
            done.add(k)
            if not ok:
                v.wrong += 1
                v.fail("%s: %s = %d, strace counted %d %s on this path%s" % (
                    _tag(label, issue), k, a, b, key.replace("_", " "),
                    "" if exact else " in all (the issue cannot count more)"))
    v.unchecked += len(set(figs) - done)
    # 3. the path and the thread named
    if not path or rule == "unobserved":
        return
    v.facts_checked += 1
    if path not in seen and shape(path) not in seen_shape:
        if spread:
            v.unchecked += 1
            return
        v.facts_wrong += 1
        v.fail("%s: strace's log never names this path" % _tag(label, issue))
        return
    if f is None:
        f = facts_shape.get(shape(path))
    op = RULE_OPS.get(rule)
    if op and not (f is not None and f.totals()[op]):
        v.facts_checked += 1
        v.facts_wrong += 1
        v.fail("%s: strace's log shows no %s on this path" % (_tag(label, issue), op))
        return
    if f is None or not f.tasks:
        return
    v.facts_checked += 1
    main = issue.get("tid") == issue.get("pid")
    leader_calls = sum(n for (tid, tgid), n in f.tasks.items() if tid == tgid)
    total = sum(f.tasks.values())
    exes = {n[:15] for (tid, tgid) in f.tasks
            for n in program_names(view.exe.get(tgid, ""), view.argv0.get(tgid, "")) if n}
    proc = (issue.get("process") or "")[:15]
    bad = None
    # Go's and the JVM's work moves between threads from run to run: which
    # thread made a call there is not a fact another run can check.
    moving = v.row["kind"] in MOVING_RUNTIMES
    if main and leader_calls == 0 and not moving:
        bad = "names the process's first thread; strace shows only other threads on this path"
    elif not main and leader_calls == total and not moving:
        bad = "names thread %s; strace shows only processes' first threads on this path" % issue.get("tid")
    elif main and rule == "main_thread" and leader_calls * 2 < total and \
            not any("thread" in k for k in detail):
        bad = "says the main thread, which made %d of the path's %d calls in strace's log" % (leader_calls, total)
    if not bad and proc and exes and proc not in exes and not any(proc.startswith(e) for e in exes):
        bad = "names process %s; strace shows %s on this path" % (proc, ", ".join(sorted(exes)))
    if bad:
        v.facts_wrong += 1
        v.fail("%s: %s" % (_tag(label, issue), bad))


def _sev(issues):
    return {i.get("fingerprint"): i.get("severity") for i in issues}


def _compare_runs(v, runs):
    # default against --ci: the same trace, so the same work
    for label in ("quiet", "busy"):
        run = runs[label]
        for plain, ci, what in ((run["low"], run["ci_low"], "every severity"),
                                (run["default"], run["ci"], "shown by default")):
            a, b = _sev(plain), _sev(ci)
            diff = {fp for fp in set(a) | set(b) if a.get(fp) != b.get(fp)}
            if diff and what == "every severity":
                v.ci_diffs += len(diff)
                for fp in sorted(diff):
                    v.fail("%s: %s is %s by default, %s with --ci" % (label, fp, a.get(fp, "absent"), b.get(fp, "absent")))
    # quiet against busy, other directory, other HOME
    q, b = runs["quiet"], runs["busy"]
    qi = {i["fingerprint"]: i for i in q["low"]}
    bi = {i["fingerprint"]: i for i in b["low"]}
    only_q = {fp for fp in qi if fp not in bi}
    only_b = {fp for fp in bi if fp not in qi}

    def key(i, dirs):
        return (i.get("rule"), shape(norm(i.get("path"), dirs)), i.get("process"))
    moved_b = defaultdict(list)
    for fp in only_b:
        moved_b[key(bi[fp], b["dirs"])].append(fp)
    for fp in sorted(only_q):
        k = key(qi[fp], q["dirs"])
        if moved_b.get(k):
            other = moved_b[k].pop()
            only_b.discard(other)
            v.fp_diffs += 1
            v.fail("%s %s: fingerprint %s in the quiet run is %s in the busy one (other directory and HOME)"
                   % (k[0], qi[fp].get("path"), fp, other))
        else:
            _flip(v, qi[fp], None)
    for fp in sorted(only_b):
        _flip(v, None, bi[fp])
    for fp in sorted(set(qi) & set(bi)):
        if qi[fp].get("severity") != bi[fp].get("severity"):
            _flip(v, qi[fp], bi[fp])


def _flip(v, quiet, busy):
    one = quiet or busy
    sq = quiet.get("severity") if quiet else "absent"
    sb = busy.get("severity") if busy else "absent"
    if quiet and busy:
        differs = figures(quiet) != figures(busy)
    else:
        differs = bool(v.row["spread"])
    what = "%s %s [%s]: %s quiet, %s busy" % (one.get("rule"), one.get("path") or "-", one.get("fingerprint"), sq, sb)
    if differs:
        v.flips_explained += 1
        v.problems.append("explained: " + what + " (the runs' figures differ: other work)")
    else:
        v.flips += 1
        v.fail(what + ", with the same work")
