"""The table `make realworld` prints: one row per program, then the totals,
then every failed check in one line each."""

COLUMNS = [
    ("program", "name"), ("kind", "kind"), ("shown", "shown"), ("all", "all"),
    ("figures", "checked"), ("wrong", "wrong"), ("unchecked", "unchecked"),
    ("facts", "facts_checked"), ("false", "facts_wrong"), ("flips", "flips"),
    ("explained", "flips_explained"), ("ci", "ci_diffs"), ("fp", "fp_diffs"),
]


def print_table(results, out):
    """results: (row, Verdict or None, status) in the table's order."""
    head = [c for c, _ in COLUMNS] + ["status"]
    lines = []
    totals = dict.fromkeys((k for _, k in COLUMNS[2:]), 0)
    for row, v, status in results:
        cells = [row["name"], row["kind"]]
        for _, k in COLUMNS[2:]:
            if v is None:
                cells.append("-")
            else:
                cells.append(str(getattr(v, k)))
                totals[k] += getattr(v, k)
        cells.append(status)
        lines.append(cells)
    ran = sum(1 for _, v, _ in results if v is not None)
    failed = sum(1 for _, v, s in results if s.startswith(("FAIL", "ERROR")))
    lines.append(["total", "%d run" % ran] + [str(totals[k]) for _, k in COLUMNS[2:]]
                 + ["%d failed, %d skipped" % (failed, sum(1 for _, _, s in results if s.startswith("SKIP")))])
    widths = [max(len(r[i]) for r in lines + [head]) for i in range(len(head))]
    def fmt(r):
        return "  ".join(c.ljust(w) if i < 2 or i == len(r) - 1 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    print(fmt(head), file=out)
    for r in lines[:-1]:
        print(fmt(r), file=out)
    print(fmt(lines[-1]), file=out)
    print(file=out)
    for row, v, status in results:
        if v is not None and v.problems:
            print("%s:" % row["name"], file=out)
            for p in v.problems:
                print("  " + p, file=out)
    print(LEGEND, file=out)


LEGEND = """\
shown: issues shown by default (quiet run); all: at every severity;
figures/wrong: count and byte figures compared with strace's view of the third run, and those that differ;
unchecked: figures strace cannot see (stdio calls, stacks) or paths a time-dependent program did not touch there;
facts/false: paths and threads named, checked against strace's log, and those it contradicts;
flips: fingerprints whose severity (or presence) differs between the quiet and the busy run with the same work;
explained: such differences where the runs' figures show other work; ci: differences between default and --ci;
fp: one finding under two fingerprints across the two directories and HOMEs."""
