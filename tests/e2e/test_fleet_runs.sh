#!/bin/sh
# A fleet of separate runs reduces to the programs' issues: 300 traces, 5
# samples (fd_leak, small_writes, state_rewrite, repeat_read,
# sync_per_write) each recorded 60 times, every run from its own working
# directory under its own HOME and writing in a fresh mkdtemp directory
# (their names differ in every run), with stacks (the default).
# `ioanalyze fleet` must report exactly the issues samples/expected/ lists
# for them (8: one fingerprint per listed issue, its rule that issue's, so
# at most 12 as issue 44 asks), each in exactly the 60 traces of its
# program: random names and stacks fold, not 300 runs into 240 fingerprints.
# main_thread is off, as in test_fleet_fold.sh: it still weighs the calls'
# measured durations, which the machine's load moves.
# e2e: slow (300 recordings, then a Dask LocalCluster; under 8 minutes at load 15)
. "$(dirname "$0")/lib.sh"
PROGRAMS="fd_leak small_writes state_rewrite repeat_read sync_per_write"
RUNS=60
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/lib/fleet/ioanalyze-fleet"
for s in $PROGRAMS; do need_built "$BUILD/bin/samples/$s"; done
PY=/usr/bin/python3
[ -x $PY ] && $PY -c 'import distributed' 2>/dev/null ||
    skip "/usr/bin/python3 cannot import distributed (Debian: python3-distributed)"
work_dir fleet-runs
cleanup() {
    [ -f "$work/made" ] && sed -n 's/^[a-z_]*: writing in //p' "$work/made" |
        grep '^/tmp/ioscope-' | xargs rm -rf
    rm -rf "$work"
}
REC_ENV=$(asan_env "$LIBIORECORD")
mkdir "$work/traces"
echo '{"rules": {"main_thread": {"enabled": false}}}' >"$work/config.json"
i=1
while [ $i -le $RUNS ]; do
    for p in $PROGRAMS; do
        mkdir -p "$work/run$i/$p" "$work/home$i-$p"
        (cd "$work/run$i/$p" && env $REC_ENV HOME="$work/home$i-$p" TMPDIR=/tmp \
            "$IORECORD" -o "$work/traces/$p-$i.zst" --label host=h$((i % 3)) -- \
            "$BUILD/bin/samples/$p" >>"$work/made" 2>"$work/err") ||
            die "recording $p ($i) failed: $(cat "$work/err")"
    done
    i=$((i + 1))
done

"$IOANALYZE" fleet --config "$work/config.json" --workers 2 --progress never --format json \
    "$work/traces" >"$work/fleet.json" 2>"$work/fleet.err" ||
    die "fleet failed: $(tail -3 "$work/fleet.err")"
$PY - "$work/fleet.json" "$TOP/samples/expected" "$RUNS" $PROGRAMS <<'PY' ||
import json, sys
rep, expdir, runs, progs = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), sys.argv[4:]
want = sorted((p, i["rule"]) for p in progs for i in json.load(open("%s/%s.json" % (expdir, p))))
got = sorted((o["worst"]["issue"]["process"], o["rule"]) for o in rep["issues"])
ok = True
print("fleet: %d traces of %d programs, %d fingerprints (%d expected)"
      % (rep["analysed"], len(progs), len(rep["issues"]), len(want)))
if len(rep["issues"]) > 12:
    print("FAIL: %d fingerprints, more than 12" % len(rep["issues"]))
    ok = False
if rep["analysed"] != runs * len(progs):
    print("FAIL: %d traces analysed, not %d" % (rep["analysed"], runs * len(progs)))
    ok = False
if got != want:
    print("FAIL: the fleet's (program, rule) per fingerprint %s, not %s" % (got, want))
    ok = False
for o in rep["issues"]:
    if o["traces"] != runs:
        print("FAIL: %s %s is in %d traces, not %d" % (o["fingerprint"], o["rule"], o["traces"], runs))
        ok = False
sys.exit(0 if ok else 1)
PY
    not_ok "the fleet's fingerprints (above)"
exit $fail
