/*
 * per_file.h - a process's sessions of one path added up, for the rules
 * that judge a file over all its sessions (sync_storm, repeat_open,
 * redundant_read, write_amplification). Each rule keeps its own table in
 * its state and adds the sessions it cares about.
 */
#ifndef PER_FILE_H
#define PER_FILE_H

#include "hmap.h"
#include "rule.h"

/*
 * Where a file's sessions were opened: one site per distinct open stack,
 * the first PER_FILE_SITES of them; sessions opened elsewhere beyond those
 * are counted apart. The site is the one that repeats most (most
 * sessions; ties: most cost, then the first seen), not merely the first
 * open: a config written once at start-up and re-opened a hundred times
 * elsewhere is reported where it is re-opened.
 */
#define PER_FILE_SITES 4

struct per_file_site {
    /* interned, as in sessions; stack is the one most of the site's
       sessions carried (a vote, as per_file_vote's, weighing each session
       1, with weight its weight): a JIT-compiled line's opens carry the
       interpreter's stack first, then each compiled tier's */
    const char *stack, *thread;
    uint64_t site;               /* rule_stack_site() of stack */
    uint64_t weight;
    int32_t tid;
    uint64_t sessions;
    int64_t cost_ns;             /* the sessions' modelled data and sync cost (not time:
                                    the busiest site must not move with load) */
};

/* The sites after the first: made when a second site appears, so that the
   many files opened from one place cost one pointer each. */
struct per_file_sites {
    struct per_file_site v[PER_FILE_SITES - 1];
    /* the first site's stack vote, from when a session came from another stack */
    const char *first_stack;
    uint64_t first_weight;
    unsigned n;
    uint64_t other_sessions;     /* sessions opened at further sites */
    int64_t other_cost_ns;
};

/* What an issue takes of a file's first session (per_file_session makes a
   session of it again): kept small, since a file has one per rule that
   adds its sessions up, and a trace may name millions of files. */
struct per_file_first {
    const char *path, *process, *thread, *stack, *opener_process, *data_op;
    uint64_t site;               /* rule_stack_site() of stack */
    int32_t pid, tid, opener_pid;
    int layer, op_type, directory;
};

/*
 * Where a file's calls of one kind (reads, writes, syncs) were made over
 * its sessions: each session's most-seen stack of that kind
 * (rule_session's read_stack, ...), weighing its calls of that kind, in a
 * weighted majority vote: a stack behind more than half of the calls
 * stands; else the vote keeps the stack the later sessions favour. Two
 * words per kind, as files are many.
 */
enum per_file_kind { PER_FILE_READS, PER_FILE_WRITES, PER_FILE_SYNCS, PER_FILE_KINDS };
struct per_file_vote {
    const char *stack;           /* interned; NULL none yet */
    uint64_t weight;
};

struct per_file {
    struct per_file_first first; /* the first session added: pid, path, process, first site */
    struct per_file_sites *more; /* NULL while every session came from first's stack */
    uint64_t sessions;
    uint64_t left_open;          /* sessions still open when their process or the trace ended */
    uint64_t ops, reads, writes, syncs;
    int64_t op_size, read_bytes, write_bytes;
    uint64_t written_whole;      /* sessions whose writes started at offset 0 (write_from) */
    uint64_t truncations;        /* ftruncate calls (rule_session's) */
    int64_t write_extent;        /* the furthest offset a write reached, -1 none known */
    uint64_t synced_writes;      /* of writes, those before their session's last sync */
    int64_t synced_bytes;        /* ... and their bytes */
    int64_t buffer;              /* largest single request */
    int64_t cost_ns, sync_ns;
    int64_t model_ns, sync_model_ns, open_model_ns;  /* modelled (RULE_HAS model_ns) */
    int64_t open_ns;             /* the opens' durations */
    int64_t max_file_size;       /* largest size seen at a close, -1 none known */
    int64_t last_file_size;      /* size at the newest close that knew it, -1 none */
    int64_t last_unix_ms;
    int timed;                   /* every session had durations */
    int unseen_io;               /* the sessions' unseen_io bits, or'ed (RULE_UNSEEN_*) */
    uint64_t random_writes, write_wraps;
    /* What the advice is made of: the op of the first sync (NULL none),
       whether a later sync used another op, and the process's executable
       (NULL unknown); from an ioanalyze that fills them in (RULE_HAS). */
    const char *sync_op, *exe;
    int sync_ops_mixed;
    struct per_file_vote call_site[PER_FILE_KINDS];
    /* Renames of the path by its process once written, each to another
       name than the one before (per_file_renamed): a file written under a
       temporary name and moved aside is a new file each time. */
    uint64_t renamed_apart;
    const char *renamed_to;      /* the newest rename's new name, NULL none */
    /* Whose calls they were (rule_session's calls_*): the thread that made
       the most in one session, and the most threads any session had (2 at
       least when sessions were used by different ones) */
    int32_t calls_tid;
    const char *calls_thread;
    uint64_t calls_tid_calls;
    uint32_t calls_threads;
};

struct per_file_table {
    struct per_file *v;          /* the entries, dense, in the order first added */
    size_t n, vcap;
    struct hmap idx;             /* key of (pid, path pointer) -> index in v + 1 */
};

/* Notes a rename (RULE_PATH_RENAMED) of an entry's path by its process;
   nothing when the path has no entry. */
void per_file_renamed(struct per_file_table *t, const struct rule_path_call *c);
/*
 * Adds s to its (pid, path) entry: the entry, or NULL when out of memory.
 * Its open site is its stack's rule_stack_site(): the opens one line of a
 * JIT-compiled program makes are one site however warm the run was.
 */
struct per_file *per_file_add(struct per_file_table *t, const struct rule_ctx *ctx,
                              const struct rule_session *s);
/* A session for the issue of entry f: its first session, opened at the
   site that repeats most, with the whole file's figures (op, opSize,
   buffer, cost, size, and the evidence's end) and its call sites
   (read_stack, write_stack, sync_stack: the votes' winners). */
struct rule_session per_file_session(const struct per_file *f);
/* Adds "open_sites" to detail when f was opened at more than one site: each
   site's stack and session count, the first, and "other_sessions"
   for those beyond the sites kept. detail may be NULL (nothing done). */
void per_file_note_sites(const struct per_file *f, struct rule_detail *detail);
/*
 * For the rules that weigh one direction of a file's traffic against its
 * size (redundant_read: RULE_OP_READ, write_amplification: RULE_OP_WRITE):
 * how many times over the file's bytes were moved that way, with *s the
 * issue's session carrying that direction's figures and the largest size;
 * 0 when f moved fewer than min_bytes, less than min_factor times over, or
 * has no known size, and 0 when some of its I/O was unseen (unseen_io):
 * the bytes the trace has are not all the file's, and its size may have
 * been made by stores or requests it does not have.
 */
double per_file_amplified(const struct per_file *f, int op_type, int64_t min_bytes,
                          double min_factor, struct rule_session *s);
void per_file_free(struct per_file_table *t);
/* The farthest any entry sits from its home slot in the map: small (tens)
   however many processes share a path, when the keys spread. For tests. */
size_t per_file_max_probe(const struct per_file_table *t);

#define PER_FILE_FOREACH(t, f) \
    for (struct per_file *f = (t)->v; f < (t)->v + (t)->n; f++)

#endif /* PER_FILE_H */
