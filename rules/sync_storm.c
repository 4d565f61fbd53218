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
 * fewer than max_bytes_per_sync bytes written per sync: the work, which a
 * loaded machine does not change. The syncs' time is shown, modelled (by
 * what each made durable) and as measured here, and decides nothing:
 * min_time_share is accepted for old configurations and judges nothing (a
 * sync's modelled cost is the device's flush, so its share of a synced
 * file's modelled cost is near 1 whatever the bytes). A directory synced
 * after each rename or unlink writes no bytes itself and counts by its
 * sync count alone.
 *
 * A path is judged over every process that synced it (a database's WAL
 * is synced by whichever backend commits: one backend's share changes
 * from run to run, the file's total does not); the issue stands at the
 * process that synced it most. When some of the file's writes were not
 * seen (unseen_io: io_uring, AIO, a shared writable map) it is not
 * judged: neither its bytes per sync nor its syncs' share of its I/O
 * time is known (a database writing its tables through io_uring writes
 * more than the 0 bytes the trace has).
 *
 * The advice follows what the file is (sync_kinds below): a journal or
 * write-ahead log is synced once per commit by design, so its advice is
 * to commit in batches (group commit), never to add a journal; a
 * database whose journal is synced too, to run many statements per
 * transaction; a directory, to create and delete in batches; a snapshot
 * (every session wrote it from its start: a whole-file save), to take
 * fewer; an append-only file (every write at its end), to make records
 * durable in groups. The op named is the one the program used, and fdatasync is
 * suggested only to a program that used fsync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "per_file.h"

enum { P_MIN_SYNCS, P_MAX_BYTES_PER_SYNC, P_MIN_TIME_SHARE };

static const struct rule_param sync_storm_params[] = {
    [P_MIN_SYNCS]          = {"min_syncs", RULE_P_INT, 20,
                              "report a file synced at least this many times by one process"},
    [P_MAX_BYTES_PER_SYNC] = {"max_bytes_per_sync", RULE_P_INT, 65536,
                              "... with fewer bytes written per sync than this"},
    [P_MIN_TIME_SHARE]     = {"min_time_share", RULE_P_DOUBLE, 0.5,
                              "accepted, judges nothing: the bytes per sync decide"},
};

struct sync_storm_state {
    struct per_file_table files;
};

static void sync_storm_check(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    struct sync_storm_state *st = state;

    if (s->syncs)
        per_file_add(&st->files, ctx, s);
}

/*
 * A path's syncs over every process that synced it: a database's WAL is
 * synced by whichever backend commits, so one backend's share of the
 * storm changes from run to run while the file's total does not.
 */
struct synced_path {
    const struct per_file *top;  /* the process that synced it most (first seen on ties) */
    unsigned processes;
    uint64_t syncs, writes, synced_writes;
    int64_t write_bytes, synced_bytes, sync_ns, cost_ns, sync_model_ns;
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
        p->synced_writes += f->synced_writes;
        p->synced_bytes += f->synced_bytes;
        p->sync_ns += f->sync_ns;
        p->cost_ns += f->cost_ns;
        p->sync_model_ns += f->sync_model_ns;
        p->timed &= f->timed;
        p->unseen_io |= f->unseen_io;
    }
    hmap_release(&idx);
    return v;
}

/* What a synced file is, for the advice (sync_kind). */
enum sync_kind {
    SK_FILE,          /* rewritten in place */
    SK_LOG,           /* append-only: every write at the end of the previous */
    SK_SNAPSHOT,      /* written again from its start by each session */
    SK_JOURNAL,       /* a journal or write-ahead log by its name */
    SK_DATABASE,      /* a file whose journal (NAME-journal, NAME-wal) was synced too */
    SK_JOURNAL_DIR,   /* a directory holding a synced journal */
    SK_DIR,           /* another directory */
};

static const struct {
    const char *noun;    /* "this NOUN" in the message */
    const char *advice;  /* the message's end */
    const char *fix;     /* the fix; %s: the op used */
} sync_kinds[] = {
    [SK_FILE] = {"file", "sync once per batch of writes, not per write",
                 "Make a batch of writes durable together: one `%s` after the batch, not one "
                 "per write."},
    [SK_LOG] = {"append-only file", "make records durable in batches (group commit)",
                "Each record is synced on its own: append the records that arrive together "
                "and make them durable with one `%s` (group commit); whoever needs a record "
                "durable waits for its batch's sync."},
    [SK_SNAPSHOT] = {"snapshot", "each is written whole and synced: take snapshots less "
                                 "often, or log the changes between them",
                     "Each snapshot is written whole and made durable with `%s` on its own: "
                     "take snapshots less often (after a count of changes or a time), or "
                     "append the changes to a log between snapshots."},
    [SK_JOURNAL] = {"journal", "each sync is a commit: commit in batches (group commit)",
                    "A journal is synced once per commit by design: commit less often, with "
                    "more changes per transaction, or let commits that arrive together share "
                    "one `%s` (group commit)."},
    [SK_DATABASE] = {"database", "each transaction syncs it and its journal: run many "
                                 "statements per transaction",
                     "Each commit syncs the database and its journal (`%s`): put many "
                     "statements in one transaction (BEGIN ... COMMIT), or commit in "
                     "batches."},
    [SK_JOURNAL_DIR] = {"directory", "synced each time the journal in it is created or "
                                     "deleted, once per transaction: commit in batches",
                        "The directory is synced (`%s`) to make each journal's creation and "
                        "deletion durable, once per transaction: fewer, larger transactions "
                        "sync it less."},
    [SK_DIR] = {"directory", "each create, rename or unlink in it is made durable on its "
                             "own: do them in batches, one sync per batch",
                "Create, rename or delete the files of a batch first and `%s` the directory "
                "once for all of them."},
};

/* Journals and write-ahead logs by name: a suffix of the name, or a
   directory that holds only log segments. */
static const char *const journal_suffixes[] = {"-journal", "-wal", ".wal", ".aof"};
static const char *const journal_dirs[] = {"/pg_wal/", "/pg_xlog/"};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n > k && strcmp(s + n - k, suffix) == 0;
}

