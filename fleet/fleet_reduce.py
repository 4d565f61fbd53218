"""fleet_reduce.py - the fleet's results reduced by fingerprint, and the
comparison of two sets of traces (fleet diff).

Each worker reduces its batch of traces (Reducer.add) and sends the
partial reduction (Reducer.partial, plain data); the client merges them as
they arrive (Reducer.merge). Every part of the reduction is a sum, a union,
a minimum or maximum, or a choice by a total order (the worst example: the
most time, then the smallest trace path), so the report is the same
whatever the batches and the order they arrive in: that of a sequential
loop over the traces.

Memory is bounded by the number of distinct fingerprints, hosts and label
values, and by one impact figure per (fingerprint, trace) for the median,
8 bytes each (an array of doubles, not a list of float objects: 1.6 MB
for 100,000 traces of two timed issues each): a trace's issue list is
folded in and dropped.
"""
import math
from array import array


def host_of(labels):
    """The host a trace comes from: its "host" label, else its "device"
    label; None when it has neither (counted in no host)."""
    return labels.get("host") or labels.get("device") or None


def time_ms_of(issue):
    """The time in the issue's harmful calls (impact.time_ms), or None."""
    v = (issue.get("impact") or {}).get("time_ms")
    return float(v) if isinstance(v, (int, float)) else None


def median(values):
    s = sorted(values)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


SEVERITIES = {"low": 0, "medium": 1, "high": 2}


class Fingerprint:
    """What the fleet knows of one fingerprint."""
    __slots__ = ("fp", "rule", "traces", "hosts", "first", "last", "labels",
                 "times", "worst", "worst_trace", "worst_ms", "severity")

    def __init__(self, fp, rule):
        self.fp, self.rule = fp, rule
        self.traces = 0
        self.hosts = set()
        self.first = self.last = None
        self.labels = {}        # key -> value -> traces
        self.times = array("d")   # time_ms, one per trace that timed it
        self.worst = self.worst_trace = None
        self.worst_ms = -1.0
        self.severity = None

    def better(self, key, trace):
        """Whether an example costing key (ms, -0.5 untimed) in trace is worse
        than the worst so far: the most time, the smallest path on a tie."""
        return (self.worst is None or key > self.worst_ms or
                (key == self.worst_ms and trace < self.worst_trace))

    def add(self, trace, labels, issue):
        self.traces += 1
        h = host_of(labels)
        if h is not None:
            self.hosts.add(h)
        t = issue.get("time")
        if isinstance(t, int):
            self.first = t if self.first is None else min(self.first, t)
            self.last = t if self.last is None else max(self.last, t)
        for k, v in labels.items():
            by = self.labels.setdefault(k, {})
            by[v] = by.get(v, 0) + 1
        ms = time_ms_of(issue)
        if ms is not None:
            self.times.append(ms)
        sev = issue.get("severity")
        if sev in SEVERITIES and (self.severity is None or
                                  SEVERITIES[sev] > SEVERITIES[self.severity]):
            self.severity = sev
        key = ms if ms is not None else -0.5
        if self.better(key, trace):
            self.worst, self.worst_trace, self.worst_ms = issue, trace, key

    def partial(self):
        return {"rule": self.rule, "traces": self.traces, "hosts": sorted(self.hosts),
                "first": self.first, "last": self.last, "labels": self.labels,
                "times": self.times, "worst": self.worst, "worst_trace": self.worst_trace,
                "worst_ms": self.worst_ms, "severity": self.severity}

    def merge(self, p):
        """Fold in another reduction's partial() of this fingerprint."""
        self.traces += p["traces"]
        self.hosts.update(p["hosts"])
        for end, pick in (("first", min), ("last", max)):
            mine, theirs = getattr(self, end), p[end]
            if theirs is not None:
                setattr(self, end, theirs if mine is None else pick(mine, theirs))
        add_counts(self.labels, p["labels"])
        self.times.extend(p["times"])
        sev = p["severity"]
        if sev in SEVERITIES and (self.severity is None or
                                  SEVERITIES[sev] > SEVERITIES[self.severity]):
            self.severity = sev
        if p["worst"] is not None and self.better(p["worst_ms"], p["worst_trace"]):
            self.worst, self.worst_trace = p["worst"], p["worst_trace"]
            self.worst_ms = p["worst_ms"]


def add_counts(into, counts):
    """{key: {value: n}} counts added into another such."""
    for k, by in counts.items():
        mine = into.setdefault(k, {})
        for v, n in by.items():
            mine[v] = mine.get(v, 0) + n


