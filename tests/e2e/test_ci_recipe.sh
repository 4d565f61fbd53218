#!/bin/sh
# docs/ci.md's recipes as written: the plain shell one run on a "test
# suite" of sample programs (no baseline yet, a clean run in other temp
# dirs, a new problem, a failing suite, a config, other places), and the
# GitHub Actions workflow and GitLab job checked against what they use
# (the action's steps themselves run in tests/e2e/test_ci_gate.sh).
# e2e: slow (about 10 s CPU here: the CI recipe run end to end)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
DOC=$TOP/docs/ci.md
need_built "$IOANALYZE" "$IORECORD" "$S/fd_leak" "$S/random_write" "$S/small_writes"
have python3 || skip "python3 is needed"
work_dir ci-recipe
# A sanitized recorder needs the sanitizer runtime loaded first (make asan).
REC_ENV=$(asan_env "$LIBIORECORD")
PATH=$BUILD/bin:$PATH
export PATH

# The fenced block right after the marker comment.
extract() {
    python3 - "$DOC" "$1" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("<!-- recipe: %s -->" % sys.argv[2]) + 1
assert lines[i].startswith("```"), lines[i]
end = lines.index("```", i + 1)
print("\n".join(lines[i + 1:end]))
EOF
}
extract shell >"$work/recipe.sh" || { not_ok "no shell recipe in docs/ci.md"; exit 1; }
extract github-actions >"$work/workflow.yml" || { not_ok "no workflow in docs/ci.md"; exit 1; }
extract gitlab >"$work/gitlab.yml" || { not_ok "no GitLab job in docs/ci.md"; exit 1; }

# The project's test suite: its programs (sample programs copied into the
# checkout: built from the project's tree, as far as the gate's own-code
# scope can tell), each in a new temporary directory (as a real suite would), EXTRA=1 adds a new problem, a clearly
# costly one (100000 writes of 32 bytes: a cheap finding's severity, and so
# whether the gate shows it, would follow the machine's load), SUITE_STATUS
# makes it fail.
# (The directories are left to the test's cleanup: rm would be recorded too.)
mkdir -p "$work/tmp" "$work/repo/bin"
cp "$S/fd_leak" "$S/random_write" "$S/small_writes" "$work/repo/bin/" || exit 1
B=$work/repo/bin
cat >"$work/suite.sh" <<EOF
#!/bin/sh
TMPDIR=$work/tmp
export TMPDIR
d1=\$(mktemp -d) d2=\$(mktemp -d) d3=\$(mktemp -d)
"$B/fd_leak" "\$d1" >/dev/null
"$B/random_write" "\$d2" >/dev/null
[ "\${EXTRA:-0}" = 1 ] && "$B/small_writes" "\$d3" >/dev/null
exit \${SUITE_STATUS:-0}
EOF
chmod +x "$work/suite.sh"
# the recipe as written, in a checkout with ioscope vendored, its test
# command the suite
sed 's|make check|sh "$SUITE"|' "$work/recipe.sh" >"$work/ioscope-gate.sh"

# counts FILE: "NEW FIXED UNCHANGED"
counts() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["new"]), len(d["fixed"]), d["unchanged"])' "$1"
}

# gate STATUS [VAR=VALUE...]: run the shell recipe in $work/repo
gate() {
    want=$1; shift
    (cd "$work/repo" && env $REC_ENV SUITE="$work/suite.sh" "$@" sh "$work/ioscope-gate.sh") >"$work/out" 2>"$work/err"
    got=$?
    [ "$got" -eq "$want" ] || not_ok "gate $* exited $got, expected $want: $(cat "$work/err")"
}

mkdir -p "$work/repo/third_party"
ln -s "$TOP" "$work/repo/third_party/ioscope"
out=$work/repo/ioscope-out

# 1. no baseline yet: the job passes and says what to commit
gate 0
grep -q "^ioscope: no baseline: review ioscope-out/issues.json and commit it as .ioscope-baseline.json" "$work/err" ||
    not_ok "first run message: $(cat "$work/err")"
