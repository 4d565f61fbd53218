#!/bin/sh
# --plugin: a rule built as a shared object (rules/TEMPLATE.md) runs like a
# built-in one, shows in `ioanalyze rules`, takes --set. The rule ABI
# (rules/rule.h): a plugin built with the first rule layout (a smaller
# struct rule) still loads and sees zero for the members added since; one
# built for a newer ioanalyze loads when it uses none of the members this
# one lacks; a size below the first layout, another ABI version or newer
# members in use are refused with one line naming the plugin. The example
# of rules/TEMPLATE.md builds and runs as the page says.
# e2e: slow (about 5 s here: builds rule plugins with the C compiler)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
CC=${CC:-cc}
have "$CC" || skip "no C compiler"
have python3 || skip "python3 is needed"
work_dir an-plugin

# ABI, SIZE, FLAGS and FUTURE (a member a newer rule.h would have appended)
# say how each plugin below is built; the defaults are RULE_ABI_HEADER's.
cat >"$work/many_writes.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "rule.h"

#ifndef ABI
#define ABI RULE_ABI_VERSION
#endif
#ifndef SIZE
#define SIZE sizeof(struct rule)
#endif
#ifndef FLAGS
#define FLAGS 0
#endif
#ifndef FUTURE
#define FUTURE 0
#endif

static const struct rule_param params[] = {
    {"min_writes", RULE_P_INT, 10, "report sessions with at least this many writes"},
};

static void check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    char msg[100];

    (void)state;
    /* rule_again: the analyzer exports it to plugins too */
    if (s->writes < (uint64_t)ctx->p[0] || rule_again(ctx, s, (int64_t)s->writes, 0))
        return;
    snprintf(msg, sizeof(msg), "%llu writes", (unsigned long long)s->writes);
    rule_report(ctx, &(struct rule_report){.s = s, .repeat = (int64_t)s->writes, .message = msg,
                                           .detail = json_pack("{s:I}", "writes", (json_int_t)s->writes)});
}

/* the rule, and after it what a newer rule.h would have appended */
static const struct {
    struct rule r;
    uint64_t future;
} many_writes = {
    {.abi = ABI, .size = SIZE, .name = "many_writes", .type = 99, .summary = "a test plugin",
     .params = params, .nparams = 1, .on_session = check, .flags = FLAGS},
    FUTURE,
};
const struct rule *const ioscope_rules[] = {&many_writes.r, NULL};
C
flags="-shared -fPIC -I$TOP/rules $(pkg-config --cflags jansson 2>/dev/null)"
build() {
    out=$1; shift
    $CC $flags "$@" -o "$work/$out.so" "$work/many_writes.c"
}
build good || skip "cannot build a plugin"
build bad -DABI=12345 || exit 1
build v1 -DABI=1 || exit 1
build bits -DFLAGS=RULE_F_REPEAT_BITS || exit 1
# the first layout: the plugin's struct rule ends at fini, so its flags are unseen
build first -DSIZE=RULE_SIZE_FIRST -DFLAGS=RULE_F_REPEAT_BITS || exit 1
build tiny -DSIZE=12 || exit 1
build newer_unused "-DSIZE=sizeof(many_writes)" || exit 1
build newer_used "-DSIZE=sizeof(many_writes)" -DFUTURE=1 || exit 1

FX=$TOP/tests/fixtures/rules/small_buffer_fires.jsonl
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes "$FX" >"$work/out" 2>"$work/err" || not_ok "plugin run: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['rule']=='many_writes' and d[0]['type']==99 and d[0]['repeat']==21, d" || not_ok "plugin issue"
# three sessions of one file: the later two only counted (rule_again)
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes "$TOP/tests/fixtures/rules/small_buffer_again.jsonl" \
    >"$work/out" 2>"$work/err" || not_ok "plugin run: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['repeat']==21 and d[0]['detail']['occurrences']==3, d" || not_ok "plugin rule_again"
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes --set many_writes.min_writes=22 "$FX" >"$work/out" 2>&1 || not_ok "plugin --set"
[ "$(head -c 2 "$work/out")" = "[]" ] || not_ok "--set on a plugin parameter"
"$IOANALYZE" rules --plugin "$work/good.so" >"$work/out" || not_ok "rules --plugin"
grep -q "many_writes.min_writes *= 10" "$work/out" || not_ok "rules lists the plugin's parameters"

