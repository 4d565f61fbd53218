#!/bin/sh
# ioanalyze diff, --baseline and --format sarif: every diff outcome (new,
# fixed, unchanged, changed stack), exit statuses, issue files (JSON, JSONL,
# stdin) and inputs (analysed first), baseline suppression, SARIF fields.
# e2e: slow (about 6 s here: many ioanalyze runs)
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures/strace
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir ci-diff

# The fixtures' leaks are one file per process, held to exit: one-off
# handles, which leak's default min_count (3) leaves out. This test is about diffing, so
# every analysis here shows them (min_count 1); ioan is ioanalyze so.
ioan() {
    case $1 in
    diff) shift; "$IOANALYZE" diff --set leak.min_count=1 "$@" ;;
    dump) "$IOANALYZE" "$@" ;;
    *) "$IOANALYZE" --set leak.min_count=1 "$@" ;;
    esac
}

# expect STATUS CMD...: run, compare the exit status
expect() {
    want=$1; shift
    "$@" >"$work/out" 2>"$work/err"
    got=$?
    [ "$got" -eq "$want" ] || not_ok "'$*' exited $got, expected $want: $(cat "$work/err")"
}
# counts FILE: "NEW FIXED UNCHANGED" of a diff output
counts() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["new"]), len(d["fixed"]), d["unchanged"])' "$1"
}
# check_counts "N F U": the last diff's stdout
check_counts() {
    got=$(counts "$work/out") || { not_ok "diff output is not JSON: $(head -c 300 "$work/out")"; return; }
    [ "$got" = "$1" ] || not_ok "diff counts '$got', expected '$1'"
}

# v1: small writes to app.log + leak1; v2: writes fixed, leak1 kept, leak2 new
ioan "$FX/ci_v1.log" >"$work/v1.json" 2>/dev/null || not_ok "analyze v1"
ioan "$FX/ci_v2.log" >"$work/v2.json" 2>/dev/null || not_ok "analyze v2"
ioan --format jsonl "$FX/ci_v2.log" >"$work/v2.jsonl" 2>/dev/null || not_ok "analyze v2 jsonl"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(i["rule"] for i in d) == ["leak", "small_buffer"], d' "$work/v1.json" || not_ok "v1 issues"

# unchanged: the same set, as JSON, JSONL, from stdin
expect 0 ioan diff "$work/v1.json" "$work/v1.json"
check_counts "0 0 2"
grep -qx "diff: 0 new, 0 fixed, 2 unchanged" "$work/err" || not_ok "summary: $(cat "$work/err")"
expect 0 ioan diff "$work/v2.jsonl" "$work/v2.json"
check_counts "0 0 2"
ioan diff - "$work/v2.json" <"$work/v2.jsonl" >"$work/out" 2>"$work/err"
[ $? -eq 0 ] || not_ok "diff from stdin: $(cat "$work/err")"
check_counts "0 0 2"

# new + fixed + unchanged
expect 1 ioan diff "$work/v1.json" "$work/v2.json"
check_counts "1 1 1"
grep -qx "diff: 1 new, 1 fixed, 1 unchanged (new: leak 1)" "$work/err" || not_ok "summary: $(cat "$work/err")"
python3 -c '
import json,sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["new", "fixed", "unchanged"], list(d)
assert d["new"][0]["rule"] == "leak" and d["new"][0]["path"] == "/srv/leak2.txt", d["new"]
assert d["fixed"][0]["rule"] == "small_buffer" and d["fixed"][0]["path"] == "/srv/app.log", d["fixed"]
' "$work/out" || not_ok "diff content"
# only fixed: exit 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump([i for i in d if i["rule"] != "small_buffer"], open(sys.argv[2], "w"))' \
    "$work/v1.json" "$work/v1-fixed.json"
expect 0 ioan diff "$work/v1.json" "$work/v1-fixed.json"
check_counts "0 1 1"
# empty sets
printf '[]\n' >"$work/none.json"
: >"$work/none.jsonl"
expect 0 ioan diff "$work/none.json" "$work/none.jsonl"
check_counts "0 0 0"
expect 1 ioan diff "$work/none.jsonl" "$work/v1.json"
check_counts "2 0 0"

# inputs are analysed first: strace logs, and a mix of log and issue file
expect 1 ioan diff "$FX/ci_v1.log" "$FX/ci_v2.log"
check_counts "1 1 1"
expect 0 ioan diff "$work/v2.json" "$FX/ci_v2.log"
check_counts "0 0 2"
# --set and --config apply to analysed inputs
expect 0 ioan diff --set leak.min_count=5 "$FX/ci_v1.log" "$FX/ci_v2.log"
check_counts "0 1 0"
printf '{"rules": {"small_buffer": {"enabled": false}}}\n' >"$work/cfg.json"
expect 1 ioan diff --config "$work/cfg.json" "$FX/ci_v1.log" "$FX/ci_v2.log"
check_counts "1 0 1"

# a changed stack is another fingerprint: one new and one fixed
ioan dump --format jsonl "$FX/ci_v1.log" >"$work/ev1.jsonl" 2>/dev/null || not_ok "dump"
# (the dump has every key on every line: the open's "stack" is null until set)
sed '/"op":"open".*"path":"\/srv\/leak1.txt"/ s#"stack":null#"stack":"load_config+0x1a (/usr/bin/ciapp)\\nmain+0x40 (/usr/bin/ciapp)"#' \
    "$work/ev1.jsonl" >"$work/stackA.jsonl"
