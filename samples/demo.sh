#!/bin/sh
# samples/demo.sh - what `make demo` runs after the build: records every
# sample program with iorecord, analyzes all the traces together with
# ioanalyze, and shows the issues grouped by rule.
#
# Environment: BUILD (build tree, default build), DEMO (output directory,
# default $BUILD/demo). Writes only under DEMO:
# traces/, the samples' own files in files/, logs/, issues.json and
# profile.csv.
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
DEMO=${DEMO:-$BUILD/demo}

# A path as the user will type it: relative when under the current directory.
show() {
    case $1 in
    "$PWD"/*) echo "${1#"$PWD"/}" ;;
    *) echo "$1" ;;
    esac
}

die() {
    echo "demo: $*" >&2
    exit 1
}

for f in "$IORECORD" "$IOANALYZE" "$BUILD/lib/libiorecord.so"; do
    [ -e "$f" ] || die "'$f' is not built; run 'make' first"
done
set -- "$BUILD"/bin/samples/*
[ -x "$1" ] || die "no sample programs in '$BUILD/bin/samples'; run 'make' first"

# Only what an earlier demo wrote is removed, whatever DEMO points at.
# A sanitized build (make asan) has a recorder that needs the sanitizer
# runtime loaded before it in the recorded programs.
REC_PRELOAD=
if ldd "$BUILD/lib/libiorecord.so" 2>/dev/null | grep -q libasan; then
    REC_PRELOAD=$(ldd "$BUILD/lib/libiorecord.so" | awk '/libasan/ { print $3 }')
fi

rm -rf "$DEMO/traces" "$DEMO/files" "$DEMO/logs" \
       "$DEMO/issues.json" "$DEMO/profile.csv" "$DEMO/analyze.err"
mkdir -p "$DEMO/traces" "$DEMO/files" "$DEMO/logs" || die "cannot create '$DEMO'"

echo "== Recording $# sample programs with iorecord"
failed=0
for prog in "$@"; do
    name=$(basename "$prog")
    trace=$DEMO/traces/$name.zst
    # The same command a user would type; the sample's own output goes to a log.
    if env ${REC_PRELOAD:+LD_PRELOAD="$REC_PRELOAD" ASAN_OPTIONS=detect_leaks=0} \
        "$IORECORD" -o "$trace" -- "$prog" "$DEMO/files/$name" >"$DEMO/logs/$name.log" 2>&1; then
        status=ok
    else
        status="FAILED (exit $?, see $(show "$DEMO/logs/$name.log"))"
        failed=$((failed + 1))
    fi
    bytes=$(wc -c <"$trace" 2>/dev/null || echo 0)
    printf '  %-16s %-6s %8s bytes  iorecord -o traces/%s.zst -- %s\n' \
        "$name" "$status" "$bytes" "$name" "${prog#"$TOP"/}"
done

echo
echo "== Analyzing: ioanalyze --csv profile.csv traces/ > issues.json"
# Exit 1 would only mean "issues found" with --fail-on-issues; 2 is an error.
"$IOANALYZE" --csv "$DEMO/profile.csv" "$DEMO/traces" >"$DEMO/issues.json" 2>"$DEMO/analyze.err"
rc=$?
# ioanalyze's own summary and warnings, if it printed any.
sed 's/^/  /' "$DEMO/analyze.err"
[ $rc -eq 0 ] || die "ioanalyze failed (exit $rc)"

echo
if command -v python3 >/dev/null 2>&1; then
    python3 - "$DEMO/issues.json" "$DEMO/files" "$@" <<'EOF'
import json, os, sys
issues_path, files = sys.argv[1], sys.argv[2]
samples = [os.path.basename(p) for p in sys.argv[3:]]
with open(issues_path) as f:
    issues = json.load(f)
# What "repeat" means depends on the rule (Matrix's convention).
repeat_label = {1: "slow-bits", 3: "times read", 4: "leaked", 7: "non-sequential", 8: "non-sequential"}
by_rule = {}
for i in issues:
    by_rule.setdefault((i["type"], i["rule"]), []).append(i)
print("== Issues by rule")
for (typ, rule), group in sorted(by_rule.items()):
    print("%s (type %d): %d issue%s" % (rule, typ, len(group), "" if len(group) == 1 else "s"))
    for i in group:
        path = i["path"]
        if path.startswith(files + "/"):
            path = path[len(files) + 1:]
        print("  %s  [process %s, thread %s]" % (path, i["process"], i["thread"]))
        line = "    op=%s buffer=%s opSize=%s cost=%sms" % (i["op"], i["buffer"], i["opSize"], i["cost"])
        if typ in repeat_label:
            line += " %s=%s" % (repeat_label[typ], i["repeat"])
        print(line)
        print("    " + i["message"])
    print()
quiet = sorted(set(samples) - {i["process"] for i in issues})
print("Samples with no issue (as intended): %s" % (", ".join(quiet) or "none"))
EOF
else
    # No python3: ioanalyze's own one-issue-per-line output instead.
    echo "== Issues (python3 not found: raw JSON lines)"
    "$IOANALYZE" --format jsonl "$DEMO/traces" 2>/dev/null
fi

echo
echo "== Written"
echo "  issues (JSON):   $(show "$DEMO/issues.json")"
echo "  profile (CSV):   $(show "$DEMO/profile.csv")"
echo "  traces:          $(show "$DEMO/traces")/"
echo "Next: $(show "$IOANALYZE") dump --format text $(show "$DEMO/traces/fd_leak.zst") | less"
[ $failed -eq 0 ] || die "$failed sample(s) could not be recorded (see above)"
