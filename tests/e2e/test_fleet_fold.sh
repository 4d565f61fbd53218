#!/bin/sh
# A fleet of field traces reduces to the programs' problems, not to their
# runs: 20 traces, 4 separate recordings of each of 5 programs (fold_names,
# whose nine files are named anew on every run, and the samples fd_leak,
# small_writes, state_rewrite and repeat_read, each writing in a fresh
# mkdtemp directory), each recording from its own working directory under
# its own HOME. `ioanalyze fleet` must find exactly the fingerprints of one
# run of each program (every run of a program has the same set), each in
# exactly the 4 traces of its program. main_thread is off (a config given
# to the fleet and to the single analyses alike): it still judges by the
# calls' durations, which the machine's load moves, and only names must be
# able to move a fingerprint here. Without the folds these 20 traces make
# a fingerprint per run of fold_names's files and of each sample.
# e2e: slow (about 60 s here: 20 recordings, then a Dask cluster)
. "$(dirname "$0")/lib.sh"
PROGRAMS="fold_names fd_leak small_writes state_rewrite repeat_read"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/lib/fleet/ioanalyze-fleet" \
    "$BUILD/bin/progs/fold_names"
for s in fd_leak small_writes state_rewrite repeat_read; do need_built "$BUILD/bin/samples/$s"; done
PY=/usr/bin/python3
[ -x $PY ] && $PY -c 'import distributed' 2>/dev/null ||
    skip "/usr/bin/python3 cannot import distributed (Debian: python3-distributed)"
work_dir fleet-fold
cleanup() {
    [ -f "$work/made" ] && grep '^/tmp/.' "$work/made" | xargs rm -rf
    rm -rf "$work"
}
REC_ENV=$(asan_env "$LIBIORECORD")

mkdir "$work/traces"
echo '{"rules": {"main_thread": {"enabled": false}}}' >"$work/config.json"
for i in 1 2 3 4; do
    for p in $PROGRAMS; do
        case $p in
            # enough writes that the default judgement, which still
            # weighs their time, finds them on any machine
            fold_names) exe="$BUILD/bin/progs/fold_names 20000" ;;
            *) exe=$BUILD/bin/samples/$p ;;
        esac
        mkdir -p "$work/run$i/$p/cwd" "$work/home$i-$p"
        (cd "$work/run$i/$p/cwd" && env $REC_ENV HOME="$work/home$i-$p" TMPDIR=/tmp \
            "$IORECORD" -o "$work/traces/$p-$i.zst" --label host=h$i -- $exe \
            >>"$work/made" 2>"$work/err") || die "recording $p ($i) failed: $(cat "$work/err")"
    done
done
sed -i 's/^[a-z_]*: writing in //' "$work/made"

# each trace on its own: one program's runs share one fingerprint set
mkdir "$work/single"
for t in "$work"/traces/*.zst; do
    b=${t##*/}
    "$IOANALYZE" --config "$work/config.json" --min-severity low --format json "$t" >"$work/single/${b%.zst}.json" \
        2>/dev/null || die "analysing $t failed"
done
$PY - "$work/single" $PROGRAMS >"$work/expected" <<'PY' || not_ok "the runs of a program differ (above)"
import json, sys
d, progs = sys.argv[1], sys.argv[2:]
ok, union = True, {}
for p in progs:
    sets = [sorted({i["fingerprint"] for i in json.load(open("%s/%s-%d.json" % (d, p, n)))})
            for n in (1, 2, 3, 4)]
    if any(s != sets[0] for s in sets) or not sets[0]:
        print("%s: %s" % (p, sets), file=sys.stderr)
        ok = False
    for fp in sets[0]:
        union[fp] = p
print(len(union))
for fp in sorted(union):
    print(fp, union[fp])
sys.exit(0 if ok else 1)
PY
read -r expected <"$work/expected"

"$IOANALYZE" fleet --config "$work/config.json" --workers 2 --progress never --format json \
    "$work/traces" >"$work/fleet.json" \
    2>"$work/fleet.err" || die "fleet failed: $(tail -3 "$work/fleet.err")"
$PY - "$work/fleet.json" "$work/expected" <<'PY' || not_ok "the fleet's fingerprints (above)"
import json, sys
rep = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
n, want = int(lines[0]), dict(l.split() for l in lines[1:] if l)
got = {o["fingerprint"]: o["traces"] for o in rep["issues"]}
print("fleet: 20 traces of 5 programs, %d fingerprints (%d expected)" % (len(got), n))
assert rep["analysed"] == 20, rep["analysed"]
assert len(got) == n == len(want), (len(got), n)
assert set(got) == set(want), sorted(set(got) ^ set(want))
bad = {fp: c for fp, c in got.items() if c != 4}
assert not bad, bad
PY
exit $fail
