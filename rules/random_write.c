/*
 * random_write (type 7): a session's writes that do not continue where the
 * previous write ended (offsets reconstructed by the engine from O_APPEND,
 * O_TRUNC, lseek results and byte counts; pwrite's own offset). Reported at
 * >= min_writes writes with >= min_random_ratio of them non-sequential: the
 * pattern that hurts flash storage (write amplification).
 */
#include <stdio.h>

#include "rule.h"

enum { P_MIN_WRITES, P_MIN_RATIO };

static const struct rule_param random_write_params[] = {
    [P_MIN_WRITES] = {"min_writes", RULE_P_INT, 20, "report only with at least this many writes"},
    [P_MIN_RATIO]  = {"min_random_ratio", RULE_P_DOUBLE, 0.2,
                      "... of which at least this fraction are not sequential"},
};

static void random_write_check(void *state, const struct rule_ctx *ctx,
                               const struct rule_session *s)
{
    char msg[400];
    double ratio;

    (void)state;
    if (!s->writes || s->writes < (uint64_t)ctx->p[P_MIN_WRITES])
        return;
    ratio = (double)s->random_writes / (double)s->writes;
    if (ratio < ctx->p[P_MIN_RATIO])
        return;
    if (rule_again(ctx, s, (int64_t)s->random_writes, 0))
        return;
    snprintf(msg, sizeof(msg),
             "%llu of %llu writes (%.0f%%) jump to another offset; batch them or write "
             "sequentially (e.g. append and compact later)",
             (unsigned long long)s->random_writes, (unsigned long long)s->writes, ratio * 100);
    rule_report(ctx, &(struct rule_report){
        .s = s, .repeat = (int64_t)s->random_writes, .message = msg,
        .detail = json_pack("{s:s,s:I,s:I,s:f}",
                            "layer", s->layer == RULE_LAYER_STDIO ? "stdio" : "syscall",
                            "writes", (json_int_t)s->writes,
                            "random_writes", (json_int_t)s->random_writes,
                            "random_ratio", ratio)});
}

const struct rule rule_random_write = {
    RULE_ABI_HEADER,
    .name = "random_write",
    .type = 7,
    .summary = "writes scattered over a file instead of sequential",
    .params = random_write_params,
    .nparams = sizeof(random_write_params) / sizeof(random_write_params[0]),
    .on_session = random_write_check,
};
