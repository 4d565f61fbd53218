/*
 * leak (type 4): files a process left open behind it, found among those
 * still open when it exited normally (a signal death is not a leak: the
 * program never got to close them). Inherited descriptors are the
 * opener's business: only the process that opened a file can leak it;
 * fds 0-2 (the engine never marks them) and directories never are.
 *
 * Holding files until exit is not in itself a leak. PostgreSQL's backends
 * keep every relation file they touched open until they exit (a bounded
 * descriptor cache, closed by the kernel at exit), a logger keeps its log,
 * a shell its script: a set that stops growing once the program has what
 * it needs. A leak is a handle the program lost track of, in one of two
 * shapes, judged per process and open site (its stack, or with no stack
 * every handle of the process, as one site):
 *
 *  - reopened: the site opened a file again while it still held an earlier
 *    handle to the same file. A cache would have used the one it held.
 *  - abandoned in a loop: at least min_count handles, each one left unused
 *    once the site opened the next (its last read or write came before the
 *    next open), opened on and on: the site's opens span at least
 *    spread_pct of the process's history from its first open to its last
 *    call on a file (its exit itself does not count). History is counted
 *    in the process's calls (struct rule_session's *_seq), which a loaded
 *    machine or a sanitizer build does not stretch as they do the gaps
 *    between calls; from an ioanalyze without them, in time. A loader
 *    that opens 8 manifests, reads each once and forgets them is one; the
 *    same opens made in a burst at start-up, then held while the process
 *    works on, are a set that stopped growing (PostgreSQL's catalogs: the
 *    widest such span in a pgbench run was 27% over 3 handles). A site
 *    whose handles the program closes (its innermost SITE_FRAMES frames the
 *    same, in this process or in another running the same executable)
 *    manages them: what a process still holds from it at exit is its
 *    working set, not a loop that forgot to close. The code that opens is
 *    the same in every process of a program, and so is its policy: a
 *    descriptor cache closes by its own rule (its size, the end of a
 *    transaction), not at every use. PostgreSQL's checkpointer opens,
 *    writes and syncs each relation file at its shutdown checkpoint and
 *    exits holding them (16 to 46, one after the other, right before the
 *    exit) through the fd cache (fd.c's virtual file descriptors) that the
 *    backends of the same run close from the same three frames (27 in a
 *    pgbench run), as the checkpointer closed 44 at a checkpoint before.
 *
 * One issue per process, site and shape; its repeat is the handles held.
 * With min_count 1 every handle held at exit is reported, at a site that
 * closes handles too (bash's `exec 3>>log` beside its `>> log` redirections).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "rule.h"

/* How many of a stack's innermost frames name the code that opens. */
#define SITE_FRAMES 3

enum { P_MIN_COUNT, P_SPREAD_PCT };

static const struct rule_param leak_params[] = {
    [P_MIN_COUNT] = {"min_count", RULE_P_INT, 3,
                     "report handles abandoned in a loop from this many (one site, one process)"},
    [P_SPREAD_PCT] = {"spread_pct", RULE_P_INT, 50,
                      "... when the site's opens span at least this share of the time to its last call"},
};

/* A handle held at exit: what the judgement needs of its session, its
   places in its process's history (place_of). */
struct leak_handle {
    const char *path;        /* interned: equal files have equal pointers */
    int64_t open_at, used_at;
};

/* One of a group's stacks: how many of its handles carried it, the first opened when. */
struct leak_stack {
    const char *stack;
    size_t n;
    int64_t open_at;
};

/* The stacks a group tells apart; a site that shows more (a JIT's tiers) shows one of these. */
#define LEAK_STACKS 16

struct leak_group {
    struct rule_session first;   /* the first handle held (strings are interned) */
    const char *key;             /* stack, or NULL: the process's handles of no stack */
    uint64_t site;               /* rule_stack_site() of key: the group's, 0 with no stack */
    struct leak_stack stacks[LEAK_STACKS];
    size_t nstacks;
    struct leak_handle *h;
    size_t n, cap;
    int64_t last_unix_ms;
};

struct leak_state {
    struct leak_group *g;
    size_t n, cap;
    struct hmap closed;          /* site_key() -> handles the program closed from the site */
    struct hmap active;          /* pid -> the place of its last call on a file */
};

/* Where in its process's history s was opened, last used and closed: its
   calls when the engine counts them, else its times. */
struct leak_places {
    int64_t open_at, used_at, end_at;
};

static struct leak_places place_of(const struct rule_session *s)
{
    int64_t used = RULE_HAS(struct rule_session, s, last_data_t) ? s->last_data_t : s->open_t;

    if (RULE_HAS(struct rule_session, s, end_seq))
        return (struct leak_places){(int64_t)s->open_seq, (int64_t)s->last_data_seq,
                                    (int64_t)s->end_seq};
    return (struct leak_places){s->open_t, used, s->end_t};
}

