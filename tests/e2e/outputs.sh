# Sourced by e2e tests (after lib.sh): every output of ioanalyze over one
# input, each checked for what it must be, so no report path is untested.
#
# check_outputs INPUT LABEL: runs analyze as json, jsonl, sarif, text and
# html (with --csv), profile, info and dump as jsonl, text and perfetto;
# each must exit 0 and
#  - json, sarif, perfetto: parse as JSON; SARIF's runs[0].results has as
#    many results as the JSON has issues, and jsonl as many lines;
#  - jsonl (issues and dump): every line parses;
#  - CSV (--csv, profile): a header and rows of its column count;
#  - every output: no raw control character (tab and newline are text);
#  - html: ends its document.
# Failures are counted in $fail (lib.sh) with the label and the output's
# name. Needs python3; files go to $work/outputs.
check_outputs() {
    _in=$1 _label=$2 _o=$work/outputs
    mkdir -p "$_o" || return 1
    rm -f "$_o"/*
    for _f in json jsonl sarif text html; do
        _extra=""
        [ "$_f" = html ] && _extra="--csv $_o/an.csv"
        # shellcheck disable=SC2086
        "$IOANALYZE" --format $_f $_extra "$_in" >"$_o/an.$_f" 2>"$_o/an.$_f.err" ||
            not_ok "$_label: ioanalyze --format $_f: exit $? ($(tail -n 1 "$_o/an.$_f.err"))"
    done
    "$IOANALYZE" profile "$_in" >"$_o/profile.csv" 2>"$_o/profile.err" ||
        not_ok "$_label: ioanalyze profile: exit $? ($(tail -n 1 "$_o/profile.err"))"
    "$IOANALYZE" info "$_in" >"$_o/info.text" 2>"$_o/info.err" ||
        not_ok "$_label: ioanalyze info: exit $? ($(tail -n 1 "$_o/info.err"))"
    for _f in jsonl text perfetto; do
        "$IOANALYZE" dump --format $_f "$_in" >"$_o/dump.$_f" 2>"$_o/dump.$_f.err" ||
            not_ok "$_label: ioanalyze dump --format $_f: exit $? ($(tail -n 1 "$_o/dump.$_f.err"))"
    done
    python3 - "$_o" "$_label" <<'PY' || fail=1
import csv, json, os, re, sys
d, label = sys.argv[1], sys.argv[2]
bad = []
def read(name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()
for name in sorted(os.listdir(d)):
    if name.endswith(".err"):
        continue
    m = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", read(name))
    if m:
        bad.append("%s: raw control character %r" % (name, m.group()))
def load(name):
    try:
        return json.loads(read(name))
    except ValueError as e:
        bad.append("%s: not JSON: %s" % (name, e))
def lines(name):
    n = 0
    for i, l in enumerate(read(name).splitlines()):
        try:
            json.loads(l)
            n += 1
        except ValueError as e:
            bad.append("%s line %d: not JSON: %s" % (name, i + 1, e))
            break
    return n
issues = load("an.json")
sarif = load("an.sarif")
load("dump.perfetto")
njsonl = lines("an.jsonl")
lines("dump.jsonl")
if isinstance(issues, list):
    if njsonl != len(issues):
        bad.append("an.jsonl: %d lines for %d issues" % (njsonl, len(issues)))
    try:
        nres = len(sarif["runs"][0]["results"])
        if nres != len(issues):
            bad.append("an.sarif: %d results for %d issues" % (nres, len(issues)))
    except (TypeError, KeyError, IndexError):
        bad.append("an.sarif: no runs[0].results")
for name in ("an.csv", "profile.csv"):
    rows = list(csv.reader(read(name).decode("utf-8", "replace").splitlines()))
    if not rows:
        bad.append("%s: no header" % name)
        continue
    for i, r in enumerate(rows[1:]):
        if len(r) != len(rows[0]):
            bad.append("%s row %d: %d columns, the header has %d" % (name, i + 2, len(r), len(rows[0])))
            break
if not read("an.html").rstrip().endswith(b"</html>"):
    bad.append("an.html: does not end with </html>")
for b in bad:
    print("FAIL: %s: %s" % (label, b))
sys.exit(1 if bad else 0)
PY
}
