#!/bin/sh
# Severity on the command line: a negligible finding (git's 61 lookups of
# .gitattributes, 0.122 ms modelled, 2.8% of its modelled I/O cost, 0.10 ms
# measured) is left out of the default
# output and counted in the summary, shown with --min-severity low; the
# baseline, --fail-on-issues and diff see what is shown, and an issue that
# only changes severity between two runs is neither new nor fixed. SARIF's
# level follows the severity (note, warning, error).
# e2e: slow (about 5 s CPU here: many analyses)
. "$(dirname "$0")/lib.sh"
# the text report's lines as wide as they are (its wrapping to the
# terminal's width is tests/e2e/test_an_report_width.sh's)
COLUMNS=1000
export COLUMNS
FX=$TOP/tests/fixtures/rules
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir an-severity
LOW=$FX/impact_git_attributes_low.jsonl
HIGH=$FX/impact_sync_storm_share_high.jsonl

# run STATUS OUT CMD...: stdout to $work/OUT, stderr to $work/OUT.err
run() {
    want=$1 out=$2; shift 2
    "$@" >"$work/$out" 2>"$work/$out.err"
    got=$?
    [ "$got" -eq "$want" ] || not_ok "'$*' exited $got, expected $want: $(cat "$work/$out.err")"
}
count() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$work/$1"; }

run 0 default "$IOANALYZE" analyze --rules metadata_storm --fail-on-issues "$LOW"
[ "$(count default)" = 0 ] || not_ok "the negligible issue is not shown by default: $(cat "$work/default")"
grep -q "no issues in .*; 1 low-impact issue not shown; --min-severity low shows them" \
    "$work/default.err" || not_ok "the summary counts the hidden issue: $(cat "$work/default.err")"

run 1 low "$IOANALYZE" analyze --rules metadata_storm --min-severity low --fail-on-issues "$LOW"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert [(i['rule'], i['severity'], i['impact']) for i in d] == [
    ('metadata_storm', 'low', {'time_ms': 0.1, 'model_ms': 0.122, 'io_share': 0.0275,
                               'excess_calls': 60})], d" \
    "$work/low" || not_ok "--min-severity low shows it, low, with its impact: $(cat "$work/low")"
grep -q "not shown" "$work/low.err" && not_ok "nothing hidden with --min-severity low: $(cat "$work/low.err")"

run 0 high "$IOANALYZE" analyze --rules sync_storm --min-severity high "$HIGH"
[ "$(count high)" = 1 ] || not_ok "the high sync_storm is shown at --min-severity high: $(cat "$work/high")"
run 0 med "$IOANALYZE" analyze --rules sync_storm --min-severity high \
    "$FX/impact_sync_storm_share_medium.jsonl"
grep -q "1 issue below severity high not shown; --min-severity low shows them" "$work/med.err" ||
    not_ok "the summary names the level: $(cat "$work/med.err")"
run 2 bad "$IOANALYZE" analyze --min-severity severe "$LOW"
grep -q "expected low, medium or high, not 'severe'" "$work/bad.err" ||
    not_ok "an unknown level is refused: $(cat "$work/bad.err")"

# SARIF levels: low note, high error
run 0 low.sarif "$IOANALYZE" analyze --rules metadata_storm --min-severity low -f sarif "$LOW"
run 0 high.sarif "$IOANALYZE" analyze --rules sync_storm -f sarif "$HIGH"
python3 -c "
import json,sys
lv = lambda p: [r['level'] for r in json.load(open(p))['runs'][0]['results']]
assert lv(sys.argv[1]) == ['note'] and lv(sys.argv[2]) == ['error'], (lv(sys.argv[1]), lv(sys.argv[2]))" \
    "$work/low.sarif" "$work/high.sarif" || not_ok "SARIF levels note and error"

# the text report shows severity and impact
run 0 text "$IOANALYZE" analyze --rules sync_storm -f text "$HIGH"
grep -q "severity: high  impact: time_ms=20 model_ms=40 io_share=0.999 excess_syncs=19" "$work/text" ||
    not_ok "text report: severity and impact: $(grep -i severity "$work/text")"

# without durations the same work is judged alike: low, not shown
sed 's/"dur":[0-9]*,//' "$LOW" >"$work/untimed.jsonl"
run 0 untimed.json "$IOANALYZE" analyze --rules metadata_storm "$work/untimed.jsonl"
[ "$(count untimed.json)" = 0 ] || not_ok "untimed, the finding is low as timed: $(cat "$work/untimed.json")"
# diff: the low issue in BASE, the same issue medium in NEW (the process did
# no other work: its pack and index writes left out, the lookups are most of
# its cost): it crossed a threshold, it is not new
python3 -c "
import json, sys
for line in open(sys.argv[1]):
    ev = json.loads(line)
    if ev['ev'] == 'call' and ev['op'] != 'access':
        continue
    sys.stdout.write(line)" "$LOW" >"$work/lookups_only.jsonl"
run 0 base.json "$IOANALYZE" analyze --rules metadata_storm --min-severity low "$LOW"
run 0 new.json "$IOANALYZE" analyze --rules metadata_storm "$work/lookups_only.jsonl"
[ "$(count new.json)" = 1 ] || not_ok "alone, the lookups are medium and shown: $(cat "$work/new.json")"
run 0 diff "$IOANALYZE" diff "$work/base.json" "$work/new.json"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert d['new'] == [] and d['fixed'] == [] and d['unchanged'] == 1, d" "$work/diff" ||
    not_ok "diff: a severity change is neither new nor fixed: $(cat "$work/diff")"
# ... and a low issue new in NEW is not listed as new at the default level
echo '[]' >"$work/empty.json"
run 0 diff2 "$IOANALYZE" diff "$work/empty.json" "$work/base.json"
run 1 diff3 "$IOANALYZE" diff --min-severity low "$work/empty.json" "$work/base.json"
exit $fail
