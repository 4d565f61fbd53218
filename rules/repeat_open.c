/*
 * repeat_open (type 10): the same path opened and closed over and over by
 * one process, with little work per open: a log opened, appended to and
 * closed per line (`echo x >> log` in a loop, a logger that reopens), a
 * config file read whole on every lookup. Each open is a path walk, a
 * permission check and a new file description; keep the file open, or
 * its contents.
 *
 * Judged per process and path: at least min_opens sessions that moved on
 * average fewer than max_bytes_per_open bytes. Sessions still open when
 * their process ended count too (the same path opened again and again);
 * the message then says how many were never closed. Sessions that synced are
 * left out (sync_storm's business: a journal reopened per transaction
 * does durable work), and so are directories (opened to be listed or
 * synced, not read). A file with I/O the trace did not see (unseen_io:
 * io_uring, AIO, a shared writable map) is not judged: its bytes per open
 * are unknown. The issue stands at the open site that repeats
 * (per_file.h), the file's other open sites listed in its detail.
 */
#include <stdio.h>

#include "per_file.h"

enum { P_MIN_OPENS, P_MAX_BYTES_PER_OPEN };

static const struct rule_param repeat_open_params[] = {
    [P_MIN_OPENS]          = {"min_opens", RULE_P_INT, 100,
                              "report a path opened at least this many times by one process"},
    [P_MAX_BYTES_PER_OPEN] = {"max_bytes_per_open", RULE_P_INT, 65536,
                              "... moving fewer bytes per open than this on average"},
};

struct repeat_open_state {
    struct per_file_table files;
};

static void repeat_open_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct repeat_open_state *st = state;

    if (!s->syncs && !s->directory)
        per_file_add(&st->files, ctx, s);
}

static void repeat_open_report(void *state, const struct rule_ctx *ctx)
{
    struct repeat_open_state *st = state;

    PER_FILE_FOREACH(&st->files, f) {
        struct rule_detail *detail;
        struct rule_session s = per_file_session(f);
        int64_t per_open = (f->read_bytes + f->write_bytes) / (int64_t)f->sessions;
        char msg[400], opened[128];

        /* with I/O the trace did not see (io_uring, AIO, a shared map) the
           bytes per open are not known: little work per open is no fact */
        if (f->sessions < (uint64_t)ctx->p[P_MIN_OPENS] ||
            per_open >= (int64_t)ctx->p[P_MAX_BYTES_PER_OPEN] || f->unseen_io)
            continue;
        if (f->left_open)
            snprintf(opened, sizeof(opened), "opened this file %llu times (%llu of them "
                     "still open when it ended)", (unsigned long long)f->sessions,
                     (unsigned long long)f->left_open);
        else
            snprintf(opened, sizeof(opened), "opened and closed this file %llu times",
                     (unsigned long long)f->sessions);
        /* opSize: the bytes the opens moved, not the bytes asked for (a
           PHP read of 8192 bytes that gets the 329 of a session file) */
        s.op_size = f->read_bytes + f->write_bytes;
        snprintf(msg, sizeof(msg),
                 "%s %s, moving %lld bytes per open on average; open it once and keep the "
                 "descriptor (or cache its contents)",
                 s.process, opened, (long long)per_open);
        detail = rule_detail_new(ctx);
        rule_detail_string(detail, "layer", s.layer == RULE_LAYER_STDIO ? "stdio" : "syscall");
        rule_detail_int(detail, "opens", (int64_t)f->sessions);
        rule_detail_int(detail, "read_bytes", (int64_t)f->read_bytes);
        rule_detail_int(detail, "write_bytes", (int64_t)f->write_bytes);
        rule_detail_int(detail, "bytes_per_open", (int64_t)per_open);
        per_file_note_sites(f, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)f->sessions, .message = msg,
            /* the cost: every open but the first, and their time (the
               average open's) */
            .time_ns = f->open_ns / (int64_t)f->sessions * ((int64_t)f->sessions - 1),
            /* every open but the first, and what the sessions moved again */
            .model_ns = f->open_model_ns / (int64_t)f->sessions * ((int64_t)f->sessions - 1),
            .excess_opens = (int64_t)f->sessions - 1,
            .fields = detail});
    }
}

static void repeat_open_fini(void *state)
{
    per_file_free(&((struct repeat_open_state *)state)->files);
}

const struct rule rule_repeat_open = {
    RULE_ABI_HEADER,
    .name = "repeat_open",
    .type = 10,
    .summary = "the same path opened and closed many times with little work per open",
    .params = repeat_open_params,
    .nparams = sizeof(repeat_open_params) / sizeof(repeat_open_params[0]),
    .state_size = sizeof(struct repeat_open_state),
    .on_session = repeat_open_check,
    .on_end = repeat_open_report,
    .fini = repeat_open_fini,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Open the file once and keep the descriptor while it is in use.",
};
