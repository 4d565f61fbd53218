#!/bin/sh
# samples/demo.sh - what `make demo` runs after the build: records every
# sample program with iorecord, analyzes all the traces together with
# ioanalyze, and shows its report (the issues grouped by rule, then the
# I/O time per process, file and op).
#
# Environment: BUILD (build tree, default build), DEMO (output directory,
# default $BUILD/demo). Writes only under DEMO: traces/, the samples' own
# files in files/, their output in logs/, issues.json, profile.csv and
# analyze.err.
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

# A sanitized build (make asan) has a recorder that needs the sanitizer
# runtime loaded before it in the recorded programs.
REC_PRELOAD=
if ldd "$BUILD/lib/libiorecord.so" 2>/dev/null | grep -q libasan; then
    REC_PRELOAD=$(ldd "$BUILD/lib/libiorecord.so" | awk '/libasan/ { print $3 }')
fi

# Only what an earlier demo wrote is removed, whatever DEMO points at.
rm -rf "$DEMO/traces" "$DEMO/files" "$DEMO/logs" \
       "$DEMO/issues.json" "$DEMO/issues.jsonl" "$DEMO/profile.csv" "$DEMO/analyze.err"
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
# The report for people (ioanalyze --format text): the issues grouped by rule,
# then where the I/O time went. On a terminal it is in color (not with NO_COLOR).
echo "== Report: ioanalyze --format text traces/"
"$IOANALYZE" --format text "$DEMO/traces" 2>/dev/null || die "ioanalyze --format text failed"
echo
quiet=""
for prog in "$@"; do
    name=$(basename "$prog")
    grep -q "\"process\": \"$name\"" "$DEMO/issues.json" || quiet="$quiet${quiet:+, }$name"
done
echo "Samples with no issue (as intended): ${quiet:-none}"

echo
echo "== Written"
echo "  issues (JSON):   $(show "$DEMO/issues.json")"
echo "  profile (CSV):   $(show "$DEMO/profile.csv")"
echo "  traces:          $(show "$DEMO/traces")/"
echo "Next: $(show "$IOANALYZE") --format html $(show "$DEMO/traces") > report.html"
echo "      $(show "$IOANALYZE") dump --format text $(show "$DEMO/traces/fd_leak.zst") | less"
[ $failed -eq 0 ] || die "$failed sample(s) could not be recorded (see above)"
