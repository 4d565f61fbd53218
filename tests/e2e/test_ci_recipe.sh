#!/bin/sh
# docs/ci.md's recipes, run as written on a "test suite" of sample programs:
# the plain shell gate script (no baseline yet, a clean run in other temp
# dirs, a new problem, a failing suite, a config) and the `ioscope: ...`
# steps of the GitHub Actions workflow.
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
extract shell >"$work/ioscope-gate.sh" || { not_ok "no shell recipe in docs/ci.md"; exit 1; }
extract github-actions >"$work/workflow.yml" || { not_ok "no workflow in docs/ci.md"; exit 1; }

# The project's test suite: sample programs, each in a new temporary
# directory (as a real suite would), EXTRA=1 adds a new problem, a clearly
# costly one (100000 writes of 32 bytes: a cheap finding's severity, and so
# whether the gate shows it, would follow the machine's load), SUITE_STATUS
# makes it fail.
# (The directories are left to the test's cleanup: rm would be recorded too.)
mkdir "$work/tmp"
cat >"$work/suite.sh" <<EOF
#!/bin/sh
TMPDIR=$work/tmp
export TMPDIR
d1=\$(mktemp -d) d2=\$(mktemp -d) d3=\$(mktemp -d)
"$S/fd_leak" "\$d1" >/dev/null
"$S/random_write" "\$d2" >/dev/null
[ "\${EXTRA:-0}" = 1 ] && "$S/small_writes" "\$d3" >/dev/null
exit \${SUITE_STATUS:-0}
EOF
chmod +x "$work/suite.sh" "$work/ioscope-gate.sh"

# counts FILE: "NEW FIXED UNCHANGED"
counts() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["new"]), len(d["fixed"]), d["unchanged"])' "$1"
}

# gate STATUS [VAR=VALUE...]: run the shell recipe in $work/repo
gate() {
    want=$1; shift
    # main_thread is off: on a busy machine any main-thread call can stall
    # past 13 ms and look like a new issue; the recipe itself is what is tested
    (cd "$work/repo" && env $REC_ENV IOSCOPE_CONFIG=quiet.json "$@" "$work/ioscope-gate.sh" "$work/suite.sh") >"$work/out" 2>"$work/err"
    got=$?
    [ "$got" -eq "$want" ] || not_ok "gate $* exited $got, expected $want: $(cat "$work/err")"
}

mkdir "$work/repo"
printf '{"rules": {"main_thread": {"enabled": false}}}\n' >"$work/repo/quiet.json"
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
grep -q '"rule":"small_buffer"' "$work/err" || not_ok "the new issue is not shown: $(cat "$work/err")"
grep -c '"rule":' "$work/err" | grep -qx 1 || not_ok "known issues shown as new: $(cat "$work/err")"

# 4. a failing suite fails the job with its own status
gate 3 SUITE_STATUS=3

# 5. a configuration (here: small_buffer accepted as not a problem)
printf '{"rules": {"small_buffer": {"enabled": false}, "main_thread": {"enabled": false}}}\n' >"$work/repo/ioscope.json"
gate 0 EXTRA=1 IOSCOPE_CONFIG=ioscope.json

# 6. another baseline location and output directory
gate 1 EXTRA=1 IOSCOPE_BASELINE="$work/repo/.ioscope-baseline.json" IOSCOPE_OUT="$work/out2"
[ -s "$work/out2/diff.json" ] || not_ok "IOSCOPE_OUT not used"

# The GitHub Actions steps named "ioscope: ...", in order, with the job's env.
python3 - "$work/workflow.yml" "$work" "$work/suite.sh" <<'EOF' || not_ok "cannot extract the workflow steps"
import re, sys
text = open(sys.argv[1]).read().split("\n")
work, suite = sys.argv[2], sys.argv[3]
env, steps, i = {}, [], 0
while i < len(text):
    line = text[i]
    m = re.match(r"^    env:\s*$", line)
    if m:
        i += 1
        while i < len(text) and re.match(r"^      \w+:", text[i]):
            k, v = text[i].strip().split(":", 1)
            env[k] = v.strip()
            i += 1
        continue
    m = re.match(r'^      - name: "?(ioscope: [^"]*)"?\s*$', line)
    if m:
        name, body = m.group(1), None
        i += 1
        while i < len(text) and not text[i].startswith("      - "):
            if text[i].strip() == "run: |":
                body = []
                i += 1
                while i < len(text) and (text[i].startswith("          ") or not text[i].strip()):
                    body.append(text[i][10:])
                    i += 1
                continue
            i += 1
        assert body, name
        steps.append((name, "\n".join(body).replace("make check", "sh " + suite)))
        continue
    i += 1
assert [n for n, _ in steps] == ["ioscope: record the test suite", "ioscope: analyze",
                                 "ioscope: fail on new issues"], steps
assert env.get("IOSCOPE_OUT") and env.get("IOSCOPE_BASELINE"), env
with open(work + "/steps.env", "w") as f:
    for k, v in env.items():
        f.write("%s=%s\nexport %s\n" % (k, v, k))
for n, (name, body) in enumerate(steps):
    open("%s/step%d.sh" % (work, n), "w").write(body + "\n")
EOF
SH=sh
command -v bash >/dev/null 2>&1 && SH="bash -eo pipefail"
# workflow STATUS [VAR=VALUE...]: the three steps; STATUS is the last one's
workflow() {
    want=$1; shift
    rm -rf "$work/gh/ioscope-out"
    for n in 0 1 2; do
        (cd "$work/gh" && . "$work/steps.env" && env $REC_ENV "$@" $SH "$work/step$n.sh") >"$work/out" 2>"$work/err"
        got=$?
        if [ $n -lt 2 ] && [ $got -ne 0 ]; then
            not_ok "workflow step $n exited $got: $(cat "$work/err")"
            return
        fi
    done
    [ "$got" -eq "$want" ] || not_ok "workflow $* exited $got, expected $want: $(cat "$work/out" "$work/err")"
}
mkdir "$work/gh"
cp "$work/repo/.ioscope-baseline.json" "$work/gh/.ioscope-baseline.json"
workflow 0
[ "$(counts "$work/gh/ioscope-out/diff.json")" = "0 0 $nbase" ] || not_ok "workflow clean run"
[ -s "$work/gh/ioscope-out/ioscope.sarif" ] || not_ok "workflow wrote no SARIF"
workflow 1 EXTRA=1
grep -q "::error::new I/O issues" "$work/out" || not_ok "workflow error annotation: $(cat "$work/out")"
grep -q '"rule":"small_buffer"' "$work/out" || not_ok "workflow does not show the new issue"
exit $fail
