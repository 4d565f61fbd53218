#!/bin/sh
# ioanalyze analyze --each: every input analysed on its own in one run, one
# JSON line per input in the order given. Each line's issues equal those of
# `ioanalyze analyze --format json` on that input alone (the same objects,
# whatever was analysed before it); its labels are the trace's, also when
# it has no issue; an input that cannot be read is a line with ok false and
# the error a run on it alone prints, the run going on; a damaged trace is
# analysed as far as it reads, damaged true and its warning in the line.
# stderr stays empty. --min-severity, --baseline and --fail-on-issues apply
# per input; a plugin's rule runs once per input (loaded once); --format
# text, --output or --csv with --each, and a configuration that cannot be
# read, are refused with exit 2 and nothing on stdout.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
for s in clean state_rewrite sync_per_write fd_leak small_writes; do
    need_built "$BUILD/bin/samples/$s"
done
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
have $PY || skip "python3 is needed"
work_dir an-each
cd "$work" || exit 1
asan_preload "$LIBIORECORD"
mkdir data
for s in clean state_rewrite sync_per_write fd_leak small_writes; do
    "$IORECORD" --no-stacks -o $s.zst --label version=2.$s --label host=h-$s \
        -- "$BUILD/bin/samples/$s" "$work/data/$s" >/dev/null 2>&1 || die "recording $s failed"
done
unset LD_PRELOAD
printf 'not a trace\n' >garbage.zst
$PY - <<'PY' || die "damaging a trace failed"
big = bytearray(open("small_writes.zst", "rb").read())
assert len(big) > 20000, len(big)
mid = len(big) // 2
big[mid:mid + 8] = b"\xff" * 8
open("damaged.zst", "wb").write(big)
PY
inputs="fd_leak.zst clean.zst garbage.zst missing.zst sync_per_write.zst damaged.zst
state_rewrite.zst fd_leak.zst"
# shellcheck disable=SC2086
"$IOANALYZE" analyze --each --min-severity low $inputs >each.jsonl 2>each.err
rc=$?
[ $rc -eq 0 ] || not_ok "--each exited $rc: $(head -3 each.err)"
[ -s each.err ] && not_ok "--each wrote on stderr: $(head -3 each.err)"
# what each input gives alone
for t in $inputs; do
    "$IOANALYZE" analyze --format json --min-severity low "$t" >"alone-$t.json" 2>"alone-$t.err"
    echo $? >"alone-$t.rc"
done
# shellcheck disable=SC2086
$PY - $inputs <<'PY' || not_ok "--each differs from the runs alone (above)"
import json, sys
inputs = sys.argv[1:]
lines = [json.loads(l) for l in open("each.jsonl")]
ok = True
def check(what, got, want):
    global ok
    if got != want:
        print("%s: --each %r, alone %r" % (what, got, want))
        ok = False
check("lines", [l["input"] for l in lines], inputs)
for t, l in zip(inputs, lines):
    rc = int(open("alone-%s.rc" % t).read())
    err = [e[len("ioanalyze: "):] for e in open("alone-%s.err" % t).read().splitlines()]
    check(t + " ok", l["ok"], rc == 0)
    if rc:
        check(t + " error", l["error"], "; ".join(err))
        continue
    check(t + " issues", l["issues"], json.load(open("alone-%s.json" % t)))
    name = t[:-len(".zst")]
    sample = "small_writes" if name == "damaged" else name
    check(t + " labels", l["labels"], {"version": "2." + sample, "host": "h-" + sample})
    check(t + " damaged", l["damaged"], name == "damaged")
    warn = [e[len("warning: "):] for e in err if e.startswith("warning: ")]
    check(t + " warnings", l["warnings"], warn)
by = {l["input"]: l for l in lines}
check("clean has no issue", by["clean.zst"]["issues"], [])
check("fd_leak's leak", [i["rule"] for i in by["fd_leak.zst"]["issues"]], ["leak"])
check("damaged said", any("damaged trace" in w for w in by["damaged.zst"]["warnings"]), True)
check("garbage not analysed", by["garbage.zst"]["ok"], False)
check("missing not analysed", by["missing.zst"]["ok"], False)
sys.exit(0 if ok else 1)
PY

