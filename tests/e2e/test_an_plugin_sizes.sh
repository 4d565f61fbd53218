#!/bin/sh
# The size handshake of the structs ioanalyze hands a rule (rules/rule.h,
# "The plugin ABI"): struct rule_session and struct rule_ctx arrive with the
# size this ioanalyze was built with. A plugin built against this rule.h sees
# every member it knows (RULE_HAS true); one built against a newer rule.h (a
# member appended to rule_session) learns that this ioanalyze lacks it
# (RULE_HAS false) and does without; one built against an older rule.h (a
# member fewer) still reads its members right. struct rule_path_call arrives
# with this ioanalyze's size too. Of ioanalyze's own symbols,
# plugins see exactly the functions rule.h declares, not the registry's.
# e2e: slow (about 4 s here: builds three rule plugins with the C compiler)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
CC=${CC:-cc}
have "$CC" || skip "no C compiler"
have python3 || skip "python3 is needed"
work_dir an-plugin-sizes

# Three rule.h: this one, a newer one (a member appended to rule_session),
# an older one (its last member not yet there).
mkdir -p "$work/now" "$work/newer" "$work/older"
cp "$TOP/rules/rule.h" "$work/now/rule.h"
last=$(awk '/^struct rule_session \{/ {s = 1} s && /^};/ {print prev; exit} s {prev = $0}' "$TOP/rules/rule.h")
# one declarator: "int64_t open_ns;", "const char *sync_stack;"
last_name=$(echo "$last" | sed -n 's/^ *[a-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\);.*$/\1/p')
awk -v last="$last" '{print} $0 == last {print "    uint64_t newer_member;"}' "$TOP/rules/rule.h" >"$work/newer/rule.h"
grep -vxF "$last" "$TOP/rules/rule.h" >"$work/older/rule.h"
[ -n "$last_name" ] && grep -q newer_member "$work/newer/rule.h" && ! grep -qxF "$last" "$work/older/rule.h" ||
    not_ok "rule.h: no last member of one scalar in rule_session to build the newer and older headers from: '$last'"

cat >"$work/sizes.c" <<'C'
#include <stdint.h>
#include <string.h>
#include <jansson.h>
#include "rule.h"

static void check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    (void)state;
    if (s->writes < 10)
        return;
    rule_report(ctx, &(struct rule_report){.s = s, .repeat = (int64_t)s->writes, .message = "sizes",
        .detail = json_pack("{s:i, s:i, s:i, s:i, s:b, s:b, s:I}",
                            "session", (int)s->size, "ctx", (int)ctx->size,
                            "plugin_session", (int)sizeof(struct rule_session),
                            "plugin_ctx", (int)sizeof(struct rule_ctx),
#ifdef NEWER
                            "has_newer", RULE_HAS(struct rule_session, s, newer_member),
#else
                            "has_newer", 0,
#endif
#ifdef OLDER
                            "has_last", 0,
#else
                            "has_last", RULE_HAS(struct rule_session, s, LAST_MEMBER),
#endif
                            "writes", (json_int_t)s->writes)});
}

struct path_calls {
    unsigned size;        /* the last path call's */
    int64_t n;
};

static void path_call(void *state, const struct rule_ctx *ctx, const struct rule_path_call *c)
{
    struct path_calls *pc = state;

    (void)ctx;
    pc->size = c->size;
    pc->n++;
}

static void path_calls_report(void *state, const struct rule_ctx *ctx)
{
    const struct path_calls *pc = state;
    struct rule_session s = {.size = sizeof(s), .path = "(path calls)", .process = "app",
                             .thread = "main", .stack = "", .pid = 100, .tid = 100,
                             .file_size = -1};

    if (pc->n)
        rule_report(ctx, &(struct rule_report){.s = &s, .message = "path call sizes",
            .detail = json_pack("{s:i, s:i, s:I}", "path_call", (int)pc->size,
                                "plugin_path_call", (int)sizeof(struct rule_path_call),
                                "path_calls", (json_int_t)pc->n)});
}

static const struct rule sizes = {RULE_ABI_HEADER, .name = "sizes", .type = 98, .summary = "sizes",
                                  .state_size = sizeof(struct path_calls), .on_session = check,
                                  .on_end = path_calls_report, .on_path_call = path_call};

#ifndef OLDER
/* The cost a rule states (struct rule_report past detail): read when the
   rule says so (RULE_F_STATES_COST) and its report_size covers it. */
static void cost_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    (void)state;
    if (s->writes >= 10)
        rule_report(ctx, &(struct rule_report){.s = s, .message = "cost", .time_ns = 5000000,
                                               .model_ns = 3000000, .excess_calls = 7});
}

/* A rule built before report_size existed: its struct rule_report ends at
   detail, and what lies past it in memory (here 0x7f bytes) is not its. */
static void old_cost_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct {
        struct rule_report r;
        unsigned char past[64];
    } w;

    (void)state;
    if (s->writes < 10)
        return;
    memset(&w, 0x7f, sizeof(w));
    w.r.s = s;
    w.r.repeat = 0;
    w.r.time_unix_ms = 0;
    w.r.message = "old cost";
    w.r.detail = NULL;
    rule_report(ctx, &w.r);
}

static const struct rule cost_new = {RULE_ABI_HEADER, .name = "cost_new", .type = 97,
                                     .summary = "cost", .on_session = cost_check,
                                     .flags = RULE_F_STATES_COST};
/* report_size 0 as the rule.h before it left it (a later designator wins) */
static const struct rule cost_old = {RULE_ABI_HEADER, .report_size = 0, .name = "cost_old",
                                     .type = 96, .summary = "cost", .on_session = old_cost_check,
                                     .flags = RULE_F_STATES_COST};