python3 -c '
import json, sys
issues = json.load(open(sys.argv[1]))
rules = sorted(set(i["rule"] for i in issues))
assert "leak" in rules and "random_write" in rules, rules
sarif = json.load(open(sys.argv[2]))
assert sarif["version"] == "2.1.0" and len(sarif["runs"][0]["results"]) == len(issues)
' "$out/issues.json" "$out/ioscope.sarif" || not_ok "first run outputs"
[ -s "$out/tests.zst" ] || not_ok "no trace recorded"
cp "$out/issues.json" "$work/repo/.ioscope-baseline.json"
nbase=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$out/issues.json")

# 2. the same suite again (other temp dirs, pids, addresses): nothing new
gate 0
[ "$(counts "$out/diff.json")" = "0 0 $nbase" ] || not_ok "clean rerun: $(counts "$out/diff.json")"

# 3. a new problem fails the job and is shown
gate 1 EXTRA=1
[ "$(counts "$out/diff.json")" = "1 0 $nbase" ] || not_ok "new problem: $(counts "$out/diff.json")"
grep -q "^ioscope: new I/O issues" "$work/err" || not_ok "no new-issue message: $(cat "$work/err")"
grep -q '^  \[[a-z]*\] small_buffer ' "$work/err" || not_ok "the new issue is not shown: $(cat "$work/err")"
grep -c '^  \[[a-z]*\] ' "$work/err" | grep -qx 1 || not_ok "known issues shown as new: $(cat "$work/err")"

# 4. a failing suite fails the job with its own status
gate 3 SUITE_STATUS=3

# 5. a configuration (here: small_buffer accepted as not a problem)
printf '{"rules": {"small_buffer": {"enabled": false}}}\n' >"$work/repo/ioscope.json"
gate 0 EXTRA=1 IOSCOPE_CONFIG=ioscope.json

# 6. another baseline location and output directory
gate 1 EXTRA=1 IOSCOPE_BASELINE="$work/repo/.ioscope-baseline.json" IOSCOPE_OUT="$work/out2"
[ -s "$work/out2/diff.json" ] || not_ok "IOSCOPE_OUT not used"

# The GitHub Actions workflow: the action it uses is ci/github, with
# inputs the action declares, and code scanning may be written.
python3 - "$work/workflow.yml" "$TOP/ci/github/action.yml" <<'PY' || not_ok "the workflow does not fit the action"
import re, sys
wf = open(sys.argv[1]).read()
action = open(sys.argv[2]).read()
m = re.search(r"^      - uses: \./third_party/ioscope/ci/github\n        with:\n((?:          .*\n)+)", wf, re.M)
assert m, wf
given = [l.strip().split(":")[0] for l in m.group(1).splitlines()]
declared = re.findall(r"^  ([\w-]+):\n    description:", action, re.M)
assert "command" in given and set(given) <= set(declared), (given, declared)
assert "security-events: write" in wf
# the action installs the dependencies, libdw-dev among them
assert re.search(r'gate.sh" deps', action), action
PY
grep -q "libdw-dev" "$TOP/ci/gate.sh" || not_ok "gate.sh deps does not install libdw-dev"

# The GitLab job: the template it includes and the job it extends exist,
# and the variables it sets are the template's.
python3 - "$work/gitlab.yml" "$TOP" <<'PY' || not_ok "the GitLab job does not fit the template"
import re, sys
job = open(sys.argv[1]).read()
m = re.search(r"- local: third_party/ioscope/(\S+)", job)
tmpl = open(sys.argv[2] + "/" + m.group(1)).read()
assert re.search(r"^  extends: \.ioscope$", job, re.M) and re.search(r"^\.ioscope:$", tmpl, re.M)
for k in re.findall(r"^    (\w+):", job, re.M):
    assert re.search(r"^    %s:" % k, tmpl, re.M), k
PY
exit $fail
