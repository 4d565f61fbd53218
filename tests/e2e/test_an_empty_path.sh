#!/bin/sh
# A call on the empty path (cmake's mkdir("")) is a file of the text report
# like any other: the per-file table, sorted by time then path, shows it as
# "" beside files that tie with it on time, and nothing crashes.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
work_dir empty_path

cat >"$work/in.jsonl" <<'JSONL'
{"ev":"process","t":0,"pid":1,"ppid":0,"exe":"/usr/bin/cmake","cmdline":["cmake"],"start_unix_ns":1763800000000000000}
{"ev":"call","t":10,"pid":1,"tid":1,"op":"mkdir","dur":0,"ret":-1,"errno":2,"path":"","flags":511}
{"ev":"call","t":20,"pid":1,"tid":1,"op":"stat","dur":0,"ret":0,"path":"/a"}
{"ev":"call","t":30,"pid":1,"tid":1,"op":"stat","dur":0,"ret":0,"path":"/b"}
JSONL

for fmt in text html json; do
    "$IOANALYZE" --format $fmt "$work/in.jsonl" >"$work/out.$fmt" 2>"$work/err.$fmt" ||
        not_ok "--format $fmt: exit $? ($(tail -n 1 "$work/err.$fmt"))"
done
grep -Eq '^ +0 us +1 +0 +0 +0 B +0 B  ""$' "$work/out.text" ||
    not_ok "no row for the empty path: $(grep -A4 'Files by' "$work/out.text")"
grep -Eq '^ +0 us +1 +0 +0 +0 B +0 B  /a$' "$work/out.text" || not_ok "no row for /a"
exit $fail
