/*
 * engine_int.h - what the parts of the replay engine share (internal to
 * analyzer/engine*.c). The public interface is engine.h.
 *
 *   engine.c          dispatch: events by kind and calls by op class, the
 *                     straight path of plain data calls, the engine's life
 *   engine_fd.c       open file descriptions (sessions) from open to end, and
 *                     the per-process fd tables referring to them
 *   engine_proctab.c  the tables of processes and threads, which the files
 *                     below it in this list and engine_proc.c look up
 *   engine_proc.c     processes and threads: fork, exec, exit, names
 *   engine_stdio.c    stdio streams and the model of their buffers
 *   engine_figures.c  a session's figures: kept apart per call (the inline
 *                     counting below), made whole when it ends
 *   engine_blocking.c calls besides reads and writes that wait for storage
 *                     (syncs, opens, closes, metadata) on a main thread
 *   engine_paths.c    calls that name a path (lookups, failed opens, listed
 *                     directories), handed to the rules that judge them
 *   engine_query.c    what the reports ask between events (engine.h): the
 *                     file a call touched; off the hot path
 *
 * Model:
 *  - struct ofd is one open file description = one session. Every fd-table
 *    entry and every stdio stream that refers to it holds a reference; the
 *    session ends when the last reference goes (close, fclose, exit, or the
 *    end of the trace).
 *  - fork (a PROCESS event whose ppid is a live known process) copies the
 *    parent's fd table and stdio streams; exec (a PROCESS event for a live
 *    pid) keeps fds except O_CLOEXEC ones and drops stdio streams (the
 *    image is gone).
 *  - Offsets: an ofd has a file offset (-1 unknown) moved by read/write byte
 *    counts and set by lseek results; pread/pwrite use their own offset.
 *    O_APPEND writes always land at the end, so they are sequential.
 *    A stdio stream has its own position, moved by its calls and fseek.
 *  - stdio buffering: a stream's calls are turned into estimated syscalls
 *    (eff_ops) from its buffer size and mode (engine_stdio.c).
 *
 * The straight path of engine.c's event() runs for most events of every
 * trace: what it calls is here as static inline, always_inline where gcc
 * would otherwise keep a call, so that engine_events holds it all in its
 * loop. Everything else is an ordinary function of its part.
 */
#ifndef ENGINE_INT_H
#define ENGINE_INT_H

#include <stdint.h>

#include "engine.h"
#include "hmap.h"
#include "issue.h"
#include "saturate.h"

/* ------------------------------------------------------------ sessions */

/*
 * Where a data call was from the previous one of its direction: each is
 * one of these. The random ones are all but JUMP_NONE.
 */
enum ofd_jump {
    JUMP_NONE,      /* at its end, or either place unknown */
    JUMP_AHEAD,     /* on past its end: skips bytes, as a sorted batch or a
                       shared log's appends do; no seek back */
    JUMP_AGAIN,     /* back into its bytes: reads (writes) them again */
    JUMP_BACK,      /* back to before its start ... */
    JUMP_WRAP,      /* ... and there to the file's first RULE_WRAP_BYTES: goes
                       round again (a circular log, write_wraps) */
    JUMP_KINDS
};

/*
 * The figures of each direction of a session, [0] reads and [1] writes. Data
 * calls index them by is_write instead of branching on it (arrays rather
 * than an array of structs: an index scaled by 8 is free in an address);
 * ofd_figures copies them into the session and profile figures.
 */
struct ofd_dirs {
    uint64_t calls[2];          /* rule_session reads/writes = profile reads/writes
                                   (count_call and count_position go in pairs) */
    int64_t ns[2], max_ns[2];   /* durations */
    int64_t bytes[2];           /* bytes moved (returned) */
    int64_t prev_end[2];        /* where the previous one ended, -1: none yet or unknown */
    int64_t prev_start[2];      /* ... and where it started */
    uint64_t jumps[JUMP_KINDS][2];  /* by where they were from the previous one (count_position) */
    int64_t first_start[2];     /* where the first one started, -1 unknown (read_from) */
    int64_t extent[2];          /* the furthest end of one, -1 none known (write_extent) */
    int64_t last_moved;         /* bytes the newest one of either moved (last_bytes) */
};

/*
 * What every data call reads or updates besides dir, kept in two cache
 * lines: the session's own figures are spread over several, and a call
 * waits for each line it touches. ofd_figures copies them over.
 */
