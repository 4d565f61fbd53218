#!/bin/sh
# analyze(trace) equals analyze(dump --format jsonl of the trace), for a
# generated native trace and, when the recorder is built, a recorded sample;
# the profile too. A truncated trace is analysed with a warning (exit 0),
# and refused under --strict (exit 2).
# e2e: slow (about 6 s here: records a sample, analyzes each trace twice)
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/bin/bench/gen_trace
need_built "$IOANALYZE"
work_dir an-rt
traces=""

if [ -x "$GEN" ]; then
    "$GEN" 200000 "$work/gen.zst" 2>/dev/null && traces="$traces gen"
fi
if [ -x "$IORECORD" ] && [ -x "$BUILD/bin/samples/small_writes" ]; then
    (cd "$work" && "$IORECORD" -o "$work/rec.zst" "$BUILD/bin/samples/small_writes" >/dev/null 2>&1) &&
        traces="$traces rec"
fi
[ -n "$traces" ] || skip "neither bench/gen_trace nor iorecord is built"

for t in $traces; do
    "$IOANALYZE" "$work/$t.zst" >"$work/$t.native.json" 2>"$work/err" || not_ok "$t: analyze failed: $(cat "$work/err")"
    "$IOANALYZE" dump --format jsonl "$work/$t.zst" >"$work/$t.jsonl" || not_ok "$t: dump failed"
    "$IOANALYZE" "$work/$t.jsonl" >"$work/$t.jsonl.json" 2>"$work/err" || not_ok "$t: analyze of the dump failed: $(cat "$work/err")"
    cmp -s "$work/$t.native.json" "$work/$t.jsonl.json" || not_ok "$t: issues differ between the trace and its dump"
    "$IOANALYZE" profile "$work/$t.zst" >"$work/$t.native.csv" || not_ok "$t: profile failed"
    "$IOANALYZE" profile "$work/$t.jsonl" >"$work/$t.jsonl.csv" || not_ok "$t: profile of the dump failed"
    cmp -s "$work/$t.native.csv" "$work/$t.jsonl.csv" || not_ok "$t: profiles differ between the trace and its dump"
    # a dump of the dump is the dump
    "$IOANALYZE" dump --format jsonl "$work/$t.jsonl" >"$work/$t.2.jsonl" || not_ok "$t: dump of the dump failed"
    cmp -s "$work/$t.jsonl" "$work/$t.2.jsonl" || not_ok "$t: dump of the dump differs"
done

# damaged: cut the first trace in the middle
t=${traces# }; t=${t%% *}
size=$(wc -c <"$work/$t.zst")
head -c $((size / 2)) "$work/$t.zst" >"$work/cut.zst"
"$IOANALYZE" "$work/cut.zst" >"$work/cut.json" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] || not_ok "a truncated trace must be analysed (exit 0), got $rc: $(cat "$work/err")"
grep -q "^ioanalyze: warning: '$work/cut.zst': damaged trace (truncated): recovered [0-9]* events" "$work/err" ||
    not_ok "no damage warning naming the file: $(cat "$work/err")"
"$IOANALYZE" --strict "$work/cut.zst" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] || not_ok "--strict on a truncated trace must exit 2, got $rc"
exit $fail
