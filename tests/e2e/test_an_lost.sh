#!/bin/sh
# What the recorder says it lost (op lost) reaches the user: `info` lists each
# process's losses by reason with their counts, and the analyze summary line
# names them; a count the recorder could not make is said to be unknown.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir an-lost
cat >"$work/lost.jsonl" <<'JSONL'
{"ev":"process","t":0,"pid":100,"ppid":1,"exe":"/usr/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}
{"ev":"thread","t":0,"pid":100,"tid":100,"name":"app"}
{"ev":"call","t":1000,"pid":100,"tid":100,"op":"write","dur":100,"ret":1,"fd":1,"size":1}
{"ev":"call","t":2000,"pid":100,"tid":100,"op":"lost","dur":0,"ret":0,"mode":"handler_calls","size":3}
{"ev":"call","t":3000,"pid":100,"tid":100,"op":"lost","dur":0,"ret":0,"mode":"handler_calls","size":2}
{"ev":"call","t":4000,"pid":100,"tid":100,"op":"lost","dur":0,"ret":0,"mode":"cwd_unknown","size":0}
{"ev":"exit","t":5000,"pid":100,"status":0}
JSONL
"$IOANALYZE" info "$work/lost.jsonl" >"$work/info" 2>"$work/err" || not_ok "info failed: $(cat "$work/err")"
grep -q '^not seen: 0 programs ran unrecorded, 0 async I/O calls on 0 fds not analysed, 3 losses recorded$' "$work/info" ||
    not_ok "info's not-seen line: $(grep 'not seen' "$work/info")"
grep -qx '  pid 100 lost: handler_calls, 5' "$work/info" || not_ok "info's handler_calls line: $(cat "$work/info")"
grep -qx '  pid 100 lost: cwd_unknown, count unknown' "$work/info" || not_ok "info's cwd_unknown line: $(cat "$work/info")"
"$IOANALYZE" "$work/lost.jsonl" >"$work/out" 2>"$work/err" || not_ok "analyze failed: $(cat "$work/err")"
grep -q '; the recorder lost: handler_calls 5, cwd_unknown (uncounted)' "$work/err" || not_ok "summary line: $(cat "$work/err")"
exit $fail