# per input: --min-severity (medium hides nothing but low ones), --baseline,
# --fail-on-issues
"$IOANALYZE" analyze --each clean.zst fd_leak.zst >medium.jsonl 2>/dev/null ||
    not_ok "--each (medium) failed"
for t in clean.zst fd_leak.zst; do
    "$IOANALYZE" analyze --format json "$t" >"medium-$t.json" 2>/dev/null
done
$PY - <<'PY' || not_ok "--each --min-severity medium differs (above)"
import json
lines = [json.loads(l) for l in open("medium.jsonl")]
for l in lines:
    assert l["issues"] == json.load(open("medium-%s.json" % l["input"])), l["input"]
PY
"$IOANALYZE" analyze --format json --min-severity low fd_leak.zst >base.json 2>/dev/null
"$IOANALYZE" analyze --each --min-severity low --baseline base.json fd_leak.zst \
    sync_per_write.zst >based.jsonl 2>/dev/null || not_ok "--each --baseline failed"
$PY - <<'PY' || not_ok "--each --baseline: fd_leak's issues not dropped alone (above)"
import json
l = [json.loads(x) for x in open("based.jsonl")]
assert l[0]["issues"] == [] and l[1]["issues"] == json.load(open("alone-sync_per_write.zst.json")), l
PY
"$IOANALYZE" analyze --each --fail-on-issues clean.zst >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] || not_ok "--each --fail-on-issues on a clean trace: exit $rc, 0 expected"
"$IOANALYZE" analyze --each --fail-on-issues clean.zst fd_leak.zst >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || not_ok "--each --fail-on-issues with a leak: exit $rc, 1 expected"

# refused: formats and outputs --each has no place for, a missing config
for bad in "--format text" "--csv x.csv" "--output sarif=x.sarif" "--config nowhere.json"; do
    # shellcheck disable=SC2086
    "$IOANALYZE" analyze --each $bad clean.zst fd_leak.zst >refused.out 2>refused.err
    rc=$?
    [ $rc -eq 2 ] || not_ok "--each $bad: exit $rc, 2 expected"
    [ -s refused.out ] && not_ok "--each $bad wrote on stdout"
    [ "$(wc -l <refused.err)" -eq 1 ] || not_ok "--each $bad: $(wc -l <refused.err) error lines"
done

# a plugin: loaded once, its rule judging each input on its own
CC=${CC:-cc}
if have "$CC"; then
    cat >writes.c <<'C'
#include <stdio.h>
#include "rule.h"

static void check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    char msg[64];

    (void)state;
    if (s->writes < 100)
        return;
    snprintf(msg, sizeof(msg), "%llu writes", (unsigned long long)s->writes);
    rule_report(ctx, &(struct rule_report){.s = s, .repeat = (int64_t)s->writes, .message = msg});
}

static const struct rule many = {.abi = RULE_ABI_VERSION, .size = sizeof(struct rule),
                                 .name = "hundred_writes", .type = 98, .summary = "a test plugin",
                                 .on_session = check};
const struct rule *const ioscope_rules[] = {&many, NULL};
C
    # shellcheck disable=SC2046
    if $CC -shared -fPIC -I"$TOP/rules" $(pkg-config --cflags jansson 2>/dev/null) \
        -o writes.so writes.c 2>cc.err; then
        "$IOANALYZE" analyze --each --min-severity low --plugin ./writes.so state_rewrite.zst \
            sync_per_write.zst clean.zst >plugin.jsonl 2>plugin.err ||
            not_ok "--each --plugin failed: $(head -3 plugin.err)"
        for t in state_rewrite.zst sync_per_write.zst clean.zst; do
            "$IOANALYZE" analyze --format json --min-severity low --plugin ./writes.so "$t" \
                >"plugin-$t.json" 2>/dev/null
        done
        $PY - <<'PY' || not_ok "--each --plugin differs from the runs alone (above)"
import json
lines = [json.loads(l) for l in open("plugin.jsonl")]
n = 0
for l in lines:
    alone = json.load(open("plugin-%s.json" % l["input"]))
    assert l["issues"] == alone, l["input"]
    n += sum(1 for i in alone if i["rule"] == "hundred_writes")
# state_rewrite writes 1,000 times, sync_per_write 200: once each
assert n == 2, n
PY
    else
        skip_part plugin "cannot build one: $(head -1 cc.err)"
    fi
fi
exit $fail