# Two sessions of one file, 10 and 12 writes: one issue, two occurrences.
# Its repeat is the first's, 10, unless the rule's flags say repeat is a
# bitmask (RULE_F_REPEAT_BITS): then 10|12 = 14.
python3 - "$work/two.jsonl" <<'PY'
import json, sys
t, out = 0, []
def ev(**kw):
    out.append(json.dumps(kw, separators=(",", ":")))
ev(ev="process", t=0, pid=100, ppid=1, exe="/usr/bin/app", cmdline=["app"], start_unix_ns=1763800000000000000)
ev(ev="thread", t=0, pid=100, tid=100, name="main")
for writes in (10, 12):
    t += 1000
    ev(ev="call", t=t, pid=100, tid=100, op="open", dur=1000, ret=3, path="/data/out.log", flags=577)
    for _ in range(writes):
        t += 2000
        ev(ev="call", t=t, pid=100, tid=100, op="write", dur=1000, ret=64, fd=3, size=64)
    t += 2000
    ev(ev="call", t=t, pid=100, tid=100, op="close", dur=1000, ret=0, fd=3)
ev(ev="exit", t=t + 2000, pid=100, status=0)
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
# repeat_of PLUGIN: the repeat of its one issue on two.jsonl
repeat_of() {
    "$IOANALYZE" --plugin "$work/$1.so" --rules many_writes "$work/two.jsonl" >"$work/out" 2>"$work/err" ||
        { not_ok "$1.so must load and run: $(cat "$work/err")"; return; }
    python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['detail']['occurrences']==2, d
print(d[0]['repeat'])" || not_ok "$1.so: one issue with two occurrences expected: $(cat "$work/out")"
}
[ "$(repeat_of good)" = 10 ] || not_ok "good.so: repeat $(repeat_of good), expected the first occurrence's 10"
[ "$(repeat_of bits)" = 14 ] || not_ok "bits.so: RULE_F_REPEAT_BITS must or the repeats (14), got $(repeat_of bits)"
[ "$(repeat_of first)" = 10 ] ||
    not_ok "first.so (the first layout) must load with the members past its size zero: repeat $(repeat_of first), expected 10"
[ "$(repeat_of newer_unused)" = 10 ] || not_ok "a plugin for a newer ioanalyze that uses nothing newer must load"

# refused_with PLUGIN MESSAGE: exit 2 and MESSAGE, one line naming the plugin
refused_with() {
    "$IOANALYZE" --plugin "$work/$1.so" "$FX" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 2 ] || not_ok "$1.so must be refused (exit 2), got $rc"
    [ "$(wc -l <"$work/err")" -eq 1 ] || not_ok "$1.so: one line expected: $(cat "$work/err")"
    grep -q "^ioanalyze: plugin '$work/$1.so': $2" "$work/err" || not_ok "$1.so message: $(cat "$work/err")"
}
refused_with bad "rule ABI version 12345, this ioanalyze needs [0-9]"
refused_with v1 "rule ABI version 1, this ioanalyze needs [0-9]"
refused_with tiny "rule #0 declares a size of 12 bytes, less than the first rule layout ([0-9]* bytes)"
refused_with newer_used "rule 'many_writes' sets members this ioanalyze does not know"
# a refused plugin adds no rule
"$IOANALYZE" rules --plugin "$work/tiny.so" >"$work/out" 2>/dev/null
grep -q many_writes "$work/out" && not_ok "a refused plugin's rule is listed"

