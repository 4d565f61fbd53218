#!/bin/sh
# The ready gate, end to end on a sample project: the steps of
# ci/github/action.yml run as written there (tests/e2e/gh_action.py: their
# env with the action's inputs, $GITHUB_ACTION_PATH, $GITHUB_OUTPUT,
# $GITHUB_STEP_SUMMARY)
# and the script of ci/gitlab/ioscope.gitlab-ci.yml: no baseline yet
# passes, the same suite again passes, a planted regression fails with a
# markdown summary naming it (and a failed JUnit case, SARIF of it), the
# fix passes again; a failing suite fails with its own status. The install
# step is not run here (it would build ioscope again): PATH has the build.
# e2e: slow (about 10 s here: a dozen recordings and analyses)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
need_built "$IOANALYZE" "$IORECORD" "$S/fd_leak" "$S/random_write" "$S/small_writes"
have python3 || skip "python3 is needed"
have bash || skip "bash is needed (the action's steps are bash)"
python3 -c 'import yaml' 2>/dev/null || skip "python3 has no yaml module (Debian: python3-yaml)"
work_dir ci-gate
REC_ENV=$(asan_env "$LIBIORECORD")
PATH=$BUILD/bin:$PATH
export PATH

# The sample project: its "test suite" runs its programs (sample programs
# copied in: built from the project's tree, as far as own-code scope can
# tell), each in a new temporary directory; REGRESS=1 plants a regression
# (small_writes' 32-byte writes), SUITE_STATUS makes the suite fail.
mkdir -p "$work/project/tmp" "$work/project/bin" || exit 1
cp "$S/fd_leak" "$S/random_write" "$S/small_writes" "$work/project/bin/" || exit 1
cat >"$work/project/suite.sh" <<SUITE
#!/bin/sh
TMPDIR=$work/project/tmp
export TMPDIR
bin/fd_leak "\$(mktemp -d)" >/dev/null
bin/random_write "\$(mktemp -d)" >/dev/null
[ "\${REGRESS:-0}" = 1 ] && bin/small_writes "\$(mktemp -d)" >/dev/null
exit \${SUITE_STATUS:-0}
SUITE
chmod +x "$work/project/suite.sh"
cat >"$work/scenario.json" <<'JSON'
{"inputs": {"command": "sh suite.sh", "install": "false"},
 "github": {"job": "io", "repository": "me/project", "actor": "me", "event_name": "push"}}
JSON

# action STATUS [VAR=VALUE...]: the action's steps in order, as the runner
# would run them with command "sh suite.sh" (tests/e2e/gh_action.py);
# STATUS is the job's. Each step's output is in $work/stepN.out, the run's
# report in $work/action.json.
action() {
    want=$1; shift
    : >"$work/summary.md"
    rm -f "$work"/step*.out
    (cd "$work/project" && env $REC_ENV "$@" python3 "$TOP/tests/e2e/gh_action.py" \
        "$TOP/ci/github/action.yml" "$work/scenario.json" "$work") >"$work/action.json" ||
        not_ok "cannot run the action's steps"
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$work/action.json")
    [ "$got" = "$want" ] || not_ok "action $* exited '$got', expected $want: $(cat "$work"/step*.out)"
}

out=$work/project/ioscope-out
# counts: "NEW FIXED UNCHANGED" of the last diff
counts() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["new"]), len(d["fixed"]), d["unchanged"])' "$out/diff.json"
}

# 1. no baseline yet: passes, says what to commit
action 0
grep -q "no baseline yet" "$work/summary.md" || not_ok "first summary: $(cat "$work/summary.md")"
python3 - "$out/issues.json" "$out/ioscope.sarif" <<'PY' || not_ok "first run's outputs"
import json, sys
issues = json.load(open(sys.argv[1]))
# random_write is judged on counts; fd_leak's loop of handles on how its
# opens spread in time, which a slow (sanitizer) run may not reach
rules = set(i["rule"] for i in issues)
assert "random_write" in rules, rules
sarif = json.load(open(sys.argv[2]))
assert len(sarif["runs"][0]["results"]) == len(issues)
PY
[ -s "$out/report.html" ] || not_ok "no HTML report"
cp "$out/issues.json" "$work/project/.ioscope-baseline.json"
nbase=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$out/issues.json")

# 2. the same suite again (other temp dirs and pids): passes
action 0
[ "$(counts)" = "0 0 $nbase" ] || not_ok "rerun: $(counts)"
grep -q "^### ioscope: no new I/O issues" "$work/summary.md" || not_ok "rerun summary: $(cat "$work/summary.md")"

# 3. the planted regression fails, the summary names it
action 1 REGRESS=1
[ "$(counts)" = "1 0 $nbase" ] || not_ok "regression: $(counts)"
grep -q "^### ioscope: 1 new I/O issue$" "$work/summary.md" || not_ok "regression summary: $(cat "$work/summary.md")"
# (high: 100000 writes are most of the modelled cost of the run; a sanitizer
# build's stacks start in its write interceptor)
grep -qE "^\| high \| small_buffer \| .*/app.log \| (log_record \(.*small_writes.c:[0-9]*\)|__interceptor_write[^|]*) \| " "$work/summary.md" ||
    not_ok "the summary does not name the new issue: $(cat "$work/summary.md")"
grep -q "::error::new I/O issues" "$work"/step*.out || not_ok "no error annotation"
grep -q 'failures="1"' "$out/diff.junit.xml" || not_ok "JUnit: $(cat "$out/diff.junit.xml")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"]; assert [x["ruleId"] for x in r] == ["small_buffer"], r' \
    "$out/diff.sarif" || not_ok "diff.sarif is not the new issue"

# 4. the fix passes again
action 0
[ "$(counts)" = "0 0 $nbase" ] || not_ok "fixed: $(counts)"

# 5. a failing suite fails the job with its status, after the analysis
rm -f "$out/issues.json"
action 3 SUITE_STATUS=3
[ -s "$out/issues.json" ] || not_ok "no analysis after a failing suite"

# The GitLab template's variables and script, as written
python3 - "$TOP/ci/gitlab/ioscope.gitlab-ci.yml" >"$work/gitlab.sh" <<'PY' || not_ok "cannot read the GitLab template"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("  variables:") + 1
while lines[i].startswith("    "):
    k, v = lines[i].split("#")[0].strip().split(":", 1)
    v = v.strip().strip('"')
    if k != "IOSCOPE_COMMAND":      # the test's own command is given
        print("%s='%s'; export %s" % (k, v, k))
    i += 1
i = lines.index("  script:") + 1
script = []
while lines[i].startswith("    - "):
    script.append(lines[i][6:])
    i += 1
assert script and all("gate.sh" in l for l in script), script
print("\n".join(script))
PY
mkdir -p "$work/project/third_party"
ln -s "$TOP" "$work/project/third_party/ioscope"
gitlab() {
    want=$1; shift
    (cd "$work/project" && env $REC_ENV "$@" IOSCOPE_COMMAND="sh suite.sh" sh -c \
        ". '$work/gitlab.sh'") >"$work/gl.out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] || not_ok "gitlab $* exited $got, expected $want: $(cat "$work/gl.out")"
}
gitlab 0
gitlab 1 REGRESS=1
grep -q 'failures="1"' "$out/diff.junit.xml" || not_ok "GitLab JUnit: $(cat "$out/diff.junit.xml")"
exit $fail
