/*
 * main_thread (type 1): slow file I/O on a main thread, Matrix's detector.
 * Bit 1: one call took longer than max_once_ms; bit 2: a continual run of
 * calls (gaps < continual_gap_ms) took longer than max_continual_ms.
 * Only calls made on a main thread count (tid == pid, or a thread whose name
 * matches main_thread_names). Needs durations: skipped on timing-free input.
 *
 * Which processes: "move the I/O to a worker thread" means something only
 * where there are threads. With scope "multithreaded" (the default) a
 * process is judged when it ran more than one thread or has a thread named
 * as main (main_thread_names); a single-threaded command-line program
 * (tar, cc1, rsync) is not, since its every call is on its main thread and
 * its stalls come and go with the machine's load. Scope "all" is Matrix's
 * behaviour. A process's thread count is only final at the end of the
 * run, so sessions over a limit are held until then (they are few).
 *
 * Stability: sessions are grouped by process and open call site, and a
 * group is one issue whose figures are its worst session's and whose path
 * is its first session's: a loop that opens many files stalls on some of
 * them in one run and on others in the next, and per-file issues would
 * come and go between identical runs where one per call site stays.
 */
#include <stdio.h>
#include <stdlib.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "rule.h"

enum { P_MAX_ONCE, P_MAX_CONTINUAL, P_SCOPE };
enum { SCOPE_MULTITHREADED, SCOPE_ALL };    /* P_SCOPE's words, in help's order */

static const struct rule_param main_thread_params[] = {
    [P_MAX_ONCE]      = {"max_once_ms", RULE_P_DOUBLE, 13,
                         "report when one call on the main thread takes longer (bit 1)"},
    [P_MAX_CONTINUAL] = {"max_continual_ms", RULE_P_DOUBLE, 500,
                         "report when a continual run of calls takes longer (bit 2)"},
    [P_SCOPE]         = {"scope", RULE_P_CHOICE, SCOPE_MULTITHREADED,
                         "multithreaded|all: judge only processes that ran more than one "
                         "thread (or name a main thread), or every process (Matrix)"},
};

struct mt_group {
    struct rule_session first;       /* strings are interned: safe to keep */
    int bits;
    uint64_t sessions;
    int64_t max_once_ns, max_continual_ns;
    uint64_t ops;                    /* main-thread calls over the group */
    int64_t cost_ns;                 /* ... and their time */
    int64_t last_unix_ms;
};

struct main_thread_state {
    struct mt_group *g;
    size_t n, cap;
    struct hmap idx;                 /* group_key() -> index in g + 1 */
};

/* A session's group: its process and open stack, or its path where it has
   no stack. Hashes of them may collide: the group is told by its fields. */
static uint64_t group_key(const struct rule_session *s)
{
    uintptr_t site = *s->stack ? (uintptr_t)s->stack : (uintptr_t)s->path;

    return iot_mix64_pair((uint64_t)(uint32_t)s->pid, (uint64_t)site);
}

static int same_group(const struct mt_group *g, const struct rule_session *s)
{
    return g->first.pid == s->pid && g->first.stack == s->stack &&
           (*s->stack || g->first.path == s->path);
}

static void main_thread_check(void *state, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    struct main_thread_state *st = state;
    struct mt_group *g = NULL;
    int bits = 0;
    uint64_t key;
    void *v;

    if (!ctx->timing || !s->timed || !s->main_ops)
        return;
    if (s->main_max_once_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE]))
        bits |= 1;
    if (s->main_max_continual_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL]))
        bits |= 2;
    if (!bits)
        return;
    /* a colliding key is passed over to key + 1, as far as need be */
    for (key = group_key(s); (v = hmap_get(&st->idx, key)); key++)
        if (same_group(&st->g[(uintptr_t)v - 1], s)) {
            g = &st->g[(uintptr_t)v - 1];
            break;
        }
    if (!g) {
        if (iot_grow(&st->g, &st->cap, st->n + 1, sizeof(*st->g)) < 0 ||
            hmap_put(&st->idx, key, (void *)(uintptr_t)(st->n + 1)) < 0)
            return;
        g = &st->g[st->n++];
        *g = (struct mt_group){.first = *s};
    }
    g->bits |= bits;
    g->sessions++;
    g->cost_ns += s->main_cost_ns;
    g->ops += s->main_ops;
    if (s->main_max_once_ns > g->max_once_ns)
        g->max_once_ns = s->main_max_once_ns;
    if (s->main_max_continual_ns > g->max_continual_ns)
        g->max_continual_ns = s->main_max_continual_ns;
    if (s->end_unix_ms > g->last_unix_ms)
        g->last_unix_ms = s->end_unix_ms;
}

static void main_thread_report(void *state, const struct rule_ctx *ctx)
{
    struct main_thread_state *st = state;
    char msg[400], where[160];

    for (size_t i = 0; i < st->n; i++) {
        struct mt_group *g = &st->g[i];
        int threads = rule_proc_threads(ctx, g->first.pid);

        if (ctx->p[P_SCOPE] == SCOPE_MULTITHREADED && threads < 2)
            continue;
        /* the figures are the group's main-thread calls */
        g->first.op = g->ops;
        g->first.cost_ns = g->cost_ns;
        if (g->sessions > 1)
            snprintf(where, sizeof(where), ", the worst of %llu files opened here",
                     (unsigned long long)g->sessions);
        else
            where[0] = 0;
        if (g->bits & 2)
            snprintf(msg, sizeof(msg),
                     "the main thread of %s spent %.1f ms in one continual run of calls on "
                     "this file (limit %g ms, longest call %.1f ms)%s; move the I/O to a worker "
                     "thread", g->first.process, RULE_MS(g->max_continual_ns),
                     ctx->p[P_MAX_CONTINUAL], RULE_MS(g->max_once_ns), where);
        else
            snprintf(msg, sizeof(msg),
                     "one call on the main thread of %s took %.1f ms (limit %g ms)%s; "
                     "move the I/O to a worker thread", g->first.process,
                     RULE_MS(g->max_once_ns), ctx->p[P_MAX_ONCE], where);
        rule_report(ctx, &(struct rule_report){
            .s = &g->first, .repeat = g->bits, .time_unix_ms = g->last_unix_ms, .message = msg,
            .detail = json_pack("{s:I,s:I,s:I,s:I,s:i,s:I,s:i}",
                                "max_once_us", (json_int_t)(g->max_once_ns / 1000),
                                "max_continual_us", (json_int_t)(g->max_continual_ns / 1000),
                                "main_thread_ops", (json_int_t)g->ops,
                                "main_thread_cost_us", (json_int_t)(g->cost_ns / 1000),
                                "main_tid", (int)g->first.main_tid,
                                "sessions", (json_int_t)g->sessions,
                                "process_threads", threads)});
    }
}

static void main_thread_fini(void *state)
{
    struct main_thread_state *st = state;

    free(st->g);
    hmap_release(&st->idx);
}

const struct rule rule_main_thread = {
    RULE_ABI_HEADER,
    .name = "main_thread",
    .type = 1,
    .summary = "slow file I/O on the main thread (one long call or a long run of calls)",
    .params = main_thread_params,
    .nparams = sizeof(main_thread_params) / sizeof(main_thread_params[0]),
    .state_size = sizeof(struct main_thread_state),
    .on_session = main_thread_check,
    .on_end = main_thread_report,
    .fini = main_thread_fini,
    .flags = RULE_F_REPEAT_BITS,       /* "repeat" is bit 1 | bit 2 */
    .fix = "Move the I/O to a worker thread and hand the result back; in a UI "
           "program, never block the frame loop on storage.",
};
