/*
 * random_read (type 8): a session's reads that do not continue where the
 * previous read ended (offsets reconstructed by the engine from O_APPEND,
 * O_TRUNC, lseek results and byte counts; pread's own offset). Reported at
 * >= min_reads reads with >= min_random_ratio of them non-sequential: seeks
 * defeat readahead and cost a device round trip each.
 */
#include <stdio.h>

#include "rule.h"

enum { P_MIN_READS, P_MIN_RATIO };

static const struct rule_param random_read_params[] = {
    [P_MIN_READS] = {"min_reads", RULE_P_INT, 20, "report only with at least this many reads"},
    [P_MIN_RATIO]  = {"min_random_ratio", RULE_P_DOUBLE, 0.2,
                      "... of which at least this fraction are not sequential"},
};

static void random_read_check(void *state, const struct rule_ctx *ctx,
                               const struct rule_session *s)
{
    char msg[400];
    double ratio;

    (void)state;
    if (!s->reads || s->reads < (uint64_t)ctx->p[P_MIN_READS])
        return;
    ratio = (double)s->random_reads / (double)s->reads;
    if (ratio < ctx->p[P_MIN_RATIO])
        return;
    if (rule_again(ctx, s, (int64_t)s->random_reads, 0))
        return;
    snprintf(msg, sizeof(msg),
             "%llu of %llu reads (%.0f%%) jump to another offset; read sequentially "
             "or read the needed ranges in larger blocks",
             (unsigned long long)s->random_reads, (unsigned long long)s->reads, ratio * 100);
    rule_report(ctx, &(struct rule_report){
        .s = s, .repeat = (int64_t)s->random_reads, .message = msg,
        .detail = json_pack("{s:s,s:I,s:I,s:f}",
                            "layer", s->layer == RULE_LAYER_STDIO ? "stdio" : "syscall",
                            "reads", (json_int_t)s->reads,
                            "random_reads", (json_int_t)s->random_reads,
                            "random_ratio", ratio)});
}

const struct rule rule_random_read = {
    RULE_ABI_HEADER,
    .name = "random_read",
    .type = 8,
    .summary = "reads scattered over a file instead of sequential",
    .params = random_read_params,
    .nparams = sizeof(random_read_params) / sizeof(random_read_params[0]),
    .on_session = random_read_check,
};
