/*
 * rule.h - the rule interface.
 *
 * A rule is one const struct rule in one file of rules/, listed once in
 * rules/registry.c (or loaded from a .so with `--plugin`). The replay engine
 * (analyzer/engine*.c) rebuilds every session -- one open file description,
 * from a successful open/fopen to its last close -- and hands it to each
 * enabled rule when it ends. Rules judge sessions and report issues through
 * rule_report(); they never print, exit or keep global state: everything a
 * rule remembers lives in its per-run state block (state_size bytes, zeroed).
 *
 * See rules/TEMPLATE.md for how to add a rule.
 */
#ifndef RULE_H
#define RULE_H

#include <stddef.h>
#include <stdint.h>

/* jansson's json_t, for struct rule_report's detail (a plugin built before
   the detail builder); rule.h does not need jansson itself. */
struct json_t;

/*
 * The plugin ABI. A plugin is built against one rule.h and loaded by
 * ioanalyzes built from others, older and newer. struct rule starts with
 * what it was built with:
 *
 *  - abi, RULE_ABI_VERSION: what the published members are (their types,
 *    meanings and places). It changes only when one of them has to change,
 *    and a plugin with another abi is refused.
 *  - size, sizeof(struct rule) as the plugin saw it. Members of struct
 *    rule are only ever appended, and a new member's zero means "as before
 *    it existed". The loader copies the members a plugin's size covers and
 *    zeroes the rest, so a plugin built before a member was added still
 *    loads and runs as it did. A size below RULE_SIZE_FIRST (the first
 *    layout with a size) is refused. A larger size than this ioanalyze's (a
 *    plugin built for a newer one) loads when the members this ioanalyze
 *    does not know are all zero, since the plugin then uses none of them,
 *    and is refused otherwise (the kernel's rule for clone3 and openat2).
 *
 * struct rule_session, struct rule_path_call and struct rule_ctx, which
 * ioanalyze fills in and rules only read, grow only at their ends too, and
 * start with their size as the ioanalyze that filled them was built: a
 * plugin built against a newer rule.h reads a member appended after the
 * ioanalyze it runs in only when RULE_HAS() says that ioanalyze has it
 * (else it would read past the end of the struct), and a plugin built
 * against an older rule.h reads the members it knows, which every newer
 * ioanalyze has. struct rule_param (an array) cannot grow: changing it is
 * a new RULE_ABI_VERSION. struct rule_report, which rules fill in and
 * ioanalyze reads, grows only at its end: RULE_ABI_HEADER records its size
 * as the rule was built in struct rule's report_size, and ioanalyze reads
 * the members that size covers (report_size 0, a rule built before it: the
 * members up to detail) and takes the others as zero.
 * Every rule starts with RULE_ABI_HEADER (below).
 */
#define RULE_ABI_VERSION 3

/*
 * Whether *p, a struct of type T that ioanalyze filled in (rule_session,
 * rule_path_call, rule_ctx), has member m: 1 when the ioanalyze the rule
 * runs in was built with it. Every member in the first sized layout
 * (RULE_ABI_VERSION 3) is always there; test the ones appended since.
 */
#define RULE_HAS(T, p, m) \
    ((size_t)(p)->size >= offsetof(T, m) + sizeof(((const T *)0)->m))

/*
 * Parameters: every value is held as a double; the type drives parsing/printing.
 * RULE_P_CHOICE is one of a few words, held as its index: the words are the
 * start of help, separated by '|' and ended by ": " (e.g. "multithreaded|all:
 * which processes are judged"); def is the index of the default.
 */
enum rule_ptype { RULE_P_INT, RULE_P_DOUBLE, RULE_P_BOOL, RULE_P_CHOICE };

struct rule_param {
    const char *name;      /* e.g. "min_ops"; "enabled" is implicit for every rule */
    enum rule_ptype type;
    double def;            /* the default */
    const char *help;      /* one line for `ioanalyze rules` */
};

#define RULE_MAX_PARAMS 8

enum rule_layer { RULE_LAYER_SYSCALL = 0, RULE_LAYER_STDIO = 1 };

/* A stdio stream's buffering (the trace format's enum iot_bufmode values) */
enum rule_bufmode { RULE_BUF_FULL = 0, RULE_BUF_LINE = 1, RULE_BUF_NONE = 2 };

