"""fleet_measure.py - one measured run of a command (bench_fleet_scale.sh).

Usage: fleet_measure.py -- COMMAND...

Runs COMMAND and prints one JSON object:
- wall seconds;
- CPU seconds: user + system of COMMAND and of every process it waited for
  (its Dask workers and their ioanalyze runs), from wait4;
- the peak resident set (VmHWM, KiB) of the client (COMMAND's own process,
  or the one it execs), of the largest other process under it that is not
  ioanalyze (a LocalCluster's workers and nannies), and of the largest
  ioanalyze under it. The peaks are sampled from /proc every 0.1 s: a
  process that lives less than that may be missed (the ioanalyze runs of
  a batch live longer);
- the client's own CPU ("client_cpu": the reduction, and a LocalCluster's
  scheduler, which runs in its process) and the sum of its other
  processes' own CPU, their children's left out ("dask_cpu": the workers
  and nannies), each as last sampled. The rest of the total is the
  ioanalyze runs the workers waited for;
- the CPU the rest of the machine used meanwhile ("others_cpu"): the busy
  time of all CPUs (/proc/stat) less this run's, so that a run can say
  whether it had the machine to itself (the load average cannot: it
  counts the bench's own earlier runs).
"""
import json
import os
import subprocess
import sys
import threading
import time


def children_map():
    """pid -> [child pids], from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def status(pid):
    """(name, VmHWM KiB) of pid, or None."""
    name, hwm = None, 0
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Name:"):
                    name = line.split()[1]
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        return None
    return name, hwm


def own_cpu(pid):
    """pid's own user + system seconds (not its children's), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy():
    """Seconds all CPUs have spent busy (not idle nor waiting for I/O)."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    # user nice system idle iowait irq softirq steal (guest time is in user)
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def sample(root, peaks, own, stop):
    while not stop.is_set():
        kids = children_map()
        todo = list(kids.get(root, []))
        st = status(root)
        if st:
            peaks["client"] = max(peaks["client"], st[1])
        cpu = own_cpu(root)
        if cpu is not None:
            peaks["client_cpu"] = max(peaks["client_cpu"], cpu)
        while todo:
            pid = todo.pop()
            todo += kids.get(pid, [])
            st = status(pid)
            if not st:
                continue
            # by the program, not the name: a forked worker keeps its
            # parent's name (ioanalyze-fleet)
            try:
                exe = os.readlink("/proc/%d/exe" % pid)
            except OSError:
                continue
            kind = "ioanalyze" if os.path.basename(exe) == "ioanalyze" else "worker"
            peaks[kind] = max(peaks[kind], st[1])
            if kind == "worker":
                cpu = own_cpu(pid)
                if cpu is not None:
                    own[pid] = cpu
        stop.wait(0.1)


def main():
    cmd = sys.argv[sys.argv.index("--") + 1:]
    peaks = {"client": 0, "worker": 0, "ioanalyze": 0, "client_cpu": 0.0}
    own = {}   # pid -> own CPU seconds of a worker or nanny, as last sampled
    busy0 = busy()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()
    th = threading.Thread(target=sample, args=(p.pid, peaks, own, stop), daemon=True)
    th.start()
    err = p.stderr.read()
    _, status_, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    busy1 = busy()
    stop.set()
    th.join()
    rc = os.waitstatus_to_exitcode(status_)
    print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rc": rc,
                      "client_kib": peaks["client"], "worker_kib": peaks["worker"],
                      "ioanalyze_kib": peaks["ioanalyze"],
                      "client_cpu": peaks["client_cpu"],
                      "dask_cpu": sum(own.values()),
                      "others_cpu": max(0.0, busy1 - busy0 - (ru.ru_utime + ru.ru_stime)),
                      "err": err.decode("utf-8", "replace")[-300:] if rc else ""}))


main()
