#!/usr/bin/env python3
"""check_parts.py TOP OBJDIR - the boundaries of parts.mk, checked.

Fails (exit 1, one line per breach on stdout) when
  - a file includes a header of another part that its part may not use, or
    that the other part does not publish (a part with `installs` may include
    only those and its `own`: the rules are written against what a plugin
    gets);
  - an object calls a function defined in a part its part may not use,
    unless its own part declares that function (an interface it owns and
    another part implements, as rule.h's rule_report);
  - the objects of one part call each other round in a circle;
  - a file of code (C, headers, Python, shell, make) passes 800 lines;
  - parts.mk, the Makefile, README.md or a doc (docs/*.md) names a file of
    the tree that is not there (a stale name after a move or a rename), or
    docs/architecture.md names a header (`x.h`) that no part has.
Exit 0 when all holds. Reads only parts.mk, the sources, the docs and `nm`
of the objects the build left in OBJDIR.
"""
import os
import re
import subprocess
import sys


def read_parts(top):
    var = {}
    with open(os.path.join(top, "parts.mk")) as f:
        for line in f:
            m = re.match(r"^([\w.]+)\s*:=\s*(.*?)\s*$", line)
            if m:
                var[m.group(1)] = m.group(2).split()
    parts = {}
    for p in var["PARTS"]:
        parts[p] = {
            "dir": var[p + ".dir"][0],
            "uses": var.get(p + ".uses", []),
            "public": var.get(p + ".public", []),
            "installs": [os.path.basename(h) for h in var.get(p + ".installs", [])],
            "own": var.get(p + ".own", []),
        }
    return parts


def part_files(top, d, exts):
    full = os.path.join(top, d)
    return sorted(os.path.join(d, n) for n in os.listdir(full)
                  if os.path.splitext(n)[1] in exts)


def check_includes(top, parts, breaches):
    where = {}   # header name -> part owning it
    for p, info in parts.items():
        for h in part_files(top, info["dir"], {".h"}):
            where.setdefault(os.path.basename(h), p)
    for p, info in parts.items():
        for src in part_files(top, info["dir"], {".c", ".h"}):
            with open(os.path.join(top, src), errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    h = m.group(1)
                    if os.path.exists(os.path.join(top, info["dir"], h)):
                        # a part with installs includes of its own only those
                        # and the headers it names as its own
                        if info["installs"] and h not in info["installs"] + info["own"]:
                            breaches.append(f"{src}:{n}: includes {info['dir']}/{h}, which "
                                            f"{p} neither installs nor names in {p}.own")
                        continue
                    owner = where.get(h)
                    if owner is None:
                        continue    # made by the build (install_dirs.h)
                    if info["installs"]:
                        if h not in info["installs"]:
                            breaches.append(f"{src}:{n}: includes {parts[owner]['dir']}/{h}, "
                                            f"but {p} sees only what it installs: "
                                            f"{' '.join(info['installs'])}")
                        continue
                    if owner not in info["uses"]:
                        breaches.append(f"{src}:{n}: includes {parts[owner]['dir']}/{h}, "
                                        f"but {p} does not use {owner}")
                    elif parts[owner]["public"] != ["*"] and h not in parts[owner]["public"]:
                        breaches.append(f"{src}:{n}: includes {parts[owner]['dir']}/{h}, "
                                        f"which {owner} does not publish")


def declared_in(top, d):
    """Every identifier followed by '(' in the headers of folder d."""
    names = set()
    for h in part_files(top, d, {".h"}):
        with open(os.path.join(top, h), errors="replace") as f:
            names.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", f.read()))
    return names


def nm_all(paths):
    """Each object's defined functions and undefined symbols, from one nm
    run over them all (one nm per object was most of the check's time)."""
    out = subprocess.run(["nm", "-A", "-P"] + paths, capture_output=True, text=True,
                         check=True).stdout
    syms = {p: (set(), set()) for p in paths}
    for line in out.splitlines():
        path, sep, rest = line.partition(": ")
        f = rest.split()
        if not sep or len(f) < 2 or path not in syms:
            continue
        defined, undefined = syms[path]
        if f[1] == "U":
            undefined.add(f[0])
        elif f[1] in "TW":   # functions: a call, not shared data
            defined.add(f[0])
    return syms


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def system_symbols(programs):
    """What the system libraries the programs load define: the preload
    defines open, fprintf, ZSTD_* and the like to stand in for them, which
    is interposition, not a call between parts."""
    libs = set()
    for prog in programs:
        out = subprocess.run(["ldd", prog], capture_output=True, text=True).stdout
        libs.update(m.group(1) for m in re.finditer(r"=> (/\S+)", out))
    names = set()
    if not libs:
        return names
    out = subprocess.run(["nm", "-A", "-D", "-P", "--defined-only"] + sorted(libs),
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.partition(": ")[2].split()
        if f:
            names.add(f[0].split("@")[0])
    return names


def check_calls(top, objdir, parts, breaches):
    owner, defs, undefs, objs = {}, {}, {}, {}
    bindir = os.path.join(os.path.dirname(os.path.normpath(objdir)), "bin")
    system = system_symbols([os.path.join(bindir, p) for p in ("ioanalyze", "iorecord")])
    for p, info in parts.items():
        d = os.path.join(objdir, info["dir"])
        if not os.path.isdir(d):
            breaches.append(f"{d}: no objects of {p}; build first")
            continue
        for n in sorted(os.listdir(d)):
            if n.endswith(".o"):
                o = os.path.join(info["dir"], n[:-2] + ".c")
                owner[o] = p
                objs[o] = os.path.join(d, n)
    syms = nm_all(sorted(objs.values())) if objs else {}
    for o, path in objs.items():
        defs[o], undefs[o] = syms[path]
    by_sym = {}
    for o, ds in defs.items():
        for s in ds - system:
            by_sym.setdefault(s, o)
    own_decls = {p: declared_in(top, info["dir"]) for p, info in parts.items()}
    edges = {}
    for o, us in undefs.items():
        p = owner[o]
        for s in sorted(us):
            t = by_sym.get(s)
            if t is None or t == o:
                continue
            q = owner[t]
            if q == p:
                edges.setdefault(o, {}).setdefault(t, s)
            elif q not in parts[p]["uses"] and s not in own_decls[p]:
                breaches.append(f"{o}: calls {s} ({t}), but {p} does not use {q}")
    for p in parts:
        nodes = [o for o in owner if owner[o] == p]
        sub = {o: set(edges.get(o, {})) for o in nodes}
        for comp in cycles(nodes, sub):
            ring = ", ".join(f"{a} -> {b} ({edges[a][b]})"
                             for a in comp for b in comp if b in edges.get(a, {}))
            breaches.append(f"{p}: its files call each other round in a circle: {ring}")


# The tree's top folders: a name starting with one of them is a file's path.
TREE_TOPS = ("analyzer", "common", "formats", "inputs", "recorder", "rules", "fleet",
             "tests", "docs", "man", "samples", "bench", "examples", "ci", ".ci")
# What names files as they were at the time, and says so: the log of past
# findings (its "Where" column).
HISTORY_DOCS = {"docs/reliability.md"}


def named_paths(text):
    """The tree paths a text names: a top folder, then path characters.
    A trailing `.[ch]` names both files (the .c is checked); one followed by
    `*` is a pattern (inputs/strace_*.c), not a name."""
    tops = "|".join(re.escape(t) for t in TREE_TOPS)
    for m in re.finditer(r"(?<![\w./-])((?:%s)/[\w./-]*\w)(\.\[ch\])?(\*)?" % tops, text):
        if not m.group(3):
            yield m.group(1) + (".c" if m.group(2) else "")


def check_doc_names(top, breaches):
    docs = ["parts.mk", "Makefile", "README.md"]
    if os.path.isdir(os.path.join(top, "docs")):
        docs += sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(top, "docs"))
                       if n.endswith(".md"))
    for doc in docs:
        if doc in HISTORY_DOCS or not os.path.exists(os.path.join(top, doc)):
            continue
        fenced = False
        with open(os.path.join(top, doc), errors="replace") as f:
            for n, line in enumerate(f, 1):
                # a markdown code block shows commands on the user's files
                if doc.endswith(".md") and line.lstrip().startswith("```"):
                    fenced = not fenced
                if fenced:
                    continue
                for path in named_paths(line):
                    # a program the build makes from its source (bench/gen_trace)
                    if any(os.path.exists(os.path.join(top, path + ext)) for ext in ("", ".c")):
                        continue
                    # a placeholder (test_NAME.sh, tests/fuzz/corpus/T) names no file
                    if re.search(r"[A-Z]{2,}|/[A-Z](/|$)", path):
                        continue
                    breaches.append(f"{doc}:{n}: names {path}, which is not in the tree")