enum rule_end {
    RULE_END_CLOSE = 0,  /* the last fd/stdio stream of the session was closed */
    RULE_END_EXIT,       /* the last holder process exited with it open */
    RULE_END_TRACE       /* the trace ended before its process did */
};

/* Matrix's opType */
enum rule_optype { RULE_OP_INIT = 0, RULE_OP_READ = 1, RULE_OP_WRITE = 2 };

/*
 * One ended session. Strings are interned: equal content, equal pointer, and
 * valid for the whole run (a rule may keep them). Times are ns on the trace
 * clock; *_unix_ms are ms since the Unix epoch.
 */
struct rule_session {
    unsigned size;           /* sizeof(struct rule_session) in the ioanalyze (RULE_HAS) */
    const char *path;
    const char *process;     /* the opener's name: its argv[0]'s basename (else its exe's) */
    const char *thread;      /* name of the opening thread at open */
    const char *stack;       /* stack at open ("" when none) */
    int32_t pid, tid;        /* opener */
    int layer;               /* enum rule_layer: opened by fopen/fdopen = stdio */
    int timed;               /* every counted call had a duration */
    int end;                 /* enum rule_end */
    int leaked;              /* opener exited normally (no signal) while holding it */
    int64_t open_t, end_t;
    int64_t end_unix_ms;     /* when it ended (the "time") */

    /* Matrix's per-session figures over successful read/write-class calls */
    uint64_t op;             /* call count (EOF reads included) */
    int64_t op_size;         /* sum of requested sizes */
    int64_t buffer;          /* largest single request */
    int64_t cost_ns;         /* sum of durations */
    int64_t max_once_ns;
    int64_t max_continual_ns;
    int op_type;             /* enum rule_optype: type of the first call */
    int64_t file_size;       /* at close, -1 unknown */

    /* The same figures restricted to calls made on a main thread */
    uint64_t main_ops;
    int64_t main_cost_ns, main_max_once_ns, main_max_continual_ns;
    int32_t main_tid;        /* a main thread that did I/O on it, 0 none */

    /* stdio sessions: the buffer model's view of the syscalls beneath */
    int64_t stream_buffer;   /* buffer size (setvbuf or fopen's), 0 unbuffered */
    int bufmode;             /* enum rule_bufmode */
    uint64_t eff_ops;        /* estimated syscalls */
    int64_t eff_bytes;       /* bytes they moved */

    /* Access pattern from reconstructed offsets */
    uint64_t reads, writes;
    uint64_t random_reads, random_writes; /* not at the end of the previous one */

    /*
     * A session made by one process and used by another (a shell's
     * redirect inherited across fork or exec) is judged as the user's:
     * process, pid, tid and thread above are then the user's, stack is
     * still the open's, and these name the opener. NULL when the opener
     * made the calls.
     */
    const char *opener_process;
    int32_t opener_pid;

