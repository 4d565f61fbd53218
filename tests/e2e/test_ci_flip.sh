#!/bin/sh
# The CI gate does not flip under load: one workload (tests/e2e/flip.sh)
# recorded twice while a busy loop runs on every core, three times over;
# `diff --ci` must find nothing new and nothing fixed each time, and
# `analyze --ci` the same findings in every run (what is left is judged
# on counts, which load does not move). Without --ci the time-judged
# findings of this workload do flip now and then: tests/flip20.sh counts
# how often in 20 pairs.
# e2e: slow (about 15 s here: six recordings on a loaded machine)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/flip.sh"
need_built "$IOANALYZE" "$IORECORD" "$BUILD/bin/progs/ci_flip" "$BUILD/bin/samples/repeat_read" \
    "$BUILD/bin/samples/small_writes"
have python3 || skip "python3 is needed"
work_dir ci-flip
cleanup() {
    flip_busy_stop
    rm -rf "$work"
}

for pair in 1 2 3; do
    line=$(flip_pair "pair$pair") || { not_ok "$line"; continue; }
    echo "$line"
    set -- $line
    [ "$6 $7" = "0 0" ] || not_ok "pair $pair: diff --ci found $6 new, $7 fixed ($line)"
    # the findings --ci keeps, exactly, per run; but repeat_read's: it
    # counts re-reads within window_ms of each other, which a slow run
    # (a sanitizer build under load) can spread apart, and diff --ci
    # counts it as near its threshold (5 re-reads, under twice 5)
    for run in 1 2; do
        "$IOANALYZE" --ci -c "$work/flip.json" --min-severity low "$work/run$run.zst" \
            >"$work/ci$pair.$run.json" 2>/dev/null || not_ok "analyze --ci run $run"
        python3 - "$work/ci$pair.$run.json" <<'PY' || not_ok "pair $pair run $run: --ci findings"
import json, sys
got = sorted((i["rule"], i["path"].rsplit("/", 1)[-1]) for i in json.load(open(sys.argv[1]))
             if i["rule"] != "repeat_read")
want = sorted([
    ("small_buffer", "records.fifo"),    # the reader's 500 reads of 100 bytes
    ("small_buffer", "records.fifo"),    # the writer's 500 writes of 100 bytes
    ("repeat_open", "events.log"),       # 30 opens writing 10 bytes each
    ("leak", "held.lock"),               # held to exit
    # the samples' own (samples/repeat_read.c, samples/small_writes.c)
    ("small_buffer", "settings.conf"),
    ("redundant_read", "settings.conf"), ("small_buffer", "app.log"),
])
if got != want:
    sys.exit("got %s\nwant %s" % (got, want))
PY
    done
done
exit $fail
