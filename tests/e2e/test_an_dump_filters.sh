#!/bin/sh
# ioanalyze dump's filters (docs/analyzer.md, "Dump filters"): --pid,
# --tid, --path, --op, --since, --until (trace seconds or Unix time),
# --min-dur, --top N and --config's ignore_paths, each counted exactly in
# every format, and a bad value refused in one line.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed to parse the JSON"
work_dir dump_filters
cd "$work" || exit 1

# Two processes; app (100) has a worker thread (101). The calls: 5 on
# /data/a.db (an open, then reads and a write on its fd), an open and an
# fsync of /tmp/x.log, an open in /proc; cat (200) reads and writes its
# standard streams (no path).
cat >in.jsonl <<'JSONL'
{"ev":"process","t":0,"pid":100,"ppid":1,"exe":"/usr/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}
{"ev":"thread","t":0,"pid":100,"tid":101,"name":"worker"}
{"ev":"process","t":100,"pid":200,"ppid":1,"exe":"/usr/bin/cat","cmdline":["cat"],"start_unix_ns":1763800000000000100}
{"ev":"call","t":1000,"pid":100,"tid":100,"op":"open","dur":5000,"ret":3,"path":"/data/a.db","flags":0}
{"ev":"call","t":2000,"pid":100,"tid":101,"op":"read","dur":100,"ret":4096,"fd":3,"size":4096}
{"ev":"call","t":3000,"pid":100,"tid":101,"op":"read","dur":7000000,"ret":4096,"fd":3,"size":4096}
{"ev":"call","t":4000,"pid":100,"tid":100,"op":"write","dur":200,"ret":10,"fd":3,"size":10}
{"ev":"call","t":1500000000,"pid":100,"tid":100,"op":"open","dur":2000000,"ret":4,"path":"/tmp/x.log","flags":577}
{"ev":"call","t":1600000000,"pid":100,"tid":100,"op":"fsync","dur":12000000,"ret":0,"fd":4}
{"ev":"call","t":2500000000,"pid":100,"tid":100,"op":"open","dur":100,"ret":5,"path":"/proc/self/stat","flags":0}
{"ev":"call","t":3000000000,"pid":200,"tid":200,"op":"read","dur":3000000,"ret":10,"fd":0,"size":10}
{"ev":"call","t":3100000000,"pid":200,"tid":200,"op":"write","dur":50,"ret":10,"fd":1,"size":10}
{"ev":"exit","t":3200000000,"pid":200,"status":0}
{"ev":"exit","t":4000000000,"pid":100,"status":0}
JSONL
echo '{}' >defaults.json                          # the built-in ignore_paths: /proc/ /sys/ /dev/
echo '{"ignore_paths": ["^/tmp/"]}' >tmp.json

# count WANT FORMAT ARGS...: the events dump writes in FORMAT (perfetto:
# its calls, "X" events) with ARGS.
count() {
    want=$1 format=$2
    shift 2
    "$IOANALYZE" dump --format "$format" "$@" in.jsonl >out 2>err || { not_ok "$format $*: exit $?: $(cat err)"; return; }
    case $format in
    perfetto) got=$(python3 -c 'import json,sys; print(sum(e["ph"] == "X" for e in json.load(open("out"))["traceEvents"]))') ;;
    *) got=$(wc -l <out) ;;
    esac
    [ "$got" = "$want" ] || not_ok "$format $*: $got events, not $want"
}
for f in jsonl text; do
    count 14 $f
    count 10 $f --pid 100                       # its process, thread, 7 calls, exit
    count 4 $f --pid 200
    count 14 $f --pid 100,200
    count 2 $f --tid 101                        # the worker's reads only
    count 4 $f --path '/data/*'                 # the open, and the calls on its fd
    count 4 $f --path '*.db'                    # * crosses /
    count 0 $f --path '/nowhere/*'
    count 3 $f --op read
    count 4 $f --op read,fsync
    count 4 $f --min-dur 2ms                    # 7 ms, 2 ms, 12 ms, 3 ms
    count 2 $f --min-dur 5                      # ms without a unit
    count 3 $f --min-dur 2000us --pid 100
    count 3 $f --since 1.5 --until 3            # [1.5 s, 3 s): two opens and the fsync
    count 7 $f --since 1763800001.5             # a Unix time: 3 calls, an exit of each, cat's 2 calls
    count 8 $f --until 1763800001.55            # the processes, the thread, 5 calls
    count 2 $f --top 2
    count 13 $f --config defaults.json          # the open in /proc
    count 12 $f --config tmp.json               # the open of /tmp/x.log and its fsync
    count 1 $f --config defaults.json --op open --path '/[pt]*' --pid 100
done
count 9 perfetto
count 7 perfetto --pid 100
count 2 perfetto --op read --pid 100
count 1 perfetto --top 1

# A filter that admits everything changes nothing (the filtered text dump
# goes through the engine, the plain one reads the inputs straight).
for f in jsonl text perfetto; do
    "$IOANALYZE" dump --format $f in.jsonl >all.out 2>/dev/null
    "$IOANALYZE" dump --format $f --since 0 in.jsonl >since0.out 2>/dev/null
    cmp -s all.out since0.out || not_ok "$f --since 0: not the whole dump"
done

# --top: the slowest first, whole lines as the dump writes them
"$IOANALYZE" dump --format text --top 3 in.jsonl >top.txt 2>/dev/null || not_ok "--top 3"
awk '{print $3, $NF}' top.txt >top.got
printf 'fsync <0.012000>\nread <0.007000>\nread <0.003000>\n' | cmp -s - top.got || not_ok "--top 3: $(cat top.txt)"
"$IOANALYZE" dump --top 1 in.jsonl >top.jsonl 2>/dev/null || not_ok "--top 1 jsonl"
python3 - top.jsonl <<'EOF' || not_ok "--top 1: the JSONL line"
import json, sys
(l,) = [json.loads(x) for x in open(sys.argv[1])]
assert (l["op"], l["dur"], l["path"], l["process"], l["unix_ms"]) == ("fsync", 12000000, "/tmp/x.log", "app", 1763800001600), l
EOF
# perfetto with a filter: the names of the pids kept only, their issues only
"$IOANALYZE" dump --format perfetto --pid 200 in.jsonl >p.json 2>/dev/null || not_ok "perfetto --pid 200"
python3 - p.json <<'EOF' || not_ok "perfetto --pid 200: not only cat's events"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
assert {e["pid"] for e in ev} == {200}, ev
assert [e["args"]["name"] for e in ev if e["ph"] == "M"] == ["cat", "cat"], ev
EOF

# A bad value: one line saying which option and what it takes, exit 2.
for bad in "--min-dur 5xs" "--op bogus" "--pid x" "--since -1" "--top 0" "--tid 1,,2"; do
    # shellcheck disable=SC2086
    "$IOANALYZE" dump $bad in.jsonl >out 2>err
    rc=$?
    [ $rc = 2 ] || not_ok "dump $bad: exit $rc, not 2"
    { [ "$(wc -l <err)" = 1 ] && grep -q "^ioanalyze: dump ${bad%% *}: " err; } || not_ok "dump $bad: $(cat err)"
    [ -s out ] && not_ok "dump $bad: wrote a dump"
done
exit $fail
