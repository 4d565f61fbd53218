#!/bin/sh
# A trace a newer recorder wrote (tests/fixtures/newer_recorder.zst: ops,
# fields and a record kind this version does not know) is read whole: every
# known event, no damage, one line on stderr saying what was skipped, exit 0
# even under --strict (it is not damage); `info` gives the counts.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir an-newer
fx=$TOP/tests/fixtures/newer_recorder.zst

"$IOANALYZE" --strict "$fx" >"$work/issues.json" 2>"$work/err" || not_ok "analyze --strict failed: $(cat "$work/err")"
[ "$(cat "$work/issues.json")" = "[]" ] || not_ok "issues: $(cat "$work/issues.json")"
n=$(grep -c 'a newer recorder wrote part of this trace: skipped 6 calls of ops, fields of 6 calls and 2 records' "$work/err")
[ "$n" = 1 ] || not_ok "expected the newer-recorder line once on stderr, got $n: $(cat "$work/err")"
grep -q 'damaged' "$work/err" && not_ok "reported as damage: $(cat "$work/err")"
grep -q 'no issues in 18 events from 2 processes' "$work/err" || not_ok "summary: $(cat "$work/err")"

"$IOANALYZE" info "$fx" >"$work/info" 2>/dev/null || not_ok "info failed"
grep -qx 'damage: none' "$work/info" || not_ok "info: $(cat "$work/info")"
grep -qx 'newer recorder: skipped 6 calls of unknown ops, unknown fields of 6 calls, 2 records of unknown kinds' "$work/info" ||
    not_ok "info: $(cat "$work/info")"
grep -q '^events: 18 (14 calls, 2 process records, 0 thread records, 2 exit records)$' "$work/info" || not_ok "info: $(cat "$work/info")"

"$IOANALYZE" dump --format text "$fx" >"$work/dump" 2>/dev/null || not_ok "dump failed"
[ "$(wc -l <"$work/dump")" = 18 ] || not_ok "dump: $(cat "$work/dump")"
ops=$(awk '$3 != "process" && $3 != "exit" {print $3}' "$work/dump" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
[ "$ops" = "close:2 fsync:2 open:2 read:4 write:4 " ] || not_ok "ops: $ops"
exit $fail
