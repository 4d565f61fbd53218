#!/bin/sh
# The GitHub action's steps run as written (tests/e2e/gh_action.py), with
# the environment GitHub gives, for the jobs of docs/ci.md's recipes: the
# two entries of the matrix recipe get artifacts of their own, named as the
# recipe passes them, and each its own SARIF category; the plain job's
# artifact is named by its job id; a fork's pull request (read-only token)
# and Dependabot's skip the SARIF upload with a notice and still fail on a
# new issue; a pull request from the repository itself uploads. The
# action's outputs (new, fixed, unchanged, report, sarif) are what the diff
# counted. The action file and the recipes' workflows are checked against
# GitHub's schema with @action-validator/cli where IOSCOPE_NPM=1 lets npm
# fetch it, by hand otherwise.
# e2e: slow (about 15 s here: seven recorded runs of the action)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
DOC=$TOP/docs/ci.md
need_built "$IOANALYZE" "$IORECORD" "$S/random_write" "$S/small_writes"
have python3 || skip "python3 is needed"
have bash || skip "bash is needed (the action's steps are bash)"
python3 -c 'import yaml' 2>/dev/null || skip "python3 has no yaml module (Debian: python3-yaml)"
work_dir ci-action
REC_ENV=$(asan_env "$LIBIORECORD")
PATH=$BUILD/bin:$PATH
export PATH

# The project: its suite runs its programs; REGRESS=1 plants small writes.
mkdir -p "$work/project/bin" "$work/project/tmp" || exit 1
cp "$S/random_write" "$S/small_writes" "$work/project/bin/" || exit 1
cat >"$work/project/suite.sh" <<SUITE
#!/bin/sh
TMPDIR=$work/project/tmp
export TMPDIR
bin/random_write "\$(mktemp -d)" >/dev/null
[ "\${REGRESS:-0}" = 1 ] && bin/small_writes "\$(mktemp -d)" >/dev/null
exit 0
SUITE

# The recipes' workflows, and the with: of their step that uses the action.
for r in github-actions github-matrix; do
    python3 - "$DOC" "$r" >"$work/$r.yml" <<'PY' || not_ok "no $r recipe in docs/ci.md"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("<!-- recipe: %s -->" % sys.argv[2]) + 1
print("\n".join(lines[i + 1:lines.index("```", i + 1)]))
PY
done

# scenario NAME JSON-OF-GITHUB JSON-OF-STRATEGY RECIPE: the caller's inputs
# from RECIPE's action step (its command replaced by the suite, the
# dependencies not installed here), with that context, into $work/NAME.json
scenario() {
    python3 - "$work/$4.yml" "$2" "$3" >"$work/$1.json" <<'PY' || not_ok "scenario $1"
import json, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
if "jobs" not in wf:
    wf = {"jobs": wf}
job_id, job = next(iter(wf["jobs"].items()))
step = next(s for s in job["steps"] if s.get("uses", "").endswith("/ci/github"))
inputs = dict(step["with"], command="sh suite.sh", install="false")
github = dict(json.loads(sys.argv[2]), job=job_id, repository="me/project")
print(json.dumps({"inputs": inputs, "github": github, "strategy": json.loads(sys.argv[3])}))
PY
}

# run NAME STATUS [VAR=VALUE...]: the action's steps for scenario NAME in
# the project; the report in $work/NAME.out, the steps' output in
# $work/NAME.steps
run() {
    name=$1 want=$2; shift 2
    rm -rf "$work/gh" && mkdir "$work/gh"
    (cd "$work/project" && env $REC_ENV "$@" python3 "$TOP/tests/e2e/gh_action.py" \
        "$TOP/ci/github/action.yml" "$work/$name.json" "$work/gh") >"$work/$name.out" ||
        not_ok "$name: cannot run the action's steps"
    cat "$work"/gh/step*.out >"$work/$name.steps" 2>/dev/null
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$work/$name.out")
    [ "$got" = "$want" ] || not_ok "$name: the job exited '$got', expected $want: $(cat "$work/$name.steps")"
}

# check NAME 'PYTHON': asserts on r (the run's report) and steps (its output)
check() {
    python3 -c "import json, sys
r = json.load(open(sys.argv[1])); steps = open(sys.argv[2]).read()
uses = {u['uses'].split('@')[0]: u for u in r['uses']}
$2" "$work/$1.out" "$work/$1.steps" || not_ok "$1: $(cat "$work/$1.out")"
}

