/*
 * main_thread (type 1): file I/O on a thread others wait on, Matrix's
 * detector judged by the work done. Bit 1: one call's modelled cost (the
 * cost model, docs/analyzer.md) is over max_once_ms; bit 2: the modelled
 * cost of a session's (or a call site's) calls on the thread together is
 * over max_continual_ms. What the calls took here is shown as evidence and
 * decides nothing: a loaded machine stretches it.
 *
 * Which threads: one that others wait on. An event loop (the thread waits
 * for events in epoll, poll or select: the recorder notes it once per
 * thread, a waits record) of a process that ran more than one thread, a
 * thread whose name matches main_thread_names (a UI thread), and with
 * scope "all" the first thread of every process, as Matrix judges it. A command-line program's first thread that nothing
 * waits on (git pack-objects' one fsync, make, exa) is not one, and
 * neither is the thread that waits in a runtime that moves work between
 * threads (Go, a JVM, BEAM). An input without waits records (a trace made
 * before 5.16, a JSONL without waits events) shows no event loop: its
 * threads are judged by name and scope only. The role is the thread's when
 * the session ends or the call is made (a loop's start-up reads, done
 * before it first waited, are not judged).
 *
 * Which calls: besides the reads and writes of a file (its session), every
 * other call that waits for storage counts (on_main_call: syncs, opens,
 * closes, metadata calls; the engine's list), a sync by what it makes
 * durable. Those are grouped by process and call site (the call's stack;
 * without one, its op), so the issue points at the fsync that blocked, not
 * at the file's open.
 *
 * Grouping: sessions are grouped by process and open call site, and a
 * group is one issue whose figures are its worst session's and whose path
 * is its first session's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "rule.h"

enum { P_MAX_ONCE, P_MAX_CONTINUAL, P_SCOPE };
/* P_SCOPE's words, in help's order; "multithreaded", the old default's word,
   reads as "waited" */
enum { SCOPE_WAITED, SCOPE_ALL, SCOPE_MULTITHREADED };

static const struct rule_param main_thread_params[] = {
    /* one sync (2 ms modelled) or a 3 MB read holds an event loop's every
       waiting request for a millisecond or more */
    [P_MAX_ONCE]      = {"max_once_ms", RULE_P_DOUBLE, 1,
                         "report when one call's modelled cost on the thread is over this (bit 1)"},
    [P_MAX_CONTINUAL] = {"max_continual_ms", RULE_P_DOUBLE, 500,
                         "report when a file's or call site's calls together cost more (bit 2)"},
    [P_SCOPE]         = {"scope", RULE_P_CHOICE, SCOPE_WAITED,
                         "waited|all|multithreaded: judge the threads others wait on (event "
                         "loops, main_thread_names), or also every process's first (Matrix)"},
};

struct mt_group {
    struct rule_session first;       /* strings are interned: safe to keep */
    const char *call;                /* a call group's op ("fdatasync"), NULL: sessions */
    uint64_t site;                   /* rule_stack_site() of first.stack, 0 with none */
    int64_t last_end, cur_cont;      /* a call group's current continual run */
    uint64_t slow;                   /* a call group's calls over max_once_ms (modelled) */
    int bits;
    uint64_t sessions;
    int64_t max_once_ns, max_continual_ns;  /* measured: evidence */
    uint64_t ops;                    /* main-thread calls over the group */
    int64_t cost_ns;                 /* ... and their measured time */
    int64_t model_ns, model_once_ns; /* ... their modelled cost, the costliest call's */
    int role;                        /* RULE_ROLE_* of the thread */
    int64_t last_unix_ms;
};

struct main_thread_state {
    struct mt_group *g;
    size_t n, cap;
    struct hmap idx;                 /* group_key() -> index in g + 1 */
};

/* A session's group: its process and open site (rule_stack_site: one
   Java call's stacks differ as the JVM compiles it), or its path where it
   has no stack. Hashes of them may collide: the group is told by its fields. */
static uint64_t group_key(const struct rule_session *s, uint64_t site)
{
    return iot_mix64_pair((uint64_t)(uint32_t)s->pid, *s->stack ? site : (uintptr_t)s->path);
}

static int same_group(const struct mt_group *g, const struct rule_session *s, uint64_t site)
{
    /* site is 0 for no stack only */
    return !g->call && g->first.pid == s->pid && g->site == site &&
           (site || g->first.path == s->path);
}

/* The group of s (a session group when call is NULL), made when new; NULL
   out of memory. */
