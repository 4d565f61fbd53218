/*
 * repeat_read (type 3): the same file read whole again and again, Matrix's
 * algorithm judged by the work done. Per path a list of read records
 * {thread, stack, file size, requested bytes, count, clock pushed}, where
 * the clock is the process's modelled I/O cost so far (the cost model,
 * docs/analyzer.md), which a loaded machine does not stretch:
 *  1. a path not seen before is observed only if this session's modelled
 *     cost reached min_continual_ms (0 by default: every file; a directory,
 *     which holds no data to read again, never);
 *  2. a session whose first op is a write clears the list (the file changed);
 *  3. an empty list gets the record and stops;
 *  4. if the newest record was pushed more than window_ms of modelled I/O
 *     ago, the list is cleared;
 *  5. an equal record (thread, stack, file size, bytes, where the reads
 *     started) counts one more,
 *     otherwise the record is pushed;
 *  6. a count >= threshold is reported with "repeat" = count.
 * A record reported at the threshold goes on counting: it is reported once,
 * when its list is cleared or the run ends, with its final count (Matrix
 * reports every read past the threshold, which made "5 times" of a run of
 * 46 and 42 occurrences of one issue). Each such run is one occurrence.
 * Memory: bounded by distinct paths and the records inside one window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "rule.h"

enum { P_THRESHOLD, P_WINDOW, P_MIN_CONTINUAL };

static const struct rule_param repeat_read_params[] = {
    [P_THRESHOLD]      = {"threshold", RULE_P_INT, 5,
                          "report when the same read is repeated this many times"},
    [P_WINDOW]         = {"window_ms", RULE_P_DOUBLE, 17,
                          "forget a file's reads after this much modelled I/O of its process"},
    [P_MIN_CONTINUAL]  = {"min_continual_ms", RULE_P_DOUBLE, 0,
                          "start watching a file only after a session modelled this costly"},
};

struct rr_rec {
    int32_t tid;
    const char *stack;
    int64_t file_size, op_size;
    int64_t from;                /* where the reads started (read_from), -1 unknown */
    int64_t count;
    int64_t pushed_t;
    int64_t bytes;               /* bytes the last counted session read */
    int held;                    /* reached the threshold: last is to be reported */
    int64_t cost_ns;             /* the counted sessions' read time (measured) */
    int64_t model_ns;            /* ... and their modelled cost */
    struct rule_session last;    /* the newest counted session (strings interned) */
};

struct rr_path {
    const char *path;            /* interned: compared by pointer */
    struct rr_rec *recs;
    size_t n, cap;
    struct hmap idx;             /* rec_key() -> index in recs + 1: thousands of
                                    readers in one window are not scanned */
};

struct repeat_read_state {
    struct rr_path *paths;       /* dense, in the order first watched */
    size_t n, cap;
    struct hmap by_path;         /* path pointer -> index in paths + 1 */
};

/* The path's entry; NULL when absent and !create (or out of memory). */
static struct rr_path *rr_lookup(struct repeat_read_state *st, const char *path, int create)
{
    void *v = hmap_get(&st->by_path, hmap_ptr_key(path));
    struct rr_path *p;

    if (v)
        return &st->paths[(uintptr_t)v - 1];
    if (!create ||
        (st->n == st->cap && iot_grow(&st->paths, &st->cap, st->n + 1, sizeof(*st->paths)) < 0) ||
        hmap_put(&st->by_path, hmap_ptr_key(path), (void *)(uintptr_t)(st->n + 1)) < 0)
        return NULL;
    p = &st->paths[st->n++];
    *p = (struct rr_path){.path = path, .idx = HMAP_INIT};
    return p;
}

static void rr_report(const struct rule_ctx *ctx, struct rr_rec *r)
{
    char msg[400];
    const char *fix = NULL;   /* the rule's: read the whole file once */

    if (!r->held)
        return;
    r->held = 0;
    /*
     * opSize is Matrix's, the bytes asked for; the message says what came
     * back, per pass. A pass that read less than the file (a header, an
     * index, the first 256 KiB of a large file) is named by its own size:
     * the file's size would overstate what was read again.
     */
    if (r->last.file_size >= 0 && r->bytes < r->last.file_size) {
        snprintf(msg, sizeof(msg),
                 "the same %lld bytes of this %lld-byte file were read %lld times in a row by "
                 "one thread from the same code (%lld bytes per pass: %llu reads asking for "
                 "%lld bytes); keep what the first pass read", (long long)r->bytes,
                 (long long)r->last.file_size, (long long)r->count, (long long)r->bytes,
                 (unsigned long long)r->last.op, (long long)r->last.op_size);
        fix = "Keep the part read on the first pass (a parsed header or index) in memory, "
              "or map the file, instead of reading it again on every pass.";
    } else if (r->last.file_size >= 0)
        snprintf(msg, sizeof(msg),
                 "this %lld-byte file was read %lld times in a row by one thread from the same "
                 "code (each time %llu reads asking for %lld bytes got %lld); read it once and "
                 "keep the contents", (long long)r->last.file_size, (long long)r->count,
                 (unsigned long long)r->last.op, (long long)r->last.op_size, (long long)r->bytes);
    else
        snprintf(msg, sizeof(msg),
                 "this file was read %lld times in a row by one thread from the same code "
                 "(each time %llu reads asking for %lld bytes got %lld); read it once and keep "
                 "the contents", (long long)r->count, (unsigned long long)r->last.op,
                 (long long)r->last.op_size, (long long)r->bytes);
    /* the cost: every read but the first, which the work needed */
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "layer", r->last.layer == RULE_LAYER_STDIO ? "stdio" : "syscall");
    rule_detail_int(figures, "repeat_count", (int64_t)r->count);
    rule_detail_int(figures, "bytes_per_read", (int64_t)r->bytes);
    rule_detail_double(figures, "window_ms", ctx->p[P_WINDOW]);
    rule_report(ctx, &(struct rule_report){
        .s = &r->last, .repeat = r->count, .message = msg, .fix = fix,
        .stack = RULE_SITE(&r->last, read_stack),       /* where the re-reads are made */
        .time_ns = r->cost_ns / r->count * (r->count - 1),
        .model_ns = r->model_ns / r->count * (r->count - 1),
        .excess_bytes = r->bytes * (r->count - 1),
        .fields = figures});
}

