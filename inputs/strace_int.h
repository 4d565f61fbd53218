/*
 * strace_int.h - what the files of the strace importer share; strace.h is
 * its public face. Only analyzer/strace_*.c include this header.
 *
 * A line is "[PID] [TIME] BODY" and goes through these parts in turn:
 *
 *   strace_lines.c     reads each log's next line and parses its prefix
 *                      (pid, time on a scale common to all the logs), and
 *                      picks the log whose line comes first
 *   strace_source.c    the API of strace.h, the patterns of the line grammar
 *                      and the dispatch of a body: call, <unfinished ...>,
 *                      <... resumed>, +++ exit +++, -k frame
 *   strace_args.c      the lexer: a call's arguments, strings, -y
 *                      annotations, flags, return value, errno, duration
 *   strace_syscalls.c  the syscall table (from schema.h) and the decoding of
 *                      each syscall shape into an event
 *   strace_tasks.c     the model of processes and threads: fd tables,
 *                      mappings, clone/fork/exec/exit, unfinished calls
 *   strace_heap.c      events out in time order; opens held for -k stacks
 *
 * Calls go one way, down the layers source, syscalls, tasks, heap, args,
 * lines: a file calls only files after it in that order, so what a lower
 * layer needs from a higher one (is a call a clone, the oldest unfinished
 * call) its caller passes in.
 *
 * Unless a comment says otherwise, a function returning int returns 0, or
 * -1 only when out of memory: a line it cannot use is counted as unknown or
 * ignored, never an error (strace.h).
 */
#ifndef STRACE_INT_H
#define STRACE_INT_H

#include <stdint.h>
#include <stdio.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "hmap.h"
#include "infile.h"
#include "iotrace.h"
#include "strace.h"

#define NS_PER_S 1000000000LL
/* Seconds are capped here (2096-10-02) so that sums and differences of
 * times can never overflow (strace_sec_ns). */
#define MAX_SEC 4000000000LL
/* Arguments of a call beyond this are not split out (no syscall read here
 * needs them). */
#define MAX_ARGS 16

/* ------------------------------------------------------ tasks (strace_tasks.c) */

/* A file-backed mmap, so that its munmap can be matched. */
struct strace_fmap { uint64_t addr, len; };

/* One process image: its fd -> path table follows opens, dups and closes so
 * that logs written without -y still name the file of every call. */
struct strace_proc {
    int32_t pid, ppid;
    int announced;          /* its PROCESS event was emitted */
    int exited;
    int64_t exit_t;
    const char **fdpath;    /* interned paths indexed by fd; NULL unknown */
    size_t nfd;
    struct strace_fmap *maps;
    size_t nmaps, capmaps;
    const char **argv;      /* interned strings; the array lives until close */
    int argc;
    const char *exe;
    const char *cwd;        /* the last AT_FDCWD annotation seen (interned), NULL none */
    struct strace_proc *next_all;
};

struct strace_task {
    int32_t tid;
    struct strace_proc *proc;
    int exited;
    int64_t exit_t;
    /* a call left <unfinished ...>; the task is then in strace_src.pend, at pend_idx */
    int pending;
    size_t pend_idx;
    int pend_clone;         /* it is a clone-family call */
    int pend_thread;        /* ... with CLONE_THREAD */
    int32_t pend_child;     /* child tid already attributed to it, or 0 */
    char *pend_name, *pend_args;
    int64_t pend_t;
    size_t pend_log;        /* index in strace_src.logs of the log it started in */
    struct strace_task *next_all;
};

/* ------------------------------------------------------- logs (strace_lines.c) */

/* How a log tells time, learnt from its first line that has a body. */
enum strace_clock {
    TK_UNSET,   /* no such line yet */
    TK_NONE,    /* no timestamps: an artificial clock, one tick a line */
    TK_TOD,     /* -t, -tt: time of day */
    TK_EPOCH,   /* -ttt: unix seconds */
    TK_REL      /* -r: seconds since the previous line */
};

/* An open waiting for the -k stack lines that follow it (strace_heap.c). */
struct strace_held {
    struct iot_event ev;
    int has;                 /* ev is held */
    int frames;              /* -k lines seen after it */
    int no_k;                /* a line after an open was no -k frame: the
                                log has no stacks and opens need not wait */
    char *stk;               /* the frames gathered, "\n"-separated */
    size_t stklen, stkcap;
};

