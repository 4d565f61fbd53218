"""fleet_scale_report.py - the figures of bench_fleet_scale.sh from its runs.

Usage: fleet_scale_report.py RUNS N S IDS

RUNS holds a line per measured run: PHASE ROUND WORKERS TRACES JSON, JSON
being fleet_measure.py's object (wall, cpu, client_cpu, dask_cpu, peaks,
others_cpu). N and S are the two fleet sizes of the scale phase, IDS the
number of distinct build-ids in the traces.

The margin of a round and worker count is the slope between its two fleet
sizes, (N - S) / (t(N) - t(S)): the cluster's start, Python's imports and
the walk's first steps cancel out. Figures over rounds are medians with
their spread (min-max). The 2/1 ratio is taken per round first (its two
runs ran closest in time, under the most alike load) and then its median.
The CPU figures do not depend on the machine's other load the way wall
times do: W, the workers' and their ioanalyze runs' CPU a trace at the
margin, and X, the client's own (the reduction, and the LocalCluster's
scheduler in its process), bound 2 workers on 2 cores to 2W/(W+X) of one,
whatever else runs.
"""
import json
import statistics
import sys


def spread(values, fmt):
    """median (min-max) of values, each formatted with fmt."""
    if not values:
        return "n/a"
    med = statistics.median(values)
    if len(values) == 1:
        return fmt % med
    return "%s (%s-%s)" % (fmt % med, fmt % min(values), fmt % max(values))


def load_runs(path):
    runs = []
    for line in open(path):
        phase, rnd, w, n, js = line.split(" ", 4)
        runs.append({"phase": phase, "round": rnd, "workers": int(w), "n": int(n),
                     **json.loads(js)})
    return runs


def one(runs, phase):
    for r in runs:
        if r["phase"] == phase:
            return r
    return None


def ratio(a, b):
    return a / b if b > 0 else float("nan")


def cache_figures(runs, s, ids):
    c, wm, b = (one(runs, p) for p in ("each_cold", "each_warm", "each_bare"))
    if c and wm and b:
        print("fleet scale, ioanalyze analyze --each over %d traces of %d build-ids: CPU "
              "cold cache %.2f s, warm %.2f s, --no-stacks %.2f s: stacked/bare %.2fx warm, "
              "%.2fx cold (goal <= 1.5x); %.3f ms CPU a stacked trace warm, %.3f bare"
              % (s, ids, c["cpu"], wm["cpu"], b["cpu"], ratio(wm["cpu"], b["cpu"]),
                 ratio(c["cpu"], b["cpu"]), wm["cpu"] / s * 1e3, b["cpu"] / s * 1e3))
    c, wm, b = (one(runs, p) for p in ("cold", "warm", "bare"))
    if c and wm and b:
        print("fleet scale, %d traces of %d build-ids on 2 workers: cold cache %.1f s "
              "(%.1f s CPU), warm %.1f s (%.1f s CPU), --no-stacks %.1f s (%.1f s CPU): "
              "stacked/bare %.2fx CPU, %.2fx wall warm; %.2fx CPU, %.2fx wall cold"
              % (s, ids, c["wall"], c["cpu"], wm["wall"], wm["cpu"], b["wall"], b["cpu"],
                 ratio(wm["cpu"], b["cpu"]), ratio(wm["wall"], b["wall"]),
                 ratio(c["cpu"], b["cpu"]), ratio(c["wall"], b["wall"])))