static struct mt_group *group_of(struct main_thread_state *st, uint64_t key, uint64_t site,
                                 const struct rule_session *s, const char *call)
{
    void *v;

    /* a colliding key is passed over to key + 1, as far as need be */
    for (; (v = hmap_get(&st->idx, key)); key++) {
        struct mt_group *g = &st->g[(uintptr_t)v - 1];

        if (call ? g->call == call && g->first.pid == s->pid && g->site == site
                 : same_group(g, s, site))
            return g;
    }
    if (iot_grow(&st->g, &st->cap, st->n + 1, sizeof(*st->g)) < 0 ||
        hmap_put(&st->idx, key, (void *)(uintptr_t)(st->n + 1)) < 0)
        return NULL;
    st->g[st->n] = (struct mt_group){.first = *s, .call = call, .site = site};
    /* the issue names the session's main thread, not its busiest one */
    st->g[st->n].first.calls_threads = 0;
    return &st->g[st->n++];
}

/* Whether the thread of role (RULE_ROLE_*) is judged under the scope. */
static int in_scope(const struct rule_ctx *ctx, int role)
{
    int judged = RULE_ROLE_WAITS | RULE_ROLE_NAMED;

    if (ctx->p[P_SCOPE] == SCOPE_ALL)
        judged |= RULE_ROLE_FIRST;
    return (role & judged) != 0;
}

static void main_thread_check(void *state, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    struct main_thread_state *st = state;
    struct mt_group *g;
    int bits = 0, role;
    uint64_t site;

    if (!s->main_ops || !RULE_HAS(struct rule_session, s, main_model_once_ns))
        return;
    role = rule_thread_role(ctx, s->pid, s->main_tid);
    if (!in_scope(ctx, role))
        return;
    if (s->main_model_once_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE]))
        bits |= 1;
    if (s->main_model_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL]))
        bits |= 2;
    if (!bits)
        return;
    site = rule_stack_site(ctx, s->stack);
    if (!(g = group_of(st, group_key(s, site), site, s, NULL)))
        return;
    g->bits |= bits;
    g->role |= role;
    g->sessions++;
    g->cost_ns += s->main_cost_ns;
    g->model_ns += s->main_model_ns;
    g->ops += s->main_ops;
    if (s->main_model_once_ns > g->model_once_ns)
        g->model_once_ns = s->main_model_once_ns;
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
    uint64_t site;
    struct mt_group *g;
    int role;

    if (!RULE_HAS(struct rule_path_call, c, model_ns) ||
        !in_scope(ctx, role = rule_thread_role(ctx, c->pid, c->tid)))
        return;
    site = rule_stack_site(ctx, c->stack);
    if (!(g = group_of(st, iot_mix64_pair((uint64_t)(uint32_t)c->pid,
                                          site ? site : (uintptr_t)c->op) ^ 1,
                       site, &s, c->op)))
        return;
    /* the measured figures, evidence only */
    g->cur_cont = g->sessions && c->t - g->last_end < ctx->gap_ns ? g->cur_cont + c->dur : c->dur;
    g->last_end = c->t + c->dur;
    if (c->dur > g->max_once_ns)
        g->max_once_ns = c->dur;
    if (g->cur_cont > g->max_continual_ns)
        g->max_continual_ns = g->cur_cont;
    g->cost_ns += c->dur;
    /* what judges: the modelled cost */
    g->role |= role;
    g->sessions++;
    g->ops++;
    g->model_ns += c->model_ns;
    if (c->model_ns > g->model_once_ns)
        g->model_once_ns = c->model_ns;
    if (c->model_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE])) {
        g->bits |= 1;
        g->slow++;
        g->last_unix_ms = c->unix_ms;
    }
    if (g->model_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL]) && !(g->bits & 2)) {
        g->bits |= 2;
        g->last_unix_ms = c->unix_ms;
    }
}

/* What the thread is to the others, for the messages. */
static const char *role_name(int role)
{
    return (role & RULE_ROLE_WAITS) ? "event loop"
           : (role & RULE_ROLE_NAMED) ? "main thread"
                                      : "first thread";
}

/* The measured evidence, " (measured here: 13.9 ms)", or "" without durations. */
static void measured(char *buf, size_t cap, const struct rule_ctx *ctx, int64_t ns)
{
    if (ctx->timing)
        snprintf(buf, cap, "; measured here: %.1f ms", RULE_MS(ns));
    else
        buf[0] = 0;
}

/* The message of a call group (g->call set) into msg. */
static void call_message(char *msg, size_t cap, const struct mt_group *g, const struct rule_ctx *ctx)
{
    char ev[80];

    if (g->bits & 2) {
        measured(ev, sizeof(ev), ctx, g->cost_ns);
        snprintf(msg, cap,
                 "the %s of %s made %llu %s calls from here, modelled at %.1f ms together "
                 "(limit %g ms%s); move the %s to a worker thread", role_name(g->role),
                 g->first.process, (unsigned long long)g->ops, g->call, RULE_MS(g->model_ns),
                 ctx->p[P_MAX_CONTINUAL], ev, g->call);
    } else {
        measured(ev, sizeof(ev), ctx, g->max_once_ns);
        snprintf(msg, cap,
                 "the %s of %s waits for storage in %s calls from here: %llu of %llu calls "
                 "modelled over %g ms (%.1f ms each at most%s); move the %s to a worker thread",
                 role_name(g->role), g->first.process, g->call, (unsigned long long)g->slow,
                 (unsigned long long)g->ops, ctx->p[P_MAX_ONCE], RULE_MS(g->model_once_ns), ev,
                 g->call);
    }
}

