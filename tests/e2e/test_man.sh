#!/bin/sh
# The man pages render with `man -l` without warnings, have the sections a
# reader looks for, and document every option the tools' --help texts show
# (for ioanalyze, also every subcommand's --help). The rules and config keys
# `ioanalyze rules` prints are in README.md's and the man page's rule tables
# and configuration docs (below).
. "$(dirname "$0")/lib.sh"

have man || skip "man is not installed (apt-get install man-db)"
work_dir man
fail=0

# Plain text of a page: wide enough that no option is broken across lines,
# without overstrike (man adds none when not writing to a terminal, but
# MAN_KEEP_FORMATTING may be set), with typographic hyphens and minus signs
# turned back into '-'.
render() {
    MANWIDTH=1000 MAN_KEEP_FORMATTING= LC_ALL=C.UTF-8 man -l "$1" 2>/dev/null |
        sed 's/.\x08//g; s/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g'
}

# Options (-x, --long-name) mentioned in a --help text, one per line.
options_of() {
    grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

for tool in iorecord ioanalyze; do
    page=$TOP/man/$tool.1
    if [ ! -f "$page" ]; then
        echo "FAIL $tool: no man page at man/$tool.1"
        fail=1
        continue
    fi
    render "$page" >"$work/$tool.txt"
    if [ ! -s "$work/$tool.txt" ]; then
        echo "FAIL $tool: man -l renders nothing"
        fail=1
        continue
    fi
    if MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null | grep -q .; then
        echo "FAIL $tool: groff warnings:"
        MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null | sed 's/^/    /'
        fail=1
    fi
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        if ! grep -q "^$section\$" "$work/$tool.txt"; then
            echo "FAIL $tool: no $section section"
            fail=1
        fi
    done

    bin=$BUILD/bin/$tool
    if [ ! -x "$bin" ]; then
        echo "note: $bin is not built; --help not compared"
        continue
    fi
    if ! "$bin" --help >"$work/$tool.help" 2>&1; then
        echo "FAIL $tool: '$tool --help' exits non-zero"
        fail=1
    fi
    if [ "$tool" = ioanalyze ]; then
        for cmd in analyze profile dump info diff rules fleet; do
            "$bin" "$cmd" --help >>"$work/$tool.help" 2>&1 || true
        done
    fi
    missing=""
    for opt in $(options_of <"$work/$tool.help"); do
        # -- on its own (end of options) is matched as a word.
        if ! grep -qe "\(^\|[^A-Za-z0-9-]\)$opt\([^A-Za-z0-9-]\|\$\)" "$work/$tool.txt"; then
            missing="$missing $opt"
        fi
    done
    if [ -n "$missing" ]; then
        echo "FAIL $tool: options in --help but not in man/$tool.1:$missing"
        fail=1
    else
        echo "ok $tool: $(options_of <"$work/$tool.help" | wc -l) options of --help documented"
    fi
done

# The output formats against their table (analyzer/outputs/output_format.c):
# for analyze and dump, the man page gives --format with exactly the table's
# names in its order, as --help does.
for c in ANALYZE DUMP; do
    names=$(sed -n "s/^ *{OUTPUT_$c, \"\([^\"]*\)\".*/\1/p" "$TOP/analyzer/outputs/output_format.c" |
            paste -sd '|')
    if [ -z "$names" ]; then
        echo "FAIL ioanalyze: no OUTPUT_$c row in analyzer/outputs/output_format.c"
        fail=1
    elif ! grep -qF -- "--format $names" "$work/ioanalyze.txt"; then
        echo "FAIL ioanalyze: man/ioanalyze.1 has no '--format $names' (the table's formats)"
        fail=1
    else
        echo "ok ioanalyze: --format $names in man/ioanalyze.1"
    fi
done

# The rule tables and the configuration docs against `ioanalyze rules`: each
# rule it lists has a row with its type in README.md's rule table ("## Rules")
# and an entry "NAME (type N)" in the man page's RULES section; each key it
# prints (RULE.PARAM, RULE.enabled, the global settings) is in the JSON
# example of README.md's "## Configuration" and of the man page's
# CONFIGURATION with the default it prints, and each global key has its own
# description there (README: "- `KEY`:", man: a tagged paragraph). A row,
# entry or key for something `ioanalyze rules` does not list fails too.
if [ ! -x "$IOANALYZE" ]; then
    echo "note: $IOANALYZE is not built; rule tables not compared"
elif ! have python3; then
    echo "note: python3 is not installed; rule tables not compared"
elif ! "$IOANALYZE" rules >"$work/rules.txt" 2>"$work/rules.err"; then
    echo "FAIL ioanalyze: 'ioanalyze rules' exits non-zero: $(cat "$work/rules.err")"
    fail=1
else
    python3 - "$work/rules.txt" "$TOP/README.md" "$work/ioanalyze.txt" <<'PY' || fail=1
import json, re, sys

rules_txt, readme_path, man_path = sys.argv[1:]
bad = []

def value(text):
    return json.loads(text)            # 8, 0.2, true, [], ["^/proc/"]

# what `ioanalyze rules` prints
types, params, globals_ = {}, {}, {}
in_globals = False
for line in open(rules_txt):
    line = line.rstrip("\n")
    if line == "global settings (config file keys):":
        in_globals = True
        continue
    if in_globals:
        m = re.match(r"  ([a-z_]+)(?: = (.*?)  |:)", line)
        if m:
            globals_[m.group(1)] = value(m.group(2)) if m.group(2) is not None else None
        continue
    m = re.match(r"([a-z_]+) \(type (\d+)\):", line)
    if m:
        types[m.group(1)] = int(m.group(2))
        params[m.group(1)] = {}
        continue
    m = re.match(r"  ([a-z_]+)\.([a-z_]+) += (.*?)  \(", line)
    if m:
        params[m.group(1)][m.group(2)] = value(m.group(3))
if not types or not globals_:
    sys.exit("FAIL ioanalyze: cannot read the output of 'ioanalyze rules'")

def section(lines, start, is_next):
    """The lines after the heading start, up to the next heading."""
    out, inside = [], False
    for line in lines:
        if inside and is_next(line):
            break
        if inside:
            out.append(line)
        inside = inside or line == start
    return out

def json_example(lines, where):
    """The first JSON object of a section: from a line '{' to its closing '}'."""
    body, depth = [], 0
    for line in lines:
        if not body and line.strip() != "{":
            continue
        body.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            break
    try:
        return json.loads("\n".join(body))
    except ValueError as e:
        bad.append(f"{where}: the configuration example is not JSON: {e}")
        return {}

def compare_table(found, where):
    for name, t in types.items():
        if name not in found:
            bad.append(f"{where}: rule {name} (type {t}) is missing")
        elif found[name] != t:
            bad.append(f"{where}: rule {name} has type {found[name]}, 'ioanalyze rules' says {t}")
    for name in found:
        if name not in types:
            bad.append(f"{where}: rule {name} is not one 'ioanalyze rules' lists")

def compare_config(example, described, where):
    rules = example.get("rules", {})
    for name in types:
        if name not in rules:
            bad.append(f"{where}: no \"{name}\" in the example's \"rules\"")
            continue
        for p, default in params[name].items():
            if p not in rules[name]:
                bad.append(f"{where}: key {name}.{p} is missing")
            elif rules[name][p] != default:
                bad.append(f"{where}: {name}.{p} is {json.dumps(rules[name][p])}, its default is {json.dumps(default)}")
        for p in rules[name]:
            if p not in params[name]:
                bad.append(f"{where}: key {name}.{p} is not one 'ioanalyze rules' prints")
    for name in rules:
        if name not in types:
            bad.append(f"{where}: rule {name} in the example is not one 'ioanalyze rules' lists")
    for key, default in globals_.items():
        if key not in example:
            bad.append(f"{where}: global key {key} is missing from the example")
        elif default is not None and example[key] != default:
            bad.append(f"{where}: {key} is {json.dumps(example[key])}, its default is {json.dumps(default)}")
        if key not in described:
            bad.append(f"{where}: global key {key} has no description")
    for key in example:
        if key != "rules" and key not in globals_:
            bad.append(f"{where}: key {key} is not one 'ioanalyze rules' prints")

readme = open(readme_path).read().split("\n")
is_h2 = lambda l: l.startswith("## ")
table = {}
for line in section(readme, "## Rules", is_h2):
    m = re.match(r"\| (\d+) \| `([a-z_]+)` \|", line)
    if m:
        table[m.group(2)] = int(m.group(1))
compare_table(table, "README.md's rule table")
conf = section(readme, "## Configuration", is_h2)
block = section(conf, "```json", lambda l: l == "```")
compare_config(json_example(block, "README.md"), {m.group(1) for l in conf
               for m in [re.match(r"- `([a-z_]+)`:", l)] if m}, "README.md's configuration")

man = open(man_path).read().split("\n")
is_sh = lambda l: re.match(r"[A-Z]", l) is not None
entries = {}
for line in section(man, "RULES", is_sh):
    m = re.match(r" {7}([a-z_]+) \(type (\d+)\)$", line)
    if m:
        entries[m.group(1)] = int(m.group(2))
compare_table(entries, "man/ioanalyze.1 RULES")
conf = section(man, "CONFIGURATION", is_sh)
compare_config(json_example(conf, "man/ioanalyze.1"), {m.group(1) for l in conf
               for m in [re.match(r" {7}([a-z_]+)$", l)] if m}, "man/ioanalyze.1 CONFIGURATION")

for b in bad:
    print("FAIL ioanalyze:", b)
if bad:
    sys.exit(1)
nkeys = sum(len(p) for p in params.values()) + len(globals_)
print(f"ok ioanalyze: {len(types)} rules and {nkeys} config keys in README.md and man/ioanalyze.1")
PY
fi
exit $fail