"$IOANALYZE" --plugin "$work/nope.so" "$FX" >/dev/null 2>&1
[ $? -eq 2 ] || not_ok "a missing plugin must exit 2"

# rules/TEMPLATE.md's example, as the page gives it: the rule, then the
# plugin's table, built with the page's command line
awk '/^## /{sec=$0} /^```c$/{on=1; next} /^```$/{on=0} on && (sec ~ /^## Example/ || sec ~ /^## As a plugin/)' \
    "$TOP/rules/TEMPLATE.md" >"$work/slow_file.c"
grep -q "^const struct rule rule_slow_file = {" "$work/slow_file.c" && grep -q "^const struct rule \*const ioscope_rules\[\]" "$work/slow_file.c" ||
    not_ok "rules/TEMPLATE.md: no example rule slow_file and plugin table found"
(cd "$TOP" && $CC -shared -fPIC -Irules -o "$work/slow_file.so" "$work/slow_file.c") ||
    not_ok "rules/TEMPLATE.md's example does not build as a plugin"
# small_buffer_fires.jsonl: 21 writes of 1 ms each in one session
"$IOANALYZE" --plugin "$work/slow_file.so" --rules slow_file --set slow_file.max_cost_ms=20 "$FX" >"$work/out" 2>"$work/err" ||
    not_ok "the TEMPLATE's example: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['rule']=='slow_file' and d[0]['type']==100 and d[0]['repeat']==0, d
assert d[0]['detail']['cost_us']==21000 and d[0]['detail']['calls']==21, d" || not_ok "the TEMPLATE's example: issue $(cat "$work/out")"
"$IOANALYZE" --plugin "$work/slow_file.so" --rules slow_file --set slow_file.max_cost_ms=21 "$FX" >"$work/out" 2>/dev/null
[ "$(cat "$work/out")" = "[]" ] || not_ok "the TEMPLATE's example must not fire at its threshold: $(cat "$work/out")"
"$IOANALYZE" rules --plugin "$work/slow_file.so" >"$work/out" 2>&1
grep -q "^slow_file (type 100): " "$work/out" || not_ok "rules --plugin of the TEMPLATE's example"
# a plugin named without a directory is the file in the current directory
(cd "$work" && "$IOANALYZE" rules --plugin slow_file.so) >"$work/out" 2>&1
grep -q "^slow_file (type 100): " "$work/out" || not_ok "rules --plugin slow_file.so in its directory: $(cat "$work/out")"
(cd "$work" && "$IOANALYZE" --plugin slow_file.so --rules slow_file --set slow_file.max_cost_ms=20 "$FX") >"$work/out" 2>"$work/err" ||
    not_ok "--plugin slow_file.so in its directory: $(cat "$work/err")"
python3 -c "import json; d=json.load(open('$work/out')); assert [i['rule'] for i in d]==['slow_file'], d" ||
    not_ok "--plugin slow_file.so in its directory: $(cat "$work/out")"
# a plugin's fix shows as a built-in rule's does: under its issues in the
# text report, in its SARIF rule's help
"$IOANALYZE" --plugin "$work/slow_file.so" --rules slow_file --set slow_file.max_cost_ms=20 -f text "$FX" >"$work/out" 2>/dev/null
grep -q "fix: Make fewer, larger calls, or move them off the critical path\.$" "$work/out" ||
    not_ok "the TEMPLATE's example: its fix in the text report: $(cat "$work/out")"
"$IOANALYZE" --plugin "$work/slow_file.so" --rules slow_file --set slow_file.max_cost_ms=20 -f sarif "$FX" >"$work/out" 2>/dev/null
python3 -c "
import json; d=json.load(open('$work/out'))
r=[r for r in d['runs'][0]['tool']['driver']['rules'] if r['id']=='slow_file']
assert len(r)==1 and r[0]['help']['text'].endswith('How to fix: Make fewer, larger calls, or move them off the critical path.'), r" ||
    not_ok "the TEMPLATE's example: its fix in SARIF"
exit $fail