static int journal_named(const char *path)
{
    for (size_t i = 0; i < sizeof(journal_suffixes) / sizeof(journal_suffixes[0]); i++)
        if (ends_with(path, journal_suffixes[i]))
            return 1;
    for (size_t i = 0; i < sizeof(journal_dirs) / sizeof(journal_dirs[0]); i++)
        if (strstr(path, journal_dirs[i]))
            return 1;
    return 0;
}

/* The key of (pid, path's bytes) in the synced paths' set */
static uint64_t path_key(int32_t pid, const char *path, size_t len)
{
    return iot_fnv64_add(iot_fnv64_add(IOT_FNV64_INIT, &pid, sizeof(pid)), path, len);
}

/* Whether pid synced path + suffix (suffix "" for the path itself); paths
   names the synced paths by path_key. */
static int synced(const struct hmap *paths, int32_t pid, const char *path, size_t len,
                  const char *suffix)
{
    char buf[4096];
    size_t k = strlen(suffix);

    if (len + k >= sizeof(buf))
        return 0;
    memcpy(buf, path, len);
    memcpy(buf + len, suffix, k + 1);
    return hmap_get(paths, path_key(pid, buf, len + k)) != NULL;
}

/* What p is, with its process's other synced paths in paths. */
static enum sync_kind sync_kind(const struct synced_path *p, const struct hmap *paths)
{
    const struct per_file *f = p->top;
    const char *path = f->first.path;
    int32_t pid = f->first.pid;

    /* a directory (opened with O_DIRECTORY, or without: sqlite opens
       its directory O_RDONLY) moves no data itself */
    if (f->first.directory || (!f->writes && !f->reads)) {
        /* a journal synced right in it: a database's rollback journal */
        for (size_t i = 0; i < sizeof(journal_suffixes) / sizeof(journal_suffixes[0]); i++)
            if (hmap_get(paths, path_key(pid, path, strlen(path)) ^
                                    iot_fnv64_add(IOT_FNV64_INIT, journal_suffixes[i],
                                                  strlen(journal_suffixes[i]))))
                return SK_JOURNAL_DIR;
        if (f->first.directory)
            return SK_DIR;
    }
    if (synced(paths, pid, path, strlen(path), "-journal") ||
        synced(paths, pid, path, strlen(path), "-wal"))
        return SK_DATABASE;
    if (journal_named(path))
        return SK_JOURNAL;
    /* every session wrote it from its start (write, fsync, rename: a
       whole-file save), not on at the end of the last: no log */
    if (f->sessions > 1 && f->written_whole == f->sessions)
        return SK_SNAPSHOT;
    if (f->writes && !f->random_writes)
        return SK_LOG;
    return SK_FILE;
}

/*
 * The set of synced paths by path_key, and for each directory-and-suffix
 * pair of a journal-named path synced in it, the key of the directory
 * xor'ed with the suffix's hash (what sync_kind asks of a directory).
 */
static void synced_set(const struct synced_path *v, size_t n, struct hmap *set)
{
    for (size_t i = 0; i < n; i++) {
        const char *path = v[i].top->first.path, *slash = strrchr(path, '/');
        int32_t pid = v[i].top->first.pid;

        hmap_put(set, path_key(pid, path, strlen(path)), (void *)1);
        if (!slash || slash == path)
            continue;
        for (size_t k = 0; k < sizeof(journal_suffixes) / sizeof(journal_suffixes[0]); k++)
            if (ends_with(path, journal_suffixes[k]))
                hmap_put(set, path_key(pid, path, (size_t)(slash - path)) ^
                                  iot_fnv64_add(IOT_FNV64_INIT, journal_suffixes[k],
                                                strlen(journal_suffixes[k])),
                         (void *)1);
    }
}