static void main_thread_report(void *state, const struct rule_ctx *ctx)
{
    struct main_thread_state *st = state;
    char msg[440], where[160], ev[80];

    for (size_t i = 0; i < st->n; i++) {
        struct mt_group *g = &st->g[i];
        int threads = rule_proc_threads(ctx, g->first.pid);

        /* "move it to a worker thread" means something only where there
           are threads: an event loop of a single-threaded process (each of
           a multi-process server's workers and helpers: postgres's
           backends, checkpointer, postmaster) is judged with scope "all"
           only. A process's thread count is final at the end of the run. */
        if (!g->bits || (ctx->p[P_SCOPE] != SCOPE_ALL && threads < 2))
            continue;
        /* the figures are the group's main-thread calls */
        g->first.op = g->ops;
        g->first.cost_ns = g->cost_ns;
        if (g->call) {
            call_message(msg, sizeof(msg), g, ctx);
            struct rule_detail *figures = rule_detail_new(ctx);

            rule_detail_string(figures, "call", g->call);
            rule_detail_int(figures, "max_once_us", (int64_t)(g->max_once_ns / 1000));
            rule_detail_int(figures, "max_continual_us", (int64_t)(g->max_continual_ns / 1000));
            rule_detail_int(figures, "calls", (int64_t)g->ops);
            rule_detail_int(figures, "slow_calls", (int64_t)g->slow);
            rule_detail_int(figures, "main_thread_cost_us", (int64_t)(g->cost_ns / 1000));
            rule_detail_int(figures, "model_us", (int64_t)(g->model_ns / 1000));
            rule_detail_int(figures, "main_tid", (int)g->first.main_tid);
            rule_detail_int(figures, "process_threads", threads);
            rule_detail_string(figures, "thread_role", role_name(g->role));
            rule_report(ctx, &(struct rule_report){
                .s = &g->first, .repeat = g->bits, .time_unix_ms = g->last_unix_ms,
                .message = msg, .time_ns = g->cost_ns, .model_ns = g->model_ns,
                .fields = figures});
            continue;
        }
        if (g->sessions > 1)
            snprintf(where, sizeof(where), ", the worst of %llu files opened here",
                     (unsigned long long)g->sessions);
        else
            where[0] = 0;
        if (g->bits & 2) {
            measured(ev, sizeof(ev), ctx, g->max_continual_ns);
            snprintf(msg, sizeof(msg),
                     "the %s of %s made %llu calls on this file, modelled at %.1f ms together "
                     "(limit %g ms%s)%s; move the I/O to a worker thread", role_name(g->role),
                     g->first.process, (unsigned long long)g->ops, RULE_MS(g->model_ns),
                     ctx->p[P_MAX_CONTINUAL], ev, where);
        } else {
            measured(ev, sizeof(ev), ctx, g->max_once_ns);
            snprintf(msg, sizeof(msg),
                     "one call on the %s of %s is modelled at %.1f ms (limit %g ms%s)%s; "
                     "move the I/O to a worker thread", role_name(g->role), g->first.process,
                     RULE_MS(g->model_once_ns), ctx->p[P_MAX_ONCE], ev, where);
        }
        struct rule_detail *figures = rule_detail_new(ctx);

        rule_detail_int(figures, "max_once_us", (int64_t)(g->max_once_ns / 1000));
        rule_detail_int(figures, "max_continual_us", (int64_t)(g->max_continual_ns / 1000));
        rule_detail_int(figures, "main_thread_ops", (int64_t)g->ops);
        rule_detail_int(figures, "main_thread_cost_us", (int64_t)(g->cost_ns / 1000));
        rule_detail_int(figures, "model_us", (int64_t)(g->model_ns / 1000));
        rule_detail_int(figures, "main_tid", (int)g->first.main_tid);
        rule_detail_int(figures, "sessions", (int64_t)g->sessions);
        rule_detail_int(figures, "process_threads", threads);
        rule_detail_string(figures, "thread_role", role_name(g->role));
        rule_report(ctx, &(struct rule_report){
            .s = &g->first, .repeat = g->bits, .time_unix_ms = g->last_unix_ms, .message = msg,
            .time_ns = g->cost_ns, .model_ns = g->model_ns,
            .fields = figures});
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
    .summary = "costly file I/O on a thread others wait on (an event loop, a UI thread)",
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
