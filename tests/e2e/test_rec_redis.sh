#!/bin/sh
# redis-server with appendfsync always, recorded: every write command is an
# fdatasync of the AOF on redis's main thread (flushAppendOnlyFile, from
# beforeSleep), while its bio threads run beside it. The trace gives the
# fdatasyncs of that call site a stack at its first call in the file's
# session and at its 1st, 2nd, 4th ... (docs/recorder.md, "Call-site
# stacks"), not at every call, and main_thread must find every sync there
# at that call site, the ones without a stack too (process judged: it runs
# 5 threads). The limit is set to
# 0 ms so that the verdict does not hang on this machine's disk (an
# fdatasync took 13-26 ms on a real one, 0.3 ms on tmpfs): what is tested is
# that the syncs are counted, where, and on which thread.
# e2e: slow (about 3 s here: starts redis-server under the recorder)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have redis-server && have redis-cli || skip "redis-server and redis-cli are not installed (Debian: redis-server)"
have python3 || skip "python3 is needed to check the issues"
work_dir redis
sock=$work/r.sock

(asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$work/redis.zst" -- redis-server --appendonly yes \
    --appendfsync always --save '' --port 0 --unixsocket "$sock" --dir "$work") \
    >"$work/redis.log" 2>&1 &
rpid=$!
i=0
until redis-cli -s "$sock" ping >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 100 ] || { kill "$rpid" 2>/dev/null; die "redis-server did not start: $(tail -n 3 "$work/redis.log")"; }
    sleep 0.1
done
for k in $(seq 50); do echo "SET key$k value$k"; done | redis-cli -s "$sock" >/dev/null ||
    not_ok "redis-cli SET failed"
redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1
wait "$rpid" || not_ok "redis-server under the recorder: exit $? ($(tail -n 3 "$work/redis.log"))"

"$IOANALYZE" --rules main_thread --set main_thread.max_once_ms=0 "$work/redis.zst" \
    >"$work/issues.json" 2>"$work/err" || die "ioanalyze failed: $(cat "$work/err")"
"$IOANALYZE" dump --format jsonl "$work/redis.zst" >"$work/dump.jsonl" 2>/dev/null ||
    die "ioanalyze dump failed"
python3 - "$work/issues.json" "$work/dump.jsonl" <<'PY' || fail=1
import collections, json, sys
issues = json.load(open(sys.argv[1]))
syncs = [e for e in map(json.loads, open(sys.argv[2])) if e.get("op") == "fdatasync"]
main = [e for e in syncs if e["tid"] == e["pid"]]
bad = []
if len(main) < 50:
    bad.append("%d fdatasync calls on the main thread for 50 SETs" % len(main))
# the AOF's site stacked at its 1st, 2nd, 4th ... call and at its first in
# each file's session (a rewrite may open a new one); start-up syncs from
# other sites at their first
tops = collections.Counter(e["stack"].split("\n")[0] for e in syncs if e.get("stack"))
busiest = tops.most_common(1)[0][1] if tops else 0
if not 1 <= busiest <= len(syncs).bit_length() + 2 or sum(tops.values()) * 2 > len(syncs):
    bad.append("%d of %d fdatasyncs with a stack, %d from one site"
               % (sum(tops.values()), len(syncs), busiest))
aof = [i for i in issues if i["detail"].get("call") == "fdatasync"
       and "flushAppendOnlyFile" in [f["function"] for f in i["frames"]]]
if len(aof) != 1:
    bad.append("%d main_thread issues on the fdatasync of flushAppendOnlyFile, expected 1: %s"
               % (len(aof), [(i["path"], i["message"]) for i in issues]))
else:
    i = aof[0]
    if i["frames"][0]["function"] != "flushAppendOnlyFile":
        bad.append("the issue's stack does not start at flushAppendOnlyFile: %s" % i["frames"][0])
    if not i["path"].endswith(".incr.aof") or i["detail"]["process_threads"] < 2:
        bad.append("issue on %s with %d threads" % (i["path"], i["detail"]["process_threads"]))
    if i["detail"]["calls"] < 50 or i["tid"] != i["pid"]:
        bad.append("%d calls counted on tid %d (pid %d)" % (i["detail"]["calls"], i["tid"], i["pid"]))
for b in bad:
    print("FAIL: redis: " + b)
sys.exit(1 if bad else 0)
PY
exit $fail