struct ofd_hot {
    int64_t op_size, buffer, max_continual_ns;              /* rule_session's */
    int64_t main_cost_ns, main_max_once_ns, main_max_continual_ns;
    uint64_t main_ops;
    uint64_t seeks;                                         /* the profile's */
    int64_t last_end, cur_cont;                             /* the current run */
    int64_t main_last_end, main_cur_cont;
    int64_t off;                /* file offset, -1 unknown */
    int32_t main_tid;
    int op_type;
    int timed;
    int append;
    int32_t calls_on;           /* whose calls it has had (enum calls_on, or a tid) */
    uint64_t last_seq;          /* its newest data call's place in its caller's calls */
    int32_t run_tid;            /* the thread of its newest data calls (0 none yet) ... */
    uint64_t run_calls;         /* ... and how many in a row: ofd_thread_run counts them */
};

/*
 * Most sessions are used by one thread, so all their calls are on the main
 * thread or none is. While that holds the main-thread figures are not kept
 * apart: they are the session's own (calls_on: that main thread's tid) or
 * nothing (ON_OTHERS), and ofd_figures makes them. The first call that
 * breaks it (count_mixed) makes them from what was counted so far, and
 * from then on every call updates them (ON_BOTH). A session of one thread
 * thus spares every call the main-thread figures.
 */
enum calls_on {
    ON_OTHERS = -1,             /* none on a main thread */
    ON_BOTH = -2,
    ON_NONE = -4                /* no call yet */
    /* >= 0: all on the main thread of that tid */
};

struct engine_proc;

/*
 * The stacks a session's calls of one kind carried (reads, writes, syncs)
 * and on how many calls each, for its read_stack, write_stack and
 * sync_stack: a session has few call sites; a stack beyond OFD_SITES
 * distinct ones is not counted (the first ones met stand).
 */
enum ofd_site_kind { OFD_SITE_READ, OFD_SITE_WRITE, OFD_SITE_SYNC, OFD_SITE_KINDS };
#define OFD_SITES 8
#define OFD_DATA_OPS 4
/* The threads whose calls a session counts apart (rule_session calls_tid):
   a file shared by a pool of more is rare, and the rest count as others. */
#define OFD_THREADS 8
struct ofd_thread {
    int32_t tid;                /* 0: a free entry */
    uint64_t calls;
};
struct ofd_site {
    const char *stack;          /* interned; NULL: a free entry */
    uint64_t calls;
    uint64_t scattered;         /* ... of them jumps back (ofd_scattered grew) */
};

struct ofd {
    struct ofd_hot h;           /* first: with dir, the lines a data call touches */
    struct ofd_dirs dir;
    int refs;
    struct rule_session s;      /* the figures end up here (ofd_figures) */
    struct prof_counts pc;
    struct engine_proc *opener;
    int ignored;
    int other_thread_calls;     /* a data call from a thread that is not a main one */
    int64_t synced_bytes;       /* dir.bytes[1] at its newest sync: what the next makes durable */
    int64_t sync_model_ns, sync_model_once_ns;  /* its syncs' modelled cost, the largest one's */
    int64_t leak_t;
    struct ofd_site sites[OFD_SITE_KINDS][OFD_SITES];
    /* a stream session's data ops and their calls, the first
       OFD_DATA_OPS ones met (s.data_op: the one of most calls) */
    struct {
        unsigned op;
        uint64_t calls;
    } data_ops[OFD_DATA_OPS];
    /* whose data calls and syncs it had: runs of one thread's calls are
       counted in h.run_calls and added here when another thread's come */
    struct ofd_thread threads[OFD_THREADS];
    uint64_t other_threads_calls;   /* ... of threads beyond the table */
};

/* ------------------------------------------------------------ processes */

struct fdent {
    struct ofd *o;
    int cloexec;
    int socket;                 /* made by socket or accept (o is NULL): a peer's */
    /* When the call that handed out this fd returned, if it found a file
       still there (0: it did not): that file's close was then running on
       another thread, met after the open because it began later; a close
       of the fd that began before this time is that one (fd_close_freed) */
    int64_t displaced_until;
};

struct engine_thread {
    int32_t pid, tid;
    const char *name;
    int is_main;                /* first, named or waiting: its calls get the main figures */
    int waits;                  /* it waits for events (a waits record): an event loop */
};

