/*
 * leak (type 4): files still open when their process exited normally (a
 * signal death is not a leak: the program never got to close them).
 * Sessions are grouped per process by open stack, or by path when there is
 * no stack; a group of at least min_count sessions is one issue whose
 * "repeat" is the number leaked. Inherited descriptors are the opener's
 * business: only the process that opened a file can leak it.
 *
 * What is not a leak: fds 0-2 (the engine never marks them: a process's
 * own output, closed by its exit), a directory held to exit (a program's
 * working directory handle, rsync's and find's dir fds), and, by the
 * default min_count of 2, a one-off handle held for the life of the
 * process: a shell's script fd (bash holds its script open at fd 255 until
 * it exits), `exec 3>>log`, a database or lock file kept open by design.
 * Those are one per open site; a leak worth fixing repeats (a plugin
 * loader that forgets to close, 8 times). On the corpus of
 * tests/e2e/test_precision.sh, min_count 1 reported 2 one-offs in a bash
 * run and none there that a person would change; 2 keeps every repeated
 * one. Set min_count to 1 to see the one-offs too.
 *
 * Without a stack (strace logs, traces recorded with --no-stacks) the open
 * site is unknown and each path is its own group: min_count is then held
 * against all the process's leaks of unknown site, so a loader that leaks
 * 8 manifests of 8 names is still reported (8 issues), and a process that
 * leaked one file is not.
 */
#include <stdio.h>
#include <stdlib.h>

#include "grow.h"
#include "hmap.h"
#include "rule.h"

enum { P_MIN_COUNT };

static const struct rule_param leak_params[] = {
    [P_MIN_COUNT] = {"min_count", RULE_P_INT, 2,
                     "report a group of leaked sessions of at least this many"},
};

struct leak_group {
    struct rule_session first;   /* strings are interned: safe to keep */
    const char *key;
    int64_t count;
    int64_t last_unix_ms;
};

struct leak_state {
    struct leak_group *g;
    size_t n, cap;
};

static void leak_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct leak_state *st = state;
    const char *key = s->stack && *s->stack ? s->stack : s->path;
    size_t i;

    (void)ctx;
    if (!s->leaked || s->directory)
        return;
    /* Leaks of one process arrive together at its exit: search from the end. */
    for (i = st->n; i-- > 0;) {
        if (st->g[i].first.pid != s->pid)
            break;
        if (st->g[i].key == key) {
            st->g[i].count++;
            if (s->end_unix_ms > st->g[i].last_unix_ms)
                st->g[i].last_unix_ms = s->end_unix_ms;
            return;
        }
    }
    if (iot_grow(&st->g, &st->cap, st->n + 1, sizeof(*st->g)) < 0)
        return;
    st->g[st->n++] = (struct leak_group){*s, key, 1, s->end_unix_ms};
}

/* What min_count is held against: the group's count, or without a stack
   all the process's leaks of unknown site (unsited: pid -> that sum, kept
   once for all groups, since a scan per group would be quadratic in processes). */
static int64_t leak_site_count(const struct hmap *unsited, const struct leak_group *g)
{
    if (g->first.stack && *g->first.stack)
        return g->count;
    return (int64_t)(uintptr_t)hmap_get(unsited, (uint64_t)(uint32_t)g->first.pid);
}

static void leak_report(void *state, const struct rule_ctx *ctx)
{
    struct leak_state *st = state;
    struct hmap unsited = HMAP_INIT;
    char msg[400];

    for (size_t i = 0; i < st->n; i++) {
        const struct leak_group *g = &st->g[i];
        uint64_t pid = (uint64_t)(uint32_t)g->first.pid;

        /* out of memory: that group's leaks are counted without the others' */
        if (!(g->first.stack && *g->first.stack))
            hmap_put(&unsited, pid, (void *)((uintptr_t)hmap_get(&unsited, pid) + (uintptr_t)g->count));
    }
    for (size_t i = 0; i < st->n; i++) {
        struct leak_group *g = &st->g[i];

        if (g->count < (int64_t)ctx->p[P_MIN_COUNT] &&
            leak_site_count(&unsited, g) < (int64_t)ctx->p[P_MIN_COUNT])
            continue;
        if (g->count == 1)
            snprintf(msg, sizeof(msg),
                     "this file was opened and never closed before process %s exited; "
                     "close it when done (fclose/close)", g->first.process);
        else
            snprintf(msg, sizeof(msg),
                     "%lld files opened here were never closed before process %s exited; "
                     "close each when done (fclose/close)", (long long)g->count, g->first.process);
        rule_report(ctx, &(struct rule_report){
            .s = &g->first, .repeat = g->count, .time_unix_ms = g->last_unix_ms,
            .message = msg,
            .detail = json_pack("{s:s,s:I,s:s}",
                                "layer", g->first.layer == RULE_LAYER_STDIO ? "stdio" : "syscall",
                                "leaked", (json_int_t)g->count,
                                "grouped_by", g->first.stack && *g->first.stack ? "stack" : "path")});
    }
    hmap_release(&unsited);
}

static void leak_fini(void *state)
{
    free(((struct leak_state *)state)->g);
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
    .fix = "Close the file on every path (one exit label, `goto out`), or read what you "
           "need and close it at once.",
};
