/*
 * random_write (type 7): a session's writes that jump elsewhere instead of
 * continuing where the previous write ended (offsets reconstructed by the
 * engine from O_APPEND, O_TRUNC, lseek results and byte counts; pwrite's
 * own offset). Reported at >= min_writes writes with >= min_random_ratio of
 * them scattered: the pattern that hurts flash storage.
 *
 * Not scattered: a jump back into the range the previous write covered
 * (the same bytes written again: a header or counter rewritten in place).
 * That is write_amplification's business; detail.rewrites counts them.
 * Nor a jump forward, past where the previous write ended: pages written
 * in offset order with gaps (a checkpoint writing its dirty pages sorted)
 * or a log other processes append to between this one's writes (a
 * database's WAL, written by every backend that commits). detail.skips
 * counts them; what is scattered jumps back.
 *
 * The floor: a session that wrote less than min_bytes is not judged. An
 * assembler or linker writes a small object file's sections and then
 * patches its headers, jumping by nature; below 256 KiB the page cache
 * gathers the whole file before it reaches the device, so the order of
 * the writes costs nothing measurable. The same holds for the range the
 * writes cover: a session whose writes all end below min_extent (its
 * write_extent; 256 KiB) jumps within a few pages however many bytes it wrote.
 * SQLite without a transaction rewrites page 1 (the header's change
 * counter) and the table's page at each commit, 400 writes of 4 KiB over
 * an 8 KiB file: every jump back is to the header, and what the device
 * sees per commit is two pages whatever their order; the commits are the
 * cost (sync_storm, write_amplification), not the order.
 */
#include <stdio.h>

#include "rule.h"

enum { P_MIN_WRITES, P_MIN_RATIO, P_MIN_BYTES, P_MIN_EXTENT };

static const struct rule_param random_write_params[] = {
    [P_MIN_WRITES] = {"min_writes", RULE_P_INT, 20, "report only with at least this many writes"},
    [P_MIN_RATIO]  = {"min_random_ratio", RULE_P_DOUBLE, 0.2,
                      "... of which at least this fraction are scattered (rewrites are not)"},
    [P_MIN_BYTES]  = {"min_bytes", RULE_P_INT, 262144,
                      "... and the session wrote at least this many bytes"},
    [P_MIN_EXTENT] = {"min_extent", RULE_P_INT, 262144,
                      "... and its writes reached at least this far into the file"},
};

static void random_write_check(void *state, const struct rule_ctx *ctx,
                               const struct rule_session *s)
{
    char msg[400];
    double ratio;
    uint64_t scattered = s->random_writes - s->rewritten - s->write_skips;
    /* where the jumps are made, else where the writes are */
    const char *site = RULE_SITE(s, write_scattered_stack);

    (void)state;
    if (!site || !*site)
        site = RULE_SITE(s, write_stack);
    if (!s->writes || s->writes < (uint64_t)ctx->p[P_MIN_WRITES] ||
        s->write_bytes < (int64_t)ctx->p[P_MIN_BYTES])
        return;
    if (RULE_HAS(struct rule_session, s, write_extent) && s->write_extent >= 0 &&
        s->write_extent < (int64_t)ctx->p[P_MIN_EXTENT])
        return;
    ratio = (double)scattered / (double)s->writes;
    if (ratio < ctx->p[P_MIN_RATIO])
        return;
    /* the cost: the session's data calls' time */
    if (rule_again_cost(ctx, &(struct rule_report){.s = s, .repeat = (int64_t)scattered,
                                                   .time_ns = s->cost_ns,
                                                   .model_ns = RULE_HAS(struct rule_session, s, model_ns) ? s->model_ns : 0}))
        return;
    snprintf(msg, sizeof(msg),
             "%llu of %llu writes (%.0f%%) jump back to an earlier part of the file; batch "
             "them in offset order or write sequentially (e.g. append and compact later)",
             (unsigned long long)scattered, (unsigned long long)s->writes, ratio * 100);
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "layer", s->layer == RULE_LAYER_STDIO ? "stdio" : "syscall");
    rule_detail_int(figures, "writes", (int64_t)s->writes);
    rule_detail_int(figures, "random_writes", (int64_t)scattered);
    rule_detail_int(figures, "rewrites", (int64_t)s->rewritten);
    rule_detail_int(figures, "skips", (int64_t)s->write_skips);
    rule_detail_int(figures, "write_bytes", (int64_t)s->write_bytes);
    rule_detail_double(figures, "random_ratio", ratio);
    rule_report(ctx, &(struct rule_report){
        .s = s, .repeat = (int64_t)scattered, .message = msg, .time_ns = s->cost_ns,
        .model_ns = RULE_HAS(struct rule_session, s, model_ns) ? s->model_ns : 0,
        .stack = site,
        .fields = figures});
}

const struct rule rule_random_write = {
    RULE_ABI_HEADER,
    .name = "random_write",
    .type = 7,
    .summary = "writes scattered over a file instead of sequential",
    .params = random_write_params,
    .nparams = sizeof(random_write_params) / sizeof(random_write_params[0]),
    .on_session = random_write_check,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Sort dirty pages by offset and write them together, or append to a log "
           "and apply it later (as SQLite's WAL does).",
};
