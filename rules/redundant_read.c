/*
 * redundant_read (type 11): a process reads far more bytes of a file than
 * the file holds: the same bytes again and again, whether in one session
 * (bash's `while read` reads 4 KiB and seeks back to the end of each line)
 * or across many (a config file read whole on every lookup). repeat_read
 * is Matrix's narrower detector (the same read, from the same code, within
 * 17 ms of each other, on a file that once cost 13 ms); this one counts
 * bytes, whatever the timing.
 *
 * Judged per process and path over the sessions that read: read bytes at
 * least min_factor times the file's size (the largest seen at their
 * closes: a file whose size the trace never gives is not judged), and at least min_bytes of them, below which
 * the page cache makes the re-reading cost nothing measurable.
 */
#include <math.h>
#include <stdio.h>

#include "per_file.h"

enum { P_MIN_FACTOR, P_MIN_BYTES };

static const struct rule_param redundant_read_params[] = {
    [P_MIN_FACTOR] = {"min_factor", RULE_P_DOUBLE, 4,
                      "report when a process reads a file this many times over"},
    [P_MIN_BYTES]  = {"min_bytes", RULE_P_INT, 262144,
                      "... and reads at least this many bytes of it"},
};

struct redundant_read_state {
    struct per_file_table files;
};

static void redundant_read_check(void *state, const struct rule_ctx *ctx,
                                 const struct rule_session *s)
{
    struct redundant_read_state *st = state;

    /* only the sessions that read: their sites are the candidates for the issue's */
    if (s->read_bytes > 0)
        per_file_add(&st->files, ctx, s);
}

static void redundant_read_report(void *state, const struct rule_ctx *ctx)
{
    struct redundant_read_state *st = state;

    PER_FILE_FOREACH(&st->files, f) {
        struct rule_detail *detail;
        struct rule_session s;
        double factor = per_file_amplified(f, RULE_OP_READ, (int64_t)ctx->p[P_MIN_BYTES],
                                           ctx->p[P_MIN_FACTOR], &s);
        char msg[400];

        if (factor == 0)
            continue;
        snprintf(msg, sizeof(msg),
                 "%s read %lld bytes of this %lld-byte file in %llu reads over %llu open%s: "
                 "each byte %.1f times; read it once and keep what is needed",
                 s.process, (long long)f->read_bytes, (long long)f->max_file_size,
                 (unsigned long long)f->reads, (unsigned long long)f->sessions,
                 f->sessions == 1 ? "" : "s", factor);
        detail = rule_detail_new(ctx);
        rule_detail_int(detail, "read_bytes", (int64_t)f->read_bytes);
        rule_detail_int(detail, "file_size", (int64_t)f->max_file_size);
        rule_detail_int(detail, "reads", (int64_t)f->reads);
        rule_detail_int(detail, "sessions", (int64_t)f->sessions);
        rule_detail_double(detail, "factor", factor);
        per_file_note_sites(f, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)llround(factor), .message = msg,
            .stack = s.read_stack,      /* where the re-reads are made */
            /* the cost: the bytes read beyond the file's size, and that
               share of the sessions' data time */
            .time_ns = (int64_t)((double)f->cost_ns * (double)(f->read_bytes - f->max_file_size) /
                                 (double)f->read_bytes),
            .model_ns = (int64_t)((double)f->model_ns * (double)(f->read_bytes - f->max_file_size) /
                                  (double)f->read_bytes),
            .excess_bytes = f->read_bytes - f->max_file_size,
            .fields = detail});
    }
}

static void redundant_read_fini(void *state)
{
    per_file_free(&((struct redundant_read_state *)state)->files);
}

const struct rule rule_redundant_read = {
    RULE_ABI_HEADER,
    .name = "redundant_read",
    .type = 11,
    .summary = "a file read many times over (bytes read far beyond its size)",
    .params = redundant_read_params,
    .nparams = sizeof(redundant_read_params) / sizeof(redundant_read_params[0]),
    .state_size = sizeof(struct redundant_read_state),
    .on_session = redundant_read_check,
    .on_end = redundant_read_report,
    .fini = redundant_read_fini,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Read each byte once and keep what is needed.",
};
