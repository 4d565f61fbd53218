#!/usr/bin/python3
"""make realworld: records real programs from Debian packages twice (two
directories, two HOMEs, the second under two busy loops) and once under
strace, and checks the issues against strace's view and against each other.
docs/realworld.md says what it checks and how to read its table.

usage: run.py [--build DIR] [--out DIR] [--only NAME,...] [--keep] | --apt-packages
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from programs import PROGRAMS, DEPS_APT       # noqa: E402
from record import Run, RunError, missing      # noqa: E402
from strace_view import StraceView             # noqa: E402
from judge import judge                        # noqa: E402
from report import print_table                 # noqa: E402

# Where each run's directory and HOME are made: other trees, of one length,
# so that a program writing its own paths writes as many bytes in each.
BASES = {"quiet": "/tmp/realworld.q", "busy": "/var/tmp/rwbusy1", "strace": "/tmp/realworld.s"}
ANALYSES = {"default": [], "low": ["--min-severity", "low"], "ci": ["--ci"],
            "ci_low": ["--ci", "--min-severity", "low"]}


def analyze(build, trace, extra, out):
    p = subprocess.run([os.path.join(build, "bin", "ioanalyze"), "analyze", "-f", "json"] + extra + [trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    with open(out, "wb") as f:
        f.write(p.stdout)
    if p.returncode != 0:
        raise RunError("ioanalyze %s on %s failed (exit %d): %s" % (" ".join(extra), trace, p.returncode,
                       p.stderr.decode(errors="replace").strip().splitlines()[-1:] or ""))
    return json.loads(p.stdout or b"[]")


def one(row, args):
    out = os.path.join(args.out, row["name"])
    shutil.rmtree(out, ignore_errors=True)
    runs, made = {}, []
    try:
        for label, busy, how in (("quiet", False, "record"), ("busy", True, "record"), ("strace", False, "strace")):
            os.makedirs(BASES[label], exist_ok=True)
            run = Run(row, label, BASES[label], out, args.build, how, busy)
            made.append(run)
            trace = run.go()
            entry = {"dirs": (run.base, run.run_dir, run.home), "trace": trace, "run": run}
            if how == "record":
                for name, extra in ANALYSES.items():
                    entry[name] = analyze(args.build, trace, extra, os.path.join(run.out, name + ".json"))
            else:
                for name in ("low", "ci_low"):
                    entry[name] = analyze(args.build, trace, ANALYSES[name], os.path.join(run.out, name + ".json"))
                entry["view"] = StraceView(trace, run.run_dir)
            runs[label] = entry
    finally:
        if not args.keep:
            for run in made:
                shutil.rmtree(run.base, ignore_errors=True)
    s = runs["strace"]
    fps = {i.get("fingerprint") for i in s["low"]}
    both = s["low"] + [i for i in s["ci_low"] if i.get("fingerprint") not in fps]
    return judge(row, runs, both, s["view"], s["dirs"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--build", default=os.path.join(top, "build"))
    ap.add_argument("--out", default=None, help="where traces, logs and issues go (default BUILD/realworld)")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--keep", action="store_true", help="keep the run directories")
    ap.add_argument("--apt-packages", action="store_true", help="print the Debian packages the programs need")
    args = ap.parse_args()
    if args.apt_packages:
        print(" ".join(DEPS_APT))
        return 0
    args.build = os.path.abspath(args.build)
    args.out = os.path.abspath(args.out or os.path.join(args.build, "realworld"))
    for tool in ("bin/iorecord", "bin/ioanalyze"):
        if not os.access(os.path.join(args.build, tool), os.X_OK):
            print("realworld: %s/%s is not built (run make)" % (args.build, tool), file=sys.stderr)
            return 2
    if shutil.which("strace") is None:
        print("realworld: strace is not installed (make realworld-deps)", file=sys.stderr)
        return 2
    only = set(filter(None, args.only.split(",")))
    unknown = only - {r["name"] for r in PROGRAMS}
    if unknown:
        print("realworld: no program named %s" % ", ".join(sorted(unknown)), file=sys.stderr)
        return 2
    results = []
    for row in PROGRAMS:
        if only and row["name"] not in only:
            continue
        need = missing(row)
        if need:
            results.append((row, None, "SKIP: %s is not installed (apt-get install %s)" % (need, row["package"])))
            print("SKIP %s: %s is not installed (apt-get install %s)" % (row["name"], need, row["package"]),
                  file=sys.stderr)
            continue
        t0 = time.monotonic()
        try:
            v = one(row, args)
            status = "FAIL" if v.failed else "ok"
            results.append((row, v, status))
        except (RunError, subprocess.TimeoutExpired, OSError, ValueError) as e:
            results.append((row, None, "ERROR: %s" % str(e).splitlines()[0]))
            status = "ERROR"
        print("realworld: %-12s %-5s %5.1f s" % (row["name"], status, time.monotonic() - t0), file=sys.stderr)
    sys.stdout.flush()
    print_table(results, sys.stdout)
    with open(os.path.join(args.out, "table.txt"), "w") as f:
        print_table(results, f)
    return 1 if any(s.startswith(("FAIL", "ERROR")) for _, _, s in results) else 0


if __name__ == "__main__":
    sys.exit(main())
