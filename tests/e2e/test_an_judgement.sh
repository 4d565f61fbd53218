#!/bin/sh
# The judgement rests on the work done, never on measured durations:
#  - default and --ci (kept as a no-op) give byte-identical output on every
#    JSONL fixture and strace log in tests/fixtures;
#  - main_thread fires for an event loop (a program that waits in
#    epoll_wait and fsyncs on the same thread: 5 fsyncs modelled at 2 ms
#    each) and not for the same work from a command-line program's main
#    thread, which nothing waits on;
#  - git pack-objects' one fsync before its rename (a JSONL kept as filed,
#    tests/fixtures/judgement) gives no issue;
#  - the same recorded workload analysed as recorded and with every
#    duration multiplied by 50 (a loaded machine) gives identical issue
#    sets and severities.
# e2e: slow (about 11 s CPU here: the judgement fixtures recorded and analyzed)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$BUILD/bin/progs/rec_evloop"
# a sanitizer build's recorded runs put its runtime first
REC_ENV=$(asan_env "$LIBIORECORD")
have python3 || skip "python3 is needed"
work_dir an-judgement

# default == --ci, whole outputs, on every fixture the analyzer reads
n=0
for f in "$TOP"/tests/fixtures/rules/*.jsonl "$TOP"/tests/fixtures/judgement/*.jsonl \
         "$TOP"/tests/fixtures/strace/*.log; do
    "$IOANALYZE" analyze --min-severity low "$f" >"$work/d.json" 2>/dev/null
    "$IOANALYZE" analyze --ci --min-severity low "$f" >"$work/c.json" 2>/dev/null
    cmp -s "$work/d.json" "$work/c.json" || not_ok "default and --ci differ on $f"
    n=$((n + 1))
done
[ "$n" -gt 200 ] || not_ok "only $n fixtures compared"

# an event loop's fsync is main_thread; the same work from a CLI is not
cd "$work" || exit 1
env $REC_ENV "$IORECORD" -o loop.zst -- "$BUILD/bin/progs/rec_evloop" loop.log loop >loop.out 2>&1 ||
    not_ok "rec_evloop loop failed: $(cat loop.out)"
env $REC_ENV "$IORECORD" -o cli.zst -- "$BUILD/bin/progs/rec_evloop" cli.log cli >cli.out 2>&1 ||
    not_ok "rec_evloop cli failed: $(cat cli.out)"
"$IOANALYZE" analyze --rules main_thread loop.zst >loop.json 2>/dev/null
"$IOANALYZE" analyze --rules main_thread --min-severity low cli.zst >cli.json 2>/dev/null
python3 - loop.json cli.json <<'PY' || not_ok "main_thread: event loop yes, CLI no"
import json, sys
loop, cli = (json.load(open(p)) for p in sys.argv[1:3])
assert len(loop) == 1, loop
i = loop[0]
assert i["rule"] == "main_thread" and i["detail"]["call"] == "fsync", i
assert i["detail"]["calls"] == 5 and i["detail"]["slow_calls"] == 5, i["detail"]
assert i["detail"]["thread_role"] == "event loop", i["detail"]
assert i["detail"]["model_us"] == 10000 and i["impact"]["model_ms"] == 10.0001, i
assert "measured here:" in i["message"], i["message"]
assert cli == [], cli
PY
"$IOANALYZE" dump --format jsonl loop.zst | grep -c '"ev":"waits"' >waits.n
[ "$(cat waits.n)" = 1 ] || not_ok "one waits record for the loop's thread, not $(cat waits.n)"

# the kernel path notes the wait too (a process the preload is not in)
if [ "$(id -u)" != 0 ]; then
    echo "SKIP kernel path: it needs root"
elif ! env $REC_ENV "$IORECORD" --capture kernel -o probe.zst true 2>probe.err; then
    grep -q 'kernel capture' probe.err || not_ok "--capture kernel: $(cat probe.err)"
    echo "SKIP kernel path: $(sed 's/^iorecord: //' probe.err | head -n 1)"
else
    env $REC_ENV "$IORECORD" --capture kernel -o kloop.zst -- "$BUILD/bin/progs/rec_evloop" kloop.log loop \
        >kloop.out 2>&1 || not_ok "rec_evloop under the kernel path failed: $(cat kloop.out)"
    env $REC_ENV "$IORECORD" --capture kernel -o kcli.zst -- "$BUILD/bin/progs/rec_evloop" kcli.log cli \
        >kcli.out 2>&1 || not_ok "rec_evloop cli under the kernel path failed: $(cat kcli.out)"
    "$IOANALYZE" dump --format jsonl kloop.zst | grep -c '"ev":"waits"' >kwaits.n
    [ "$(cat kwaits.n)" = 1 ] || not_ok "kernel path: one waits record, not $(cat kwaits.n)"
    "$IOANALYZE" analyze --rules main_thread kloop.zst >kloop.json 2>/dev/null
    "$IOANALYZE" analyze --rules main_thread --min-severity low kcli.zst >kcli.json 2>/dev/null
    python3 - kloop.json kcli.json <<'PY' || not_ok "kernel path: main_thread for the loop only"
import json, sys
loop, cli = (json.load(open(p)) for p in sys.argv[1:3])
assert [(i["rule"], i["detail"]["call"], i["detail"]["calls"]) for i in loop] == \
    [("main_thread", "fsync", 5)], loop
assert cli == [], cli
PY
fi

# git pack-objects' fsync: no issue, by default or with scope all's name rule
"$IOANALYZE" analyze "$TOP/tests/fixtures/judgement/git_pack_fsync_main_thread.jsonl" \
    >git.json 2>/dev/null
[ "$(cat git.json)" = "[]" ] || not_ok "git pack-objects' fsync is no issue: $(cat git.json)"

# the same workload on a "loaded machine": every duration 50 times longer
"$IOANALYZE" dump --format jsonl loop.zst >loop.jsonl
python3 - loop.jsonl slow.jsonl <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    t = 0
    for line in f:
        ev = json.loads(line)
        ev = {k: v for k, v in ev.items() if v is not None}
        if ev.get("dur") is not None:
            ev["dur"] *= 50
        ev["t"] = ev["t"] * 50
        out.write(json.dumps(ev) + "\n")
PY
for f in loop.jsonl slow.jsonl; do
    "$IOANALYZE" analyze --min-severity low "$f" >"$f.issues" 2>/dev/null
done
python3 - loop.jsonl.issues slow.jsonl.issues <<'PY' || not_ok "load moved the judgement"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda v: sorted((i["rule"], i["fingerprint"], i["severity"]) for i in v)
assert key(a) == key(b) and a, (key(a), key(b))
PY
exit $fail
