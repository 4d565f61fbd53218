#!/usr/bin/env python3
"""check_counts.py STRACE_LOG OUTDIR EXPECTED.json - a sample's expected
issues against strace's count of the same sample's calls.

The expected files (samples/expected/NAME.json) are written by ioscope
itself (UPDATE=1); this checks their call counts against an independent
witness: strace -f -y of the same program, which names each call's file.
For every expected issue of a rule whose `op` is the number of data calls
of its direction (opType 1 read, 2 write) on its path, that number must be
strace's count of read-like or write-like calls on that path. Prints one
line per issue checked; exit 1 on a difference.
"""
import re
import sys

# rules whose `op` counts every read (opType 1) or write (2) on the path;
# small_buffer's counts those that asked `buffer` bytes or fewer
COUNTED_RULES = {"small_buffer", "random_read", "random_write", "sync_storm",
                 "repeat_open", "write_amplification", "redundant_read"}
READS = {"read", "pread64", "readv", "preadv", "preadv2"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
CALL = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\(\d+<([^>]*)>")
# the size asked: read(fd, buf, SIZE) and write's, pread's before the offset
SIZE = re.compile(r", (\d+)(?:, \d+)?\) += ")


def strace_counts(log):
    """(path, kind) -> the sizes asked by each call, in order."""
    counts = {}
    with open(log, errors="replace") as f:
        for line in f:
            m = CALL.match(line)
            if not m or "= -1" in line.rsplit(")", 1)[-1]:
                continue
            name, path = m.groups()
            kind = 1 if name in READS else 2 if name in WRITES else 0
            if kind:
                size = SIZE.search(line)
                counts.setdefault((path, kind), []).append(int(size.group(1)) if size else -1)
    return counts


def main(argv):
    import json
    if len(argv) != 4:
        sys.exit("usage: check_counts.py STRACE_LOG OUTDIR EXPECTED.json")
    counts = strace_counts(argv[1])
    fail = 0
    with open(argv[3], encoding="utf-8") as f:
        issues = json.load(f)
    for i in issues:
        if i.get("rule") not in COUNTED_RULES or i.get("opType") not in (1, 2):
            continue
        path = i["path"].replace("$OUT", argv[2])
        sizes = counts.get((path, i["opType"]), [])
        if i["rule"] == "small_buffer":
            sizes = [n for n in sizes if 0 <= n <= i["buffer"]]
        seen = len(sizes)
        verb = "reads" if i["opType"] == 1 else "writes"
        if seen != i["op"]:
            print(f"FAIL {i['rule']} {i['path']}: expected {i['op']} {verb}, strace saw {seen}")
            fail = 1
        else:
            print(f"ok   {i['rule']} {i['path']}: {seen} {verb}, as strace saw")
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv))