static void sync_storm_report(void *state, const struct rule_ctx *ctx)
{
    struct sync_storm_state *st = state;
    size_t n;
    struct synced_path *paths = synced_paths(&st->files, &n);
    struct hmap set = {0};

    if (paths)
        synced_set(paths, n, &set);
    for (size_t i = 0; paths && i < n; i++) {
        const struct synced_path *p = &paths[i];
        struct rule_detail *detail;
        struct rule_session s = per_file_session(p->top);
        /* the bytes each sync made durable: those written since the one
           before (a file synced after each of its first 200 records and
           then filled is 200 syncs of a record each) */
        int64_t per_sync = p->synced_bytes / (int64_t)p->syncs;
        int64_t need = ctx->p[P_MAX_BYTES_PER_SYNC] >= 1
                           ? p->synced_bytes / (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC] : 1;
        int64_t io_ns = p->cost_ns + p->sync_ns;
        double share = io_ns > 0 ? (double)p->sync_ns / (double)io_ns : 0;
        int small = per_sync < (int64_t)ctx->p[P_MAX_BYTES_PER_SYNC];

        char msg[700], by[160], fix[600], op[40];
        enum sync_kind kind;

        /* writes the trace did not see: neither the bytes per sync nor the
           share of the file's I/O time is known */
        if (p->syncs < (uint64_t)ctx->p[P_MIN_SYNCS] || !small || p->unseen_io)
            continue;
        /* no sync carried a stack (the kernel path's io_uring requests,
           strace): the issue has none, rather than the open's */
        if (s.sync_stack && !*s.sync_stack)
            s.stack = s.sync_stack;
        /* the figures are the writes the syncs made durable */
        s.cost_ns = p->sync_ns;
        s.op = p->synced_writes;
        s.op_size = p->synced_bytes;
        s.op_type = RULE_OP_WRITE;
        if (p->processes > 1)
            snprintf(by, sizeof(by), "%s and %u other process%s", s.process, p->processes - 1,
                     p->processes == 2 ? "" : "es");
        else
            snprintf(by, sizeof(by), "%s", s.process);
        kind = sync_kind(p, &set);
        /* the op the program used; both when it used two */
        snprintf(op, sizeof(op), "%s%s", p->top->sync_op ? p->top->sync_op : "sync",
                 p->top->sync_ops_mixed ? " (and other syncs)" : "");
        /* the syncs' time as measured here: evidence (the modelled cost,
           what judges, is the impact.model_ms) */
        snprintf(msg, sizeof(msg),
                 "%llu %s calls on this %s by %s, %lld bytes written per sync, measured here: "
                 "%.1f ms waiting for them (%.0f%% of its I/O time); %s",
                 (unsigned long long)p->syncs, op, sync_kinds[kind].noun, by,
                 (long long)per_sync, RULE_MS(p->sync_ns), share * 100,
                 sync_kinds[kind].advice);
        snprintf(fix, sizeof(fix), sync_kinds[kind].fix,
                 p->top->sync_op ? p->top->sync_op : "fsync");
        /* fdatasync skips the metadata flush: worth saying only to a
           program that used fsync on a file (a directory needs fsync) */
        if (p->top->sync_op && strcmp(p->top->sync_op, "fsync") == 0 && kind != SK_DIR &&
            kind != SK_JOURNAL_DIR && !p->top->sync_ops_mixed)
            snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix),
                     " `fdatasync` instead of `fsync` skips the metadata flush when only the "
                     "data must be durable.");
        detail = rule_detail_new(ctx);
        rule_detail_int(detail, "syncs", (int64_t)p->syncs);
        rule_detail_int(detail, "sync_us", (int64_t)(p->sync_ns / 1000));
        rule_detail_int(detail, "writes", (int64_t)p->synced_writes);
        rule_detail_int(detail, "write_bytes", (int64_t)p->synced_bytes);
        rule_detail_int(detail, "bytes_per_sync", (int64_t)per_sync);
        rule_detail_double(detail, "sync_time_share", share);
        rule_detail_int(detail, "sessions", (int64_t)p->top->sessions);
        if (p->processes > 1)
            rule_detail_int(detail, "processes", (int64_t)p->processes);
        per_file_note_sites(p->top, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)p->syncs, .message = msg, .fix = fix,
            .stack = s.sync_stack,      /* where the syncs are made */
            /* the cost: the syncs' time, and the syncs beyond one per
               max_bytes_per_sync bytes written (at least one) */
            .time_ns = p->sync_ns,
            .model_ns = p->sync_model_ns,
            .excess_syncs = (int64_t)p->syncs - (need > 1 ? need : 1),
            .fields = detail});
    }
    hmap_release(&set);
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
    /* each issue's own fix names what was seen (sync_kinds) */
    .fix = "Sync once per batch of writes, not per write.",
};
