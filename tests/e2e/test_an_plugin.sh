#!/bin/sh
# --plugin: a rule built as a shared object (rules/TEMPLATE.md) runs like a
# built-in one, shows in `ioanalyze rules`, takes --set; a plugin built for
# another rule ABI is refused.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
CC=${CC:-cc}
have "$CC" || skip "no C compiler"
work_dir an-plugin

cat >"$work/many_writes.c" <<'C'
#include <stdio.h>
#include "rule.h"

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

static const struct rule many_writes = {
    .abi = ABI, .name = "many_writes", .type = 99, .summary = "a test plugin",
    .params = params, .nparams = 1, .on_session = check,
};
const struct rule *const ioscope_rules[] = {&many_writes, NULL};
C
flags="-shared -fPIC -I$TOP/rules $(pkg-config --cflags jansson 2>/dev/null)"
$CC $flags -DABI=RULE_ABI_VERSION -o "$work/good.so" "$work/many_writes.c" || { echo "skip: cannot build a plugin"; exit 77; }
$CC $flags -DABI=12345 -o "$work/bad.so" "$work/many_writes.c" || exit 1

FX=$TOP/tests/fixtures/rules/small_buffer_fires.jsonl
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes "$FX" >"$work/out" 2>"$work/err" || die "plugin run: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['rule']=='many_writes' and d[0]['type']==99 and d[0]['repeat']==21, d" || die "plugin issue"
# three sessions of one file: the later two only counted (rule_again)
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes "$TOP/tests/fixtures/rules/small_buffer_again.jsonl" \
    >"$work/out" 2>"$work/err" || die "plugin run: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['repeat']==21 and d[0]['detail']['occurrences']==3, d" || die "plugin rule_again"
"$IOANALYZE" --plugin "$work/good.so" --rules many_writes --set many_writes.min_writes=22 "$FX" >"$work/out" 2>&1 || die "plugin --set"
[ "$(head -c 2 "$work/out")" = "[]" ] || die "--set on a plugin parameter"
"$IOANALYZE" rules --plugin "$work/good.so" >"$work/out" || die "rules --plugin"
grep -q "many_writes.min_writes *= 10" "$work/out" || die "rules lists the plugin's parameters"
"$IOANALYZE" --plugin "$work/bad.so" "$FX" >/dev/null 2>"$work/err"
[ $? -eq 2 ] || die "a plugin with another ABI must be refused (exit 2)"
grep -q "rule ABI version 12345, this ioanalyze needs" "$work/err" || die "ABI message: $(cat "$work/err")"
"$IOANALYZE" --plugin "$work/nope.so" "$FX" >/dev/null 2>&1
[ $? -eq 2 ] || die "a missing plugin must exit 2"
exit $fail
