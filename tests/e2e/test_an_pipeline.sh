#!/bin/sh
# The pipelined analyzer (docs/analyzer.md, "Threads"): a native trace read
# on one thread and analysed on another gives the same output, byte for
# byte, as on one thread (-j1): every output format, the per-file CSV, the
# summary on stderr and the exit status, on every native trace fixture
# (damaged, truncated and newer-writer ones among them), on generated traces
# of many threads and many processes (process events carry argv, which the
# pipeline copies) and on recorded sample programs.
# e2e: slow (about 20 s here: each trace is analysed 14 times)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir pipeline
cd "$work" || exit 1

traces=""
for f in "$TOP"/tests/fixtures/*.zst "$TOP"/tests/fuzz/corpus/trace/*.zst \
         "$TOP"/tests/fuzz/corpus/analyze/*.zst; do
    [ -f "$f" ] || continue
    case $f in *.jsonl.zst) continue ;; esac
    traces="$traces $f"
done
GEN=$BUILD/bin/bench/gen_trace
if [ -x "$GEN" ]; then
    "$GEN" --threads 16 --interleave 300000 gen_threads.zst 2>/dev/null ||
        die "gen_trace --threads 16 failed"
    "$GEN" --tight --chunk 4096 200000 gen_tight.zst 2>/dev/null || die "gen_trace --tight failed"
    traces="$traces $work/gen_threads.zst $work/gen_tight.zst"
else
    echo "SKIP generated traces: $GEN is not built (make test and make bench build it)"
fi
PROCS=$BUILD/bin/bench/gen_procs
if [ -x "$PROCS" ]; then
    "$PROCS" 3000 gen_procs.zst 2>/dev/null || die "gen_procs failed"
    traces="$traces $work/gen_procs.zst"
else
    echo "SKIP many processes: $PROCS is not built (make test and make bench build it)"
fi
if [ -x "$IORECORD" ] && [ -f "$LIBIORECORD" ]; then
    REC_ENV=$(asan_env "$LIBIORECORD")
    for s in worker_io fd_leak sync_per_write; do
        p=$BUILD/bin/samples/$s
        [ -x "$p" ] || continue
        env $REC_ENV "$IORECORD" -o "$work/rec_$s.zst" -- "$p" "$work/out_$s" >/dev/null 2>&1 ||
            die "recording $s failed"
        traces="$traces $work/rec_$s.zst"
    done
else
    echo "SKIP recorded samples: the recorder is not built"
fi
[ -n "$traces" ] || die "no native trace to compare"

# run TAG ARGS...: the output, stderr and exit status of one analysis in TAG.*
run() {
    tag=$1
    shift
    "$IOANALYZE" "$@" >"$tag.out" 2>"$tag.err"
    echo $? >"$tag.rc"
}

n=0 with_issues=0
for t in $traces; do
    name=$(basename "$t")
    for f in json jsonl sarif text html; do
        for j in 1 2 4; do
            run "j$j" -j$j -f $f --min-severity low --csv "j$j.csv" "$t"
        done
        run jd -f $f --min-severity low --csv jd.csv "$t"
        [ $f = json ] && grep -q '"rule"' j1.out && with_issues=$((with_issues + 1))
        for j in 2 4 d; do
            for part in out err rc csv; do
                cmp -s "j1.$part" "j$j.$part" ||
                    not_ok "$name -f $f: -j$j's $part differs from -j1's"
            done
        done
        n=$((n + 1))
    done
    # the same through the profile and the per-process figures
    run j1 -j1 --strict -f json "$t"
    run j2 -j2 --strict -f json "$t"
    for part in out err rc; do
        cmp -s j1.$part j2.$part || not_ok "$name --strict: -j2's $part differs from -j1's"
    done
done
# the comparison compares something: traces with issues among them
[ $with_issues -ge 5 ] || not_ok "only $with_issues traces with issues compared"
"$IOANALYZE" -j0 "$t" >/dev/null 2>err && not_ok "-j0 accepted"
grep -q "jobs" err || not_ok "-j0's message does not name --jobs: $(cat err)"
echo "compared $n trace and format pairs ($with_issues traces with issues)"
exit $fail