const struct rule *const ioscope_rules[] = {&sizes, &cost_new, &cost_old, NULL};
#else
const struct rule *const ioscope_rules[] = {&sizes, NULL};
#endif
C
cat >"$work/host.c" <<'C'
#include <stdio.h>
#include <jansson.h>
#include "rule.h"
int main(void)
{
    printf("%zu %zu %zu\n", sizeof(struct rule_session), sizeof(struct rule_ctx),
           sizeof(struct rule_path_call));
    return 0;
}
C
jflags=$(pkg-config --cflags jansson 2>/dev/null)
$CC -I"$TOP/rules" $jflags -o "$work/host" "$work/host.c" || skip "cannot build against rule.h"
read -r host_session host_ctx host_path_call <<EOF
$("$work/host")
EOF
for v in now newer older; do
    def=$(echo "$v" | tr a-z A-Z)
    $CC -shared -fPIC -D"$def" -DLAST_MEMBER="$last_name" -I"$work/$v" $jflags -o "$work/$v.so" "$work/sizes.c" || not_ok "cannot build the $v plugin"
done

FX=$TOP/tests/fixtures/rules/small_buffer_fires.jsonl
# detail_of PLUGIN: the one issue's detail, as KEY=VALUE lines
detail_of() {
    "$IOANALYZE" --plugin "$work/$1.so" --rules sizes "$FX" >"$work/$1.out" 2>"$work/$1.err" ||
        { not_ok "$1.so must load and run: $(cat "$work/$1.err")"; return; }
    python3 -c "
import json; d=json.load(open('$work/$1.out'))
assert len(d)==1 and d[0]['rule']=='sizes', d
for k, v in sorted(d[0]['detail'].items()): print('%s=%s' % (k, json.dumps(v)))" ||
        not_ok "$1.so: one issue expected: $(cat "$work/$1.out")"
}
detail_of now >"$work/now.d"
detail_of newer >"$work/newer.d"
detail_of older >"$work/older.d"
expect() { grep -qx "$2" "$work/$1.d" || not_ok "$1.so: $2 expected: $(tr '\n' ' ' <"$work/$1.d")"; }
for v in now newer older; do
    # the host's sizes, whatever the plugin was built with; the figures right
    expect $v "session=$host_session"
    expect $v "ctx=$host_ctx"
    expect $v "writes=21"
done
expect now "plugin_session=$host_session"
expect now "has_last=true"
# newer plugin, older host: its struct is larger, and it must not read past ours
expect newer "plugin_session=$((host_session + 8))"
expect newer "has_newer=false"
expect newer "has_last=true"
# older plugin, newer host: ours is larger, its members are where it expects
expect older "plugin_session=$((host_session - 8))"

# path calls: 100 stats of one path and the opendir of a directory
PX=$TOP/tests/fixtures/rules/metadata_storm_listed_dir.jsonl
want_calls=$(grep -c '"op":"\(stat\|opendir\)"' "$PX")
"$IOANALYZE" --plugin "$work/now.so" --rules sizes "$PX" >"$work/px.out" 2>"$work/px.err" ||
    not_ok "now.so on path calls: $(cat "$work/px.err")"
python3 -c "
import json; d=json.load(open('$work/px.out'))
assert len(d)==1 and d[0]['detail']=={'path_call': $host_path_call, 'plugin_path_call': $host_path_call,
                                      'path_calls': $want_calls, 'occurrences': 1}, d" ||
    not_ok "now.so: path calls of this ioanalyze's size ($host_path_call), $want_calls of them: $(cat "$work/px.out")"

# the cost a rule states: impact and severity from it when it states one,
# "medium" with no impact from a rule built before rule_report had it (and
# nothing read past the end of that rule's smaller struct)
"$IOANALYZE" --plugin "$work/now.so" --rules cost_new,cost_old "$FX" >"$work/cost.out" 2>"$work/cost.err" ||
    not_ok "now.so, cost rules: $(cat "$work/cost.err")"
python3 -c "
import json; d={i['rule']: i for i in json.load(open('$work/cost.out'))}
n, o = d['cost_new'], d['cost_old']
assert n['severity'] == 'medium' and n['impact']['time_ms'] == 5 and n['impact']['excess_calls'] == 7, n
# the modelled cost it states (3 ms, all of its process's: share 1) judges
assert n['impact']['model_ms'] == 3 and n['impact']['io_share'] == 1, n
assert set(n['impact']) == {'time_ms', 'model_ms', 'io_share', 'excess_calls'}, n
assert o['severity'] == 'medium' and o['impact'] == {}, o" ||
    not_ok "now.so: cost_new with impact time_ms 5, model_ms 3, excess_calls 7; cost_old medium without impact: $(cat "$work/cost.out")"

# what plugins can link against: rule.h's functions, not the registry's
if have nm; then
    nm -D --defined-only "$IOANALYZE" | awk '{print $NF}' | grep -E '^rules?_' | sort >"$work/exported"
    printf '%s\n' rule_again rule_again_cost rule_proc_threads rule_report rule_stack_site rule_thread_role \
        rule_detail_new rule_detail_free rule_detail_int rule_detail_uint rule_detail_double \
        rule_detail_string rule_detail_bool rule_detail_ints rule_detail_add_object | sort >"$work/want"
    cmp -s "$work/exported" "$work/want" ||
        not_ok "ioanalyze exports to plugins: $(tr '\n' ' ' <"$work/exported"), expected rule.h's: $(tr '\n' ' ' <"$work/want")"
fi
exit $fail
