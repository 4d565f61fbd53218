/*
 * main_thread (type 1): slow file I/O on a main thread, Matrix's detector.
 * Bit 1: one call took longer than max_once_ms; bit 2: a continual run of
 * calls (gaps < continual_gap_ms) took longer than max_continual_ms.
 * Only calls made on a main thread count (tid == pid, or a thread whose name
 * matches main_thread_names). Needs durations: skipped on timing-free input.
 *
 * Which calls: Matrix's idea is "the main thread blocked on storage", so
 * besides the reads and writes of a file (its session), every other call
 * that waits for storage counts by its measured duration (on_main_call:
 * syncs, opens, closes, metadata calls; the engine's list). Those are
 * grouped by process and call site (the call's stack; without one, its op),
 * so the issue points at the fsync that blocked, not at the file's open.
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
    const char *call;                /* a call group's op ("fdatasync"), NULL: sessions */
    int64_t last_end, cur_cont;      /* a call group's current continual run */
    uint64_t slow;                   /* a call group's calls over max_once_ms */
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
    return !g->call && g->first.pid == s->pid && g->first.stack == s->stack &&
           (*s->stack || g->first.path == s->path);
}

/* The group of s (a session group when call is NULL), made when new; NULL
   out of memory. */
static struct mt_group *group_of(struct main_thread_state *st, uint64_t key,
                                 const struct rule_session *s, const char *call)
{
    void *v;

    /* a colliding key is passed over to key + 1, as far as need be */
    for (; (v = hmap_get(&st->idx, key)); key++) {
        struct mt_group *g = &st->g[(uintptr_t)v - 1];

        if (call ? g->call == call && g->first.pid == s->pid && g->first.stack == s->stack
                 : same_group(g, s))
            return g;
    }
    if (iot_grow(&st->g, &st->cap, st->n + 1, sizeof(*st->g)) < 0 ||
        hmap_put(&st->idx, key, (void *)(uintptr_t)(st->n + 1)) < 0)
        return NULL;
    st->g[st->n] = (struct mt_group){.first = *s, .call = call};
    /* the issue names the session's main thread, not its busiest one */
    st->g[st->n].first.calls_threads = 0;
    return &st->g[st->n++];
}

static void main_thread_check(void *state, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    struct main_thread_state *st = state;
    struct mt_group *g;
    int bits = 0;

    if (!ctx->timing || !s->timed || !s->main_ops)
        return;
    if (s->main_max_once_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE]))
        bits |= 1;
    if (s->main_max_continual_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL]))
        bits |= 2;
    if (!bits || !(g = group_of(st, group_key(s), s, NULL)))
        return;
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

/*
 * A sync, open, close or metadata call on a main thread. Every call site is
 * followed (its continual run may grow past the limit from calls each under
 * it); there are few: one per process and stack, or per op without one.
 */
static void main_thread_call(void *state, const struct rule_ctx *ctx,
                             const struct rule_path_call *c)
{
    struct main_thread_state *st = state;
    struct rule_session s = {.size = sizeof(s), .path = c->path, .process = c->process,
                             .thread = c->thread, .stack = c->stack, .pid = c->pid,
                             .tid = c->tid, .timed = 1, .open_t = c->t, .end_t = c->t + c->dur,
                             .end_unix_ms = c->unix_ms, .file_size = -1, .main_tid = c->tid};
    uint64_t site = *c->stack ? (uintptr_t)c->stack : (uintptr_t)c->op;
    struct mt_group *g;

    if (!ctx->timing || c->dur < 0 ||
        !(g = group_of(st, iot_mix64_pair((uint64_t)(uint32_t)c->pid, site) ^ 1, &s, c->op)))
        return;
    g->cur_cont = g->sessions && c->t - g->last_end < ctx->gap_ns ? g->cur_cont + c->dur : c->dur;
    g->last_end = c->t + c->dur;
    g->sessions++;
    g->ops++;
    g->cost_ns += c->dur;
    if (c->dur > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE])) {
        g->bits |= 1;
        g->slow++;
        g->last_unix_ms = c->unix_ms;
    }
    if (c->dur > g->max_once_ns)
        g->max_once_ns = c->dur;
    if (g->cur_cont > g->max_continual_ns)
        g->max_continual_ns = g->cur_cont;
    if (g->max_continual_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL])) {
        g->bits |= 2;
        g->last_unix_ms = c->unix_ms;
    }
}

/* The message of a call group (g->call set) into msg. */
static void call_message(char *msg, size_t cap, const struct mt_group *g, const struct rule_ctx *ctx)
{
    if (g->bits & 2)
        snprintf(msg, cap,
                 "the main thread of %s spent %.1f ms in one continual run of %s calls from "
                 "here (limit %g ms, longest %.1f ms; %llu calls, %.1f ms in all); move the %s "
                 "to a worker thread", g->first.process, RULE_MS(g->max_continual_ns), g->call,
                 ctx->p[P_MAX_CONTINUAL], RULE_MS(g->max_once_ns), (unsigned long long)g->ops,
                 RULE_MS(g->cost_ns), g->call);
    else
        snprintf(msg, cap,
                 "the main thread of %s blocked %.1f ms in one %s call (limit %g ms; %llu of "
                 "%llu calls from here over it, %.1f ms in all); move the %s to a worker thread",
                 g->first.process, RULE_MS(g->max_once_ns), g->call, ctx->p[P_MAX_ONCE],
                 (unsigned long long)g->slow, (unsigned long long)g->ops, RULE_MS(g->cost_ns),
                 g->call);
}

static void main_thread_report(void *state, const struct rule_ctx *ctx)
{
    struct main_thread_state *st = state;
    char msg[400], where[160];

    for (size_t i = 0; i < st->n; i++) {
        struct mt_group *g = &st->g[i];
        int threads = rule_proc_threads(ctx, g->first.pid);

        if (!g->bits || (ctx->p[P_SCOPE] == SCOPE_MULTITHREADED && threads < 2))
            continue;
        /* the figures are the group's main-thread calls */
        g->first.op = g->ops;
        g->first.cost_ns = g->cost_ns;
        if (g->call) {
            call_message(msg, sizeof(msg), g, ctx);
            rule_report(ctx, &(struct rule_report){
                .s = &g->first, .repeat = g->bits, .time_unix_ms = g->last_unix_ms,
                .message = msg, .time_ns = g->cost_ns,
                .detail = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:i,s:i}",
                                    "call", g->call,
                                    "max_once_us", (json_int_t)(g->max_once_ns / 1000),
                                    "max_continual_us", (json_int_t)(g->max_continual_ns / 1000),
                                    "calls", (json_int_t)g->ops,
                                    "slow_calls", (json_int_t)g->slow,
                                    "main_thread_cost_us", (json_int_t)(g->cost_ns / 1000),
                                    "main_tid", (int)g->first.main_tid,
                                    "process_threads", threads)});
            continue;
        }
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
            .time_ns = g->cost_ns,
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
    .on_main_call = main_thread_call,
    .fini = main_thread_fini,
    .flags = RULE_F_REPEAT_BITS |      /* "repeat" is bit 1 | bit 2 */
             RULE_F_STATES_COST,
    .fix = "Move the I/O to a worker thread and hand the result back; in a UI "
           "program, never block the frame loop on storage.",
};
