/*
 * sync_storm (type 9): a file synced far more often than its data needs.
 * Each fsync/fdatasync waits for the device (a flash cache flush: ms each),
 * so a sync per small write makes the device, not the program, set the
 * pace: sqlite3 running 300 inserts without a transaction spends most of
 * its run in 1,200 fdatasyncs; the same inserts in one transaction sync a
 * handful of times.
 *
 * Judged per path over all sessions (a journal is reopened per
 * transaction, a directory per rename): at least min_syncs syncs, and
 * either fewer than max_bytes_per_sync bytes written per sync, or (with
 * durations) sync time at least min_time_share of the file's I/O time. A
 * directory synced after each rename or unlink writes no bytes itself and
 * counts by its sync count alone.
 *
 * A path is judged over every process that synced it (a database's WAL
 * is synced by whichever backend commits: one backend's share changes
 * from run to run, the file's total does not); the issue stands at the
 * process that synced it most. When some of the file's writes were not
 * seen (unseen_io: io_uring, AIO, a shared writable map) it is not
 * judged: neither its bytes per sync nor its syncs' share of its I/O
 * time is known (a database writing its tables through io_uring writes
 * more than the 0 bytes the trace has).
 */
#include <stdio.h>
#include <stdlib.h>

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

/*
 * A path's syncs over every process that synced it: a database's WAL is
 * synced by whichever backend commits, so one backend's share of the
 * storm changes from run to run while the file's total does not.
 */
struct synced_path {
    const struct per_file *top;  /* the process that synced it most (first seen on ties) */
    unsigned processes;
    uint64_t syncs, writes;
    int64_t write_bytes, sync_ns, cost_ns;
    int timed, unseen_io;
};

/* Adds up f's path over its processes: the entries, in the order first seen. */
static struct synced_path *synced_paths(const struct per_file_table *t, size_t *n)
{
    struct synced_path *v = calloc(t->n ? t->n : 1, sizeof(*v));
    struct hmap idx = {0};

    *n = 0;
    if (!v)
        return NULL;
    PER_FILE_FOREACH(t, f) {
        uint64_t key = hmap_ptr_key(f->first.path);
        uintptr_t i = (uintptr_t)hmap_get(&idx, key);
        struct synced_path *p;

        if (!i) {
            if (hmap_put(&idx, key, (void *)(uintptr_t)(*n + 1)) < 0)
                continue;
            i = ++*n;
            v[i - 1] = (struct synced_path){.top = f, .timed = 1};
        }
        p = &v[i - 1];
        if (f->syncs > p->top->syncs)
            p->top = f;
        p->processes++;
        p->syncs += f->syncs;
        p->writes += f->writes;
        p->write_bytes += f->write_bytes;
        p->sync_ns += f->sync_ns;
        p->cost_ns += f->cost_ns;
        p->timed &= f->timed;
        p->unseen_io |= f->unseen_io;
    }
    hmap_release(&idx);
    return v;
}

static void sync_storm_report(void *state, const struct rule_ctx *ctx)
{
    struct sync_storm_state *st = state;
    size_t n;
    struct synced_path *paths = synced_paths(&st->files, &n);

    for (size_t i = 0; paths && i < n; i++) {
        const struct synced_path *p = &paths[i];
        json_t *detail;
        struct rule_session s = per_file_session(p->top);
        int64_t per_sync = p->write_bytes / (int64_t)p->syncs;
        int64_t need = ctx->p[P_MAX_BYTES_PER_SYNC] >= 1
                           ? p->write_bytes / (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC] : 1;
        int64_t io_ns = p->cost_ns + p->sync_ns;
        double share = io_ns > 0 ? (double)p->sync_ns / (double)io_ns : 0;
        int small = per_sync < (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC];
        int slow = ctx->timing && p->timed && io_ns > 0 && share >= ctx->p[P_MIN_TIME_SHARE];
        char msg[400], by[160];

        /* writes the trace did not see: neither the bytes per sync nor the
           share of the file's I/O time is known */
        if (p->syncs < (uint64_t)ctx->p[P_MIN_SYNCS] || !(small || slow) || p->unseen_io)
            continue;
        /* the figures are the writes the syncs made durable */
        s.cost_ns = p->sync_ns;
        s.op = p->writes;
        s.op_size = p->write_bytes;
        s.op_type = RULE_OP_WRITE;
        if (p->processes > 1)
            snprintf(by, sizeof(by), "%s and %u other process%s", s.process, p->processes - 1,
                     p->processes == 2 ? "" : "es");
        else
            snprintf(by, sizeof(by), "%s", s.process);
        snprintf(msg, sizeof(msg),
                 "%llu syncs of this %s by %s, %lld bytes written per sync, %.1f ms "
                 "waiting for them (%.0f%% of its I/O time); group the writes and sync "
                 "once per batch (one transaction, or a WAL journal)",
                 (unsigned long long)p->syncs, s.directory ? "directory" : "file", by,
                 (long long)per_sync, RULE_MS(p->sync_ns), share * 100);
        detail = json_pack("{s:I,s:I,s:I,s:I,s:I,s:f,s:I}",
                           "syncs", (json_int_t)p->syncs,
                           "sync_us", (json_int_t)(p->sync_ns / 1000),
                           "writes", (json_int_t)p->writes,
                           "write_bytes", (json_int_t)p->write_bytes,
                           "bytes_per_sync", (json_int_t)per_sync,
                           "sync_time_share", share,
                           "sessions", (json_int_t)p->top->sessions);
        if (detail && p->processes > 1)
            json_object_set_new(detail, "processes", json_integer((json_int_t)p->processes));
        per_file_note_sites(p->top, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)p->syncs, .message = msg,
            .stack = s.sync_stack,      /* where the syncs are made */
            /* the cost: the syncs' time, and the syncs beyond one per
               max_bytes_per_sync bytes written (at least one) */
            .time_ns = p->sync_ns,
            .excess_syncs = (int64_t)p->syncs - (need > 1 ? need : 1),
            .detail = detail});
    }
    free(paths);
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