class Reducer:
    """Results folded in one at a time (add); report() gives the totals."""

    def __init__(self, select=None, baseline=None):
        # select, baseline: lists of (key, value) a trace's labels must all
        # have; select alone filters, both make the two sets of a diff
        self.select, self.baseline = select or [], baseline
        self.traces = 0          # results seen
        self.analysed = 0        # of the selected, analysed
        self.skipped = 0         # analysed, outside the selected sets
        self.errors = []         # (trace, message) of traces not analysed
        self.damaged = []        # (trace, message): analysed as far as they read
        self.hosts = set()
        self.label_totals = {}   # key -> value -> traces
        self.fps = {}
        self.sets = None if baseline is None else {"base": [0, {}], "cur": [0, {}]}

    @staticmethod
    def matches(labels, want):
        return all(labels.get(k) == v for k, v in want)

    def add(self, result):
        self.traces += 1
        trace, labels = result["trace"], result.get("labels") or {}
        if not result.get("ok"):
            self.errors.append((trace, result.get("error") or "not analysed"))
            return
        if result.get("error"):
            self.damaged.append((trace, result["error"]))
        if self.sets is not None:
            in_base = self.matches(labels, self.baseline)
            in_cur = self.matches(labels, self.select)
            if not in_base and not in_cur:
                self.skipped += 1
                return
            for name, member in (("base", in_base), ("cur", in_cur)):
                if member:
                    s = self.sets[name]
                    s[0] += 1
                    for fp in {i["fingerprint"] for i in result["issues"]}:
                        s[1][fp] = s[1].get(fp, 0) + 1
        elif not self.matches(labels, self.select):
            self.skipped += 1
            return
        self.analysed += 1
        h = host_of(labels)
        if h is not None:
            self.hosts.add(h)
        for k, v in labels.items():
            by = self.label_totals.setdefault(k, {})
            by[v] = by.get(v, 0) + 1
        seen = set()
        for issue in result["issues"]:
            fp = issue["fingerprint"]
            if fp in seen:      # one trace counts once per fingerprint
                continue
            seen.add(fp)
            f = self.fps.get(fp)
            if f is None:
                f = self.fps[fp] = Fingerprint(fp, issue.get("rule", ""))
            f.add(trace, labels, issue)

    def partial(self):
        """What this reduction holds, as plain data for merge()."""
        return {"traces": self.traces, "analysed": self.analysed, "skipped": self.skipped,
                "errors": self.errors, "damaged": self.damaged, "hosts": sorted(self.hosts),
                "labels": self.label_totals,
                "fps": {fp: f.partial() for fp, f in self.fps.items()},
                "sets": self.sets}

    def merge(self, p):
        """Fold in another Reducer's partial() (a worker's batch): the same
        as adding its results here one by one."""
        self.traces += p["traces"]
        self.analysed += p["analysed"]
        self.skipped += p["skipped"]
        self.errors.extend(tuple(e) for e in p["errors"])
        self.damaged.extend(tuple(d) for d in p["damaged"])
        self.hosts.update(p["hosts"])
        add_counts(self.label_totals, p["labels"])
        for fp, fpp in p["fps"].items():
            f = self.fps.get(fp)
            if f is None:
                f = self.fps[fp] = Fingerprint(fp, fpp["rule"])
            f.merge(fpp)
        if self.sets is not None and p["sets"] is not None:
            for name in ("base", "cur"):
                mine, theirs = self.sets[name], p["sets"][name]
                mine[0] += theirs[0]
                for fp, n in theirs[1].items():
                    mine[1][fp] = mine[1].get(fp, 0) + n

    def issues(self):
        """One object per fingerprint, ranked by prevalence x impact
        (share x median time), then by traces, then by fingerprint."""
        out = []
        n = self.analysed or 1
        for f in self.fps.values():
            med = median(f.times)
            w = f.worst or {}
            out.append({
                "fingerprint": f.fp,
                "rule": f.rule,
                "severity": f.severity,
                "message": w.get("message", ""),
                "traces": f.traces,
                "share": round(f.traces / n, 6),
                "hosts": len(f.hosts),
                "first_seen": f.first,
                "last_seen": f.last,
                "labels": {k: dict(sorted(v.items())) for k, v in sorted(f.labels.items())},
                "impact": {
                    "traces_timed": len(f.times),
                    # fsum: exact, so the same in any order of arrival
                    "total_time_ms": round(math.fsum(f.times), 4),
                    "median_time_ms": None if med is None else round(med, 4),
                },
                "score": round(f.traces / n * (med or 0.0), 6),
                "worst": {"trace": f.worst_trace, "issue": w},
            })
        out.sort(key=lambda o: (-o["score"], -o["traces"], o["fingerprint"]))
        return out

    def report(self):
        return {
            "traces": self.traces,
            "analysed": self.analysed,
            "skipped": self.skipped,
            "failed": len(self.errors),
            "damaged": len(self.damaged),
            "hosts": len(self.hosts),
            "labels": {k: dict(sorted(v.items())) for k, v in sorted(self.label_totals.items())},
            "errors": [{"trace": t, "error": e} for t, e in sorted(self.errors)],
            "damaged_traces": [{"trace": t, "error": e} for t, e in sorted(self.damaged)],
            "issues": self.issues(),
        }

    def diff(self, level, min_traces):
        """New, gone and rising fingerprints of the current set against the
        baseline: rising when its share is higher by a one-sided
        two-proportion z-test with p < level and at least min_traces
        current traces show it."""
        nb, base = self.sets["base"]
        nc, cur = self.sets["cur"]
        rules = {fp: f.rule for fp, f in self.fps.items()}
        new, gone, rising, steady = [], [], [], 0
        for fp in sorted(set(base) | set(cur)):
            xb, xc = base.get(fp, 0), cur.get(fp, 0)
            row = {"fingerprint": fp, "rule": rules.get(fp, ""),
                   "base_traces": xb, "base_share": round(xb / nb, 6) if nb else None,
                   "cur_traces": xc, "cur_share": round(xc / nc, 6) if nc else None}
            if xc and not xb:
                new.append(row)
            elif xb and not xc:
                gone.append(row)
            else:
                z, p = two_proportion(xb, nb, xc, nc)
                row["z"], row["p"] = round(z, 4), float("%.6g" % p)
                if p < level and xc >= min_traces:
                    rising.append(row)
                else:
                    steady += 1
        return {"base_traces": nb, "cur_traces": nc, "level": level,
                "min_traces": min_traces, "new": new, "gone": gone,
                "rising": rising, "steady": steady}


def two_proportion(x1, n1, x2, n2):
    """z and the one-sided p-value that the second share exceeds the first
    (pooled two-proportion z-test)."""
    if not n1 or not n2:
        return 0.0, 1.0
    p = (x1 + x2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (x2 / n2 - x1 / n1) / se
    return z, 0.5 * math.erfc(z / math.sqrt(2))
