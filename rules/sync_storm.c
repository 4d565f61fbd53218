/*
 * sync_storm (type 9): a file synced far more often than its data needs.
 * Each fsync/fdatasync waits for the device (a flash cache flush: ms each),
 * so a sync per small write makes the device, not the program, set the
 * pace: sqlite3 running 300 inserts without a transaction spends most of
 * its run in 1,200 fdatasyncs; the same inserts in one transaction sync a
 * handful of times.
 *
 * Judged per process and path over all sessions (a journal is reopened per
 * transaction, a directory per rename): at least min_syncs syncs, and
 * either fewer than max_bytes_per_sync bytes written per sync, or (with
 * durations) sync time at least min_time_share of the file's I/O time. A
 * directory synced after each rename or unlink writes no bytes itself and
 * counts by its sync count alone.
 */
#include <stdio.h>

#include "per_file.h"

enum { P_MIN_SYNCS, P_MAX_BYTES_PER_SYNC, P_MIN_TIME_SHARE };

static const struct rule_param sync_storm_params[] = {
    [P_MIN_SYNCS]          = {"min_syncs", RULE_P_INT, 20,
                              "report a file synced at least this many times by one process"},
    [P_MAX_BYTES_PER_SYNC] = {"max_bytes_per_sync", RULE_P_INT, 65536,
                              "... with fewer bytes written per sync than this"},
    [P_MIN_TIME_SHARE]     = {"min_time_share", RULE_P_DOUBLE, 0.5,
                              "... or with syncs taking at least this share of its I/O time"},
};

struct sync_storm_state {
    struct per_file_table files;
};

static void sync_storm_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct sync_storm_state *st = state;

    (void)ctx;
    if (s->syncs)
        per_file_add(&st->files, s);
}

static void sync_storm_report(void *state, const struct rule_ctx *ctx)
{
    struct sync_storm_state *st = state;

    PER_FILE_FOREACH(&st->files, f) {
        json_t *detail;
        struct rule_session s = per_file_session(f);
        int64_t per_sync = f->write_bytes / (int64_t)f->syncs;
        int64_t need = ctx->p[P_MAX_BYTES_PER_SYNC] >= 1
                           ? f->write_bytes / (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC] : 1;
        int64_t io_ns = f->cost_ns + f->sync_ns;
        double share = io_ns > 0 ? (double)f->sync_ns / (double)io_ns : 0;
        int small = per_sync < (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC];
        int slow = ctx->timing && f->timed && io_ns > 0 && share >= ctx->p[P_MIN_TIME_SHARE];
        char msg[400];

        if (f->syncs < (uint64_t)ctx->p[P_MIN_SYNCS] || !(small || slow))
            continue;
        /* the figures are the writes the syncs made durable */
        s.cost_ns = f->sync_ns;
        s.op = f->writes;
        s.op_size = f->write_bytes;
        s.op_type = RULE_OP_WRITE;
        snprintf(msg, sizeof(msg),
                 "%llu syncs of this %s by %s, %lld bytes written per sync, %.1f ms waiting "
                 "for them (%.0f%% of its I/O time); group the writes and sync once per batch "
                 "(one transaction, or a WAL journal)",
                 (unsigned long long)f->syncs, s.directory ? "directory" : "file", s.process,
                 (long long)per_sync,
                 RULE_MS(f->sync_ns), share * 100);
        detail = json_pack("{s:I,s:I,s:I,s:I,s:I,s:f,s:I}",
                           "syncs", (json_int_t)f->syncs,
                           "sync_us", (json_int_t)(f->sync_ns / 1000),
                           "writes", (json_int_t)f->writes,
                           "write_bytes", (json_int_t)f->write_bytes,
                           "bytes_per_sync", (json_int_t)per_sync,
                           "sync_time_share", share,
                           "sessions", (json_int_t)f->sessions);
        per_file_note_sites(f, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)f->syncs, .message = msg,
            /* the cost: the syncs' time, and the syncs beyond one per
               max_bytes_per_sync bytes written (at least one) */
            .time_ns = f->sync_ns,
            .excess_syncs = (int64_t)f->syncs - (need > 1 ? need : 1),
            .detail = detail});
    }
}

static void sync_storm_fini(void *state)
{
    per_file_free(&((struct sync_storm_state *)state)->files);
}

const struct rule rule_sync_storm = {
    RULE_ABI_HEADER,
    .name = "sync_storm",
    .type = 9,
    .summary = "a file synced far more often than its data needs",
    .params = sync_storm_params,
    .nparams = sizeof(sync_storm_params) / sizeof(sync_storm_params[0]),
    .state_size = sizeof(struct sync_storm_state),
    .on_session = sync_storm_check,
    .on_end = sync_storm_report,
    .fini = sync_storm_fini,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Sync once per batch of writes, not per write; `fdatasync` when the "
           "metadata need not be durable.",
};