struct engine_proc {
    int32_t pid, ppid;
    const char *exe, *name;
    const char *cwd;            /* working directory (cwd calls, inherited), NULL unknown */
    const char *home;           /* $HOME (home records, inherited), NULL unknown */
    int64_t start_t, start_unix_ns;
    struct fdent *fds;
    int32_t nfds;
    int32_t nthreads;           /* threads seen */
    int named_main;             /* one had a name matching main_thread_names */
    int32_t threads_created;    /* pthread_create calls that succeeded */
    int other_tid_seen;         /* a call made by a thread other than the first (tid != pid),
                                   which may have no record of its own but its calls */
    struct hmap streams;        /* stream id -> struct stdio_stream (engine_stdio.c) */
    int exited;
    int forked;                 /* made by its parent's fork call; its process record is due */
    int unseen_io;              /* it submitted I/O naming no file (io_uring): every session
                                   of it open then or later is RULE_UNSEEN_PROCESS */
    /* its io_uring calls (setup, enter) and ring fds in the summary's async
       counts, taken out when the kernel path covers it (its requests are
       recorded there); covered: later ones are not counted */
    uint64_t uring_calls;
    uint32_t uring_fds;
    int uring_covered;
    /* the time it spent in calls (engine_proc_io_ns_of): its other calls as
       they come, its data calls as their session ends, so that the data
       calls' fast path does not count */
    int64_t io_ns;
    /*
     * What followed its newest file write on sockets (peer_after, PEER_*):
     * replies and then the next request (a record written before the
     * replies, as an event loop's write-ahead log is), or the next request
     * first (a log written after them). A server whose request reads the
     * trace does not hold (recv is no file call) shows replies only, and
     * is not taken for the first. last_write only identifies the session
     * written; it is never dereferenced.
     */
    const struct ofd *last_write;
    int peer_after;
    /* Its newest call that failed: its place in calls and its thread (a
       write right after it in that thread records the failure: an error
       log's line) */
    uint64_t failed_seq;
    int32_t failed_tid;
    /* A socket call (peer_after) or a failed call came since its newest
       file write: only then has the next one anything to count
       (note_file_write). 0: peer_after is PEER_NONE and failed_seq is
       older than the call before the next one. */
    int write_watch;
    /* Its calls so far: a clock that a loaded machine does not stretch
       (the sessions' open_seq, last_data_seq, end_seq). */
    uint64_t calls;
    /* The modelled cost of its calls so far (cost_model.h): its other
       calls as they come, its data calls and syncs as their session ends;
       the sessions' model_clock_ns and the severities' share. */
    int64_t model_ns;
};

enum {
    PEER_NONE = 0,              /* no socket call since */
    PEER_READ,                  /* a read came first: the next request */
    PEER_WRITE,                 /* a write came first: a reply ... */
    PEER_WRITE_READ             /* ... and then a read: the next turn began */
};

/* ------------------------------------------------------------ the engine */

struct rule_slot {
    const struct rule *rule;
    struct rule_ctx ctx;
    struct issue_binding bind;
    void *state;
};

struct engine {
    const struct config *cfg;
    struct issues *issues;
    struct profile *prof;
    struct hmap procs;          /* pid -> struct engine_proc */
    struct hmap thrs;           /* tid -> struct engine_thread */
    struct hmap ignored;        /* path pointer -> (void *)1 ignored / 2 not */
    struct engine_proc *last_proc;  /* never NULL: no_proc when none is at hand */
    /* last_proc when no process is at hand: it has no fd, so the straight
       path (engine.c) leaves every call to the slow one with no test of
       its own; engine_proc_get never takes it for a process */
    struct engine_proc no_proc;
    struct engine_thread *last_thr;
    struct rule_slot *slots;
    size_t nslots;
    int64_t gap;                /* cfg->gap_ns */
    size_t nmain;               /* cfg->nmain_names */
    size_t nwaiting;            /* threads other than a process's first that wait for events */
    int waits_known;            /* the input has waits records (RULE_ROLE_WAITS_KNOWN) */
    /* st.events and st.calls are summed up by engine_stats from these */
    uint64_t other_events;      /* not calls, or calls of no process (out of memory) */
    uint64_t calls_bad_op;      /* calls of an op out of range */
    struct engine_stats st;
    const char *empty;
    struct hmap async_fds;      /* pid << 32 | fd of async I/O -> (void *)1 */
    struct hmap dirs;           /* path pointer -> (void *)1: a directory, as the trace
                                   shows (engine_names.c, engine_path_is_dir) */
    struct hmap open_paths;     /* path pointer -> its open sessions (engine_names.c) */
    struct iot_strtab *strtab;  /* where the input interns its strings, NULL unknown */
    /* what nothing could see (engine_unobserved.c), in time order; bounded */
    struct engine_unobserved *unobs;
    size_t nunobs, capunobs;
};

