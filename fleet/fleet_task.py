"""fleet_task.py - what a Dask worker does with one trace.

The trace is analysed by the C analyzer itself (`ioanalyze --format json
--min-severity low TRACE`, with the fleet's --config and --plugin passed
through): the same rules, configuration and plugins as `ioanalyze`, never a
re-implementation. The worker keeps only what the fleet reduction needs of
each issue, so that what travels back to the client is small.

Standard library only: the module is shipped to the workers by value
(cloudpickle), so a worker needs ioscope's `ioanalyze` and Python, not
this file.
"""
import json
import os
import shutil
import subprocess

# what the reduction keeps of an issue (docs/fleet.md, "worst")
KEPT = ("fingerprint", "rule", "type", "severity", "time", "path", "process",
        "message", "stack", "impact")

# bytes of stderr kept in an error message
ERR_BYTES = 400


def find_ioanalyze(preferred):
    """The ioanalyze to run: the client's when this machine has it, else PATH's."""
    if preferred and os.access(preferred, os.X_OK):
        return preferred
    return shutil.which("ioanalyze") or preferred or "ioanalyze"


def first_labels(events_text):
    """Labels of a JSONL dump's label events: each key once, its first value,
    in order (what `ioanalyze` keeps for an issue's "labels")."""
    labels = {}
    for line in events_text.splitlines():
        if '"ev":"label"' not in line:
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        k, v = ev.get("key"), ev.get("value")
        if isinstance(k, str) and isinstance(v, str) and k not in labels:
            labels[k] = v
    return labels


def dump_labels(ioanalyze, trace):
    """A trace's labels when it has no issue to carry them: the label events
    follow each process record, so the dump's first events have them; the
    dump is stopped at the first call."""
    proc = subprocess.Popen([ioanalyze, "dump", "--format", "jsonl", trace],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    head = []
    try:
        for line in proc.stdout:
            if '"ev":"call"' in line:
                break
            head.append(line)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    return first_labels("".join(head))


def analyse(trace, ioanalyze, extra_args):
    """One trace: {"trace", "ok", "error", "labels", "issues"}; never raises
    for a bad trace (a damaged or unreadable one is a result with ok False)."""
    exe = find_ioanalyze(ioanalyze)
    cmd = [exe, "analyze", "--format", "json", "--min-severity", "low"]
    cmd += list(extra_args) + ["--", trace]
    out = {"trace": trace, "ok": False, "error": "", "labels": {}, "issues": []}
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
    except OSError as e:
        out["error"] = "cannot run %s: %s" % (exe, e.strerror)
        return out
    err = r.stderr.decode("utf-8", "replace").strip()
    if r.returncode != 0:
        out["error"] = err[-ERR_BYTES:] or "ioanalyze exited with status %d" % r.returncode
        return out
    try:
        issues = json.loads(r.stdout)
    except ValueError:
        out["error"] = "ioanalyze wrote no JSON issues"
        return out
    if not isinstance(issues, list):
        out["error"] = "ioanalyze wrote no JSON array"
        return out
    out["ok"] = True
    # a damaged trace is analysed as far as it reads: said, not fatal
    for line in err.splitlines():
        if "damaged trace" in line:
            out["error"] = line[:ERR_BYTES]
            break
    for issue in issues:
        if isinstance(issue, dict) and isinstance(issue.get("fingerprint"), str):
            out["issues"].append({k: issue[k] for k in KEPT if k in issue})
            if not out["labels"] and isinstance(issue.get("labels"), dict):
                out["labels"] = issue["labels"]
    if not out["issues"]:
        out["labels"] = dump_labels(exe, trace)
    return out


def analyse_batch(traces, ioanalyze, extra_args):
    """Several traces in one task: the scheduler's cost per task is spread
    over them. A task lost with its worker is run again whole (retries), and
    analysing a trace twice gives the same result."""
    return [analyse(t, ioanalyze, extra_args) for t in traces]
