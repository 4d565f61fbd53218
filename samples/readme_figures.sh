#!/bin/sh
# samples/readme_figures.sh - measures the figures README.md quotes from
# its quick start and from `make demo`, so that they cannot drift from what
# the programs do: `make readme-figures` prints them, `make readme-figures
# WRITE=1` (--write) puts them into README.md between its markers
# <!-- figure NAME --> ... <!-- /figure -->.
#
#   quick_summary  ioanalyze's summary line for the quick start's sqlite3 run
#                  (needs sqlite3; left out without it)
#   quick_issues   the issues of that run, low-impact ones included (what
#                  tests/e2e/test_readme_figures.sh compares: counts do not
#                  depend on the machine's speed, times and sizes do)
#   demo_seconds   seconds samples/demo.sh takes after the build (record
#                  the samples, analyze, report)
#   demo_events    the events of the demo's traces
#   html_size      the HTML report of the demo's traces, in KB or MB
#
# Environment: BUILD (build tree, default build). Works in a directory of
# its own under TMPDIR, removed at the end.
BUILD=${BUILD:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
README=$TOP/README.md
write=0
case ${1:-} in
--write) write=1 ;;
"") ;;
*) echo "usage: readme_figures.sh [--write]" >&2; exit 2 ;;
esac

die() {
    echo "readme-figures: $*" >&2
    exit 1
}

for f in "$IORECORD" "$IOANALYZE"; do
    [ -x "$f" ] || die "'$f' is not built; run 'make' first"
done
work=$(mktemp -d "${TMPDIR:-/tmp}/readme-figures.XXXXXX") || die "no temporary directory"
trap 'rm -rf "$work"' EXIT

# figure NAME VALUE: print it; with --write, put it between NAME's markers
figure() {
    printf '%s\t%s\n' "$1" "$2"
    [ $write = 1 ] || return 0
    grep -q "<!-- figure $1 -->" "$README" || die "README.md has no marker for $1"
    NAME=$1 VALUE=$2 perl -0pi -e \
        's/(<!-- figure \Q$ENV{NAME}\E -->).*?(<!-- \/figure -->)/$1$ENV{VALUE}$2/s' "$README" ||
        die "cannot rewrite README.md"
}

# The quick start, as README.md gives it.
if command -v sqlite3 >/dev/null 2>&1; then
    mkdir "$work/quick"
    (
        cd "$work/quick" || exit 1
        { echo "CREATE TABLE t(k TEXT PRIMARY KEY, v TEXT);"
          for i in $(seq 300); do echo "INSERT INTO t VALUES(hex(randomblob(8)), 'value $i');"; done
        } >inserts.sql
        "$IORECORD" -o sqlite.zst -- sqlite3 test.db <inserts.sql >/dev/null 2>&1 &&
            "$IOANALYZE" --csv profile.csv sqlite.zst >issues.json 2>summary &&
            "$IOANALYZE" --min-severity low sqlite.zst >all.json 2>/dev/null
    ) || die "the quick start failed"
    summary=$(grep '^ioanalyze: ' "$work/quick/summary" | head -1)
    figure quick_summary "
\`\`\`
$summary
\`\`\`
"
    figure quick_issues "$(grep -c '"fingerprint"' "$work/quick/all.json")"
else
    echo "(sqlite3 is not installed: the quick start's figures left out)" >&2
fi

# The demo after the build, then its traces' HTML report.
start=$(date +%s.%N)
DEMO=$work/demo BUILD=$BUILD sh "$TOP/samples/demo.sh" >"$work/demo.out" 2>&1 ||
    die "the demo failed: $(tail -3 "$work/demo.out")"
end=$(date +%s.%N)
figure demo_seconds "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')"
events=$(sed -n 's/^ioanalyze: .* in \([0-9]*\) events from .*/\1/p' "$work/demo/analyze.err")
[ -n "$events" ] || die "no event count in the demo's summary"
figure demo_events "$(printf '%s' "$events" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')"
"$IOANALYZE" --format html "$work/demo/traces" >"$work/report.html" 2>/dev/null ||
    die "the HTML report of the demo failed"
figure html_size "$(awk -v b="$(wc -c <"$work/report.html")" \
    'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.0f KB", b / 1e3 }')"
