/*
 * write_amplification (type 13): a process writes far more bytes to a file
 * than the file ends up holding: the same region rewritten again and
 * again (a page store without batching, a state file rewritten whole on
 * every change, a journal rewritten per transaction). On flash every
 * rewrite of a block is an erase-and-program cycle; appending (a log)
 * writes each byte once and is never reported.
 *
 * Judged per process and path over the sessions that wrote: bytes written
 * at least min_factor times the file's size (the largest seen at their
 * closes; a file whose size the trace never gives is not judged), and at least min_bytes of them, below which
 * the page cache absorbs the rewrites before they reach the device.
 *
 * A circular log is not amplification: written in order up to a fixed
 * size, then from the start again (a redo log), its bytes are new data
 * each time round. A file is one when every jump its writes made was such
 * a wrap back to the start (write_wraps), each round wrote at most the
 * file's size, and the rounds were appended in many pieces (at least
 * CIRCULAR_WRITES_PER_ROUND writes each on average; a state file
 * rewritten whole in one or a few writes per round is still reported).
 * A file with writes the trace did not see (io_uring, AIO, a shared map)
 * is not judged (per_file_amplified).
 *
 * Nor is a journal truncated now and then: appended in order, truncated
 * (ftruncate), appended again, each round at most as far as the furthest
 * the file reached and in many writes (as a circular log's): its bytes are
 * new data each round, though its size at the close may be a fraction of
 * what it was written (RabbitMQ's queue index journal).
 *
 * Nor is a temporary name: a file written whole and then renamed to a new
 * name each time (PostgreSQL's xlogtemp.PID becoming each new WAL segment)
 * holds new bytes at every session; one renamed over the same name each
 * time (an atomic save of one state file) is that file rewritten.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "per_file.h"

enum { P_MIN_FACTOR, P_MIN_BYTES };

static const struct rule_param write_amplification_params[] = {
    [P_MIN_FACTOR] = {"min_factor", RULE_P_DOUBLE, 4,
                      "report when a file's bytes were written this many times on average"},
    [P_MIN_BYTES]  = {"min_bytes", RULE_P_INT, 1048576,
                      "... and at least this many bytes were written to it"},
};

#define CIRCULAR_WRITES_PER_ROUND 8

/* f's writes went round a fixed-size file, each round new data. */
static int circular_log(const struct per_file *f)
{
    uint64_t rounds = f->write_wraps + 1;

    return f->write_wraps > 0 && f->random_writes == f->write_wraps &&
           f->writes >= rounds * CIRCULAR_WRITES_PER_ROUND &&
           (double)f->write_bytes <= (double)rounds * (double)f->max_file_size;
}

/* Each session wrote at most the file's size under this name, and each
   but perhaps the last was then renamed to a name not used the time
   before: every session made a new file. */
static int moved_aside(const struct per_file *f)
{
    return f->sessions > 1 && f->renamed_apart + 1 >= f->sessions &&
           f->write_bytes <= (int64_t)f->sessions * f->max_file_size;
}

/* f was appended in rounds, each after a truncation, no further than it
   reached: new data each round. */
static int truncated_log(const struct per_file *f)
{
    uint64_t rounds = f->truncations + f->write_wraps + 1;
    int64_t size = f->write_extent > f->max_file_size ? f->write_extent : f->max_file_size;

    return f->truncations > 0 && f->random_writes == f->write_wraps &&
           f->writes >= rounds * CIRCULAR_WRITES_PER_ROUND &&
           (double)f->write_bytes <= (double)rounds * (double)size;
}

struct write_amplification_state {
    struct per_file_table files;
};

/*
 * The advice follows what was rewritten: a journal is written again by
 * every commit, a database's pages by every transaction, a file written
 * whole in each session by every save; else the generic one.
 */
enum wa_kind { WA_JOURNAL, WA_DATABASE, WA_WHOLE, WA_REGIONS };

static const struct {
    const char *advice, *fix;
} wa_kinds[] = {
    [WA_JOURNAL] = {"each commit writes the journal again: commit in batches",
                    "Each commit writes the journal anew: put more changes in each "
                    "transaction, so that it is written once per batch."},
    [WA_DATABASE] = {"each transaction rewrites its pages: run many statements per transaction",
                     "Each transaction writes the changed pages again (and their journal): "
                     "put many statements in one transaction (BEGIN ... COMMIT)."},
    [WA_WHOLE] = {"the whole file is written again at each save: save less often, or append "
                  "the changes",
                  "The file is rewritten whole on every change: save less often, or append "
                  "the changes to a log and compact it now and then."},
    [WA_REGIONS] = {"batch changes and write each block once",
                    "Write each region once: buffer changes and write them together."},
};

static const char *const journal_suffixes[] = {"-journal", "-wal", ".wal"};