def margins(runs, n, s):
    """workers -> [per round: {whole, margin, X, W, ana, rss...}], and the
    rounds whose runs failed."""
    by = {}
    for r in runs:
        if r["phase"] == "scale":
            by.setdefault((r["round"], r["workers"]), {})[r["n"]] = r
    out, failed = {}, []
    for (rnd, w), sizes in sorted(by.items()):
        small, big = sizes.get(s), sizes.get(n)
        if not small or not big or small["rc"] or big["rc"]:
            failed.append((rnd, w))
            continue
        dt = big["wall"] - small["wall"]
        d = n - s

        def per(key):
            return (big[key] - small[key]) / d * 1e3
        x = per("client_cpu")
        total = per("cpu")
        dask = per("dask_cpu")
        out.setdefault(w, []).append({
            "round": rnd, "whole": n / big["wall"],
            "margin": d / dt if dt > 0 else float("nan"),
            "X": x, "W": total - x, "dask": dask, "ana": total - x - dask,
            "client_kib": (small["client_kib"], big["client_kib"]),
            "worker_kib": (small["worker_kib"], big["worker_kib"]),
            "ioanalyze_kib": big["ioanalyze_kib"],
            "others": max(small["others_cpu"] / small["wall"], big["others_cpu"] / big["wall"])})
    return out, failed


def scale_figures(runs, n, s):
    by, failed = margins(runs, n, s)
    for rnd, w in failed:
        print("fleet scale: round %s, %d worker(s): a run failed (its line above)" % (rnd, w))
    for w in sorted(by):
        rs = by[w]
        print("fleet scale, %d worker(s), %d round(s): %d traces at %s traces/s whole, %s at "
              "the margin (%d to %d)"
              % (w, len(rs), n, spread([r["whole"] for r in rs], "%.0f"),
                 spread([r["margin"] for r in rs], "%.0f"), s, n))
        print("  CPU a trace at the margin, ms: workers W %s (Dask %s, ioanalyze %s), "
              "client X %s"
              % (spread([r["W"] for r in rs], "%.3f"), spread([r["dask"] for r in rs], "%.3f"),
                 spread([r["ana"] for r in rs], "%.3f"), spread([r["X"] for r in rs], "%.3f")))
        print("  peak RSS, KiB: client %d for %d traces, %d for %d; worker %d, %d; "
              "ioanalyze %d; other processes' CPU up to %.2f cores"
              % (max(r["client_kib"][0] for r in rs), s, max(r["client_kib"][1] for r in rs), n,
                 max(r["worker_kib"][0] for r in rs), max(r["worker_kib"][1] for r in rs),
                 max(r["ioanalyze_kib"] for r in rs), max(r["others"] for r in rs)))
    if 1 not in by or 2 not in by:
        return
    one_, two = {r["round"]: r for r in by[1]}, {r["round"]: r for r in by[2]}
    paired = sorted(set(one_) & set(two))
    for key, name in (("margin", "at the margin"), ("whole", "whole")):
        per_round = [ratio(two[k][key], one_[k][key]) for k in paired]
        print("fleet scale, 2 workers against 1 %s: %s (per round: %s; medians' ratio %.2fx)"
              % (name, spread(per_round, "%.2fx"), ", ".join("%.2fx" % x for x in per_round),
                 ratio(statistics.median(r[key] for r in by[2]),
                       statistics.median(r[key] for r in by[1]))))
    w_ = statistics.median(r["W"] for r in by[2])
    x_ = statistics.median(r["X"] for r in by[2])
    print("fleet scale, what 2 cores allow at the margin (2 workers' medians): W %.3f ms, "
          "X %.3f ms a trace: 2W/(W+X) = %.2fx one worker"
          % (w_, x_, ratio(2 * w_, w_ + x_)))
    others = max(r["others"] for rs in by.values() for r in rs)
    if others >= 0.1:
        print("fleet scale: other processes used up to %.2f of the cores during a run: the "
              "wall figures above are not a quiet machine's (the CPU ones hold better)" % others)


def main():
    path, n, s, ids = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    runs = load_runs(path)
    bad = [r for r in runs if r["rc"] and r["phase"] != "scale"]
    for r in bad:
        print("fleet scale: %s failed: %s" % (r["phase"], r["err"].strip()))
    cache_figures(runs, s, ids)
    scale_figures(runs, n, s)


main()
