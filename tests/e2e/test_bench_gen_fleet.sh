#!/bin/sh
# bench/gen_fleet, the fleet bench's generator, makes what it says: from two
# recorded templates (sync_per_write labelled version=1, state_rewrite
# version=2, both host=@@@@@@@@), 20 traces with a pool of 6 and 3 hosts.
# Trace i must be template i % 2 with host h000000(i % 3): the labels
# ioanalyze reads from it exactly those, its issues exactly the template's (the same
# fingerprints, rules, stacks and figures: only the labels differ), every
# file a valid zstd stream; traces 6 to 19 hard links to trace i % 6 and
# traces 0 to 5 distinct files. A template without the placeholder is
# refused with a message naming it.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/bin/bench/gen_fleet
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$GEN" \
    "$BUILD/bin/samples/sync_per_write" "$BUILD/bin/samples/state_rewrite"
PY=/usr/bin/python3
work_dir gen-fleet
REC_ENV=$(asan_env "$LIBIORECORD")
v=1
for s in sync_per_write state_rewrite; do
    env $REC_ENV "$IORECORD" -o "$work/$v.zst" --label version=$v --label host=@@@@@@@@ -- \
        "$BUILD/bin/samples/$s" "$work/data$v" >/dev/null 2>"$work/err" ||
        die "recording $s failed: $(cat "$work/err")"
    v=$((v + 1))
done
"$GEN" --pool 6 --hosts 3 "$work/fleet" 20 "$work/1.zst" "$work/2.zst" >"$work/gen.out" 2>&1 ||
    die "gen_fleet failed: $(cat "$work/gen.out")"
n=$(find "$work/fleet" -type f | wc -l)
[ "$n" = 20 ] || not_ok "gen_fleet made $n traces, not 20"

i=0
while [ $i -lt 20 ]; do
    f=$(printf '%s/fleet/000/t%07d.zst' "$work" $i)
    j=$((i % 6))
    g=$(printf '%s/fleet/000/t%07d.zst' "$work" $j)
    if [ $i -ge 6 ]; then
        [ "$(stat -c %i "$f")" = "$(stat -c %i "$g")" ] || not_ok "trace $i is not a link to trace $j"
    else
        [ "$(stat -c %h "$f")" -ge 2 ] || not_ok "trace $i has no links, it should have some"
    fi
    if have zstd; then
        zstd -qt "$f" 2>/dev/null || not_ok "trace $i is not a valid zstd stream"
    fi
    i=$((i + 1))
done
have zstd || skip_part "zstd -t of each trace" "zstd is not installed"
[ "$(stat -c %i "$work/fleet/000/t0000000.zst")" != "$(stat -c %i "$work/fleet/000/t0000001.zst")" ] ||
    not_ok "traces 0 and 1 are the same file"

"$IOANALYZE" analyze --each --format json --min-severity low "$work/1.zst" "$work/2.zst" \
    $(find "$work/fleet" -type f | sort) >"$work/each.json" 2>"$work/each.err" ||
    die "ioanalyze --each failed: $(cat "$work/each.err")"
$PY - "$work/each.json" <<'PY' || not_ok "the generated traces (above)"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
templates, fleet = lines[:2], lines[2:]
ok = len(fleet) == 20


def strip(issues):
    # the issues as a run on the template gives them, less the labels
    return [{k: v for k, v in i.items() if k != "labels"} for i in issues]


for i, line in enumerate(fleet):
    t = templates[i % 2]
    want = {"version": str(i % 2 + 1), "host": "h%07d" % (i % 3)}
    if not line["ok"] or line["damaged"] or line["warnings"]:
        print("FAIL: trace %d: ok %s, damaged %s, warnings %s"
              % (i, line["ok"], line["damaged"], line["warnings"]))
        ok = False
    if line["labels"] != want:
        print("FAIL: trace %d has labels %s, not %s" % (i, line["labels"], want))
        ok = False
    if any(x.get("labels") != want for x in line["issues"]):
        print("FAIL: trace %d's issues do not carry its labels" % i)
        ok = False
    if strip(line["issues"]) != strip(t["issues"]) or not t["issues"]:
        print("FAIL: trace %d's issues differ from its template's (%d against %d)"
              % (i, len(line["issues"]), len(t["issues"])))
        ok = False
print("gen_fleet: 20 traces, %d checked" % len(fleet))
sys.exit(0 if ok else 1)
PY

"$GEN" --placeholder XXXXXXXX "$work/bad2" 2 "$work/1.zst" >"$work/bad.out" 2>&1 &&
    not_ok "a template without the placeholder was accepted"
grep -q "1.zst' holds no label with the value 'XXXXXXXX'" "$work/bad.out" ||
    not_ok "the refusal does not name the template: $(cat "$work/bad.out")"
exit $fail
