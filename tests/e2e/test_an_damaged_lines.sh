#!/bin/sh
# JSONL and strace inputs with bad lines: every good line is kept, the bad
# ones are named by file and line (the first three, then a count), the exit
# is 0 (a damaged input, SPEC) and 2 under --strict. strace calls left
# <unfinished ...> and never resumed are counted, in a warning and in info.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir damaged_lines
FX=$TOP/tests/fixtures/rules

# A JSONL file whose last line was cut (a full disk, a killed writer).
good=$FX/small_buffer_fires.jsonl
[ -f "$good" ] || die "fixture $good missing"
n=$(wc -l <"$good")
{ cat "$good"; printf '{"ev":"call","t":99999999,"pid":1,"ti'; } >"$work/cut.jsonl"
"$IOANALYZE" --format json "$good" >"$work/good.json" 2>/dev/null || die "the intact file: exit $?"
"$IOANALYZE" --format json "$work/cut.jsonl" >"$work/cut.json" 2>"$work/cut.err"
rc=$?
[ $rc -eq 0 ] || not_ok "cut JSONL: exit $rc, not 0: $(cat "$work/cut.err")"
cmp -s "$work/good.json" "$work/cut.json" || not_ok "cut JSONL: the issues of its good lines differ"
grep -q "^ioanalyze: warning: '$work/cut.jsonl': line $((n + 1)): .*: line skipped$" "$work/cut.err" ||
    not_ok "cut JSONL: no warning naming line $((n + 1)): $(cat "$work/cut.err")"
"$IOANALYZE" dump --format jsonl "$work/cut.jsonl" >"$work/cut.dump" 2>/dev/null || not_ok "dump: exit $?"
[ "$(grep -c . "$work/cut.dump")" -eq "$n" ] || not_ok "dump: $(grep -c . "$work/cut.dump") events, not $n"
"$IOANALYZE" info "$work/cut.jsonl" >"$work/cut.info" 2>/dev/null || not_ok "info: exit $?"
grep -q "$((n + 1)) lines, 1 malformed (skipped)" "$work/cut.info" || not_ok "info: $(head -n 3 "$work/cut.info")"
"$IOANALYZE" --strict --format json "$work/cut.jsonl" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || not_ok "cut JSONL under --strict: exit $rc, not 2"

# Five bad lines among good ones: three named, then a count.
{ head -n 3 "$good"; for i in 1 2 3 4 5; do echo '{"ev":"call",'; done; tail -n +4 "$good"; } >"$work/five.jsonl"
"$IOANALYZE" --format json "$work/five.jsonl" >"$work/five.json" 2>"$work/five.err" || not_ok "five: exit $?"
cmp -s "$work/good.json" "$work/five.json" || not_ok "five: the issues of its good lines differ"
[ "$(grep -c ': line skipped$' "$work/five.err")" -eq 3 ] || not_ok "five: not three lines named: $(cat "$work/five.err")"
grep -q "^ioanalyze: warning: '$work/five.jsonl': line 4: " "$work/five.err" || not_ok "five: line 4 not named"
grep -q "'$work/five.jsonl': 2 more malformed lines skipped (5 in all, $((n + 5)) lines read)" "$work/five.err" ||
    not_ok "five: no count: $(cat "$work/five.err")"

# strace: 1,000 calls unfinished and never resumed, one resumed, a bad line.
awk 'BEGIN { for (i = 0; i < 1000; i++)
    printf "%d 1700000000.%06d read(3, <unfinished ...>\n", 100 + i, i }' >"$work/unf.log"
cat >>"$work/unf.log" <<'LOG'
7 1700000000.002000 read(4, <unfinished ...>
7 1700000000.003000 <... read resumed>"abc", 10) = 3 <0.001000>
7 1700000000.004000 this is not strace
LOG
"$IOANALYZE" --format json "$work/unf.log" >"$work/unf.json" 2>"$work/unf.err"
rc=$?
[ $rc -eq 0 ] || not_ok "strace: exit $rc, not 0: $(cat "$work/unf.err")"
grep -q "^ioanalyze: warning: '$work/unf.log': 1000 calls left <unfinished ...> and never resumed" "$work/unf.err" ||
    not_ok "strace: unfinished calls not said: $(cat "$work/unf.err")"
grep -q "^ioanalyze: warning: '$work/unf.log': line 1003: not an strace line" "$work/unf.err" ||
    not_ok "strace: bad line not named: $(cat "$work/unf.err")"
"$IOANALYZE" info "$work/unf.log" >"$work/unf.info" 2>/dev/null || not_ok "strace info: exit $?"
grep -q "1003 lines, 1 not understood, 1000 calls unfinished and never resumed" "$work/unf.info" ||
    not_ok "strace info: $(head -n 3 "$work/unf.info")"
grep -q "^events: .*(1 calls" "$work/unf.info" || not_ok "strace: the resumed read is not kept: $(grep events "$work/unf.info")"
"$IOANALYZE" --strict --format json "$work/unf.log" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || not_ok "strace under --strict: exit $rc, not 2"
exit $fail
