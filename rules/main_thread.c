/*
 * main_thread (type 1): slow file I/O on a main thread, Matrix's detector.
 * Bit 1: one call took longer than max_once_ms; bit 2: a continual run of
 * calls (gaps < continual_gap_ms) took longer than max_continual_ms.
 * Only calls made on a main thread count (tid == pid, or a thread whose name
 * matches main_thread_names). Needs durations: skipped on timing-free input.
 */
#include <stdio.h>

#include "rule.h"

enum { P_MAX_ONCE, P_MAX_CONTINUAL };

static const struct rule_param main_thread_params[] = {
    [P_MAX_ONCE]      = {"max_once_ms", RULE_P_DOUBLE, 13,
                         "report when one call on the main thread takes longer (bit 1)"},
    [P_MAX_CONTINUAL] = {"max_continual_ms", RULE_P_DOUBLE, 500,
                         "report when a continual run of calls takes longer (bit 2)"},
};

static void main_thread_check(void *state, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    int bits = 0;
    char msg[400];
    json_t *detail;

    (void)state;
    if (!ctx->timing || !s->timed || !s->main_ops)
        return;
    if (s->main_max_once_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_ONCE]))
        bits |= 1;
    if (s->main_max_continual_ns > RULE_NS_FROM_MS(ctx->p[P_MAX_CONTINUAL]))
        bits |= 2;
    if (!bits || rule_again(ctx, s, bits, 0))
        return;
    if (bits & 2)
        snprintf(msg, sizeof(msg),
                 "%llu calls on the main thread spent %.1f ms in a row on this file "
                 "(longest call %.1f ms); move the I/O to a worker thread",
                 (unsigned long long)s->main_ops, RULE_MS(s->main_max_continual_ns),
                 RULE_MS(s->main_max_once_ns));
    else
        snprintf(msg, sizeof(msg),
                 "one call on the main thread took %.1f ms (limit %g ms); "
                 "move the I/O to a worker thread",
                 RULE_MS(s->main_max_once_ns), ctx->p[P_MAX_ONCE]);
    detail = json_pack("{s:I,s:I,s:I,s:I,s:i}",
                       "max_once_us", (json_int_t)(s->main_max_once_ns / 1000),
                       "max_continual_us", (json_int_t)(s->main_max_continual_ns / 1000),
                       "main_thread_ops", (json_int_t)s->main_ops,
                       "main_thread_cost_us", (json_int_t)(s->main_cost_ns / 1000),
                       "main_tid", (int)s->main_tid);
    rule_report(ctx, &(struct rule_report){.s = s, .repeat = bits,
                                           .message = msg, .detail = detail});
}

const struct rule rule_main_thread = {
    RULE_ABI_HEADER,
    .name = "main_thread",
    .type = 1,
    .summary = "slow file I/O on the main thread (one long call or a long run of calls)",
    .params = main_thread_params,
    .nparams = sizeof(main_thread_params) / sizeof(main_thread_params[0]),
    .on_session = main_thread_check,
    .flags = RULE_F_REPEAT_BITS,       /* "repeat" is bit 1 | bit 2 */
};
