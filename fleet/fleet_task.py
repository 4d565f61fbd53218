"""fleet_task.py - what a Dask worker does with one batch of traces.

The traces are analysed by the C analyzer itself, one process for the
batch: `ioanalyze analyze --each --format json --min-severity low TRACE...`
(with the fleet's --config and --plugin passed through), which analyses
each trace on its own, as a run on it alone would, and writes a line per
trace with its labels and issues or why it could not be read: the same
rules, configuration and plugins as `ioanalyze`, never a re-implementation.
The worker then reduces its batch by fingerprint (fleet_reduce.Reducer,
the client's own reduction) and sends back that partial reduction: one
small object per batch, whatever the traces' issue lists held.

Standard library and fleet_reduce only: both modules are shipped to the
workers by value (cloudpickle), so a worker needs ioscope's `ioanalyze`
and Python, not these files.
"""
import json
import os
import shutil
import signal
import subprocess

from fleet_reduce import Reducer

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


def failed(trace, error):
    return {"trace": trace, "ok": False, "error": error, "labels": {}, "issues": []}


def result_of(trace, line):
    """The fleet's result of one --each line: {"trace", "ok", "error",
    "labels", "issues"}, error being, for a damaged trace analysed as far
    as it reads, its damage."""
    if not line.get("ok"):
        return failed(trace, str(line.get("error") or "not analysed")[-ERR_BYTES:])
    warnings = [w for w in line.get("warnings") or [] if isinstance(w, str)]
    error = ""
    if line.get("damaged"):
        said = [w for w in warnings if "damaged" in w] or warnings or ["damaged trace"]
        error = said[0][:ERR_BYTES]
    labels = line.get("labels")
    issues = [{k: i[k] for k in KEPT if k in i} for i in line.get("issues") or []
              if isinstance(i, dict) and isinstance(i.get("fingerprint"), str)]
    return {"trace": trace, "ok": True, "error": error,
            "labels": labels if isinstance(labels, dict) else {}, "issues": issues}


def why_stopped(exe, rc, err):
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return "%s died of %s analysing it" % (os.path.basename(exe), name)
    return err[-ERR_BYTES:] or "ioanalyze exited with status %d" % rc


def run_each(exe, traces, extra_args):
    """(results of the traces ioanalyze --each answered, in order; its exit
    status; its stderr). It answers a prefix of traces: all of them, unless
    it stopped (crashed on one, or refused its configuration)."""
    cmd = [exe, "analyze", "--each", "--format", "json", "--min-severity", "low"]
    cmd += list(extra_args) + ["--"] + list(traces)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL)
    results = []
    for raw in r.stdout.splitlines():
        if len(results) == len(traces):
            break
        try:
            line = json.loads(raw)
        except ValueError:
            break
        if not isinstance(line, dict) or line.get("input") != traces[len(results)]:
            break
        results.append(result_of(traces[len(results)], line))
    return results, r.returncode, r.stderr.decode("utf-8", "replace").strip()


def analyse_traces(traces, ioanalyze, extra_args):
    """Each trace's result, in order; never raises for a bad trace (a damaged
    or unreadable one is a result). One ioanalyze for the batch; if it stops
    on a trace (a crash), that trace is a failure and the rest of the batch
    is run again after it."""
    exe = find_ioanalyze(ioanalyze)
    traces = list(traces)
    results = []
    while len(results) < len(traces):
        rest = traces[len(results):]
        try:
            got, rc, err = run_each(exe, rest, extra_args)
        except OSError as e:
            return results + [failed(t, "cannot run %s: %s" % (exe, e.strerror)) for t in rest]
        results += got
        if len(got) == len(rest):
            break
        if not got and rc > 0:
            # refused before any trace (the configuration, a plugin): every
            # trace would be refused alike
            return results + [failed(t, why_stopped(exe, rc, err)) for t in rest]
        results.append(failed(rest[len(got)], why_stopped(exe, rc, err)))
    return results


def analyse_batch(traces, ioanalyze, extra_args, select=None, baseline=None):
    """Several traces in one task, reduced here by fingerprint: the client
    merges one partial reduction per batch (fleet_reduce.Reducer.merge). A
    task lost with its worker is run again whole (retries), and analysing a
    trace twice gives the same result."""
    reducer = Reducer(select, baseline)
    for result in analyse_traces(traces, ioanalyze, extra_args):
        reducer.add(result)
    return reducer.partial()
