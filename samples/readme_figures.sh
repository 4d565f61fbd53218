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
#   quick_report   the head of that run's text report (its first finding)
#   quick_profile  the columns of its profile.csv the README shows (needs
#                  column; left out without it)
#   quick_info     what `ioanalyze info` says of its trace
#   demo_seconds   seconds samples/demo.sh takes after the build (record
#                  the samples, analyze, report)
#   demo_transcript  what `make demo` prints, the report's first finding
#                  and its tables, the other findings named
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
    # the text report's head: the first finding up to its stack, as an
    # 80-column pipe gets it, the run's directory named as the quick start's
    "$IOANALYZE" --format text "$work/quick/sqlite.zst" 2>/dev/null |
        awk '/^    stack:/ { exit } { print }' | sed "s#$work/quick#/tmp/quick#g" >"$work/quick/report"
    figure quick_report "
\`\`\`
$(cat "$work/quick/report")
\`\`\`
"
    if command -v column >/dev/null 2>&1; then
        figure quick_profile "
\`\`\`
\$ cut -d, -f2-4,10,17-21,27 profile.csv | column -t -s,
$(sed "s#$work/quick#/tmp/quick#g" "$work/quick/profile.csv" | cut -d, -f2-4,10,17-21,27 | column -t -s,)
\`\`\`
"
    else
        echo "(column is not installed: the quick start's profile table left out)" >&2
    fi
    "$IOANALYZE" info "$work/quick/sqlite.zst" >"$work/quick/info" 2>/dev/null
    figure quick_info "$(awk '
        /^  .*: native trace, / { bytes = $(NF - 1) }
        /^events: / { events = $2 }
        /^bytes\/event: / { per = $2 }
        /^time span: / { span = $3 }
        END { printf "%s events in %s bytes: %s bytes per event, %.2f s of sqlite3 run time",
              events, bytes, per, span }' "$work/quick/info")"
else
    echo "(sqlite3 is not installed: the quick start's figures left out)" >&2
fi

# The demo after the build, then its traces' HTML report.
start=$(date +%s.%N)
DEMO=$work/demo BUILD=$BUILD sh "$TOP/samples/demo.sh" >"$work/demo.out" 2>&1 ||
    die "the demo failed: $(tail -3 "$work/demo.out")"
end=$(date +%s.%N)
figure demo_seconds "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')"
# the demo's transcript: the recordings, the summary, the report's first
# finding and its tables, the other findings named in one line
awk -v demo="$work/demo/" -v top="$TOP/" '
    function swap(s, a, b,    i) {
        while ((i = index(s, a)) > 0)
            s = substr(s, 1, i - 1) b substr(s, i + length(a))
        return s
    }
    { $0 = swap(swap($0, demo, "~/ioscope/build/demo/"), top, "~/ioscope/") }
    /^== [0-9]+\. / && ++n > 1 { split($0, h, ": "); sub(/ \(type [0-9]+\)/, "", h[2]); rest = rest sep h[2]; sep = ", "; skip = 1; next }
    /^== (Processes|Files|Calls)/ && skip {
        print "  [... the other findings, each with its figures, fix, symptoms and stacks:"
        print "   " rest " ...]"
        print ""
        skip = 0
    }
    !skip { print }' "$work/demo.out" >"$work/demo.transcript"
figure demo_transcript "
\`\`\`
\$ make demo
$(cat "$work/demo.transcript")
\`\`\`
"
events=$(sed -n 's/^ioanalyze: .* in \([0-9]*\) events from .*/\1/p' "$work/demo/analyze.err")
[ -n "$events" ] || die "no event count in the demo's summary"
figure demo_events "$(printf '%s' "$events" | sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta')"
"$IOANALYZE" --format html "$work/demo/traces" >"$work/report.html" 2>/dev/null ||
    die "the HTML report of the demo failed"
figure html_size "$(awk -v b="$(wc -c <"$work/report.html")" \
    'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.0f KB", b / 1e3 }')"