def check_architecture_headers(top, parts, breaches):
    doc = os.path.join("docs", "architecture.md")
    if not os.path.exists(os.path.join(top, doc)):
        return
    have = set()
    for info in parts.values():
        have.update(os.path.basename(h) for h in part_files(top, info["dir"], {".h"}))
    with open(os.path.join(top, doc), errors="replace") as f:
        for n, line in enumerate(f, 1):
            for h in re.findall(r"`([\w.]+\.h)`", line):
                if h not in have:
                    breaches.append(f"{doc}:{n}: names {h}, which no part has")


CODE_EXTS = (".c", ".h", ".py", ".sh", ".mk")
MAX_LINES = 800


def check_lengths(top, objdir, breaches):
    """Every file of code in the tree (not fixtures, corpora nor the build:
    OBJDIR's tree and any other build tree, a folder holding obj/)."""
    skip = {os.path.realpath(os.path.join(top, d)) for d in
            (".git", "tests/fixtures", "tests/fuzz/corpus")}
    skip.add(os.path.realpath(objdir))
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if os.path.realpath(os.path.join(root, d)) not in skip
                         and not os.path.exists(os.path.join(root, d, "obj")))
        for f in sorted(files):
            if not (f.endswith(CODE_EXTS) or f == "Makefile"):
                continue
            path = os.path.join(root, f)
            try:
                with open(path, "rb") as fh:
                    n = sum(1 for _ in fh)
            except OSError:
                continue
            if n > MAX_LINES:
                breaches.append("%s: %d lines, more than %d" %
                                (os.path.relpath(path, top), n, MAX_LINES))


def main():
    args = [a for a in sys.argv[1:] if a != "--no-calls"]
    if len(args) != 2:
        sys.exit("usage: check_parts.py [--no-calls] TOP OBJDIR")
    top, objdir = args
    calls = "--no-calls" not in sys.argv
    parts = read_parts(top)
    breaches = []
    check_includes(top, parts, breaches)
    # --no-calls: the includes and names only, without nm of every object
    # and system library (most of the time taken)
    if calls:
        check_calls(top, objdir, parts, breaches)
    check_doc_names(top, breaches)
    check_architecture_headers(top, parts, breaches)
    check_lengths(top, objdir, breaches)
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
