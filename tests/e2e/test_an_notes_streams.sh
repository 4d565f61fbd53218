#!/bin/sh
# What a reader of the text outputs sees of streams and of the recorder's
# notes: the text dump shows a stream id once, in one base (hex, 0x), and a
# call that makes a stream gives it as its result only; the recorder's
# notes (fdpath: what an fd first seen in use names; cwd) are not calls in
# the op tables of `info` and of the text and HTML reports.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir notes-streams

# stream 0x55aa00 is 5614080: fopen returns it, fwrite and fclose name it;
# fd 0 is named by an fdpath note before its first read
cat >"$work/t.jsonl" <<'J'
{"ev":"process","pid":100,"ppid":1,"exe":"/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}
{"ev":"thread","pid":100,"tid":100,"name":"app"}
{"ev":"call","t":1000,"pid":100,"tid":100,"op":"cwd","path":"/data","dur":0,"ret":0}
{"ev":"call","t":2000,"pid":100,"tid":100,"op":"fdpath","fd":0,"path":"/data/in","flags":0,"offset":0,"dur":0,"ret":0}
{"ev":"call","t":3000,"pid":100,"tid":100,"op":"read","fd":0,"size":4096,"dur":1000,"ret":100}
{"ev":"call","t":5000,"pid":100,"tid":100,"op":"fopen","path":"/data/out","mode":"w","fd":3,"stream":5614080,"ret":5614080,"dur":1000}
{"ev":"call","t":7000,"pid":100,"tid":100,"op":"fwrite","fd":3,"stream":5614080,"size":10,"dur":1000,"ret":10}
{"ev":"call","t":9000,"pid":100,"tid":100,"op":"fclose","fd":3,"stream":5614080,"dur":1000,"ret":0}
{"ev":"exit","t":20000,"pid":100,"status":0}
J

"$IOANALYZE" dump --format text "$work/t.jsonl" >"$work/dump" 2>"$work/err" || not_ok "dump: $(cat "$work/err")"
grep -q " fopen .* = stream 0x55aa00 " "$work/dump" || not_ok "fopen's result is not its stream: $(grep fopen "$work/dump")"
grep " fopen " "$work/dump" | grep -q "stream=" && not_ok "fopen shows its stream twice: $(grep fopen "$work/dump")"
grep -q " fwrite .* stream=0x55aa00 = 10 " "$work/dump" || not_ok "fwrite's stream: $(grep fwrite "$work/dump")"
grep -q "5614080\|stream=55aa00" "$work/dump" && not_ok "a stream id in another base: $(grep -e 5614080 -e stream=55aa00 "$work/dump")"

# info: five calls, two notes
"$IOANALYZE" info "$work/t.jsonl" >"$work/info" 2>"$work/err" || not_ok "info: $(cat "$work/err")"
sed -n '/^calls per op:/,/^[^ ]/p' "$work/info" | grep -q "^  \(fdpath\|cwd\) " && not_ok "info lists a note as a call: $(cat "$work/info")"
grep -qx "the recorder's notes (not calls): fdpath 1, cwd 1" "$work/info" || grep -qx "the recorder's notes (not calls): cwd 1, fdpath 1" "$work/info" ||
    not_ok "info does not count the notes apart: $(cat "$work/info")"
grep -q "pid 100 ppid 1 /bin/app \[app\] 4 calls" "$work/info" || not_ok "info: the process's calls: $(grep 'pid 100' "$work/info")"

# the text report's op table: read, fopen, fwrite, fclose and no note
"$IOANALYZE" --format text "$work/t.jsonl" >"$work/report" 2>"$work/err" || not_ok "text report: $(cat "$work/err")"
sed -n '/== Calls by op/,$p' "$work/report" >"$work/ops"
grep -q " \(fdpath\|cwd\)$" "$work/ops" && not_ok "the op table lists a note: $(cat "$work/ops")"
grep -q "^100.00 .* 4 *0 *110 total$" "$work/ops" || not_ok "the op table's total: $(tail -1 "$work/ops")"

# the HTML report's op table (its data)
"$IOANALYZE" --format html "$work/t.jsonl" >"$work/report.html" 2>"$work/err" || not_ok "html report: $(cat "$work/err")"
python3 - "$work/report.html" <<'PY' || not_ok "the HTML report's op table lists a note"
import json, re, sys
html = open(sys.argv[1]).read()
ops = re.findall(r'"op": *"([a-z_0-9]+)"', html)
assert ops and "fdpath" not in ops and "cwd" not in ops, ops
PY
exit $fail