/* The process's last call on a file so far: an open, a read or write, a close. */
static void note_active(struct leak_state *st, const struct rule_session *s)
{
    uint64_t pid = (uint64_t)(uint32_t)s->pid;
    struct leak_places at = place_of(s);
    int64_t t = s->end == RULE_END_CLOSE ? at.end_at : at.open_at;
    int64_t seen = (int64_t)(uintptr_t)hmap_get(&st->active, pid);

    if (at.used_at > t)
        t = at.used_at;
    if (t > seen)   /* out of memory: the group's own last open stands in */
        hmap_put(&st->active, pid, (void *)(uintptr_t)t);
}

/* The program a session's process runs: its executable, else its name. */
static const char *program_of(const struct rule_session *s)
{
    if (RULE_HAS(struct rule_session, s, exe) && s->exe && *s->exe)
        return s->exe;
    return s->process ? s->process : "";
}

/* A program's open site: its executable and its stack's SITE_FRAMES
   innermost frames (the same code in each of its processes). */
static uint64_t site_key(const struct rule_session *s, const char *stack)
{
    const char *prog = program_of(s);
    size_t n = 0;

    for (int frames = 0; stack[n] && frames < SITE_FRAMES; n++)
        frames += stack[n] == '\n';
    return iot_fnv64_add(iot_fnv64_add(IOT_FNV64_INIT, prog, strlen(prog) + 1), stack, n);
}

/* Counts a handle of g opened at open_at from stack. */
static void note_stack(struct leak_group *g, const char *stack, int64_t open_at)
{
    size_t i = 0;

    while (i < g->nstacks && g->stacks[i].stack != stack)
        i++;
    if (i == g->nstacks) {
        if (i == LEAK_STACKS)
            return;
        g->stacks[g->nstacks++] = (struct leak_stack){stack, 0, open_at};
    }
    g->stacks[i].n++;
    if (open_at < g->stacks[i].open_at)
        g->stacks[i].open_at = open_at;
}

/* The stack g's issue shows: the one most of its handles carried (a
   JIT's warm code, not the interpreter's first calls), the first opened
   of those. */
static const char *shown_stack(const struct leak_group *g)
{
    const struct leak_stack *best = NULL;

    for (size_t i = 0; i < g->nstacks; i++) {
        const struct leak_stack *k = &g->stacks[i];

        if (!best || k->n > best->n || (k->n == best->n && k->open_at < best->open_at))
            best = k;
    }
    return best ? best->stack : g->first.stack;
}

static void leak_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct leak_state *st = state;
    const char *key = s->stack && *s->stack ? s->stack : NULL;
    struct leak_group *g = NULL;
    uint64_t site;
    size_t i;

    if (s->open_t >= 0)
        note_active(st, s);
    if (s->directory)
        return;
    if (!s->leaked) {
        if (s->end == RULE_END_CLOSE && key) {
            uint64_t k = site_key(s, key);

            /* out of memory: the site is judged as if it closed nothing */
            hmap_put(&st->closed, k, (void *)((uintptr_t)hmap_get(&st->closed, k) + 1));
        }
        return;
    }
    /* Leaks of one process arrive together at its exit: search from the
       end. Stacks of one site are one group: a JIT runtime's frames for
       the same code move as the run warms up (rule_stack_site). */
    site = rule_stack_site(ctx, key);
    for (i = st->n; i-- > 0;) {
        if (st->g[i].first.pid != s->pid)
            break;
        if (st->g[i].site == site) {   /* 0: no stack, and only then */
            g = &st->g[i];
            break;
        }
    }
    if (!g) {
        if (iot_grow(&st->g, &st->cap, st->n + 1, sizeof(*st->g)) < 0)
            return;
        g = &st->g[st->n++];
        *g = (struct leak_group){.first = *s, .key = key, .site = site};
    }
    if (iot_grow(&g->h, &g->cap, g->n + 1, sizeof(*g->h)) < 0)
        return;
    {
        struct leak_places at = place_of(s);

        g->h[g->n++] = (struct leak_handle){s->path, at.open_at, at.used_at};
        if (key)
            note_stack(g, key, at.open_at);
    }
    if (s->open_t < g->first.open_t) {
        g->first = *s;
        g->key = key;
    }
    if (s->end_unix_ms > g->last_unix_ms)
        g->last_unix_ms = s->end_unix_ms;
}

static int by_open_at(const void *a, const void *b)
{
    const struct leak_handle *x = a, *y = b;

    if (x->open_at != y->open_at)
        return x->open_at < y->open_at ? -1 : 1;
    return (x->path > y->path) - (x->path < y->path);
}

/* How many handles of g (sorted by open) are to a file g held already. */
static size_t leak_reopened(const struct leak_group *g)
{
    struct hmap seen = HMAP_INIT;
    size_t again = 0;

    for (size_t i = 0; i < g->n; i++) {
        uint64_t k = (uint64_t)(uintptr_t)g->h[i].path;

        if (hmap_get(&seen, k))
            again++;
        else
            hmap_put(&seen, k, (void *)1);   /* out of memory: counted as new */
    }
    hmap_release(&seen);
    return again;
}

