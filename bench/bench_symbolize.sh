#!/bin/sh
# What offline symbolization costs ioanalyze: a trace of 768 distinct open
# stacks (bench/stack_prog: 128 call sites x 6 recursion depths, each file
# leaked so that every stack is reported) analysed with and without
# symbolization, best of 5 each; the difference per distinct frame looked up
# (each address is resolved once, then cached per module and address). The
# figure includes opening each module's debug info once (libc's is the
# largest when libc6-dbg is installed).
# Figures only: never pass/fail on time.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
A=$BUILD/bin/ioanalyze
R=$BUILD/bin/iorecord
P=$BUILD/bin/bench/stack_prog
for f in "$A" "$R" "$P"; do
    [ -x "$f" ] || { echo "bench_symbolize: $f is not built (make bench builds it)"; exit 0; }
done
if ldd "$BUILD/lib/libiorecord.so" | grep -q libasan; then
    echo "bench_symbolize: a sanitizer build; measure a plain build"; exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-sym.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
echo x > "$work/f"
"$R" -o "$work/t.zst" -- "$P" "$work/f" > /dev/null || { echo "bench_symbolize: recording failed"; exit 0; }

now() { date +%s.%N; }
best5() {
    best=""
    for i in 1 2 3 4 5; do
        t0=$(now)
        "$A" "$@" "$work/t.zst" > "$work/out.json" 2> "$work/err" || return 1
        t1=$(now)
        best=$(printf '%s\n%s\n' "$best" "$(echo "$t0 $t1" | awk '{ printf "%.4f", $2 - $1 }')" |
               awk 'NF' | sort -n | head -n 1)
    done
    echo "$best"
}
# Each stack leaks one file: the leak rule's default min_count (2) holds
# one-offs back, so it is set to 1 for every stack to be an issue.
leaks="--rules leak --set leak.min_count=1"
plain=$(best5 $leaks --no-symbolize) || { echo "bench_symbolize: ioanalyze failed"; exit 0; }
sym=$(best5 $leaks) || { echo "bench_symbolize: ioanalyze failed"; exit 0; }
issues=$(grep -c '"rule"' "$work/out.json")
frames=$(sed -n 's/.*; \([0-9]*\) of \([0-9]*\) stack frames unresolved.*/\2/p' "$work/err")
unres=$(sed -n 's/.*; \([0-9]*\) of \([0-9]*\) stack frames unresolved.*/\1/p' "$work/err")
echo "trace: 768 distinct stacks, $issues leak issues (stacks alike in their top 4 frames share one); $frames distinct frames ($unres unresolved)"
printf '%-28s %9s\n' setup seconds
printf '%-28s %9s\n' "ioanalyze --no-symbolize" "$plain"
printf '%-28s %9s\n' "ioanalyze (symbolized)" "$sym"
echo "$plain $sym ${frames:-0} $issues" | awk '{ d = $2 - $1; if ($3 > 0)
    printf "symbolization: %.3f s, %.1f us per distinct frame, %.1f us per issue\n", d, d * 1e6 / $3, d * 1e6 / $4 }'
