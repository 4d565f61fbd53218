/*
 * random_read (type 8): a session's reads that jump elsewhere instead of
 * continuing where the previous read ended (offsets reconstructed by the
 * engine from O_APPEND, O_TRUNC, lseek results and byte counts; pread's own
 * offset). Reported at >= min_reads reads with >= min_random_ratio of them
 * scattered: seeks defeat readahead and cost a device round trip each.
 *
 * Not scattered: a jump back into the range the previous read covered. It
 * reads the same bytes again (sqlite re-reading its 100-byte header, bash's
 * `while read` reading 4 KiB and seeking back to the end of the line), and
 * "read sequentially" would be the wrong advice: redundant_read judges
 * that. Those are detail.rereads. Nor a jump forward, past where the
 * previous read ended: reads in offset order with gaps (an index scan, a
 * batch of lookups sorted as the advice says) go the way readahead and the
 * device go. Those are detail.skips; what is scattered jumps back.
 *
 * The floor: a session that read less than min_bytes is not judged. Below
 * 256 KiB (two of the kernel's default 128 KiB readahead windows) the
 * whole file costs a read or two; a linker or archiver reading the sections
 * of small object files in the order it needs them jumps by nature, and
 * nothing it could do instead would be measurably faster.
 *
 * A page store reads whole pages (every read returned the same
 * power-of-two size, at least 4 KiB) in the order its lookups ask for the
 * keys: a lookup table, a database's buffer manager on the misses of its
 * cache. "Read sequentially" is not what it can do; a cache of its hot
 * pages (or a bigger one) and the order of its lookups are. The advice
 * says so.
 */
#include <stdio.h>

#include "rule.h"

enum { P_MIN_READS, P_MIN_RATIO, P_MIN_BYTES };

static const struct rule_param random_read_params[] = {
    [P_MIN_READS] = {"min_reads", RULE_P_INT, 20, "report only with at least this many reads"},
    [P_MIN_RATIO] = {"min_random_ratio", RULE_P_DOUBLE, 0.2,
                     "... of which at least this fraction are scattered (re-reads are not)"},
    [P_MIN_BYTES] = {"min_bytes", RULE_P_INT, 262144,
                     "... and the session read at least this many bytes"},
};

#define READ_FIX "Read sequentially in large blocks (or `mmap` with `MADV_SEQUENTIAL`), " \
                 "sort batched lookups by offset, cache hot pages."
#define PAGE_FIX "Pages read one at a time as the lookups ask for them: keep the hot pages " \
                 "in a cache (or give the one there is more memory: PostgreSQL's " \
                 "`shared_buffers`, SQLite's `cache_size`), or look the keys up in sorted " \
                 "order (a batch sorted by key, a table clustered on its index) so that the " \
                 "pages come in file order."

/* Every read of s returned one whole page: the same power-of-two size, 4 KiB or more. */
static int64_t page_size_of(const struct rule_session *s)
{
    int64_t b = s->buffer;

    return b >= 4096 && (b & (b - 1)) == 0 && s->read_bytes == (int64_t)s->reads * b ? b : 0;
}

static void random_read_check(void *state, const struct rule_ctx *ctx,
                               const struct rule_session *s)
{
    char msg[400];
    double ratio;
    int64_t page;
    uint64_t scattered = s->random_reads - s->reread - s->read_skips;
    /* where the jumps are made, else where the reads are */
    const char *site = RULE_SITE(s, read_scattered_stack);

    (void)state;
    if (!site || !*site)
        site = RULE_SITE(s, read_stack);
    if (!s->reads || s->reads < (uint64_t)ctx->p[P_MIN_READS] ||
        s->read_bytes < (int64_t)ctx->p[P_MIN_BYTES])
        return;
    ratio = (double)scattered / (double)s->reads;
    if (ratio < ctx->p[P_MIN_RATIO])
        return;
    /* the cost: the session's data calls' time */
    if (rule_again_cost(ctx, &(struct rule_report){.s = s, .repeat = (int64_t)scattered,
                                                   .time_ns = s->cost_ns,
                                                   .model_ns = RULE_HAS(struct rule_session, s, model_ns) ? s->model_ns : 0}))
        return;
    page = page_size_of(s);
    if (page)
        snprintf(msg, sizeof(msg),
                 "%llu of %llu reads (%.0f%%) of whole %lld-byte pages jump back to an earlier "
                 "part of the file, in the order the lookups asked for them; a cache of the hot "
                 "pages reads them less often, lookups in key order read them in file order",
                 (unsigned long long)scattered, (unsigned long long)s->reads, ratio * 100,
                 (long long)page);
    else
        snprintf(msg, sizeof(msg),
                 "%llu of %llu reads (%.0f%%) jump back to an earlier part of the file; read "
                 "sequentially, or sort the needed ranges by offset and read them in larger "
                 "blocks",
                 (unsigned long long)scattered, (unsigned long long)s->reads, ratio * 100);
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "layer", s->layer == RULE_LAYER_STDIO ? "stdio" : "syscall");
    rule_detail_int(figures, "reads", (int64_t)s->reads);
    rule_detail_int(figures, "random_reads", (int64_t)scattered);
    rule_detail_int(figures, "rereads", (int64_t)s->reread);
    rule_detail_int(figures, "skips", (int64_t)s->read_skips);
    rule_detail_int(figures, "read_bytes", (int64_t)s->read_bytes);
    rule_detail_double(figures, "random_ratio", ratio);
    rule_report(ctx, &(struct rule_report){
        .s = s, .repeat = (int64_t)scattered, .message = msg, .time_ns = s->cost_ns,
        .model_ns = RULE_HAS(struct rule_session, s, model_ns) ? s->model_ns : 0,
        .stack = site, .fix = page ? PAGE_FIX : READ_FIX,
        .fields = figures});
}

const struct rule rule_random_read = {
    RULE_ABI_HEADER,
    .name = "random_read",
    .type = 8,
    .summary = "reads scattered over a file instead of sequential",
    .params = random_read_params,
    .nparams = sizeof(random_read_params) / sizeof(random_read_params[0]),
    .on_session = random_read_check,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = READ_FIX,
};