/* The share (percent) of its process's history, from the first open to
   its last call on a file, that g's opens (sorted) spanned: 100 for one. */
static double leak_spread(const struct leak_state *st, const struct leak_group *g)
{
    int64_t span = g->h[g->n - 1].open_at - g->h[0].open_at;
    int64_t last = (int64_t)(uintptr_t)hmap_get(&st->active, (uint64_t)(uint32_t)g->first.pid);
    int64_t life = (last > g->h[g->n - 1].used_at ? last : g->h[g->n - 1].used_at) -
                   g->h[0].open_at;

    if (g->n == 1)
        return 100;
    return life > 0 ? (double)span * 100 / (double)life : 0;
}

/* Whether each handle of g (sorted by open) was left unused once the next
   was opened, and the opens went on for spread_pct of the process's
   history to its last call on a file. */
static int leak_abandoned(const struct leak_state *st, const struct leak_group *g,
                          const struct rule_ctx *ctx)
{
    if ((double)g->n < ctx->p[P_MIN_COUNT])
        return 0;
    for (size_t i = 0; i + 1 < g->n; i++)
        if (g->h[i].used_at > g->h[i + 1].open_at)
            return 0;
    return leak_spread(st, g) >= ctx->p[P_SPREAD_PCT];
}

static void leak_report(void *state, const struct rule_ctx *ctx)
{
    struct leak_state *st = state;
    char msg[400];

    for (size_t i = 0; i < st->n; i++) {
        struct leak_group *g = &st->g[i];
        struct rule_session shown;
        size_t again;
        const char *shape;
        struct rule_detail *detail;

        qsort(g->h, g->n, sizeof(*g->h), by_open_at);
        again = leak_reopened(g);
        if (again) {
            shape = "reopened";
            snprintf(msg, sizeof(msg),
                     "%zu file%s opened here again while an earlier handle to %s was still open "
                     "(%zu handles held when process %s exited); use the handle you hold, or "
                     "close it before opening again", again, again == 1 ? " was" : "s were",
                     again == 1 ? "it" : "each", g->n, g->first.process);
        } else if (!(ctx->p[P_MIN_COUNT] > 1 && g->key &&
                     hmap_get(&st->closed, site_key(&g->first, g->key))) &&
                   leak_abandoned(st, g, ctx)) {
            shape = "abandoned";
            if (g->n == 1)
                snprintf(msg, sizeof(msg),
                         "this file was opened and never closed before process %s exited; "
                         "close it when done (fclose/close)", g->first.process);
            else
                snprintf(msg, sizeof(msg),
                         "%zu files opened here were each left open once the next was opened, "
                         "until process %s exited; close each when done (fclose/close)",
                         g->n, g->first.process);
        } else {
            continue;
        }
        detail = rule_detail_new(ctx);
        rule_detail_string(detail, "layer",
                           g->first.layer == RULE_LAYER_STDIO ? "stdio" : "syscall");
        rule_detail_int(detail, "leaked", (int64_t)g->n);
        rule_detail_string(detail, "grouped_by", g->key ? "stack" : "process");
        rule_detail_string(detail, "shape", shape);
        /* what the abandoned shape was judged on, for a CI gate's margin */
        if (strcmp(shape, "abandoned") == 0 && g->n > 1) {
            rule_detail_int(detail, "spread_pct", (int64_t)leak_spread(st, g));
            /* the unit place_of counted the group's places in */
            rule_detail_string(detail, "spread_in",
                               RULE_HAS(struct rule_session, &g->first, end_seq) ? "calls"
                                                                                 : "time");
        }
        shown = g->first;
        shown.stack = g->key ? shown_stack(g) : g->first.stack;
        rule_report(ctx, &(struct rule_report){
            .s = &shown, .repeat = (int64_t)g->n, .time_unix_ms = g->last_unix_ms,
            .message = msg, .time_ns = RULE_NO_TIME, .handles = (int64_t)g->n,
            .fields = detail});
    }
}

static void leak_fini(void *state)
{
    struct leak_state *st = state;

    for (size_t i = 0; i < st->n; i++)
        free(st->g[i].h);
    free(st->g);
    hmap_release(&st->closed);
    hmap_release(&st->active);
}

const struct rule rule_leak = {
    RULE_ABI_HEADER,
    .name = "leak",
    .type = 4,
    .summary = "files still open when their process exited",
    .params = leak_params,
    .nparams = sizeof(leak_params) / sizeof(leak_params[0]),
    .state_size = sizeof(struct leak_state),
    .on_session = leak_check,
    .on_end = leak_report,
    .fini = leak_fini,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Close the file on every path (one exit label, `goto out`), or read what you "
           "need and close it at once.",
};
