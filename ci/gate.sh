#!/bin/sh
# gate.sh - the ioscope I/O regression gate, step by step: what the GitHub
# Action (ci/github/action.yml), the GitLab template
# (ci/gitlab/ioscope.gitlab-ci.yml) and docs/ci.md's shell recipe run.
#
# usage: gate.sh deps               install the build dependencies (Debian/Ubuntu)
#        gate.sh install PREFIX     build this ioscope and install it under PREFIX
#        gate.sh record CMD [ARG...]  run the test command under iorecord
#        gate.sh analyze            the issues of the recording, in every output
#        gate.sh diff               compare them with the baseline; fail on new ones
#        gate.sh run CMD [ARG...]   record, analyze and diff
#
# Environment:
#   IOSCOPE_OUT       where everything is written (default ioscope-out)
#   IOSCOPE_BASELINE  the baseline issues file (default .ioscope-baseline.json;
#                     a committed file, or one fetched from the main branch's
#                     last run)
#   IOSCOPE_CONFIG    an ioanalyze configuration file (optional)
#   IOSCOPE_SCOPE     own (default): only the findings of programs built
#                     under the source root or with a stack frame there (the
#                     compiler, the linker and the shell are counted in one
#                     line, not judged); all: every finding
#   IOSCOPE_SOURCE_ROOT  the project's sources (default the working directory)
#   IOSCOPE_CI        accepted and ignored: diff always counts a finding near
#                     its threshold as unchanged (--ci), and no judgement
#                     rests on a measured time
#   GITHUB_STEP_SUMMARY  when set, the markdown summary is appended to it
#
# What IOSCOPE_OUT holds: tests.zst (the recording), tests.status (the
# command's exit status), issues.json (every issue in scope: the next
# baseline), ioscope.sarif (the issues for code scanning),
# codequality.json (the issues for GitLab's merge request widget),
# report.html, and after diff: diff.json, diff.md (markdown),
# diff.junit.xml, diff.sarif (the new issues only) and diff.counts (lines
# new=N, fixed=N, unchanged=N, the GitHub action's outputs).
#
# Exit: record and run give the test command's status when it failed;
# otherwise 0 nothing new, 1 new I/O issues, 2 ioscope could not run.
out=${IOSCOPE_OUT:-ioscope-out}
baseline=${IOSCOPE_BASELINE:-.ioscope-baseline.json}
scope=${IOSCOPE_SCOPE:-own}
root=${IOSCOPE_SOURCE_ROOT:-.}

say() {
    echo "ioscope: $*" >&2
}

# as root, or through sudo when there is one
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        say "not root and no sudo: cannot run $*"
        return 2
    fi
}

deps() {
    as_root apt-get update -q &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            gcc make pkg-config libjansson-dev libzstd-dev libpcre2-dev libdw-dev
}

install_ioscope() {
    [ -n "$1" ] || { say "install needs a PREFIX"; return 2; }
    src=$(cd "$(dirname "$0")/.." && pwd)
    build=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ioscope-build
    # install builds only the programs: no test libraries needed
    make -C "$src" -j2 BUILD="$build" install PREFIX="$1" >&2
}

record() {
    mkdir -p "$out" || return 2
    iorecord -o "$out/tests.zst" -- "$@"
    status=$?
    echo "$status" >"$out/tests.status"
    return $status
}

# One analysis writes every output. Low-severity issues go in issues.json
# too: diff matches an issue whatever its severity, so a baseline that
# lacked them would call one new when it crossed the line.
analyze() {
    ioanalyze ${IOSCOPE_CONFIG:+"--config=$IOSCOPE_CONFIG"} --min-severity low \
        --scope "$scope" --source-root "$root" \
        -o sarif="$out/ioscope.sarif" -o codequality="$out/codequality.json" \
        -o html="$out/report.html" "$out/tests.zst" >"$out/issues.json"
}

# ioanalyze diff with the gate's options
gate_diff() {
    ioanalyze diff --ci ${IOSCOPE_CONFIG:+"--config=$IOSCOPE_CONFIG"} \
        --scope "$scope" --source-root "$root" "$@"
}

summary() {
    [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$1" >>"$GITHUB_STEP_SUMMARY"
    return 0
}

diff_baseline() {
    if [ ! -f "$baseline" ]; then
        # shellcheck disable=SC2016 # the backticks are markdown
        printf '### ioscope: no baseline yet\n\nReview `%s` and commit it as `%s` (or keep it as the baseline artifact).\n' \
            "$out/issues.json" "$baseline" >"$out/diff.md"
        summary "$out/diff.md"
        say "no baseline: review $out/issues.json and commit it as $baseline"
        printf 'new=0\nfixed=0\nunchanged=0\n' >"$out/diff.counts"
        return 0
    fi
    for f in markdown:diff.md junit:diff.junit.xml sarif:diff.sarif; do
        gate_diff --format "${f%%:*}" "$baseline" "$out/issues.json" >"$out/${f#*:}" 2>/dev/null
        [ $? -le 1 ] || { say "cannot diff $baseline and $out/issues.json"; return 2; }
    done
    gate_diff "$baseline" "$out/issues.json" >"$out/diff.json" 2>"$out/diff.err"
    status=$?
    cat "$out/diff.err" >&2
    # "diff: 1 new, 0 fixed, 3 unchanged ..." as the action's outputs
    awk '/^diff: [0-9]+ new, [0-9]+ fixed, [0-9]+ unchanged/ {
        print "new=" $2; print "fixed=" $4; print "unchanged=" $6 + 0 }' \
        "$out/diff.err" >"$out/diff.counts"
    summary "$out/diff.md"
    if [ $status -eq 1 ]; then
        say "new I/O issues (all of them in $out/diff.json):"
        gate_diff --format text "$baseline" "$out/issues.json" >&2 2>/dev/null
        say "fix them, or accept them: cp $out/issues.json $baseline"
    fi
    return $status
}

# The test command's failure wins over the gate's verdict.
tests_status() {
    s=$(cat "$out/tests.status" 2>/dev/null || echo 0)
    [ "$s" -ne 0 ] && exit "$s"
    return 0
}

step=$1
[ $# -gt 0 ] && shift
case $step in
deps) deps || exit 2 ;;
install) install_ioscope "$@" || exit 2 ;;
record) record "$@" ;;
analyze) analyze || exit 2 ;;
diff)
    diff_baseline
    status=$?
    tests_status
    exit $status
    ;;
run)
    record "$@"
    analyze || exit 2
    diff_baseline
    status=$?
    tests_status
    exit $status
    ;;
*)
    echo "usage: gate.sh deps|install PREFIX|record CMD...|analyze|diff|run CMD..." >&2
    exit 2
    ;;
esac