    /* Appended after the first layout without a size; all in layout 3. */
    int64_t read_bytes, write_bytes;  /* bytes moved (returned), not requested */
    /* Of random_reads/random_writes, the jumps back into the range the
       previous call of that direction covered: the same bytes again (a
       header re-read, a read-and-seek-back loop), not a scattered access. */
    uint64_t reread, rewritten;
    uint64_t syncs;                   /* fsync/fdatasync calls on it */
    int64_t sync_ns;                  /* ... and their time */
    int directory;                    /* opened with O_DIRECTORY (opendir) */
    const char *data_op;              /* stdio sessions: the op of its data calls ("fputs"):
                                         of most of them where data_op_calls is had */
    /* stdio sessions: of eff_ops, the program's own read/write-class
       syscalls on the fd beside the stream (a redirected stdout that the
       program writes with write(1, ...)) */
    uint64_t direct_ops;
    /* Appended to layout 3 (test with RULE_HAS). */
    /* stdio sessions: the bytes of the last syscall the stream's buffer
       made (a final partial flush, the read that met the end) */
    int64_t eff_last_bytes;
    /* When the last read/write-class call on it ended (open_t when it had
       none): a handle whose last use came before its site opened the next
       was left behind (leak). */
    int64_t last_data_t;
    /*
     * I/O on it that the recorder saw made but could not follow, so that
     * its byte figures fall short of what the program moved (RULE_UNSEEN_*
     * bits, 0 none): byte-based judgements on it say so or stay silent.
     */
    int unseen_io;
    /* Of random_writes, the jumps back to the start of the file (below
       RULE_WRAP_BYTES, before where the previous write started): a
       circular log going round again, not a rewrite of the same bytes. */
    uint64_t write_wraps;
    /* Of random_reads/random_writes, the jumps forward, past where the
       previous call of that direction ended: pages taken in offset order
       with gaps (a checkpoint writing its dirty pages sorted, a log that
       other processes append to between this one's writes), not a seek
       back. */
    uint64_t read_skips, write_skips;
    /* The duration of the call that made it (the open, fopen, opendir; 0
       unknown): what repeat_open counts as the cost of opening again. */
    int64_t open_ns;
    /*
     * The site of its calls of each kind: of the stacks its reads (read
     * role), writes (write role) and syncs (fsync, fdatasync) carried, the
     * one seen on the most calls (ties: the earliest), "" when none carried
     * one (an strace or JSONL input, stacks off). The recorder stacks the
     * first call of each site in a session and then the 1st, 2nd, 4th ...
     * call of a site, so the most-seen stack is the busiest site's.
     * stack above stays the open's.
     */
    const char *read_stack;
    const char *write_stack;
    const char *sync_stack;
    /* Appended to layout 3 (test with RULE_HAS): what a rule's advice is
       made of. The executable process ran when the session ended (its
       full path, NULL unknown): the language runtime whose API the advice
       names (python3.12, node, java) when argv[0] does not say. */
    const char *exe;
    /* The op of its first sync ("fsync", "fdatasync"; NULL none): the
       call the advice is about. Interned. */
    const char *sync_op;
    /* 1 when a later sync used another op than sync_op */
    int sync_ops_mixed;
    /* Appended (test with RULE_HAS): of the stacks its scattered reads
       (writes) carried, those that jumped back to before where the
       previous call started, the one seen on the most; "" when none did.
       Where random_read (random_write) says the harm is done: a session
       whose most-seen write site appends at the end (a table extended
       page by page) may jump back from another one (its pages written
       back later). */
    const char *read_scattered_stack;
    const char *write_scattered_stack;
    /* Appended (test with RULE_HAS): of its writes, those its process
       followed, before writing another file, with writes on a socket and
       then a read on one: a record written before the replies to the
       requests it holds, at the end of a turn of an event loop (Redis's
       AOF), where a log written after the replies (a web server's access
       log) is followed by the next request, or by the next reply when its
       request reads are not in the trace. The last write of the session
       is never counted. */
    uint64_t writes_before_reply;
    /* Appended (test with RULE_HAS): open_t, last_data_t and end_t counted
       in calls, not time: the place of the open, of the newest read or
       write (open_seq when none) and of the close (0 when it did not end
       in one) among the calls of the process that made each. Load does not
       stretch them as it does the gaps between calls. */
    uint64_t open_seq;
    uint64_t last_data_seq;
    uint64_t end_seq;
    /* Appended (test with RULE_HAS): the offset its first read (write)
       started at, -1 when it made none or the offset is unknown (an
       O_APPEND write, an fd whose position was not followed). Reads of
       the same size at different offsets are reads of different records
       (a pack's blobs), not the same read again. */
    int64_t read_from, write_from;
    /* Appended (test with RULE_HAS): of writes and write_bytes, those
       made before its last sync: what its syncs made durable. The writes
       after the last one (a file filled after its few first records were
       synced) are no sync's. */
    uint64_t synced_writes;
    int64_t synced_bytes;
    /* Appended (test with RULE_HAS): stdio sessions: the calls of data_op,
       which is then the op of most of its data calls (ties: the first
       met), not the first call's: fewer than op when it used others too
       (pdflatex: one fprintf, then 8,811 fputc). 0 for other sessions. */
    uint64_t data_op_calls;
    /* Appended (test with RULE_HAS): whose calls they were. The thread
       that made the most of its data calls and syncs (ties: the first
       met; 0 when it had none), its name, those calls, and how many
       threads made them: a Go or JVM runtime moves its work between
       threads, and the opener (tid above) may have made 1 of 3,008 syncs. */
    int32_t calls_tid;
    const char *calls_thread;
    uint64_t calls_tid_calls;
    uint32_t calls_threads;
    /* Appended (test with RULE_HAS): ftruncate calls on it that
       succeeded, and the furthest offset a write reached (-1 none known):
       a journal appended, truncated and appended again writes new bytes
       each round, its size at the close may be far below what it held. */
    uint64_t truncations;
    int64_t write_extent;
    /*
     * Appended (test with RULE_HAS): the modelled cost of its calls, from
     * what they did (their counts, bytes and op classes) by the cost model
     * (docs/analyzer.md, "The cost model"). Judgements rest on these:
     * cost_ns and the other durations above are what the calls took on the
     * machine that ran them, evidence that a loaded machine stretches.
     */
    int64_t model_ns;            /* its read/write-class calls and its syncs */
    int64_t model_once_ns;       /* the costliest one call of them */
    int64_t main_model_ns;       /* of its read/write-class calls, those on a main thread */
    int64_t main_model_once_ns;  /* ... the costliest one */
    int64_t sync_model_ns;       /* its syncs, each by the bytes it made durable */
    /* its process's modelled cost by the session's end: a clock that a
       loaded machine does not stretch (repeat_read's window) */
    int64_t model_clock_ns;
    int64_t open_model_ns;       /* the call that made it (the open, fopen, opendir) */
    /* Appended (test with RULE_HAS): the bytes its last read/write-class
       call moved: a file's tail, which the calls before it may have filled
       whole buffers up to (a cache file written in 4 KiB chunks, then the
       rest) */
    int64_t last_bytes;
    /* Appended (test with RULE_HAS): of a stdio session's eff_ops, the
       reads glibc's fseek made on a stream opened for reading too ("r+",
       "w+"): it reads back up to the place sought (BFD's output) */
    uint64_t eff_seek_reads;
    /* Appended (test with RULE_HAS): its writes made right after a call
       of the same thread failed (the record of that failure: nginx's
       error.log line after an open() of a missing file) */
    uint64_t writes_after_failure;
};

