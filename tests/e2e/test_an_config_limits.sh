#!/bin/sh
# A config pattern that backtracks without end (issue 15: "^/data/(a+)+$" over
# 1,000 paths of 30 a's took 21 s of CPU) meets the PCRE2 match limit: analyze,
# profile and diff stop with exit 2 and one line naming the config, the key,
# the pattern and the path, and nothing on stdout; in ignore_paths, normalize
# and main_thread_names alike. Under `timeout 60`, so that losing the limit
# fails the test rather than hanging it.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have timeout || skip "timeout is needed"
work_dir an-config-limits

# 1,000 sessions on /data/<30 a's>/fN! and, after them, 10 left open (leak
# issues, so that normalize meets the paths) by a thread named like them
a=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
{
    echo '{"ev":"process","t":0,"pid":100,"ppid":1,"exe":"/usr/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}'
    echo '{"ev":"thread","t":0,"pid":100,"tid":100,"name":"main"}'
    echo "{\"ev\":\"thread\",\"t\":0,\"pid\":100,\"tid\":101,\"name\":\"$a!\"}"
    i=0
    while [ $i -lt 1010 ]; do
        t=$((1000 + i * 4000))
        echo "{\"ev\":\"call\",\"t\":$t,\"pid\":100,\"tid\":101,\"op\":\"open\",\"dur\":1000,\"ret\":$((3 + i / 1000 * (i - 1000))),\"path\":\"/data/$a/f$i!\",\"flags\":0}"
        [ $i -lt 1000 ] &&
            echo "{\"ev\":\"call\",\"t\":$((t + 2000)),\"pid\":100,\"tid\":101,\"op\":\"close\",\"dur\":1000,\"ret\":0,\"fd\":3}"
        i=$((i + 1))
    done
    echo '{"ev":"exit","t":4045000,"pid":100,"status":0}'
} >"$work/ev.jsonl"

# without a config: a plain run, the leaks found
timeout 60 "$IOANALYZE" "$work/ev.jsonl" >"$work/out" 2>"$work/err"
st=$?
[ $st -eq 0 ] || not_ok "no config: exit $st: $(cat "$work/err")"
grep -q '"rule": *"leak"' "$work/out" || not_ok "no config: no leak issue: $(head -c 300 "$work/out")"

# check NAME KEY PATTERN ARGS...: one run under the config {KEY: PATTERN...}
check() {
    name=$1 key=$2 pat=$3
    shift 3
    case $key in
        normalize) printf '{"normalize": [{"pattern": "%s", "replace": "x"}]}\n' "$pat" ;;
        *) printf '{"%s": ["%s"]}\n' "$key" "$pat" ;;
    esac >"$work/$name.json"
    (cd "$work" && timeout 60 "$IOANALYZE" "$@" --config "$name.json" ev.jsonl) >"$work/out" 2>"$work/err"
    st=$?
    [ $st -eq 2 ] || not_ok "$name: exit $st, expected 2: $(cat "$work/err")"
    [ "$(wc -l <"$work/err")" -eq 1 ] || not_ok "$name: not one line on stderr: $(cat "$work/err")"
    case $(cat "$work/err") in
        "ioanalyze: config '$name.json': $key[0]: pattern '$pat' exceeds the PCRE2 match limit on '"*) ;;
        *) not_ok "$name: message: $(cat "$work/err")" ;;
    esac
    [ ! -s "$work/out" ] || not_ok "$name: output on stdout: $(head -c 300 "$work/out")"
}
check ignore ignore_paths '^/data/(a+)+$' analyze
grep -q "on '/data/$a/f0!' (a nested repeat" "$work/err" || not_ok "ignore: the path: $(cat "$work/err")"
check ignore_profile ignore_paths '^/data/(a+)+$' profile
check ignore_csv ignore_paths '^/data/(a+)+$' analyze --csv prof.csv
[ ! -e "$work/prof.csv" ] || not_ok "ignore_csv: the profile was written"
check normalize normalize '^/data/(a+)+$' analyze
check main main_thread_names '^(a|aa)+$' analyze
grep -q "on '$a!' (a nested repeat" "$work/err" || not_ok "main: the name: $(cat "$work/err")"
check diff ignore_paths '^/data/(a+)+$' diff ev.jsonl

# the same patterns made possessive ((a++)+, not backtracking) run as usual
printf '{"ignore_paths": ["^/data/(a++)+/"]}\n' >"$work/fixed.json"
timeout 60 "$IOANALYZE" --config "$work/fixed.json" "$work/ev.jsonl" >"$work/out" 2>"$work/err"
st=$?
[ $st -eq 0 ] || not_ok "fixed: exit $st: $(cat "$work/err")"
grep -q '^\[\]$\|^\[ *\]$' "$work/out" || not_ok "fixed: the paths were not ignored: $(head -c 300 "$work/out")"
exit $fail