/* The path's records go (the window passed, the file was written). */
static void rr_clear(const struct rule_ctx *ctx, struct rr_path *p)
{
    for (size_t i = 0; i < p->n; i++)
        rr_report(ctx, &p->recs[i]);
    p->n = 0;
    hmap_release(&p->idx);
}

/* What tells a path's records apart: thread, stack, sizes and where the
   reads started (a 334-byte read of one blob is not the same read as one
   of another blob elsewhere in the pack). Hashes of them may collide: a
   record is told by its fields. */
static uint64_t rec_key(const struct rr_rec *r)
{
    uint64_t k = iot_mix64_pair((uint64_t)(uint32_t)r->tid, (uint64_t)(uintptr_t)r->stack);

    k = iot_mix64_pair(k ^ (uint64_t)r->file_size, (uint64_t)r->op_size);
    return iot_mix64_pair(k, (uint64_t)r->from);
}

static int rec_same(const struct rr_rec *r, const struct rr_rec *x)
{
    return r->tid == x->tid && r->stack == x->stack && r->file_size == x->file_size &&
           r->op_size == x->op_size && r->from == x->from;
}

static void repeat_read_check(void *state, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    struct repeat_read_state *st = state;
    struct rr_path *p = rr_lookup(st, s->path, 0);
    int modelled = RULE_HAS(struct rule_session, s, model_clock_ns);
    struct rr_rec rec = {s->tid, s->stack, s->file_size, s->op_size,
                         RULE_HAS(struct rule_session, s, read_from) ? s->read_from : -1, 1,
                         modelled ? s->model_clock_ns : 0, s->read_bytes, 0, s->cost_ns,
                         modelled ? s->model_ns : 0, {0}}, *found = NULL;
    uint64_t key;
    void *v;

    /* a directory's listing is no read of the file again, and a session
       that read nothing read nothing again */
    if (s->directory || (!s->reads && s->op_type != RULE_OP_WRITE))
        return;
    if (!p) {
        if (rec.model_ns < RULE_NS_FROM_MS(ctx->p[P_MIN_CONTINUAL]))
            return;
        p = rr_lookup(st, s->path, 1);
        if (!p)
            return;
    }
    if (s->op_type == RULE_OP_WRITE) {
        rr_clear(ctx, p);
        return;
    }
    if (p->n && rec.pushed_t - p->recs[p->n - 1].pushed_t > RULE_NS_FROM_MS(ctx->p[P_WINDOW]))
        rr_clear(ctx, p);
    /* a colliding key is passed over to key + 1, as far as need be */
    for (key = rec_key(&rec); (v = hmap_get(&p->idx, key)); key++)
        if (rec_same(&p->recs[(uintptr_t)v - 1], &rec)) {
            found = &p->recs[(uintptr_t)v - 1];
            break;
        }
    if (!found) {
        if (p->n == p->cap && iot_grow(&p->recs, &p->cap, p->n + 1, sizeof(*p->recs)) < 0)
            return;
        if (hmap_put(&p->idx, key, (void *)(uintptr_t)(p->n + 1)) < 0)
            return;
        p->recs[p->n++] = rec;
        return;
    }
    found->count++;
    found->bytes = s->read_bytes;
    found->cost_ns += s->cost_ns;
    found->model_ns += rec.model_ns;
    if (found->count < (int64_t)ctx->p[P_THRESHOLD])
        return;
    found->held = 1;
    found->last = *s;
}

static void repeat_read_end(void *state, const struct rule_ctx *ctx)
{
    struct repeat_read_state *st = state;

    for (size_t i = 0; i < st->n; i++)
        rr_clear(ctx, &st->paths[i]);
}

static void repeat_read_fini(void *state)
{
    struct repeat_read_state *st = state;

    for (size_t i = 0; i < st->n; i++) {
        free(st->paths[i].recs);
        hmap_release(&st->paths[i].idx);
    }
    free(st->paths);
    hmap_release(&st->by_path);
}

const struct rule rule_repeat_read = {
    RULE_ABI_HEADER,
    .name = "repeat_read",
    .type = 3,
    .summary = "the same file read whole, repeatedly, by the same code",
    .params = repeat_read_params,
    .nparams = sizeof(repeat_read_params) / sizeof(repeat_read_params[0]),
    .state_size = sizeof(struct repeat_read_state),
    .on_session = repeat_read_check,
    .on_end = repeat_read_end,
    .fini = repeat_read_fini,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Read the file once and keep its contents; invalidate the copy when the "
           "file's mtime changes if it can change.",
};