/* unseen_io: an async request (Linux AIO, POSIX aio) named its fd, or it
   was mapped shared and writable (its writes are stores to memory) */
#define RULE_UNSEEN_FILE 1
/* unseen_io: its process submitted I/O whose file the trace does not name
   (io_uring: the ring's fd only) while it was open */
#define RULE_UNSEEN_PROCESS 2
/* write_wraps: how near the start of the file a wrap lands (a log's header) */
#define RULE_WRAP_BYTES 65536

/*
 * A call that looks a path up without opening it (stat, access, readlink:
 * lookup), an open-family call that failed (open, fopen, opendir), or a
 * directory opened to be listed (opendir, open with O_DIRECTORY), in a
 * process; what metadata_storm judges. Handed to rules that have
 * on_path_call, one call at a time in time order, for paths that are not
 * ignored. Strings are interned as in sessions.
 */
enum rule_path_kind {
    RULE_PATH_LOOKUP = 0,    /* stat, access, readlink */
    RULE_PATH_OPEN_FAILED,   /* open, fopen, opendir that failed */
    RULE_PATH_DIR_OPENED,    /* opendir, open with O_DIRECTORY, that succeeded */
    RULE_PATH_MAIN_BLOCKING, /* on_main_call only: see there */
    RULE_PATH_RENAMED        /* a rename that succeeded: path the old name, newpath
                                the new; only to rules with RULE_F_RENAMES */
};

struct rule_path_call {
    unsigned size;           /* sizeof(struct rule_path_call) in the ioanalyze (RULE_HAS) */
    const char *path;
    const char *op;          /* the op's name: "stat", "access", "open", ... */
    const char *process;     /* the caller's name: its argv[0]'s basename (else its exe's) */
    const char *thread;      /* the calling thread's name */
    const char *stack;       /* the call's stack, "" when it has none (the recorder
                                samples them: docs/recorder.md, "Metadata calls") */
    int32_t pid, tid;
    int kind;                /* enum rule_path_kind */
    int err;                 /* errno, 0 when the call succeeded */
    int64_t t, dur;          /* ns; dur 0 when the input has no durations */
    int64_t unix_ms;         /* ms since the epoch when the call ended */
    /* Appended (test with RULE_HAS): RULE_PATH_RENAMED's new name, else NULL. */
    const char *newpath;
    /* Appended (test with RULE_HAS): the call's modelled cost (a sync's by
       the bytes it made durable), what judgements rest on; dur is evidence. */
    int64_t model_ns;
};

/*
 * A program, or a part of one, whose file calls no recorder saw: a static or
 * setuid program exec'd by a recorded process (the preload cannot enter
 * it), a Go program or a liburing user making raw system calls past libc.
 * Handed to rules that have on_unobserved at the end of the run, one at a
 * time in time order, for each that no kernel capture made up for. Strings
 * are interned as in sessions.
 */