static int journal_named(const char *path)
{
    size_t n = strlen(path);

    for (size_t i = 0; i < sizeof(journal_suffixes) / sizeof(journal_suffixes[0]); i++) {
        size_t k = strlen(journal_suffixes[i]);

        if (n > k && strcmp(path + n - k, journal_suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

/* Whether f's process wrote f's path with a journal's suffix too. */
static int has_journal(const struct per_file_table *t, const struct per_file *f)
{
    const char *path = f->first.path;
    size_t n = strlen(path);

    PER_FILE_FOREACH(t, g) {
        if (g->first.pid != f->first.pid || strncmp(g->first.path, path, n) != 0)
            continue;
        for (size_t i = 0; i < sizeof(journal_suffixes) / sizeof(journal_suffixes[0]); i++)
            if (strcmp(g->first.path + n, journal_suffixes[i]) == 0)
                return 1;
    }
    return 0;
}

static enum wa_kind wa_kind(const struct per_file_table *t, const struct per_file *f)
{
    if (journal_named(f->first.path))
        return WA_JOURNAL;
    if (has_journal(t, f))
        return WA_DATABASE;
    /* each session, or each write, moved about the file's size: saved
       whole each time (a session per save, or one write per save) */
    if ((f->sessions > 1 && f->write_bytes / (int64_t)f->sessions >= f->max_file_size / 2 &&
         f->write_bytes / (int64_t)f->sessions <= f->max_file_size) ||
        (f->writes && f->write_bytes / (int64_t)f->writes >= f->max_file_size / 2))
        return WA_WHOLE;
    return WA_REGIONS;
}

static void write_amplification_check(void *state, const struct rule_ctx *ctx,
                                      const struct rule_session *s)
{
    struct write_amplification_state *st = state;

    /* only the sessions that wrote: their sites are the candidates for the issue's */
    if (s->write_bytes > 0)
        per_file_add(&st->files, ctx, s);
}

static void write_amplification_rename(void *state, const struct rule_ctx *ctx,
                                       const struct rule_path_call *c)
{
    (void)ctx;
    if (c->kind == RULE_PATH_RENAMED)
        per_file_renamed(&((struct write_amplification_state *)state)->files, c);
}

static void write_amplification_report(void *state, const struct rule_ctx *ctx)
{
    struct write_amplification_state *st = state;

    PER_FILE_FOREACH(&st->files, f) {
        struct rule_detail *detail;
        struct rule_session s;
        double factor = per_file_amplified(f, RULE_OP_WRITE, (int64_t)ctx->p[P_MIN_BYTES],
                                           ctx->p[P_MIN_FACTOR], &s);
        char msg[400];
        enum wa_kind kind;

        if (factor == 0 || circular_log(f) || truncated_log(f) || moved_aside(f))
            continue;
        kind = wa_kind(&st->files, f);
        snprintf(msg, sizeof(msg),
                 "%s wrote %lld bytes to this %lld-byte file in %llu writes: each byte was "
                 "written %.1f times on average; %s",
                 s.process, (long long)f->write_bytes, (long long)f->max_file_size,
                 (unsigned long long)f->writes, factor, wa_kinds[kind].advice);
        detail = rule_detail_new(ctx);
        rule_detail_int(detail, "write_bytes", (int64_t)f->write_bytes);
        rule_detail_int(detail, "file_size", (int64_t)f->max_file_size);
        rule_detail_int(detail, "writes", (int64_t)f->writes);
        rule_detail_int(detail, "sessions", (int64_t)f->sessions);
        rule_detail_double(detail, "factor", factor);
        per_file_note_sites(f, detail);
        rule_report(ctx, &(struct rule_report){
            .s = &s, .repeat = (int64_t)llround(factor), .message = msg,
            .fix = wa_kinds[kind].fix,
            .stack = s.write_stack,     /* where the writes are made */
            /* the cost: the bytes written beyond the file's size */
            .time_ns = RULE_NO_TIME, .excess_bytes = f->write_bytes - f->max_file_size,
            .fields = detail});
    }
}

static void write_amplification_fini(void *state)
{
    per_file_free(&((struct write_amplification_state *)state)->files);
}

const struct rule rule_write_amplification = {
    RULE_ABI_HEADER,
    .name = "write_amplification",
    .type = 13,
    .summary = "bytes written to a file far beyond its size (the same region rewritten)",
    .params = write_amplification_params,
    .nparams = sizeof(write_amplification_params) / sizeof(write_amplification_params[0]),
    .state_size = sizeof(struct write_amplification_state),
    .on_session = write_amplification_check,
    .on_end = write_amplification_report,
    .fini = write_amplification_fini,
    .flags = RULE_F_STATES_COST |     /* the cost is in every report */
             RULE_F_RENAMES,
    .fix = "Write each region once: buffer changes and write them together.",
    .on_path_call = write_amplification_rename,
};