/* A program or process whose file calls no recorder saw (rule_unobserved). */
struct engine_unobserved {
    int32_t pid;
    const char *path, *why, *process;
    int64_t t, unix_ms;
    int covered;                /* a kernel capture recorded its calls after all, or
                                   the preload was entered in its pid after it */
};

/* What the rules' ctx.timing says: every call had a duration (the figures
   shown with an issue; its judgement is the cost model's). */
static inline int engine_timing(const struct engine *e)
{
    /* what is shown only: no judgement rests on a duration (cost_model.h),
       so --ci (cfg->untimed) changes nothing */
    return e->st.calls_no_dur == 0;
}

/* Adds ns to process pid's io_ns, when the process is known. */
void engine_proc_io_add(struct engine *e, int32_t pid, int64_t ns);

/* ------------------------------------------------------------ sums */

/* Running sums saturate: bad input must not overflow (engine.c bounds each
   event's quantities on entry). */
#define SADD(a, b) ((a) = iot_sadd((a), (b)))

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/*
 * cond ? x : y as a conditional move, where gcc would branch on the ?: and
 * the condition follows no pattern (the calls of concurrent threads).
 */
static inline int64_t sel(uint64_t cond, int64_t x, int64_t y)
{
#if defined(__GNUC__) && defined(__x86_64__)
    __asm__("test %1, %1\n\tcmovne %2, %0" : "+r"(y) : "r"(cond), "rm"(x) : "cc");
    return y;
#else
    return cond ? x : y;
#endif
}

/* ------------------------------------------------------------ engine_proctab.c */

/* A new entry for pid, counted; NULL out of memory. */
struct engine_proc *engine_proc_new(struct engine *e, int32_t pid);
struct engine_proc *engine_proc_lookup(struct engine *e, int32_t pid);
struct engine_thread *engine_thread_get(struct engine *e, int32_t pid, int32_t tid);
/* ms since the epoch at trace time t of p (t itself when p's start is unknown) */
int64_t engine_proc_unix_ms(const struct engine_proc *p, int64_t t);

/* ------------------------------------------------------------ engine_unobserved.c */