struct rule_unobserved {
    unsigned size;           /* sizeof(struct rule_unobserved) in the ioanalyze (RULE_HAS) */
    const char *path;        /* the program (or library) nothing could see into */
    const char *why;         /* the recorder's word: "static", "setuid", "fcaps", "go", ... */
    const char *process;     /* the process it ran as (its argv[0]'s basename, else path's) */
    int32_t pid;
    int64_t t;               /* ns, when the recorder said so */
    int64_t unix_ms;
    int64_t missed;          /* file calls known to be missed (a kernel count), -1 unknown */
};

/* What a rule sees besides the session. */
struct rule_ctx {
    unsigned size;           /* sizeof(struct rule_ctx) in the ioanalyze (RULE_HAS) */
    const double *p;         /* parameter values, in the rule's table order */
    int64_t gap_ns;          /* continual_gap_ms */
    int timing;              /* 0 when the input had no durations (strace without -T) */
    void *sink;              /* the analyzer's issue collector (opaque) */
    void *engine;            /* the replay engine (opaque; rule_proc_threads) */
};

/* One issue; Matrix's keys come from s, overridden where set. */
struct rule_report {
    const struct rule_session *s;
    int64_t repeat;          /* Matrix "repeat" */
    int64_t time_unix_ms;    /* 0: s->end_unix_ms */
    const char *message;     /* one actionable sentence with the figures */
    /* The rule's figures as a jansson object, reference stolen (may be
       NULL): how a rule built before the detail builder stated them (it
       includes <jansson.h> itself). A rule now fills fields instead. */
    struct json_t *detail;

    /*
     * The finding's cost, the figures the impact and severity are
     * made from (docs/analyzer.md, "Impact and severity"); appended after
     * detail, read when struct rule's report_size covers them and the rule
     * has RULE_F_STATES_COST. time_ns:
     * the time spent in the harmful calls; RULE_NO_TIME when the finding
     * has no time of its own (a leak, bytes written in excess); with
     * ctx->timing 0 it is not known, whatever it says. The excess_* are
     * what the program did beyond what its work needed, 0 where the rule
     * has no such figure.
     */
    int64_t time_ns;
    int64_t excess_bytes;    /* bytes read again, written in excess */
    int64_t excess_syncs;    /* syncs beyond what durability needed */
    int64_t excess_opens;    /* opens beyond the first */
    int64_t excess_calls;    /* calls beyond what the bytes needed, or not needed at all */
    int64_t handles;         /* handles held (leak) */
    /*
     * The stack of the calls the finding is about (s->write_stack for a
     * write pattern, s->sync_stack for syncs, ...): the stack, with
     * s->stack (the open's) as a related location when it differs. NULL or
     * "": s->stack is the stack. Read when report_size covers it.
     */
    const char *stack;
    /*
     * How to fix this finding, built from its evidence (the op used, the
     * layer, the runtime, the kind of file): one or two sentences of
     * markdown, the "fix". NULL: struct rule's fix. Read when
     * report_size covers it.
     */
    const char *fix;
    /*
     * The modelled cost of the harmful calls (the session's or call's
     * model_ns figures), what the severity is made from; time_ns
     * is shown beside it as measured evidence. 0 or RULE_NO_TIME when the
     * finding has none (then it is never low). Read when report_size
     * covers it.
     */
    int64_t model_ns;
    /*
     * The rule's figures, the "detail", made with the detail
     * builder below (rule_detail_new); taken by rule_report, which frees
     * it, as by rule_again_cost. NULL: none. Read when report_size covers
     * it; with detail set as well, its fields come after detail's (a key in
     * both keeps detail's place and takes this value).
     */
    struct rule_detail *fields;
};

/* rule_report.time_ns of a finding that is not about time */
#define RULE_NO_TIME (-1)

struct rule {
    unsigned abi;            /* RULE_ABI_VERSION; plugins with another are refused */
    unsigned size;           /* sizeof(struct rule) where the rule was built */
    const char *name;        /* [a-z_]+ */
    int type;                /* Matrix issue type number */
    const char *summary;     /* one line */
    const struct rule_param *params;
    size_t nparams;          /* <= RULE_MAX_PARAMS */
    size_t state_size;       /* per-run state, zeroed before the first call */