push='{"event_name": "push", "actor": "me", "event": {}}'
scenario plain "$push" '{}' github-actions
run plain 0
check plain '
assert r["inputs"]["artifact-name"] == "ioscope-ioscope", r["inputs"]
assert uses["actions/upload-artifact"]["with"] == {"name": "ioscope-ioscope", "path": "ioscope-out/"}, uses
assert r["uses"][0]["uses"] == "github/codeql-action/upload-sarif@v4", r["uses"]
assert uses["github/codeql-action/upload-sarif"]["with"]["category"] == "ioscope-ioscope"
o = r["outputs"]
assert (o["new"], o["fixed"], o["unchanged"]) == ("0", "0", "0"), o
assert o["report"] == sys.argv[1].rsplit("/", 1)[0] + "/project/ioscope-out/report.html", o
import os; assert os.path.getsize(o["report"]) > 0 and os.path.getsize(o["sarif"]) > 0, o
assert "::notice" not in steps, steps'
cp "$work/project/ioscope-out/issues.json" "$work/project/.ioscope-baseline.json"
nbase=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
    "$work/project/.ioscope-baseline.json")
[ "$nbase" -gt 0 ] || not_ok "the baseline has no issue: random_write's is the project's"

# the matrix recipe: two entries of one job, artifacts and categories apart
for idx in 0 1; do
    scenario "matrix$idx" "$push" "{\"job-index\": $idx}" github-matrix
    run "matrix$idx" 0
    check "matrix$idx" "
assert uses['actions/upload-artifact']['with']['name'] == 'ioscope-$idx', uses
assert uses['github/codeql-action/upload-sarif']['with']['category'] == 'ioscope-$idx', uses
assert r['outputs']['unchanged'] == '$nbase', r['outputs']"
done

# a new issue on a fork's pull request: no SARIF upload, a notice, the
# artifact kept, the job failed, the outputs counting it
fork='{"event_name": "pull_request", "actor": "someone", "event": {"pull_request": {"head": {"repo": {"fork": true, "full_name": "someone/project"}}}}}'
scenario fork "$fork" '{}' github-actions
run fork 1 REGRESS=1
check fork "
assert 'github/codeql-action/upload-sarif' not in uses, r['uses']
assert uses['actions/upload-artifact']['with']['name'] == 'ioscope-ioscope'
assert '::notice title=ioscope::SARIF not uploaded: this pull request comes from a fork' in steps, steps
assert '::error::new I/O issues' in steps
assert (r['outputs']['new'], r['outputs']['fixed'], r['outputs']['unchanged']) == ('1', '0', '$nbase'), r['outputs']"
grep -q '^| high | small_buffer |' "$work/gh/summary.md" || not_ok "fork: the summary: $(cat "$work/gh/summary.md")"

# Dependabot's pull request: a read-only token too
bot='{"event_name": "pull_request", "actor": "dependabot[bot]", "event": {"pull_request": {"head": {"repo": {"fork": false, "full_name": "me/project"}}}}}'
scenario bot "$bot" '{}' github-actions
run bot 0
check bot "
assert 'github/codeql-action/upload-sarif' not in uses, r['uses']
assert \"SARIF not uploaded: Dependabot's token\" in steps, steps"

# a pull request from a branch of the repository itself uploads
own='{"event_name": "pull_request", "actor": "me", "event": {"pull_request": {"head": {"repo": {"fork": false, "full_name": "me/project"}}}}}'
scenario own "$own" '{}' github-actions
run own 0
check own "
assert 'github/codeql-action/upload-sarif' in uses, r['uses']
assert '::notice' not in steps, steps"

# The action and the workflows against GitHub's schemas: the validator
# where it may be fetched, the rules the schema states by hand always.
python3 - "$TOP/ci/github/action.yml" <<'PY' || not_ok "action.yml breaks a rule of action metadata"
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
assert a["name"] and a["description"] and a["runs"]["using"] == "composite"
for k, v in a["inputs"].items():
    assert set(v) <= {"description", "required", "default", "deprecationMessage"} and v["description"], k
for k, v in a["outputs"].items():
    assert set(v) == {"description", "value"}, k   # a composite action's outputs have a value
for s in a["runs"]["steps"]:
    assert ("run" in s) != ("uses" in s), s
    assert "run" not in s or s.get("shell"), s        # a composite run step names its shell
    assert "uses" not in s or "@" in s["uses"], s
PY
vdir=$BUILD/npm-action-validator
if npm_package "$vdir" @action-validator/cli 300 && have node; then
    for f in "$TOP/ci/github/action.yml" "$work/github-actions.yml"; do
        "$vdir/node_modules/.bin/action-validator" "$f" >"$work/validator.out" 2>&1 ||
            not_ok "action-validator $f: $(cat "$work/validator.out")"
    done
else
    echo "SKIP schema validator: @action-validator/cli is not installed (IOSCOPE_NPM=1 fetches it)"
fi
[ $fail = 0 ] && echo "ok   the action's steps on push, a matrix, a fork's and Dependabot's pull requests"
exit $fail