struct strace_log {
    FILE *f;                 /* the caller's (strace_open), or NULL: read from in */
    struct infile *in;       /* strace_open_files: released at the log's end */
    const char *name;
    int32_t default_pid;     /* of lines without a pid column */
    char *line;              /* the line ahead, without its end of line */
    size_t cap;
    size_t len;
    char *second;            /* the file's second line, read with its first */
    size_t second_cap;
    ssize_t second_len;      /* -1: none waiting */
    int have, eof;           /* a line is ahead; the file is done */
    int err;                 /* errno of a read error */
    /* prefix of the line ahead */
    int32_t pid;             /* 0 when the line has no pid column */
    int64_t abs;             /* its time on the common scale (ns) */
    size_t body;             /* offset of the body */
    /* clock state */
    enum strace_clock tk;
    int64_t day_base;        /* unix ns of the local midnight of the first line */
    int64_t last_tod;
    int64_t clock;
    int64_t mtime_ns;
    struct strace_info info;  /* this file's share */
    struct strace_held held;
    size_t qpos[2];          /* index + 1 in s->logq[LOGQ_LINE], [LOGQ_HELD]; 0: not in */
};

/*
 * Logs in time order, as a min-heap with each log's place kept in it, so
 * that the earliest is found and a log's time changed in O(log n) however
 * many -ff files there are (a scan per line made 20,000 files quadratic).
 * LOGQ_LINE holds the logs with a line ahead, by its time; LOGQ_HELD those
 * holding an open for its -k stack, by the open's time.
 */
enum { LOGQ_LINE, LOGQ_HELD };
struct strace_logq {
    struct strace_log **a;   /* room for every log */
    size_t n;
    int which;
};

/* ------------------------------------------------------------- the source */

/* An event waiting in the heap; seq keeps equal times in arrival order. */
struct strace_qev {
    struct iot_event ev;
    uint64_t seq;
};

struct strace_src {
    struct iot_strtab *st;
    struct strace_info info;
    /* the logs (strace_lines.c) */
    struct strace_log *logs;
    size_t nlogs;
    struct strace_log *cur;  /* the log whose line is being processed */
    struct strace_logq logq[2];
    int64_t origin;          /* abs time of t = 0 */
    int64_t unix_origin;     /* unix ns at t = 0 */
    /* the line grammar (strace_source.c) */
    pcre2_code *re_prefix, *re_exit, *re_killed, *re_resumed, *re_call,
               *re_unfinished, *re_ret, *re_tail, *re_frame;
    pcre2_match_data *md;
    /* processes and threads (strace_tasks.c) */
    struct hmap tasks;       /* tid -> struct strace_task (the latest of a reused tid) */
    struct strace_task *all_tasks;
    struct strace_proc *all_procs;
    /*
     * Tasks with a pending call, a min-heap by pend_t (the release bound
     * needs the oldest), and those of them whose call is a clone (a new
     * tid is given to one): both kept so that no line scans every pending
     * call, which made logs of many unfinished calls quadratic.
     */
    struct strace_task **pend;
    size_t npend, cappend;
    struct strace_task **clones;
    size_t nclones, capclones;
    void **argvs;            /* every argv array handed out */
    size_t nargvs, capargvs;
    /* events waiting for their turn (strace_heap.c) */
    struct strace_qev *heap;
    size_t nheap, capheap;
    uint64_t seq;
    /* scratch text, reused from line to line */
    char *scratch;           /* joined text of a resumed call (strace_source.c) */
    size_t scratch_cap;
    char *sbuf;              /* unescaped strings (strace_args.c) */
    size_t sbuf_cap;
};

/* ------------------------------------------------------- matching, numbers */

/* Inline: a few instructions each, and every line takes several of them. */

/* Match re (a pattern of strace_source.c) against str[0..len) into s->md;
 * the number of pairs set, or <= 0. */
static inline int strace_re_match(struct strace_src *s, pcre2_code *re, const char *str,
                                  size_t len)
{
    return pcre2_match(re, (PCRE2_SPTR)str, len, 0, 0, s->md, NULL);
}

/* Group g of the last match: its start in *p and length, or -1 when unset. */
static inline long strace_re_group(struct strace_src *s, int g, const char *str, const char **p)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);

    if (g >= (int)pcre2_get_ovector_count(s->md) || ov[2 * g] == PCRE2_UNSET)
        return -1;
    *p = str + ov[2 * g];
    return (long)(ov[2 * g + 1] - ov[2 * g]);
}

/* Where the last match began and ended in its subject. */
static inline size_t strace_re_start(struct strace_src *s)
{
    return pcre2_get_ovector_pointer(s->md)[0];
}

static inline size_t strace_re_end(struct strace_src *s)
{
    return pcre2_get_ovector_pointer(s->md)[1];
}

