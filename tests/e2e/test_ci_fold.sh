#!/bin/sh
# Fingerprints from what the program asked for: two runs of the same
# programs from other working directories, under other HOMEs, each making
# fresh temporary names, give identical fingerprint sets, and `ioanalyze
# diff` between them reports nothing new and nothing fixed. The programs:
#   - fold_names (tests/progs): small writes (small_buffer) into nine files whose names differ
#     per run: under mkdtemp("/tmp/names-XXXXXX"), mkstemp("data-XXXXXX"),
#     mkstemps("rep-XXXXXX.csv"), a UUID run directory, a 64-hex repository
#     id with a fan-out directory of its first two digits, $HOME/.cache and
#     ./work, and Python's tempfile.mkdtemp(prefix='app-') and
#     tempfile.mkstemp(prefix='app-'); each file is one issue of its own (the
#     folds merge nothing they should not: nine issues, nine fingerprints);
#   - the samples fd_leak, small_writes, sync_per_write, state_rewrite,
#     repeat_read, stdio_unbuf, each in its own mkdtemp directory.
# Judged with --ci so that the machine's load cannot change which issues
# there are (that is the judgement's business, not this test's). The trace
# and its own JSONL dump fold alike. Without the folds the two runs share
# none of the names' fingerprints: checked by analysing the traces with
# their template and home records removed (the JSONL dump less those lines).
# e2e: slow (about 60 s here: two recordings of eight programs, six analyses)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/bin/progs/fold_names"
SAMPLES="fd_leak small_writes sync_per_write state_rewrite repeat_read stdio_unbuf"
for s in $SAMPLES; do need_built "$BUILD/bin/samples/$s"; done
have python3 || skip "python3 is needed"
work_dir ci-fold
# the programs' temporary names are in /tmp, outside $work: listed in
# $work/made as they are made, removed at the end
cleanup() {
    [ -f "$work/made" ] && grep '^/tmp/.' "$work/made" | xargs rm -rf
    rm -rf "$work"
}
REC_ENV=$(asan_env "$LIBIORECORD")

cat >"$work/app.py" <<'EOF'
import os, tempfile
d = tempfile.mkdtemp(prefix="app-")
fd = os.open(os.path.join(d, "cache.bin"), os.O_WRONLY | os.O_CREAT, 0o644)
for _ in range(200):
    os.write(fd, b"x" * 16)
os.close(fd)
fd, path = tempfile.mkstemp(prefix="app-")
for _ in range(200):
    os.write(fd, b"x" * 16)
os.close(fd)
print(d)
print(path)
EOF