    /* Called for every ended session whose path is not ignored (may be NULL
       in a rule that has on_path_call). */
    void (*on_session)(void *state, const struct rule_ctx *ctx,
                       const struct rule_session *s);
    /* Optional: after the last session (report what was held back). */
    void (*on_end)(void *state, const struct rule_ctx *ctx);
    /* Optional: free what the state points to. */
    void (*fini)(void *state);

    /* Appended after the first layout (RULE_SIZE_FIRST ends at fini); a
       plugin built before a member sees it zero. Append new members here. */
    unsigned flags;          /* RULE_F_*, 0 none */
    /* Optional: every path call (struct rule_path_call) of the run. */
    void (*on_path_call)(void *state, const struct rule_ctx *ctx,
                         const struct rule_path_call *c);
    /* How to fix what the rule finds: one or two sentences of markdown,
       shown with every issue of the rule (text and HTML reports, SARIF
       help). NULL: the reports send the reader to the message. */
    const char *fix;
    /*
     * Optional: every call made on a main thread, with a duration, that
     * waits for storage without moving data (reads and writes are in the
     * sessions): a sync (fsync, fdatasync), an open, a close (which may
     * flush), a metadata call (the stat family, access, readlink, unlink,
     * rename, mkdir, rmdir, link, symlink, chmod, chown, utimes, truncate,
     * readdir). c->kind is RULE_PATH_MAIN_BLOCKING; c->path is the file's
     * (an fd call's is its session's); c->stack is the call's own, or,
     * for an fd call recorded without one (the recorder stacks a sync at
     * its site's first calls), the stack its session's earlier calls of
     * that kind carried most, else its open stack.
     */
    void (*on_main_call)(void *state, const struct rule_ctx *ctx,
                         const struct rule_path_call *c);
    /* sizeof(struct rule_report) where the rule was built (RULE_ABI_HEADER);
       0 in a rule built before it: ioanalyze reads the members up to detail
       and the finding's cost is not known */
    unsigned report_size;
    /* Optional: every program or part of one that nothing could see
       (struct rule_unobserved), after the last session. */
    void (*on_unobserved)(void *state, const struct rule_ctx *ctx,
                          const struct rule_unobserved *u);
};

/* The first members of every rule: `{RULE_ABI_HEADER, .name = ...}`. */
#define RULE_ABI_HEADER \
    .abi = RULE_ABI_VERSION, .size = sizeof(struct rule), .report_size = sizeof(struct rule_report)

/* The size of the first layout with a size: up to and including fini. */
#define RULE_SIZE_FIRST (offsetof(struct rule, fini) + sizeof(void (*)(void *)))
/* Where the members this rule.h knows end (not sizeof: a newer member may
   sit in today's tail padding). Name the last member here when appending. */
#define RULE_SIZE_KNOWN \
    (offsetof(struct rule, on_unobserved) + sizeof(((const struct rule *)0)->on_unobserved))
/* The size of struct rule_report before report_size: up to and including detail. */
#define RULE_REPORT_SIZE_FIRST \
    (offsetof(struct rule_report, detail) + sizeof(((const struct rule_report *)0)->detail))

/*
 * flags: "repeat" is a bitmask of the conditions met, so an issue reported
 * again keeps the union of its occurrences' bits (main_thread: a long call
 * in one session and a long run in another is 3). Without it the earliest
 * occurrence's repeat stands.
 */
#define RULE_F_REPEAT_BITS 1u
/*
 * flags: the rule states its findings' cost in struct rule_report's
 * time_ns, excess_* and handles (with report_size covering them). Without
 * it, those members are not read, whatever they hold: the cost is not
 * known and the issue is "medium" (docs/analyzer.md, "Impact and
 * severity"), as every issue was before severities.
 */
#define RULE_F_STATES_COST 2u
/*
 * flags: on_path_call also gets the renames (RULE_PATH_RENAMED), which
 * tell a file moved aside after it was written (a temporary file renamed
 * to its final name) from one written again in place. A rule without it
 * never sees that kind.
 */
#define RULE_F_RENAMES 4u

/*
 * The detail builder (implemented by the analyzer): an issue's figures as
 * (key, typed value) in the order they are set, which is the order the
 * issue's "detail" shows them in. A key set again keeps its place and takes
 * the new value. Every function takes a NULL d and then does nothing (an
 * allocation that failed loses the detail, not the issue). Strings are
 * copied; a NULL string is null; a double that is not finite is null.
 * Hand the detail to rule_report in struct rule_report's fields, or free
 * it with rule_detail_free when the rule does not report after all.
 */
