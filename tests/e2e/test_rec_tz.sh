#!/bin/sh
# glibc's check of the time zone file: while TZ is unset, tzset(),
# localtime(), mktime(), timelocal() and ctime() each stat /etc/localtime
# inside libc, where no wrapper sees it. The recorder records each as a
# tzset call on that path when glibc makes the stat: as many as strace
# sees, and the analyzer's metadata_storm names the path with the advice
# that fits (set TZ), from the trace and from strace's log alike. With TZ
# set there is no check, and nothing is recorded.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_tz
need_built "$IORECORD" "$IOANALYZE" "$PROG"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
[ -f /etc/localtime ] || skip "no /etc/localtime here: glibc has no time zone file to check"
work_dir tz
N=30

# stats of the time zone file in strace's log
tz_stats() {
    grep -cE '(stat|statx|newfstatat|fstatat64)\((AT_FDCWD, )?"/etc/localtime"' "$1"
}
# tzset records in a trace
tz_records() {
    "$IOANALYZE" dump --format jsonl "$1" | grep -c '"op":"tzset".*"path":"/etc/localtime"'
}

env -u TZ "$PROG" $N > "$work/plain.out"; plain_rc=$?
env -u TZ "$IORECORD" -o "$work/t.zst" -- "$PROG" $N > "$work/rec.out"; rec_rc=$?
[ $plain_rc = 0 ] && [ $rec_rc = 0 ] || die "exit status $plain_rc plain, $rec_rc recorded"
cmp -s "$work/plain.out" "$work/rec.out" || not_ok "the output differs under the recorder"

# 5 calls a round, each a stat: the first round's too, as localtime_r read
# the file before
want=$((5 * N))
got=$(tz_records "$work/t.zst")
[ "$got" = "$want" ] && echo "ok   $got tzset records, TZ unset" ||
    not_ok "$got tzset records, want $want"

if [ -n "$REC_ENV" ]; then
    skip_part strace "sanitizer build: comparing against strace is for plain builds"
elif have strace && strace -f -o /dev/null true 2>/dev/null; then
    env -u TZ strace -f -o "$work/s.log" "$PROG" $N > /dev/null
    s=$(tz_stats "$work/s.log")
    [ "$s" = "$got" ] && echo "ok   strace sees $s stats of /etc/localtime, as many" ||
        not_ok "strace sees $s stats of /etc/localtime, the trace $got"
else
    skip_part strace "strace is not installed or cannot trace here"
fi

# the issue, from the trace and from strace's log: the same path, count and advice
issue_of() {
    "$IOANALYZE" -f json --min-severity low "$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for i in json.load(sys.stdin):
    d = i.get("detail") or {}
    if i["rule"] == "metadata_storm" and d.get("pattern") == "repeated":
        print(i["path"], d["lookups"], "set TZ" in i["message"], i["process"])'
}
for input in "$work/t.zst" "$work/s.log"; do
    [ -f "$input" ] || continue
    got=$(issue_of "$input")
    [ "$got" = "/etc/localtime $want True rec_tz" ] && echo "ok   $(basename "$input"): $got" ||
        not_ok "$(basename "$input"): metadata_storm gives '$got', want '/etc/localtime $want True rec_tz'"
done

# TZ set: glibc read the file once, at localtime_r; nothing to record
TZ=:/etc/localtime "$IORECORD" -o "$work/set.zst" -- "$PROG" $N > "$work/set.out" ||
    die "the recorded run with TZ set failed"
got=$(tz_records "$work/set.zst")
[ "$got" = 0 ] && echo "ok   no tzset record with TZ set" || not_ok "$got tzset records with TZ set"
[ -z "$(issue_of "$work/set.zst")" ] || not_ok "an issue on /etc/localtime with TZ set"
exit $fail