# run NAME CWD HOME: both programs and the samples recorded into $work/NAME.zst
run() {
    mkdir -p "$2" "$3"
    (cd "$2" && env $REC_ENV HOME="$3" TMPDIR=/tmp "$IORECORD" -o "$work/$1.zst" -- sh -c '
        "$1" && python3 "$2" || exit 1
        shift 2
        for s in "$@"; do "$s" || exit 1; done' sh "$BUILD/bin/progs/fold_names" "$work/app.py" \
        $(for s in $SAMPLES; do echo "$BUILD/bin/samples/$s"; done) \
        >>"$work/made" 2>"$work/$1.err") ||
        die "recording $1 failed: $(cat "$work/$1.err")"
    sed -i 's/^[a-z_]*: writing in //' "$work/made"
    "$IOANALYZE" --ci --min-severity low --format json "$work/$1.zst" >"$work/$1.json" \
        2>/dev/null || die "analysing $1 failed"
}
run a "$work/a/cwd" "$work/a/home"
run b "$work/elsewhere/b/cwd" "$work/other/home-b"

# fingerprint and path of each issue, one per line, sorted
fps() {
    python3 -c '
import json, sys
for i in json.load(open(sys.argv[1])):
    print(i["fingerprint"], i["rule"], i["path"])' "$1" | sort
}
fps "$work/a.json" >"$work/a.fp"
fps "$work/b.json" >"$work/b.fp"
cut -d' ' -f1 "$work/a.fp" | sort -u >"$work/a.set"
cut -d' ' -f1 "$work/b.fp" | sort -u >"$work/b.set"
cmp -s "$work/a.set" "$work/b.set" || {
    echo "run a:"; cat "$work/a.fp"; echo "run b:"; cat "$work/b.fp"
    not_ok "the two runs' fingerprint sets differ"
}
# the names' nine files: one small_buffer issue each, nine fingerprints
for f in "names-[^/]*/log.txt" "/tmp/data-" "/tmp/rep-.*\.csv" "run-[^/]*/out.bin" \
         "run-[^/]*/[0-9a-f]\{64\}/[0-9a-f][0-9a-f]/[0-9a-f]\{64\}" "home[^/]*/.cache/state.db" \
         "cwd/work/out.txt" "app-[^/]*/cache.bin" "/tmp/app-[a-z0-9_]\{8\}$"; do
    for r in a b; do
        n=$(grep " small_buffer " "$work/$r.fp" | grep -c -- "$f")
        [ "$n" = 1 ] || not_ok "run $r: $n small_buffer issues on '$f', 1 expected"
    done
done
n=$(grep -v '/tmp/ioscope-[a-z_]*-[A-Za-z0-9]\{6\}/' "$work/a.fp" | grep -c " small_buffer ")
[ "$n" = 9 ] || not_ok "run a: $n small_buffer issues outside the samples, 9 expected"
n=$(grep -v '/tmp/ioscope-[a-z_]*-[A-Za-z0-9]\{6\}/' "$work/a.fp" | grep " small_buffer " | cut -d' ' -f1 | sort -u | wc -l)
[ "$n" = 9 ] || not_ok "run a: the nine files' issues have $n fingerprints, 9 expected"
# every sample found something, in a directory of its own
for s in $SAMPLES; do
    grep -q "/ioscope-$s-" "$work/a.fp" || not_ok "run a: no issue of the sample $s"
done

# diff reports nothing new or fixed, both ways
for pair in "a b" "b a"; do
    set -- $pair
    "$IOANALYZE" diff --format json "$work/$1.json" "$work/$2.json" >"$work/diff.json"
    rc=$?
    [ $rc = 0 ] || not_ok "diff $1 $2 exited $rc, 0 expected"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = len(json.load(open(sys.argv[2])))
assert not d["new"] and not d["fixed"] and d["unchanged"] == n, (len(d["new"]), len(d["fixed"]), d["unchanged"], n)
' "$work/diff.json" "$work/$2.json" || not_ok "diff $1 $2 reports new or fixed issues"
done

# the trace's JSONL dump folds alike
"$IOANALYZE" dump --format jsonl "$work/a.zst" >"$work/a.jsonl" || die "dump failed"
grep -q '"ev":"template"' "$work/a.jsonl" || not_ok "the dump has no template line"
grep -q '"ev":"home"' "$work/a.jsonl" || not_ok "the dump has no home line"
"$IOANALYZE" --ci --min-severity low --format json "$work/a.jsonl" >"$work/aj.json" 2>/dev/null ||
    die "analysing the dump failed"
fps "$work/aj.json" | cut -d' ' -f1 | sort -u | cmp -s - "$work/a.set" ||
    not_ok "the trace and its JSONL dump give different fingerprints"

# without the template and home records, the names no longer fold: the
# test would see a fold that did not happen
for r in a b; do
    "$IOANALYZE" dump --format jsonl "$work/$r.zst" |
        grep -v -e '"ev":"template"' -e '"ev":"home"' >"$work/$r-bare.jsonl"
    "$IOANALYZE" --ci --min-severity low --format json \
        "$work/$r-bare.jsonl" >"$work/$r-bare.json" 2>/dev/null || die "analysing the bare dump $r failed"
    fps "$work/$r-bare.json" >"$work/$r-bare.fp"
done
for f in "names-[^/]*/log.txt" "/tmp/data-" "/tmp/rep-" "home[^/]*/.cache/state.db"; do
    x=$(grep -- "$f" "$work/a-bare.fp" | cut -d' ' -f1)
    y=$(grep -- "$f" "$work/b-bare.fp" | cut -d' ' -f1)
    [ -n "$x" ] && [ "$x" != "$y" ] ||
        not_ok "without its record, '$f' fingerprints alike in both runs ($x, $y)"
done
exit $fail