/* The decimal number in p[0..n), saturated (a log is not trusted input). */
static inline int64_t strace_num(const char *p, long n)
{
    int64_t v = 0;

    for (long i = 0; i < n; i++) {
        if (v > (INT64_MAX - 9) / 10)
            return INT64_MAX;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* ---------------------------------------------------------- strace_lines.c */

/* Seconds and nanoseconds as nanoseconds, seconds capped at +-MAX_SEC. */
int64_t strace_sec_ns(int64_t sec, int64_t frac);
/* Digits of a fraction of a second as nanoseconds ("5" is 500000000). */
int64_t strace_frac_ns(const char *p, long n);
/* Set up l (zeroed) to read f, or in when f is NULL, named name. */
void strace_log_init(struct strace_log *l, FILE *f, struct infile *in, const char *name);
/* Read up to the first line of l that tells the time: 0, or -1 on a read
 * error (errno in l->err). */
int strace_log_start(struct strace_src *s, struct strace_log *l);
/* Read the next line of l and parse its prefix: 1 line, 0 end, -1 read
 * error (errno in l->err). */
int strace_log_advance(struct strace_src *s, struct strace_log *l);
/* The log whose line ahead is earliest, or NULL when all are done. */
struct strace_log *strace_log_earliest(struct strace_src *s);
/* Put l in q, or take it out (in = 0), or move it after its time changed. */
void strace_logq_update(struct strace_logq *q, struct strace_log *l, int in);
/* The line ahead of l is not understood: counted, and named when among the first. */
void strace_unknown_line(struct strace_src *s, struct strace_log *l);
/* Frees what l holds; an infile it reads is done. */
void strace_log_release(struct strace_log *l);

/* ----------------------------------------------------------- strace_args.c */

/* One argument of a call, as written. */
struct strace_arg { const char *p; size_t n; };

/* What a call's "= ..." part says. */
struct strace_ret {
    int known;         /* not "?" */
    int64_t val;
    int32_t err;
    const char *path;  /* annotation of a returned fd */
    int has_dur;
    int64_t dur;
};

/*
 * Split "a, b, c) rest" into args up to the ')' closing the call. Returns the
 * number of args (at most MAX_ARGS) and sets *rest after the ')', or -1 when
 * there is no ')'.
 */
int strace_split_args(const char *p, size_t n, struct strace_arg *args, size_t *rest);
/* Leading integer of a (decimal, 0x hex, 0 octal, ~0U); 0 when none (*ok, if given, 0). */
int64_t strace_arg_int(struct strace_arg a, int *ok);
/* The value in [N] (an in/out pointer argument), or -1. */
int64_t strace_arg_bracket(struct strace_arg a);
/* The interned, unescaped string of a quoted argument, or NULL. */
const char *strace_arg_str(struct strace_src *s, struct strace_arg a);
/*
 * The strings of an array argument ["a", "b", ...]: a NULL-terminated array
 * of interned strings in *argv (the caller frees it; NULL when there are
 * none) and their count in *argc; *first_cut is 1 when strace cut the first
 * string short (at -s, 32 bytes by default: "..." after its quote). 1, 0
 * when a is no array (*argv, *argc and *first_cut unset), -1 out of memory.
 */
int strace_arg_strv(struct strace_src *s, struct strace_arg a, const char ***argv, int *argc,
                    int *first_cut);
/* 1 when a starts with the word word (a whole identifier: "F_DUPFD" is not
 * the start of "F_DUPFD_CLOEXEC"). */
int strace_arg_is(struct strace_arg a, const char *word);
/*
 * The path in a -y annotation that follows a number ("3</etc/passwd>"), or
 * NULL when there is none or it names no file. Notes in the info counters
 * that the log has -y annotations.
 */
const char *strace_annotation_path(struct strace_src *s, const char *p, size_t n);
/* "O_WRONLY|O_CREAT|0x800000" (or a number from -X raw) as O_* bits. */
int64_t strace_open_flags(struct strace_arg a);
/* "AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH", "R_OK|W_OK", "RENAME_NOREPLACE", or a number. */
int64_t strace_at_flags(struct strace_arg a);
/* Sum of the iov_len fields of an iovec array (strings inside skipped). */
int64_t strace_iov_sum(struct strace_arg a);
/* The number of signal "SIGxxx" (or "xxx") in name[0..n), 0 when unknown. */
int strace_signal_number(const char *name, size_t n);
/* Parse the part after a call's ')': 0, or -1 when it holds no "= value". */
int strace_parse_ret(struct strace_src *s, const char *p, size_t n, struct strace_ret *r);

/* ------------------------------------------------------- strace_syscalls.c */

/* 1 when the syscall called name[0..n) creates a task (clone, fork, ...). */
int strace_syscall_forks(const char *name, size_t n);
/*
 * One complete call of task k: the syscall name[0..nlen), then text[0..n),
 * what follows its '(' ("3, \"a\", 1) = 1 <0.000005>"). t is its start.
 * Calls the parser cannot use (no return value, wrong shape) yield nothing.
 */
int strace_call(struct strace_src *s, struct strace_task *k, const char *name, size_t nlen,
                const char *text, size_t n, int64_t t);

/* ---------------------------------------------------------- strace_tasks.c */

/* The task of a line from tid at time t, created on first sight; NULL out of memory. */
struct strace_task *strace_task_of(struct strace_src *s, int32_t tid, int64_t t);
/* Task k's clone or fork returned child at t. */
int strace_task_clone(struct strace_src *s, struct strace_task *k, int32_t child,
                      int is_thread, int64_t t);
/* Emit a THREAD event for k at t: a new thread (name NULL) or its new name
 * (prctl PR_SET_NAME). */
int strace_thread_announce(struct strace_src *s, struct strace_task *k, int64_t t,
                           const char *name);
/* Task k ended at t with status, or killed by signal sig (0: none). */
int strace_task_exit(struct strace_src *s, struct strace_task *k, int64_t t, int status,
                     int sig);
/* Emit p's PROCESS event (at its first line, and after each exec). */
int strace_proc_announce(struct strace_src *s, struct strace_proc *p, int64_t t);
/* A successful exec in p of the image named by the arguments exe and argv. */
int strace_proc_exec(struct strace_src *s, struct strace_proc *p, struct strace_arg exe,
                     struct strace_arg argv);
/* fd now names path (NULL: nothing known); fds out of range are ignored. */
int strace_fd_set(struct strace_proc *p, int64_t fd, const char *path);
/* What fd names, or NULL. */
const char *strace_fd_get(const struct strace_proc *p, int64_t fd);
/* Forget what the fds first..last name. */
void strace_fd_forget(struct strace_proc *p, int64_t first, int64_t last);
/* Remember a file mapping of len bytes at addr. */
int strace_map_add(struct strace_proc *p, uint64_t addr, uint64_t len);
/* Forget the file mapping at addr: 1, or 0 when addr is none (malloc's arenas). */
int strace_map_remove(struct strace_proc *p, uint64_t addr);
/* k's call name[0..nlen) was left <unfinished ...> at t, with the
 * arguments args[0..alen) so far; is_clone: it creates a task
 * (strace_syscall_forks). */
int strace_pend_start(struct strace_src *s, struct strace_task *k, const char *name,
                      size_t nlen, const char *args, size_t alen, int is_clone, int64_t t);
/* The task tid whose unfinished call name[0..nlen) resumes now, or NULL. */
struct strace_task *strace_pend_find(struct strace_src *s, int32_t tid, const char *name,
                                     size_t nlen);
/* k's pending call is over (resumed, or its task ended). */
void strace_pend_end(struct strace_src *s, struct strace_task *k);
/* k's pending call will never resume (its task ended, started another call,
 * or the logs ended): counted in strace_info's unfinished, and ended. */
void strace_pend_lost(struct strace_src *s, struct strace_task *k);
/* The start of the oldest pending call, INT64_MAX when there is none. */
int64_t strace_pend_oldest(const struct strace_src *s);
/* Frees every task, process and argv. */
void strace_tasks_release(struct strace_src *s);

/* ----------------------------------------------------------- strace_heap.c */

/* Queue ev (an event of the log s->cur) for its turn. */
int strace_emit(struct strace_src *s, const struct iot_event *ev);
/* Queue an open, which first waits for the -k stack lines that may follow it. */
int strace_emit_open(struct strace_src *s, const struct iot_event *ev);
/* Add the -k frame line body[0..n) of l to its held open. */
int strace_stack_frame(struct strace_src *s, struct strace_log *l, const char *body, size_t n);
/* A line of l that is no -k frame: its held open has its whole stack (and
 * when it got no frame at all, the log was written without -k). */
int strace_stack_end(struct strace_src *s, struct strace_log *l);
/* Emit l's held open, with the frames gathered so far. */
int strace_flush_held(struct strace_src *s, struct strace_log *l);
/* Pop into ev the next event that may leave, next being the log whose line
 * comes next (NULL: none) and pend_oldest the start of the oldest unfinished
 * call (strace_pend_oldest): 1, or 0 when none may leave yet. */
int strace_pop(struct strace_src *s, const struct strace_log *next, int64_t pend_oldest,
               struct iot_event *ev);

#endif /* STRACE_INT_H */