struct rule_detail;
struct rule_detail *rule_detail_new(const struct rule_ctx *ctx);
void rule_detail_free(struct rule_detail *d);
void rule_detail_int(struct rule_detail *d, const char *key, int64_t v);
void rule_detail_uint(struct rule_detail *d, const char *key, uint64_t v);
void rule_detail_double(struct rule_detail *d, const char *key, double v);
void rule_detail_string(struct rule_detail *d, const char *key, const char *v);
void rule_detail_bool(struct rule_detail *d, const char *key, int v);
/* key is the list of v[0] .. v[n - 1] */
void rule_detail_ints(struct rule_detail *d, const char *key, const int64_t *v, size_t n);
/* Appends a new object to the list of objects at key (made when key has
   none) and returns it to be filled like d; NULL when it cannot be made. */
struct rule_detail *rule_detail_add_object(struct rule_detail *d, const char *key);

/* Report an issue (implemented by the analyzer). The rule and ctx identify it. */
void rule_report(const struct rule_ctx *ctx, const struct rule_report *r);
/*
 * Optional, before building a report: when this rule already reported s's
 * fingerprint at or before this time (0: s->end_unix_ms), counts one more
 * occurrence, as rule_report would, and returns 1: the rule is done and
 * need not format a message. Else returns 0 and changes nothing. Worth it
 * for rules that fire on many sessions of one file.
 */
int rule_again(const struct rule_ctx *ctx, const struct rule_session *s, int64_t repeat,
               int64_t time_unix_ms);

/*
 * rule_again for a rule that states its finding's cost: r->s, r->repeat and
 * r->time_unix_ms are rule_again's arguments; when it returns 1, r's cost
 * (time_ns, excess_*, handles) is added to the impact, so that the
 * impact is the cost over every occurrence. r->message and r->detail are
 * not used. A plugin that calls it needs an ioanalyze that has it.
 */
int rule_again_cost(const struct rule_ctx *ctx, const struct rule_report *r);

/*
 * Implemented by the analyzer: a key of the site a stack (a session's or a
 * call's, as given) names: the stack, with the frames of a JIT runtime's
 * code that move as the run warms up left out (a Java call's interpreted
 * frames, then its compiled tiers'), as fingerprints leave them out. Two
 * stacks of one site are the same code to the program's developers. 0 for
 * an empty stack, and only for one. A plugin that calls it needs an
 * ioanalyze that has it.
 */
uint64_t rule_stack_site(const struct rule_ctx *ctx, const char *stack);

/*
 * Implemented by the analyzer: how many threads process pid has run so far
 * (a thread whose name matches main_thread_names counts as a second one:
 * the process has a main thread that matters); 0 for an unknown pid. In
 * on_end, the whole run's figure.
 */
int rule_proc_threads(const struct rule_ctx *ctx, int32_t pid);

/*
 * Implemented by the analyzer: what thread tid of process pid is to the
 * others (RULE_ROLE_* bits, 0 for an unknown thread), as far as the trace
 * has shown by now. main_thread's scope is made of them.
 */
int rule_thread_role(const struct rule_ctx *ctx, int32_t pid, int32_t tid);
/* the process's first thread (tid == pid) */
#define RULE_ROLE_FIRST 1
/* its name matches main_thread_names */
#define RULE_ROLE_NAMED 2
/* it waits for events (epoll_wait, poll, select: an event loop), in a
   runtime that keeps work on the thread that waits (not Go, a JVM or BEAM,
   whose scheduler moves work between threads) */
#define RULE_ROLE_WAITS 4
/* the input says which threads wait for events (a trace of version 5.16 or
   later, a JSONL with waits events): a thread without RULE_ROLE_WAITS is
   known to wait for none */
#define RULE_ROLE_WAITS_KNOWN 8

/* Helpers for rules */
/* Session s's call site m (read_stack, write_stack, sync_stack), or NULL
   where the ioanalyze that filled s has none: for rule_report's stack. */
#define RULE_SITE(s, m) (RULE_HAS(struct rule_session, (s), m) ? (s)->m : NULL)
#define RULE_MS(ns) ((double)(ns) / 1e6)
#define RULE_NS_FROM_MS(ms) ((int64_t)((ms) * 1e6 + 0.5))

#endif /* RULE_H */