/* An unrecorded record of p: what it ran, or itself, went unseen. */
void engine_unobserved_note(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
/* A kernel capture recorded p's calls (its coverage record): what was said
   unseen of it, by itself or by the parent that spawned it, is seen. */
void engine_unobserved_covered(struct engine *e, const struct engine_proc *p);
/* The preload recorded a new image of p (exec 1, before p's own fields
   are updated), or a new process p: a static program exec'd in p since its
   last image, or spawned by p's parent and run by p, handed over to it. */
void engine_unobserved_entered(struct engine *e, const struct engine_proc *p, int exec);
/* At the end: each unseen one to the rules that have on_unobserved. */
void engine_unobserved_report(struct engine *e);
void engine_unobserved_free(struct engine *e);

/* ------------------------------------------------------------ engine_proc.c */

void engine_on_process(struct engine *e, const struct iot_event *ev);
void engine_on_thread(struct engine *e, const struct iot_event *ev);
void engine_on_exit(struct engine *e, const struct iot_event *ev);
/* p's fork call (ret: the child's pid): the child gets p's fds and stdio streams as they are now. */
void engine_on_fork(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
/* A thread waits for events (a waits record): it is an event loop from then on. */
void engine_on_waits(struct engine *e, const struct iot_event *ev);
/* Everything p holds goes (end: enum rule_end); leaks marks them when p exits normally. */
void engine_proc_drop_all(struct engine *e, struct engine_proc *p, int64_t t, int end, int leaks);
/* The error path of engine_free: every process and thread, without ending sessions. */
void engine_procs_free(struct engine *e);

/*
 * The process of pid as a call of it makes it: created when unknown, live
 * again when it had exited (the pid was reused, unannounced). For the
 * replay only; the last one asked for is at hand (calls come in runs).
 */
static inline struct engine_proc *engine_proc_get(struct engine *e, int32_t pid)
{
    struct engine_proc *p = e->last_proc;

    return p->pid == pid && p != &e->no_proc ? p : engine_proc_lookup(e, pid);
}

/*
 * The latest process of pid, exited or not, NULL when none was seen: a
 * lookup that only looks. What reports ask between events goes through it
 * (engine_query.c): a question must not make a process, nor bring an
 * exited one back to life, whose next process with that pid would then be
 * taken for an exec of the old one.
 */
static inline struct engine_proc *engine_proc_find(const struct engine *e, int32_t pid)
{
    return hmap_get(&e->procs, (uint64_t)(uint32_t)pid);
}

/* Thread tid of process pid as the trace has shown it, NULL when none: a
   lookup that only looks, as engine_proc_find. */
static inline struct engine_thread *engine_thread_find(const struct engine *e, int32_t pid,
                                                       int32_t tid)
{
    struct engine_thread *t = hmap_get(&e->thrs, (uint64_t)(uint32_t)tid);

    return t && t->pid == pid ? t : NULL;
}

/*
 * Only the main-thread test is needed per call; without main_thread_names it
 * is tid == pid and needs no thread lookup (the hot path).
 */
static inline int call_on_main(struct engine *e, int32_t pid, int32_t tid)
{
    struct engine_thread *t;

    if (!e->nmain && !e->nwaiting)
        return tid == pid;
    t = engine_thread_get(e, pid, tid);
    return t ? t->is_main : tid == pid;
}

/* ------------------------------------------------------------ engine_fd.c */

/* Whether the config's ignore_paths matches path (an interned string; cached). */
int engine_path_ignored(struct engine *e, const char *path);
/* A new session on path opened by ev of p, no reference yet; NULL out of memory. */
struct ofd *ofd_new(struct engine *e, const struct iot_event *ev, struct engine_proc *p,
                    const char *path, int layer);
/* One reference to o goes; the last ends the session at t (end: enum rule_end). */
void ofd_unref(struct engine *e, struct ofd *o, int64_t t, int end);
/* A call on o carried ev's stack: counted for o's site of its op's kind
   (reads, writes, syncs; other ops are not counted); scattered: the call
   jumped back to before where the previous one started. */
void ofd_site_seen(struct ofd *o, const struct iot_event *ev, int scattered);
/* The site of o's calls of op's kind seen so far (the stack the most of them
   carried), else o's open stack: for a call of op recorded without one. */
const char *ofd_site_of(const struct ofd *o, unsigned op);
/* o is held as fd by process pid as it exits normally at t: a leak, or not. */
void ofd_mark_leak(struct ofd *o, int32_t pid, int32_t fd, int64_t t);
/* p's entry of fd, the table grown to hold it when create; NULL for an fd out of
   the table's range (negative, or beyond MAX_FD) or out of memory. */
struct fdent *engine_fd_slot(struct engine_proc *p, int32_t fd, int create);
void engine_fd_close(struct engine *e, struct engine_proc *p, int32_t fd, int64_t t);
/* When call ev returned. */
static inline int64_t engine_call_end(const struct iot_event *ev)
{
    return ev->t + (ev->dur > 0 ? ev->dur : 0);
}
/* fd of p refers to o from now on, taking over the caller's reference,
   handed out by call ev. */
void engine_fd_install(struct engine *e, struct engine_proc *p, int32_t fd, struct ofd *o,
                       int cloexec, const struct iot_event *ev);
/*
 * Whether a close of fd that began at t is the one that freed the fd for
 * the file there now (whose open the engine met first, having begun
 * first): then the file it closed is closed already, and the one there now
 * stays. Says so once.
 */
int engine_fd_close_freed(struct engine_proc *p, int32_t fd, int64_t t);
/* The calls of the OPEN, CLOSE and FD classes that are not stdio's; failed: the call failed. */
void engine_on_open(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
void engine_on_close(struct engine *e, struct engine_proc *p, const struct iot_event *ev, int failed);
void engine_on_fd_table(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                        int failed);

/* ------------------------------------------------------------ engine_paths.c */

/*
 * A call naming a path that opens nothing (a lookup: stat, access,
 * readlink), or an open that failed: to the rules that judge path calls.
 */
void engine_on_path_call(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                         int failed);

/* ------------------------------------------------------------ engine_names.c */

/* A call that names or changes a name (mkdir, rmdir, rename, a listing):
   what it shows of directories, and the new names of open files. */
void engine_paths_note(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                       int failed);
/* path (interned) is a directory from now on: opened with O_DIRECTORY. */
void engine_paths_note_dir(struct engine *e, const char *path);
/* A session of path began (delta 1) or ended (-1). */
void engine_names_opened(struct engine *e, const char *path, int delta);
/* path (interned) is a directory as far as the trace has shown. */
static inline int engine_path_is_dir(const struct engine *e, const char *path)
{
    return e->dirs.n && hmap_get(&e->dirs, hmap_ptr_key(path)) != NULL;
}

static inline struct ofd *engine_fd_ofd(struct engine_proc *p, int32_t fd)
{
    return fd >= 0 && fd < p->nfds ? p->fds[fd].o : NULL;
}

/* ------------------------------------------------------------ engine_blocking.c */

/*
 * A call that may wait for storage without moving data (a sync, an open, a
 * close, a metadata call), before it is dispatched (a close still names
 * its file): to the rules that judge main-thread calls (on_main_call).
 */
void engine_on_blocking_call(struct engine *e, struct engine_proc *p, const struct iot_event *ev);

/* ------------------------------------------------------------ engine_stdio.c */

/* The calls of the STDIO api by class: OPEN, CLOSE, DATA (is_write), the others. */
void stdio_on_open(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
void stdio_on_close(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
void stdio_on_data(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                   int is_write);
void stdio_on_other(struct engine *e, struct engine_proc *p, const struct iot_event *ev);
/* Every stream of p goes (end: enum rule_end); leaks as for engine_proc_drop_all. */
void stdio_drop_all(struct engine *e, struct engine_proc *p, int64_t t, int end, int leaks);
/* fork: child gets a copy of each of parent's streams, sharing their sessions. */
void stdio_fork(struct engine_proc *parent, struct engine_proc *child);
/* The error path of engine_free: p's streams go, their sessions only freed. */
void stdio_free_all(struct engine_proc *p);

/* ------------------------------------------------------------ figures */

/* The figures kept apart (struct ofd_hot, struct ofd_dirs) into the session
   and profile (engine_figures.c). */
void ofd_figures(struct ofd *o);

/* ------------------------------------------------------ engine_model.c */

/* The modelled cost of a sync of o now (by the bytes written since its
   previous one); o NULL: a sync of no session (a directory's, nothing). */
int64_t engine_sync_model(const struct ofd *o);
/* A sync of o (NULL: of no session, counted to p at once) was made. */
void engine_sync_seen(struct engine_proc *p, struct ofd *o);
/* A call of p that is neither a data call nor a sync: its modelled cost to p. */
void engine_call_model(struct engine_proc *p, const struct iot_event *ev);
/* Session o's model_* figures and its process's total (after ofd_figures). */
void engine_session_model(struct engine *e, struct ofd *o);


/*
 * Data calls are most of every trace, and the calls of concurrent threads
 * alternate unpredictably between reads and writes: the figures below are
 * indexed by is_write and updated with selects rather than branches, so a
 * call costs the same few instructions whatever the previous one was.
 * Branches remain where they go the same way for long runs (the first call
 * of a session, whether its calls come from one kind of thread). In a
 * session shared by a main thread and others, whether a call is on the
 * main thread is a select too: their calls alternate.
 */

/*
 * What calls_on is if the session's calls so far were all like this one's,
 * main_thread 0 or 1 (a main thread's with a negative tid, hostile input
 * only: never). Arithmetic rather than ?:, which gcc compiles to a branch
 * that mispredicts on every other call when threads alternate.
 */
static inline int32_t calls_on_key(int main_thread, int32_t tid)
{
    int32_t neg = tid >> 31;

    return ((tid & ~neg) | (-3 & neg)) | (main_thread - 1);  /* ON_OTHERS is all ones */
}

/* The main-thread figures of a session whose calls were all on main_tid. */
static inline void main_from_all(struct ofd *o)
{
    struct ofd_hot *h = &o->h;

    h->main_cost_ns = iot_sadd(o->dir.ns[0], o->dir.ns[1]);
    h->main_max_once_ns = max64(o->dir.max_ns[0], o->dir.max_ns[1]);
    h->main_max_continual_ns = h->max_continual_ns;
    h->main_cur_cont = h->cur_cont;
    h->main_last_end = h->last_end;
    h->main_ops = o->dir.calls[0] + o->dir.calls[1];
}

/*
 * A call on (main_thread, tid) where the session's calls so far were all
 * otherwise (enum calls_on). The session's first call only sets which way
 * they go, and the session's op type: returns 0, nothing more to count.
 * Else the main-thread figures are made from the calls so far and kept
 * apart from now on: returns 1.
 *
 * Out of line, but static: each file that counts calls has its own copy, so
 * gcc knows which registers it clobbers and engine_events' loop keeps its
 * values in registers across this rare call; a call into another file
 * would cost that loop spills on every event.
 */
static __attribute__((noinline, cold, unused)) int
count_mixed(struct ofd *o, int main_thread, int32_t tid, unsigned is_write)
{
    struct ofd_hot *h = &o->h;

    /* every session's first call from a thread that is not a main one
       comes here (session_end counts it for the process) */
    o->other_thread_calls |= !main_thread;
    if (h->calls_on == ON_NONE) {
        h->calls_on = calls_on_key(main_thread, tid);
        h->main_tid = main_thread ? tid : 0;
        h->op_type = is_write ? RULE_OP_WRITE : RULE_OP_READ;   /* Matrix: the first call's */
        return 0;
    }
    if (h->calls_on >= 0)
        main_from_all(o);
    h->calls_on = ON_BOTH;
    return 1;
}

/*
 * Matrix's figures plus the main-thread view; dur >= 0, timed 0 when unknown,
 * main_thread 0 or 1 and on calls_on_key(main_thread, tid), *gap the
 * engine's (by its address: read where it is used; as a value gcc loads it
 * before the session's stores, which might alias it, and keeps it on the
 * stack). op, cost_ns and max_once_ns are sums and maximum over dir, made
 * by ofd_figures.
 */
static inline __attribute__((always_inline)) void
count_call(struct ofd *o, int32_t tid, int main_thread, int32_t on, unsigned is_write,
           int64_t size, int64_t t, int64_t dur, int timed, const int64_t *gap)
{
    struct ofd_hot *h = &o->h;
    int64_t end = t + dur, cont;

    if (!timed)
        h->timed = 0;
    SADD(h->op_size, size);
    h->buffer = max64(h->buffer, size);
    /* the main thread's calls alone, when kept apart: first, as making them
       (count_mixed) takes the session's figures before this call; the
       first call comes here too (ON_NONE) */
    if (__builtin_expect(h->calls_on != on, 0)) {
        if (h->calls_on != ON_BOTH && !count_mixed(o, main_thread, tid, is_write))
            goto counted;
        cont = t - h->main_last_end < *gap ? iot_sadd(h->main_cur_cont, dur) : dur;
        h->main_ops += (uint64_t)main_thread;
        h->main_tid = main_thread ? tid : h->main_tid;
        h->main_cost_ns = main_thread ? iot_sadd(h->main_cost_ns, dur) : h->main_cost_ns;
        h->main_max_once_ns = main_thread ? max64(h->main_max_once_ns, dur) : h->main_max_once_ns;
        h->main_cur_cont = main_thread ? cont : h->main_cur_cont;
        h->main_max_continual_ns = max64(h->main_max_continual_ns, h->main_cur_cont);
        h->main_last_end = main_thread ? end : h->main_last_end;
    }
counted:
    /* A continual run: calls less than gap apart. Before the first call the
       run is 0 long, so the first call starts one whatever the gap. */
    cont = iot_sadd(h->cur_cont, dur);
    h->cur_cont = t - h->last_end < *gap ? cont : dur;
    h->max_continual_ns = max64(h->max_continual_ns, h->cur_cont);
    h->last_end = end;
    SADD(o->dir.ns[is_write], dur);
    o->dir.max_ns[is_write] = max64(o->dir.max_ns[is_write], dur);
}

/* The calls of o's thread run so far go to its entry; tid's run begins. */
void ofd_thread_run(struct ofd *o, int32_t tid);

/* One data call or sync of thread tid on o, counted for its thread. */
static inline __attribute__((always_inline)) void count_thread(struct ofd *o, int32_t tid)
{
    if (__builtin_expect(tid != o->h.run_tid, 0))
        ofd_thread_run(o, tid);
    o->h.run_calls++;
}

/* A write of p to file session o: was what followed p's previous file
   write, when it was o's, replies and then a request (peer_after)? */
static inline void note_file_write(struct engine_proc *p, struct ofd *o, int32_t tid)
{
    if (__builtin_expect(p->write_watch, 0)) {
        o->s.writes_before_reply += (p->last_write == o) & (p->peer_after == PEER_WRITE_READ);
        /* the call just before this one, in its thread, failed */
        o->s.writes_after_failure += (p->failed_seq + 1 == p->calls) & (p->failed_tid == tid);
        p->peer_after = PEER_NONE;
        p->write_watch = 0;
    }
    p->last_write = o;
}

/* The calls of a direction that jumped back to before where the previous
   one started: neither a re-read of its bytes nor a skip forward (what
   random_read and random_write call scattered). */
static inline uint64_t ofd_scattered(const struct ofd *o, unsigned is_write)
{
    return o->dir.jumps[JUMP_BACK][is_write] + o->dir.jumps[JUMP_WRAP][is_write];
}

/* The calls of a direction not at the end of the previous one (random_reads). */
static inline uint64_t ofd_random(const struct ofd_dirs *d, unsigned is_write)
{
    return d->calls[is_write] - d->jumps[JUMP_NONE][is_write];
}

/* Sequential or not: pos -1 = unknown (given the benefit of the doubt). */
static inline __attribute__((always_inline)) void
count_position(struct ofd *o, unsigned is_write, int64_t pos, int64_t moved)
{
    struct ofd_dirs *d = &o->dir;
    int64_t end = iot_sadd(pos, moved), prev = d->prev_end[is_write];
    /* both known (neither has the sign bit), and apart */
    unsigned apart = ((pos | prev) >= 0) & (pos != prev);
    /*
     * Apart, prev >= 0 is where the previous one ended, so at or past its
     * start (moved >= 0): pos is past its end (ahead), before its start
     * (behind, then low in the file or not), or else within its bytes.
     * One counter by arithmetic rather than four by conditions.
     */
    unsigned ahead = pos > prev, behind = pos < d->prev_start[is_write],
             low = pos < RULE_WRAP_BYTES;
    unsigned jump = -apart & (JUMP_AGAIN - ahead + behind * (1 + low));

    _Static_assert(JUMP_AHEAD == JUMP_AGAIN - 1 && JUMP_BACK == JUMP_AGAIN + 1 &&
                   JUMP_WRAP == JUMP_AGAIN + 2, "enum ofd_jump's order");
    /* a branch, not a select: taken once per direction and session */
    if (__builtin_expect(d->calls[is_write] == 0, 0))
        d->first_start[is_write] = pos;
    d->calls[is_write]++;
    d->jumps[jump][is_write]++;
    SADD(d->bytes[is_write], moved);
    d->last_moved = moved;
    d->prev_end[is_write] = pos >= 0 ? end : -1;
    d->extent[is_write] = max64(d->extent[is_write], d->prev_end[is_write]);
    d->prev_start[is_write] = pos;
}

/*
 * One successful read/write-class call of thread tid at t on o: size
 * requested, moved bytes returned, dur >= 0 (timed 0: unknown); when
 * positional (pread/pwrite: any nonzero, a select's condition), *offset is its own when has says so, else
 * unknown. Takes the call's values rather than its event: the engine's
 * straight path has them from an event or from a struct engine_call. The
 * offset by its address: read where it is used, as a value it is loaded
 * first and kept on the stack.
 */
static inline __attribute__((always_inline)) void
fd_data(struct ofd *o, int32_t tid, int64_t t, uint32_t has, const int64_t *offset, int main_thread,
        int32_t on, unsigned is_write, int positional, int64_t size, int64_t moved, int64_t dur,
        int timed, const int64_t *gap)
{
    int64_t pos, off;
    int append;

    count_call(o, tid, main_thread, on, is_write, size, t, dur, timed, gap);
    count_thread(o, tid);
    /* beside a stream (stdout announced as one): one of the syscalls
       beneath the session, as the stream's modelled ones are */
    if (__builtin_expect(o->s.layer == RULE_LAYER_STDIO, 0)) {
        o->s.eff_ops++;
        o->s.direct_ops++;
        SADD(o->s.eff_bytes, size);
    }
    /*
     * Where it happened: pread/pwrite say; an O_APPEND write lands at the end
     * of the file (sequential by construction, and the offset is unknown
     * after it); anything else is at the file offset, which it moves.
     */
    append = is_write & o->h.append;
    off = o->h.off >= 0 ? iot_sadd(o->h.off, moved) : o->h.off;
    pos = append ? o->dir.prev_end[1] : o->h.off;
    /*
     * Selects: reads, writes and pwrites of concurrent threads interleave,
     * so a branch on these conditions follows no pattern; gcc compiles ?:
     * here to branches.
     */
    o->h.off = sel((uint64_t)positional, o->h.off, sel((uint64_t)append, -1, off));
    pos = sel((uint64_t)positional, sel(has & IOT_HAS_OFFSET, *offset, -1), pos);
    count_position(o, is_write, pos, moved);
}

#endif /* ENGINE_INT_H */