sed '/"op":"open".*"path":"\/srv\/leak1.txt"/ s#"stack":null#"stack":"load_plugins+0x2b (/usr/bin/ciapp)\\nmain+0x52 (/usr/bin/ciapp)"#' \
    "$work/ev1.jsonl" >"$work/stackB.jsonl"
grep -q load_config "$work/stackA.jsonl" || not_ok "stack not added to the events"
expect 0 ioan diff "$work/stackA.jsonl" "$work/stackA.jsonl"
check_counts "0 0 2"
expect 1 ioan diff "$work/stackA.jsonl" "$work/stackB.jsonl"
check_counts "1 1 1"
# ... but another offset in the same function is the same problem
sed 's#load_config+0x1a#load_config+0x77#' "$work/stackA.jsonl" >"$work/stackA2.jsonl"
expect 0 ioan diff "$work/stackA.jsonl" "$work/stackA2.jsonl"
check_counts "0 0 2"

# usage and input errors: exit 2 with one message
expect 2 ioan diff "$work/v1.json"
expect 2 ioan diff "$work/v1.json" "$work/v2.json" "$work/v2.json"
expect 2 ioan diff --bogus "$work/v1.json" "$work/v2.json"
grep -qx "ioanalyze: unknown option '--bogus'; see 'ioanalyze diff --help'" "$work/err" || not_ok "unknown option: $(cat "$work/err")"
expect 2 ioan diff "$work/v1.json" "$work/missing.json"
grep -qx "ioanalyze: cannot open '$work/missing.json': No such file or directory" "$work/err" || not_ok "missing: $(cat "$work/err")"
printf '[{"rule": "leak", ' >"$work/broken.json"
expect 2 ioan diff "$work/v1.json" "$work/broken.json"
grep -q "^ioanalyze: '$work/broken.json' line 1: " "$work/err" || not_ok "broken: $(cat "$work/err")"
expect 2 ioan diff - - </dev/null
expect 0 ioan diff --help
grep -q "^usage: ioanalyze diff" "$work/out" || not_ok "diff --help"

# --baseline: known issues dropped; --fail-on-issues fails only on the rest
expect 0 ioan --baseline "$work/v1.json" --fail-on-issues "$FX/ci_v1.log"
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/out")" = 0 ] || not_ok "baseline left issues"
expect 1 ioan --baseline "$work/v1.json" --fail-on-issues "$FX/ci_v2.log"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [i["path"] for i in d] == ["/srv/leak2.txt"], d' "$work/out" || not_ok "baseline kept the wrong issues"
expect 0 ioan --baseline "$work/v2.jsonl" "$FX/ci_v2.log"
expect 2 ioan --baseline "$work/missing.json" "$FX/ci_v2.log"

# SARIF: the schema's required properties, one result per issue, the
# fingerprints of the JSON output in partialFingerprints
expect 0 ioan --format sarif "$FX/ci_v2.log"
python3 - "$work/out" "$work/v2.json" <<'EOF' || not_ok "SARIF content"
import json, sys
log = json.load(open(sys.argv[1]))
issues = json.load(open(sys.argv[2]))
assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
run, = log["runs"]
driver = run["tool"]["driver"]
assert driver["name"] == "ioscope" and driver["version"]
ids = [r["id"] for r in driver["rules"]]
for name in ("main_thread", "small_buffer", "repeat_read", "leak", "random_write", "random_read"):
    assert name in ids, (name, ids)
for r in driver["rules"]:
    assert r["name"] and r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r
assert len(run["results"]) == len(issues) == 2
for res, issue in zip(run["results"], issues):
    assert res["ruleId"] == issue["rule"] and ids[res["ruleIndex"]] == issue["rule"]
    assert res["level"] in ("note", "warning", "error")
    assert res["message"]["text"] == issue["message"] + " (file " + issue["path"] + ")"
    assert res["properties"]["path"] == issue["path"]
    # no frame of this log's stacks and no executable lies under the source
    # root (.): no file, which the repository lacks, only the process by name
    loc = res["locations"][0]
    assert "physicalLocation" not in loc, loc
    assert loc["logicalLocations"] == [{"name": issue["process"], "kind": "module"}], loc
    assert res["partialFingerprints"]["ioscope/v1"] == issue["fingerprint"]
EOF
# --ci and a new loop that leaves handles behind: leak judges the loop's
# spread in the process's calls, which load does not move, so the gate
# sees it (3 handles, opens spanning 80% of the calls: a clear margin over
# spread_pct 50); the same loop judged in time would be near the
# threshold and passed over
RX=$TOP/tests/fixtures/rules
"$IOANALYZE" diff --ci "$RX/leak_burst_then_work_not_leak.jsonl" "$RX/leak_grouped_by_stack.jsonl" \
    >"$work/out" 2>"$work/err"
[ $? -eq 1 ] || not_ok "diff --ci: a new leak loop did not fail the gate: $(cat "$work/err")"
check_counts "1 0 0"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=d["new"][0]["detail"]; assert (n["shape"], n["spread_pct"], n["spread_in"]) == ("abandoned", 80, "calls"), n; assert "near_threshold" not in d, d' "$work/out" ||
    not_ok "diff --ci leak loop: $(head -c 400 "$work/out")"

exit $fail
