/*
 * input_strace.c - strace text logs as an event source (see strace.h).
 *
 * A line is "[PID] [TIME] BODY". PCRE2 patterns split the prefix, classify
 * the body (call, <unfinished ...>, <... resumed>, +++ exit +++, --- signal
 * ---) and take the return value, errno and -T duration apart; a small
 * scanner splits the argument list, because arguments nest quotes, brackets,
 * braces and -y annotations that a regular expression cannot balance.
 *
 * Events leave in time order: a call that was <unfinished ...> is emitted
 * when it resumes but carries its start time, so events wait in a small heap
 * until no earlier event can still arrive (see release_bound()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "strace.h"

#define NS_PER_S 1000000000LL
#define MAX_ARGS 16
/* Events held back for ordering; beyond this they leave even if a call that
 * started earlier is still unfinished (a thread blocked for the whole run). */
#define MAX_HELD 65536
/* Pid of a log that has no pid column and no LOG.PID name. */
#define DEFAULT_PID 1

/* ------------------------------------------------------------- int map */

/* Open-addressing map from a tid or pid to a pointer. */
struct imap {
    int32_t *keys;
    void **vals;
    size_t cap, n;   /* cap is a power of two; vals[i] == NULL marks free */
};

static size_t imap_slot(const struct imap *m, int32_t key)
{
    return ((uint32_t)key * 2654435761u) & (m->cap - 1);
}

static void *imap_get(const struct imap *m, int32_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = imap_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->vals[i])
            return NULL;
        if (m->keys[i] == key)
            return m->vals[i];
    }
}

static int imap_put(struct imap *m, int32_t key, void *val)
{
    size_t i;

    if ((m->n + 1) * 2 > m->cap) {
        struct imap big = { 0 };
        big.cap = m->cap ? m->cap * 2 : 64;
        big.keys = malloc(big.cap * sizeof(*big.keys));
        big.vals = calloc(big.cap, sizeof(*big.vals));
        if (!big.keys || !big.vals) {
            free(big.keys);
            free(big.vals);
            return -1;
        }
        for (i = 0; i < m->cap; i++)
            if (m->vals[i])
                imap_put(&big, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = big;
    }
    for (i = imap_slot(m, key); m->vals[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

static void imap_free(struct imap *m)
{
    free(m->keys);
    free(m->vals);
}

/* ------------------------------------------------------- model of tasks */

struct fmap { uint64_t addr, len; };

/* One process image: its fd -> path table follows opens, dups and closes so
 * that logs written without -y still name the file of every call. */
struct proc {
    int32_t pid, ppid;
    int announced;          /* its PROCESS event was emitted */
    int exited;
    int64_t exit_t;
    const char **fdpath;    /* interned paths indexed by fd; NULL unknown */
    size_t nfd;
    struct fmap *maps;      /* file-backed mmaps, so munmap can be matched */
    size_t nmaps, capmaps;
    const char **argv;      /* interned strings; the array lives until close */
    int argc;
    const char *exe;
    struct proc *next_all;
};

struct task {
    int32_t tid;
    struct proc *proc;
    int exited;
    int64_t exit_t;
    /* a call left <unfinished ...> */
    int pending;
    int pend_clone;         /* it is a clone-family call */
    int pend_thread;        /* ... with CLONE_THREAD */
    int32_t pend_child;     /* child tid already attributed to it, or 0 */
    char *pend_name, *pend_args;
    int64_t pend_t;
    struct task *next_all;
};

/* ---------------------------------------------------------- the source */

enum tkind { TK_UNSET, TK_NONE, TK_TOD, TK_EPOCH, TK_REL };

struct slog {
    FILE *f;
    int own;
    const char *name;
    int32_t default_pid;
    char *line;
    size_t cap;
    size_t len;
    int have, eof;
    int err;                 /* errno of a read error */
    /* prefix of the line ahead */
    int32_t pid;             /* 0 when the line has no pid column */
    int64_t abs;             /* its time on the common scale (ns) */
    size_t body;             /* offset of the body */
    /* clock state */
    enum tkind tk;
    int64_t day_base;        /* unix ns of the local midnight of the first line */
    int64_t last_tod;
    int64_t clock;
    int64_t mtime_ns;
    struct strace_info info;  /* this file's share */
    /* An open waits here for the -k stack lines that follow it. */
    struct iot_event held;
    int has_held;
    int held_frames;         /* -k lines seen after the held open */
    int no_k;                /* the line after an open was no -k frame */
    char *stk;
    size_t stklen, stkcap;
};

struct qev {
    struct iot_event ev;
    uint64_t seq;
};

struct strace_src {
    struct iot_strtab *st;
    struct slog *logs;
    size_t nlogs;
    struct strace_info info;
    struct slog *cur;        /* the log whose line is being processed */
    int64_t origin;          /* abs time of t = 0 */
    int64_t unix_origin;     /* unix ns at t = 0 */
    struct imap tasks, procs;
    struct task *all_tasks;
    struct proc *all_procs;
    struct task **pend;      /* tasks with a pending call */
    size_t npend, cappend;
    struct qev *heap;
    size_t nheap, capheap;
    uint64_t seq;
    pcre2_code *re_prefix, *re_exit, *re_killed, *re_resumed, *re_call,
               *re_unfinished, *re_ret, *re_tail, *re_frame;
    pcre2_match_data *md;
    char *scratch;           /* joined text of a resumed call */
    size_t scratch_cap;
    char *sbuf;              /* unescaped strings */
    size_t sbuf_cap;
    void **argvs;            /* every argv array handed out */
    size_t nargvs;
};

/* ------------------------------------------------------------- patterns */

static const char PAT_PREFIX[] =
    "^\\s*(?:\\[pid\\s+(\\d+)\\]\\s+|(\\d+)\\s+)?"
    "(?:(\\d{1,2}):(\\d\\d):(\\d\\d)(?:\\.(\\d{1,9}))?\\s+|(\\d+)\\.(\\d{1,9})\\s+)?"
    "(?:\\[\\s*[0-9a-f?]+\\]\\s+)?";
static const char PAT_EXIT[] = "^\\+\\+\\+ exited with (\\d+) \\+\\+\\+";
static const char PAT_KILLED[] = "^\\+\\+\\+ killed by (SIG[A-Z0-9_+]+)(?: \\(core dumped\\))? \\+\\+\\+";
static const char PAT_RESUMED[] = "^<\\.\\.\\. ([A-Za-z0-9_]+) resumed>";
static const char PAT_CALL[] = "^([a-z_][a-z0-9_]*)\\(";
static const char PAT_UNFINISHED[] = "\\s*<unfinished \\.\\.\\.>\\s*$";
static const char PAT_RET[] = "^\\s*=\\s*(\\?|0x[0-9a-fA-F]+|-?\\d+)";
/* A -k stack frame: "> /lib/libc.so.6(__open64+0x51) [0xf8011]" */
static const char PAT_FRAME[] = "^> (.*)\\(([^()]*)\\) \\[(0x[0-9a-fA-F]+)\\]\\s*$";
/* The errno name after the return value; the "<0.000012>" duration is found
   from the end of the line by tail_duration() instead: a forward pattern for
   it backtracks quadratically on a long run of blanks. */
static const char PAT_TAIL[] = "^\\s++(E[A-Z0-9_]*)\\s++\\(";

/* Matches and the detection test share this. */
static const char PAT_DETECT[] =
    "^\\s*(?:\\[pid\\s+\\d+\\]\\s+|\\d+\\s+)?"
    "(?:\\d{1,2}:\\d\\d:\\d\\d(?:\\.\\d+)?\\s+|\\d+\\.\\d+\\s+)?"
    "(?:[a-z_][a-z0-9_]*\\(|<\\.\\.\\. [A-Za-z0-9_]+ resumed>|\\+\\+\\+ |--- )"
    "|^strace: ";

static pcre2_code *re_compile(const char *pat)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);

    /* JIT makes the per-line matching about three times faster; without
     * it (unsupported platform) the interpreter gives the same results. */
    if (re)
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

/* Match re against s[0..len); the number of pairs set, or <= 0. */
static int re_match(struct strace_src *s, pcre2_code *re, const char *str, size_t len)
{
    return pcre2_match(re, (PCRE2_SPTR)str, len, 0, 0, s->md, NULL);
}

/* Group g of the last match: its start in *p and length, or -1 when unset. */
static long re_group(struct strace_src *s, int g, const char *str, const char **p)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);

    if (g >= (int)pcre2_get_ovector_count(s->md) || ov[2 * g] == PCRE2_UNSET)
        return -1;
    *p = str + ov[2 * g];
    return (long)(ov[2 * g + 1] - ov[2 * g]);
}

/* The decimal number in p[0..n), saturated (a log is not trusted input). */
static int64_t num_n(const char *p, long n)
{
    int64_t v = 0;

    for (long i = 0; i < n; i++) {
        if (v > (INT64_MAX - 9) / 10)
            return INT64_MAX;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/*
 * Seconds and nanoseconds as nanoseconds. Seconds are capped at MAX_SEC so
 * that sums and differences of times can never overflow.
 */
#define MAX_SEC 4000000000LL  /* 2096-10-02 */
static int64_t sec_ns(int64_t sec, int64_t frac)
{
    if (sec > MAX_SEC)
        sec = MAX_SEC;
    if (sec < -MAX_SEC)
        sec = -MAX_SEC;
    return sec * NS_PER_S + frac;
}

/* Digits of a fraction of a second as nanoseconds ("5" is 500000000). */
static int64_t frac_ns(const char *p, long n)
{
    int64_t v = num_n(p, n);

    for (long i = n; i < 9; i++)
        v *= 10;
    return v;
}

int strace_detect(const char *buf, size_t len)
{
    pcre2_code *re;
    pcre2_match_data *md;
    size_t i = 0, end;
    int rc;

    while (i < len && (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' '))
        i++;
    for (end = i; end < len && buf[end] != '\n'; end++)
        ;
    if (end == i)
        return 0;
    re = re_compile(PAT_DETECT);
    if (!re)
        return 0;
    md = pcre2_match_data_create_from_pattern(re, NULL);
    rc = md ? pcre2_match(re, (PCRE2_SPTR)buf + i, end - i, 0, 0, md, NULL) : -1;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc > 0;
}

/* ------------------------------------------------------------ reading */

/* Unix ns of local midnight of the day holding unix second `sec`. */
static int64_t local_midnight(time_t sec)
{
    struct tm tm;

    if (!localtime_r(&sec, &tm))
        return 0;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return sec_ns((int64_t)mktime(&tm), 0);
}

/*
 * Read the next line of l and parse its prefix. The common time scale is
 * unix ns for -ttt and -tt (the date of a -tt log comes from the file's
 * mtime: the log was last written on the day its last line was, so the first
 * line is on that day, or the day before when its time of day is later than
 * the mtime's), and an artificial clock otherwise.
 * Returns 1 line, 0 end of file, -1 read error.
 */
static int slog_advance(struct strace_src *s, struct slog *l)
{
    ssize_t n;
    const char *p;
    long gl;
    int64_t tod;

    l->have = 0;
    if (l->eof)
        return 0;
    errno = 0;
    n = getline(&l->line, &l->cap, l->f);
    if (n < 0) {
        l->eof = 1;
        if (ferror(l->f)) {
            l->err = errno ? errno : EIO;
            return -1;
        }
        return 0;
    }
    while (n > 0 && (l->line[n - 1] == '\n' || l->line[n - 1] == '\r'))
        l->line[--n] = '\0';
    l->len = (size_t)n;
    l->have = 1;
    s->info.lines++;
    l->info.lines++;

    l->pid = 0;
    l->body = 0;
    if (re_match(s, s->re_prefix, l->line, l->len) <= 0)
        return 1;  /* cannot happen: every part of the prefix is optional */
    l->body = pcre2_get_ovector_pointer(s->md)[1];
    if ((gl = re_group(s, 1, l->line, &p)) > 0 || (gl = re_group(s, 2, l->line, &p)) > 0)
        l->pid = gl <= 9 ? (int32_t)num_n(p, gl) : 0;  /* longer: no pid */

    if ((gl = re_group(s, 3, l->line, &p)) > 0) {
        int64_t h = num_n(p, gl), frac = 0;
        re_group(s, 4, l->line, &p);
        int64_t m = num_n(p, 2);
        re_group(s, 5, l->line, &p);
        int64_t sec = num_n(p, 2);
        if ((gl = re_group(s, 6, l->line, &p)) > 0)
            frac = frac_ns(p, gl);
        tod = ((h * 60 + m) * 60 + sec) * NS_PER_S + frac;
        if (l->tk == TK_UNSET) {
            l->tk = TK_TOD;
            l->day_base = local_midnight((time_t)(l->mtime_ns / NS_PER_S));
            if (l->day_base + tod > l->mtime_ns + NS_PER_S)
                l->day_base -= 86400 * NS_PER_S;
            l->last_tod = tod;
        }
        /* a jump back of more than 12 hours is midnight passing */
        if (tod + 12 * 3600 * NS_PER_S < l->last_tod && l->day_base < MAX_SEC * NS_PER_S)
            l->day_base += 86400 * NS_PER_S;
        l->last_tod = tod;
        l->abs = l->day_base + tod;
    } else if ((gl = re_group(s, 7, l->line, &p)) > 0) {
        int64_t sec = num_n(p, gl), frac = 0;
        if ((gl = re_group(s, 8, l->line, &p)) > 0)
            frac = frac_ns(p, gl);
        if (l->tk == TK_UNSET)
            l->tk = sec < 100000000 ? TK_REL : TK_EPOCH;  /* -r: since the previous line */
        if (l->tk == TK_REL) {
            if (l->clock < MAX_SEC * NS_PER_S)
                l->clock += sec_ns(sec, frac);
            l->abs = l->clock;
        } else {
            l->abs = sec_ns(sec, frac);
        }
    } else {
        const char *b = l->line + l->body;
        size_t bn = l->len - l->body;
        /* strace's messages and -k frames carry no time in any log */
        int bare = bn == 0 || (bn > 1 && b[0] == '>' && b[1] == ' ') ||
                   (bn > 7 && memcmp(b, "strace:", 7) == 0);
        if (l->tk == TK_UNSET && !bare)
            l->tk = TK_NONE;
        if (l->tk == TK_NONE || l->tk == TK_UNSET)
            l->abs = l->clock;
        /* else: a line without a time in a timed log keeps the time of
         * the line before it */
    }
    return 1;
}

/* ------------------------------------------------------------ events out */

static int heap_less(const struct qev *a, const struct qev *b)
{
    return a->ev.t < b->ev.t || (a->ev.t == b->ev.t && a->seq < b->seq);
}

static int emit(struct strace_src *s, const struct iot_event *ev)
{
    size_t i;

    if (s->nheap == s->capheap) {
        size_t cap = s->capheap ? s->capheap * 2 : 64;
        struct qev *h = realloc(s->heap, cap * sizeof(*h));
        if (!h)
            return -1;
        s->heap = h;
        s->capheap = cap;
    }
    i = s->nheap++;
    s->cur->info.events++;
    s->heap[i].ev = *ev;
    s->heap[i].seq = s->seq++;
    while (i > 0 && heap_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
        struct qev tmp = s->heap[i];
        s->heap[i] = s->heap[(i - 1) / 2];
        s->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
    return 0;
}

static void heap_pop(struct strace_src *s, struct iot_event *ev)
{
    size_t i = 0;

    *ev = s->heap[0].ev;
    s->heap[0] = s->heap[--s->nheap];
    for (;;) {
        size_t c = 2 * i + 1, m = i;
        if (c < s->nheap && heap_less(&s->heap[c], &s->heap[m]))
            m = c;
        if (c + 1 < s->nheap && heap_less(&s->heap[c + 1], &s->heap[m]))
            m = c + 1;
        if (m == i)
            break;
        struct qev tmp = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = tmp;
        i = m;
    }
}

/* ---------------------------------------------------- tasks and processes */

static struct proc *proc_new(struct strace_src *s, int32_t pid, int32_t ppid)
{
    struct proc *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->pid = pid;
    p->ppid = ppid;
    p->next_all = s->all_procs;
    s->all_procs = p;
    if (imap_put(&s->procs, pid, p) < 0)
        return NULL;
    return p;
}

static int proc_announce(struct strace_src *s, struct proc *p, int64_t t)
{
    struct iot_event ev = { 0 };

    p->announced = 1;
    ev.kind = IOT_EV_PROCESS;
    ev.pid = p->pid;
    ev.tid = p->pid;
    ev.ppid = p->ppid;
    ev.t = t;
    /* times are bounded (sec_ns), but not their sum with a file's mtime */
    if (__builtin_add_overflow(s->unix_origin, t, &ev.start_unix_ns))
        ev.start_unix_ns = t > 0 ? INT64_MAX : INT64_MIN;
    ev.exe = p->exe;
    ev.argc = p->argc;
    ev.argv = p->argv;
    return emit(s, &ev);
}

static struct task *task_new(struct strace_src *s, int32_t tid, struct proc *p)
{
    struct task *k = calloc(1, sizeof(*k));

    if (!k)
        return NULL;
    k->tid = tid;
    k->proc = p;
    k->next_all = s->all_tasks;
    s->all_tasks = k;
    if (imap_put(&s->tasks, tid, k) < 0)
        return NULL;
    return k;
}

static int thread_announce(struct strace_src *s, struct task *k, int64_t t, const char *name)
{
    struct iot_event ev = { 0 };

    ev.kind = IOT_EV_THREAD;
    ev.pid = k->proc->pid;
    ev.tid = k->tid;
    ev.t = t;
    ev.name = name;
    return emit(s, &ev);
}

/*
 * Register tid as a new task at time t: a thread of parent's process when
 * is_thread, else a new process whose parent is parent's process (or ppid 0
 * when parent is NULL). The PROCESS event of a new process waits for its
 * first line, so that an execve there can name the image.
 */
static struct task *task_create(struct strace_src *s, int32_t tid, struct task *parent,
                                int is_thread, int64_t t)
{
    struct task *k;
    struct proc *p;

    if (is_thread && parent) {
        k = task_new(s, tid, parent->proc);
        if (k && thread_announce(s, k, t, NULL) < 0)
            return NULL;
        return k;
    }
    p = proc_new(s, tid, parent ? parent->proc->pid : 0);
    if (!p)
        return NULL;
    if (parent) {
        /* a forked child runs its parent's image until it execs */
        p->exe = parent->proc->exe;
        p->argv = parent->proc->argv;
        p->argc = parent->proc->argc;
    }
    if (parent && parent->proc->nfd) {
        /* a child process inherits the descriptors */
        p->fdpath = malloc(parent->proc->nfd * sizeof(*p->fdpath));
        if (!p->fdpath)
            return NULL;
        memcpy(p->fdpath, parent->proc->fdpath, parent->proc->nfd * sizeof(*p->fdpath));
        p->nfd = parent->proc->nfd;
    }
    return task_new(s, tid, p);
}

static int pend_remove(struct strace_src *s, struct task *k)
{
    for (size_t i = 0; i < s->npend; i++)
        if (s->pend[i] == k) {
            s->pend[i] = s->pend[--s->npend];
            break;
        }
    k->pending = 0;
    free(k->pend_name);
    free(k->pend_args);
    k->pend_name = k->pend_args = NULL;
    return 0;
}

/* The task of a line from tid at time t, created on first sight. */
static struct task *task_of(struct strace_src *s, int32_t tid, int64_t t)
{
    struct task *k = imap_get(&s->tasks, tid), *parent = NULL;

    if (k && !k->exited && !k->proc->exited)
        return k;
    /* A new tid while a clone is unfinished is most likely its child (the
     * child often runs before the parent's clone returns). */
    for (size_t i = 0; i < s->npend; i++) {
        struct task *c = s->pend[i];
        if (c->pend_clone && !c->pend_child && (!parent || c->pend_t > parent->pend_t))
            parent = c;
    }
    if (parent)
        parent->pend_child = tid;
    return task_create(s, tid, parent, parent && parent->pend_thread, t);
}

/* ----------------------------------------------------- argument helpers */

struct arg { const char *p; size_t n; };

/* Skip a quoted string starting at p[0] == '"'; returns the index after it. */
static size_t skip_quoted(const char *p, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n)
            i++;
        else if (p[i] == '"')
            return i + 1;
    }
    return n;
}

/* Skip a -y annotation starting at p[i] == '<' (nested for -yy); a '>' of
 * "->" inside socket addresses does not close it. */
static size_t skip_angle(const char *p, size_t i, size_t n)
{
    int depth = 0, sq = 0;

    for (; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n)
            i++;
        else if (c == '[')
            sq++;
        else if (c == ']' && sq)
            sq--;
        else if (c == '<' && !sq)
            depth++;
        else if (c == '>' && !sq && !(i > 0 && p[i - 1] == '-') && --depth == 0)
            return i + 1;
    }
    return n;
}

/*
 * Split "a, b, c) rest" into args up to the ')' closing the call. Returns the
 * number of args and sets *rest after the ')', or -1 when there is no ')'.
 */
static int split_args(const char *p, size_t n, struct arg *args, size_t *rest)
{
    size_t i = 0, start = 0;
    int depth = 0, nargs = 0;

    while (i < n) {
        char c = p[i];
        if (c == '"') {
            i = skip_quoted(p, i, n);
            continue;
        }
        if (c == '<') {
            i = skip_angle(p, i, n);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (c == ')' && depth > 0) {
            depth--;
        } else if ((c == ',' || c == ')') && depth == 0) {
            size_t a = start, b = i;
            while (a < b && p[a] == ' ')
                a++;
            while (b > a && p[b - 1] == ' ')
                b--;
            if (nargs < MAX_ARGS && (b > a || c == ',' || nargs > 0)) {
                args[nargs].p = p + a;
                args[nargs].n = b - a;
                nargs++;
            }
            start = i + 1;
            if (c == ')') {
                *rest = i + 1;
                return nargs;
            }
        }
        i++;
    }
    return -1;
}

/* Leading integer of a (decimal, 0x hex, 0 octal, ~0U); 0 when none. */
static int64_t arg_int(struct arg a, int *ok)
{
    char buf[32];
    char *end;
    size_t n = a.n < sizeof(buf) - 1 ? a.n : sizeof(buf) - 1;
    long long v;

    memcpy(buf, a.p, n);
    buf[n] = '\0';
    if (n >= 3 && buf[0] == '~' && buf[1] == '0') {
        if (ok)
            *ok = 1;
        return -1;
    }
    errno = 0;
    v = strtoll(buf, &end, 0);
    if (errno == ERANGE)  /* unsigned values beyond int64, e.g. addresses */
        v = (long long)strtoull(buf, &end, 0);
    if (ok)
        *ok = end != buf;
    return v;
}

/* The value in [N] (an in/out pointer argument), or -1. */
static int64_t arg_bracket(struct arg a)
{
    if (a.n > 1 && a.p[0] == '[') {
        struct arg in = { a.p + 1, a.n - 1 };
        int ok;
        int64_t v = arg_int(in, &ok);
        if (ok)
            return v;
    }
    return -1;
}

/* Append the C-unescaped text of p[0..n) to the string buffer at *len. */
static int unescape_into(struct strace_src *s, const char *p, size_t n, size_t *len)
{
    if (*len + n + 1 > s->sbuf_cap) {
        size_t cap = (*len + n + 1) * 2;
        char *b = realloc(s->sbuf, cap);
        if (!b)
            return -1;
        s->sbuf = b;
        s->sbuf_cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c != '\\' || i + 1 >= n) {
            s->sbuf[(*len)++] = c;
            continue;
        }
        c = p[++i];
        switch (c) {
        case 'n': s->sbuf[(*len)++] = '\n'; break;
        case 't': s->sbuf[(*len)++] = '\t'; break;
        case 'r': s->sbuf[(*len)++] = '\r'; break;
        case 'v': s->sbuf[(*len)++] = '\v'; break;
        case 'f': s->sbuf[(*len)++] = '\f'; break;
        case 'x': {
            unsigned v = 0, k = 0;
            while (k < 2 && i + 1 < n && strchr("0123456789abcdefABCDEF", p[i + 1]) && p[i + 1]) {
                char h = p[++i];
                v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                k++;
            }
            s->sbuf[(*len)++] = (char)v;
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned v = (unsigned)(c - '0'), k = 1;
                while (k < 3 && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7') {
                    v = v * 8 + (unsigned)(p[++i] - '0');
                    k++;
                }
                s->sbuf[(*len)++] = (char)v;
            } else {
                s->sbuf[(*len)++] = c;  /* \\ and \" */
            }
        }
    }
    s->sbuf[*len] = '\0';
    return 0;
}

/* The interned, unescaped string of a quoted argument, or NULL. */
static const char *arg_str(struct strace_src *s, struct arg a)
{
    size_t end, len = 0;

    if (a.n < 2 || a.p[0] != '"')
        return NULL;
    end = skip_quoted(a.p, 0, a.n);
    if (unescape_into(s, a.p + 1, end - 2, &len) < 0)
        return NULL;
    return iot_intern(s->st, s->sbuf, len);
}

/*
 * The path in a -y annotation that follows a number ("3</etc/passwd>"), or
 * NULL when there is none or it names no file (sockets, pipes). The -yy
 * suffix of devices ("</dev/null<char 1:3>>") and " (deleted)" are dropped.
 */
static const char *annotation_path(struct strace_src *s, const char *p, size_t n)
{
    size_t i = 0, end, len = 0;

    while (i < n && p[i] != '<')
        i++;
    if (i >= n)
        return NULL;
    s->info.has_paths = 1;
    s->cur->info.has_paths = 1;
    end = skip_angle(p, i, n);
    if (end <= i + 2 || p[end - 1] != '>' || p[i + 1] != '/')
        return NULL;
    end--;
    if (p[end - 1] == '>') {  /* -yy: drop the nested <...> */
        size_t j = end - 1;
        while (j > i + 1 && p[j] != '<')
            j--;
        if (j > i + 1)
            end = j;
    }
    if (end - (i + 1) > 10 && memcmp(p + end - 10, " (deleted)", 10) == 0)
        end -= 10;
    if (unescape_into(s, p + i + 1, end - (i + 1), &len) < 0)
        return NULL;
    return iot_intern(s->st, s->sbuf, len);
}

static int starts(struct arg a, const char *word)
{
    size_t n = strlen(word);

    return a.n >= n && memcmp(a.p, word, n) == 0 && (a.n == n || !(a.p[n] == '_' ||
           (a.p[n] >= 'A' && a.p[n] <= 'Z') || (a.p[n] >= '0' && a.p[n] <= '9')));
}

static const struct { const char *name; int64_t val; } open_flag_names[] = {
    { "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
    { "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
    { "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK },
    { "O_NDELAY", O_NDELAY }, { "O_DSYNC", O_DSYNC }, { "O_SYNC", O_SYNC },
    { "O_RSYNC", O_RSYNC }, { "O_DIRECTORY", O_DIRECTORY }, { "O_NOFOLLOW", O_NOFOLLOW },
    { "O_CLOEXEC", O_CLOEXEC }, { "O_ASYNC", O_ASYNC }, { "FASYNC", O_ASYNC },
    { "O_DIRECT", O_DIRECT }, { "O_LARGEFILE", O_LARGEFILE }, { "O_NOATIME", O_NOATIME },
    { "O_PATH", O_PATH }, { "O_TMPFILE", O_TMPFILE },
};

/* "O_WRONLY|O_CREAT|0x800000" (or a number from -X raw) as O_* bits. */
static int64_t parse_open_flags(struct arg a)
{
    int64_t flags = 0;
    size_t i = 0;

    if (a.n > 6 && memcmp(a.p, "flags=", 6) == 0) {
        a.p += 6;
        a.n -= 6;
    }
    while (i < a.n) {
        size_t j = i;
        while (j < a.n && a.p[j] != '|' && a.p[j] != ',' && a.p[j] != ' ' && a.p[j] != '}')
            j++;
        struct arg w = { a.p + i, j - i };
        if (w.n && w.p[0] >= '0' && w.p[0] <= '9') {
            flags |= arg_int(w, NULL);
        } else {
            for (size_t k = 0; k < sizeof(open_flag_names) / sizeof(open_flag_names[0]); k++)
                if (w.n == strlen(open_flag_names[k].name) &&
                    memcmp(w.p, open_flag_names[k].name, w.n) == 0) {
                    flags |= open_flag_names[k].val;
                    break;
                }
        }
        if (j >= a.n || a.p[j] != '|')
            break;
        i = j + 1;
    }
    return flags;
}

/* Sum of the iov_len fields of an iovec array (strings inside skipped). */
static int64_t sum_iov_len(struct arg a)
{
    int64_t sum = 0;

    for (size_t i = 0; i < a.n;) {
        if (a.p[i] == '"') {
            i = skip_quoted(a.p, i, a.n);
            continue;
        }
        if (a.n - i > 8 && memcmp(a.p + i, "iov_len=", 8) == 0) {
            struct arg v = { a.p + i + 8, a.n - i - 8 };
            sum = (int64_t)((uint64_t)sum + (uint64_t)arg_int(v, NULL));  /* wraps, never UB */
            i += 8;
            continue;
        }
        i++;
    }
    return sum;
}

static int signal_number(const char *name, size_t n)
{
    if (n > 3 && memcmp(name, "SIG", 3) == 0) {
        name += 3;
        n -= 3;
    }
    for (int i = 1; i < 65; i++) {
        const char *abbr = sigabbrev_np(i);
        if (abbr && strlen(abbr) == n && memcmp(abbr, name, n) == 0)
            return i;
    }
    return 0;
}

static int errno_number(const char *name, size_t n)
{
    for (int i = 1; i < 200; i++) {
        const char *e = strerrorname_np(i);
        if (e && strlen(e) == n && memcmp(e, name, n) == 0)
            return i;
    }
    return 0;
}

/* ------------------------------------------------------------ syscalls */

/*
 * How a syscall's arguments are read. ARGS: the fd, size and offset are
 * plain arguments at the positions its row gives (SA() in schema.h); the
 * others have a shape of their own (SC()), handled by name in handle_call.
 */
enum sc_kind {
    SC_ARGS, SC_OPEN, SC_OPENAT, SC_OPENAT2, SC_CREAT, SC_CLOSE, SC_RWV, SC_PRWV, SC_PRWV2,
    SC_LSEEK, SC_LLSEEK, SC_DUP, SC_DUP2, SC_FCNTL, SC_MMAP, SC_MMAP2, SC_MUNMAP, SC_SENDFILE,
    SC_COPY, SC_CLOSE_RANGE, SC_PIPE, SC_NEWFD,
    /* the process model's: no op of their own */
    SC_CLONE, SC_FORK, SC_EXECVE, SC_EXECVEAT, SC_PRCTL
};

struct syscall {
    const char *name;
    uint8_t kind;                      /* enum sc_kind */
    int8_t fd_arg, size_arg, off_arg;  /* SC_ARGS: positions, -1 for none */
};

/* Each op's syscalls, from the strace column of IOT_OPS. */
#define SA(name, fd, size, off) { #name, SC_ARGS, fd, size, off },
#define SC(name, shape) { #name, SC_##shape, -1, -1, -1 },
#define OP_SYSCALLS_(e, name, dir, pos, cls, api, fields, strace) \
    static const struct syscall syscalls_##e[] = { strace { NULL, 0, 0, 0, 0 } };
IOT_OPS(OP_SYSCALLS_)
#undef OP_SYSCALLS_

static const struct syscall *const syscalls_of_op[IOT_OP_COUNT] = {
#define OP_SYSCALLS_PTR_(e, name, dir, pos, cls, api, fields, strace) [IOT_OP_##e] = syscalls_##e,
    IOT_OPS(OP_SYSCALLS_PTR_)
#undef OP_SYSCALLS_PTR_
};

/* The syscalls that change processes and threads rather than files. */
static const struct syscall process_syscalls[] = {
    SC(clone, CLONE) SC(clone2, CLONE) SC(clone3, CLONE) SC(fork, FORK) SC(vfork, FORK)
    SC(execve, EXECVE) SC(execveat, EXECVEAT) SC(prctl, PRCTL) { NULL, 0, 0, 0, 0 }
};
#undef SA
#undef SC

static int syscall_is(const struct syscall *sc, const char *name, size_t n)
{
    return strlen(sc->name) == n && memcmp(sc->name, name, n) == 0;
}

/* The syscall called name[0..n), with its op in *op (-1: a process syscall); NULL if none. */
static const struct syscall *syscall_find(const char *name, size_t n, int *op)
{
    for (unsigned o = 0; o < IOT_OP_COUNT; o++)
        for (const struct syscall *sc = syscalls_of_op[o]; sc->name; sc++)
            if (syscall_is(sc, name, n)) {
                *op = (int)o;
                return sc;
            }
    for (const struct syscall *sc = process_syscalls; sc->name; sc++)
        if (syscall_is(sc, name, n)) {
            *op = -1;
            return sc;
        }
    return NULL;
}

static int fdtab_set(struct proc *p, int64_t fd, const char *path)
{
    if (fd < 0 || fd > 1 << 20)
        return 0;
    if ((size_t)fd >= p->nfd) {
        if (!path)
            return 0;
        size_t n = (size_t)fd + 16;
        const char **t = realloc(p->fdpath, n * sizeof(*t));
        if (!t)
            return -1;
        memset(t + p->nfd, 0, (n - p->nfd) * sizeof(*t));
        p->fdpath = t;
        p->nfd = n;
    }
    p->fdpath[fd] = path;
    return 0;
}

static const char *fdtab_get(const struct proc *p, int64_t fd)
{
    return fd >= 0 && (size_t)fd < p->nfd ? p->fdpath[fd] : NULL;
}

/* Parse an fd argument: its number, and its path (annotation or table). */
static int32_t arg_fd(struct strace_src *s, struct proc *p, struct arg a, const char **path)
{
    int64_t fd = arg_int(a, NULL);
    const char *ann = annotation_path(s, a.p, a.n);

    *path = ann ? ann : fdtab_get(p, fd);
    return (int32_t)fd;
}

/* What a call's "= ..." part says. */
struct ret {
    int known;       /* not "?" */
    int64_t val;
    int32_t err;
    const char *path;  /* annotation of a returned fd */
    int has_dur;
    int64_t dur;
};

/*
 * The "<SECONDS[.FRACTION]>" that -T appends, read from the end of the line
 * (trailing blanks skipped): linear whatever the line holds. 1 when found.
 */
static int tail_duration(const char *p, size_t n, int64_t *dur)
{
    size_t end = n, open, dot;

    while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r' ||
                       p[end - 1] == '\n'))
        end--;
    if (end < 3 || p[end - 1] != '>')
        return 0;
    /* digits, at most one '.', then '<' */
    for (open = end - 1, dot = 0; open > 0; open--) {
        char c = p[open - 1];

        if (c == '<')
            break;
        if (c == '.' && !dot)
            dot = open - 1;
        else if (c < '0' || c > '9')
            return 0;
    }
    if (open == 0 || open == end - 1)
        return 0;  /* no '<', or "<>" */
    /* open is the first digit, p[open - 1] == '<' */
    if (!dot) {
        *dur = sec_ns(num_n(p + open, (long)(end - 1 - open)), 0);
        return 1;
    }
    if (dot == open || end - 1 - (dot + 1) > 9 || end - 1 == dot + 1)
        return 0;
    *dur = sec_ns(num_n(p + open, (long)(dot - open)), frac_ns(p + dot + 1, (long)(end - 1 - dot - 1)));
    return 1;
}

static int parse_ret(struct strace_src *s, const char *p, size_t n, struct ret *r)
{
    const char *g = NULL;
    long gl;
    size_t i;

    memset(r, 0, sizeof(*r));
    if (re_match(s, s->re_ret, p, n) <= 0)
        return -1;
    gl = re_group(s, 1, p, &g);
    if (gl == 1 && g[0] == '?') {
        r->known = 0;
    } else {
        struct arg a = { g, (size_t)gl };
        r->known = 1;
        r->val = arg_int(a, NULL);
    }
    i = pcre2_get_ovector_pointer(s->md)[1];
    if (i < n && p[i] == '<') {
        size_t end = skip_angle(p, i, n);
        r->path = annotation_path(s, p + i, end - i);
        i = end;
    }
    if (re_match(s, s->re_tail, p + i, n - i) > 0 && (gl = re_group(s, 1, p + i, &g)) > 0)
        r->err = errno_number(g, gl);
    if (tail_duration(p + i, n - i, &r->dur)) {
        r->has_dur = 1;
        s->info.has_durations = 1;
        s->cur->info.has_durations = 1;
    }
    return 0;
}

/* Parse ["a", "b", ...] into the process's argv. */
static int parse_argv(struct strace_src *s, struct proc *p, struct arg a)
{
    const char **argv = NULL;
    int argc = 0, cap = 0;
    size_t i = 1;

    if (a.n < 2 || a.p[0] != '[')
        return 0;
    while (i < a.n) {
        if (a.p[i] == '"') {
            size_t end = skip_quoted(a.p, i, a.n);
            struct arg q = { a.p + i, end - i };
            const char *str = arg_str(s, q);
            if (!str)
                goto fail;
            if (argc + 1 >= cap) {
                cap = cap ? cap * 2 : 8;
                const char **v = realloc(argv, (size_t)cap * sizeof(*v));
                if (!v)
                    goto fail;
                argv = v;
            }
            argv[argc++] = str;
            i = end;
        } else {
            i++;
        }
    }
    /* A held PROCESS event may still point at the previous argv, so every
     * argv lives until strace_close. */
    if (argv) {
        void **v = realloc(s->argvs, (s->nargvs + 1) * sizeof(*v));
        if (!v)
            goto fail;
        s->argvs = v;
        s->argvs[s->nargvs++] = argv;
        argv[argc] = NULL;
    }
    p->argv = argv;
    p->argc = argc;
    return 0;
fail:
    free(argv);
    return -1;
}

static void call_init(struct iot_event *ev, struct task *k, int op, int64_t t,
                      const struct ret *r)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)op;
    ev->pid = k->proc->pid;
    ev->tid = k->tid;
    ev->t = t;
    ev->ret = r->val;
    if (r->has_dur)
        ev->dur = r->dur;
    else
        ev->has |= IOT_HAS_NO_DUR;
    if (r->val < 0 && r->err) {
        ev->has |= IOT_HAS_ERRNO;
        ev->err = r->err;
    } else if (r->val == -1) {
        ev->has |= IOT_HAS_ERRNO;
    }
}

static void set_fd(struct iot_event *ev, int32_t fd, const char *path)
{
    ev->has |= IOT_HAS_FD;
    ev->fd = fd;
    if (path) {
        ev->has |= IOT_HAS_PATH;
        ev->path = path;
    }
}

/* dir + "/" + rel, without rel's leading "./" (the recorder's form). */
static int join_path(struct strace_src *s, const char *dir, const char *rel, const char **out)
{
    size_t dl = strlen(dir), rl;
    char *b;

    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    if (rel[0] == '.' && rel[1] == '\0')
        rel++;
    rl = strlen(rel);
    if (!(b = malloc(dl + rl + 2)))
        return -1;
    memcpy(b, dir, dl);
    if (dl > 1 && rl)
        b[dl++] = '/';
    memcpy(b + dl, rel, rl + 1);
    *out = iot_intern(s->st, b, dl + rl);
    free(b);
    return *out ? 0 : -1;
}

/* Emit the open held for its stack, with the frames gathered so far. */
static int flush_held(struct strace_src *s, struct slog *l)
{
    struct slog *cur = s->cur;
    int rc;

    if (!l->has_held)
        return 0;
    l->has_held = 0;
    if (l->stklen) {
        l->held.stack = iot_intern(s->st, l->stk, l->stklen);
        if (!l->held.stack)
            return -1;
        l->held.has |= IOT_HAS_STACK;
    }
    s->cur = l;
    rc = emit(s, &l->held);
    s->cur = cur;
    return rc;
}

/* An open waits for the -k stack lines that may follow it. */
static int hold(struct strace_src *s, const struct iot_event *ev)
{
    struct slog *l = s->cur;

    if (flush_held(s, l) < 0)
        return -1;
    l->held = *ev;
    l->has_held = 1;
    l->held_frames = 0;
    l->stklen = 0;
    return 0;
}

/*
 * Add a -k frame to the held open, in the recorder's form: "func+0xOFF
 * (module)", or "module+0xOFF" without a symbol. Frames inside libc before
 * the first frame of the program are dropped: the recorder's stacks start at
 * the caller of the libc function.
 */
static int add_frame(struct strace_src *s, struct slog *l, const char *body, size_t n)
{
    const char *mod = NULL, *fn = NULL, *off = NULL, *base = NULL;
    long ml, fl, ol;
    char frame[512];
    int len;

    if (!l->has_held)
        return 0;
    l->held_frames++;
    if (re_match(s, s->re_frame, body, n) <= 0)
        return 0;
    ml = re_group(s, 1, body, &mod);
    fl = re_group(s, 2, body, &fn);
    ol = re_group(s, 3, body, &off);
    base = mod;
    for (long i = 0; i < ml; i++)
        if (mod[i] == '/')
            base = mod + i + 1;
    ml -= (long)(base - mod);
    if (!l->stklen && ml >= 7 && memcmp(base, "libc.so", 7) == 0)
        return 0;
    if (fl > 0)
        len = snprintf(frame, sizeof(frame), "%s%.*s (%.*s)", l->stklen ? "\n" : "",
                       (int)fl, fn, (int)ml, base);
    else
        len = snprintf(frame, sizeof(frame), "%s%.*s+%.*s", l->stklen ? "\n" : "",
                       (int)ml, base, (int)ol, off);
    if (len < 0 || (size_t)len >= sizeof(frame))
        return 0;
    if (l->stklen + (size_t)len + 1 > l->stkcap) {
        size_t cap = (l->stklen + (size_t)len + 1) * 2;
        char *b = realloc(l->stk, cap);
        if (!b)
            return -1;
        l->stk = b;
        l->stkcap = cap;
    }
    memcpy(l->stk + l->stklen, frame, (size_t)len);
    l->stklen += (size_t)len;
    return 0;
}

/*
 * One complete call: name(args) = ret. t is its start. Calls the parser
 * cannot use (no return value, wrong shape) yield nothing.
 */
static int handle_call(struct strace_src *s, struct task *k, const char *name, size_t nlen,
                       const char *text, size_t n, int64_t t)
{
    struct arg a[MAX_ARGS];
    struct iot_event ev;
    struct ret r;
    size_t rest;
    int op, na, kind;
    const struct syscall *sc = syscall_find(name, nlen, &op);
    struct proc *p = k->proc;
    const char *path = NULL;
    int32_t fd;

    na = split_args(text, n, a, &rest);
    if (na < 0 || parse_ret(s, text + rest, n - rest, &r) < 0) {
        s->info.unknown_lines++;
        s->cur->info.unknown_lines++;
        return 0;
    }
    if (!sc || !r.known) {
        if (!p->announced)
            return proc_announce(s, p, t);
        return 0;
    }
    kind = sc->kind;
    if (kind == SC_EXECVE || kind == SC_EXECVEAT) {
        int pa = kind == SC_EXECVEAT ? 1 : 0;
        if (r.val != 0 || na < pa + 2) {
            if (!p->announced)
                return proc_announce(s, p, t);
            return 0;
        }
        p->exe = arg_str(s, a[pa]);
        if (parse_argv(s, p, a[pa + 1]) < 0)
            return -1;
        /* a successful exec starts a new image of the same process */
        return proc_announce(s, p, t);
    }
    if (!p->announced && proc_announce(s, p, t) < 0)
        return -1;

    call_init(&ev, k, op < 0 ? 0 : op, t, &r);
    switch (kind) {
    case SC_ARGS:
        if (na <= sc->fd_arg || na <= sc->size_arg)
            return 0;
        if (sc->fd_arg >= 0) {
            fd = arg_fd(s, p, a[sc->fd_arg], &path);
            set_fd(&ev, fd, path);
        }
        if (sc->size_arg >= 0) {
            ev.has |= IOT_HAS_SIZE;
            ev.size = arg_int(a[sc->size_arg], NULL);
        }
        if (sc->off_arg >= 0 && na > sc->off_arg) {
            ev.has |= IOT_HAS_OFFSET;
            ev.offset = arg_int(a[sc->off_arg], NULL);
        }
        break;
    case SC_OPEN:
    case SC_OPENAT:
    case SC_OPENAT2:
    case SC_CREAT: {
        int pa = (kind == SC_OPENAT || kind == SC_OPENAT2) ? 1 : 0;
        const char *arg_path;
        if (na < pa + 1 || !(arg_path = arg_str(s, a[pa])))
            return 0;
        if (kind == SC_CREAT)
            ev.flags = O_CREAT | O_WRONLY | O_TRUNC;
        else if (kind == SC_OPENAT2 && na > 2) {
            const char *f = memmem(a[2].p, a[2].n, "flags=", 6);
            struct arg fa = { f, f ? a[2].n - (size_t)(f - a[2].p) : 0 };
            ev.flags = f ? parse_open_flags(fa) : 0;
        } else if (na > pa + 1)
            ev.flags = parse_open_flags(a[pa + 1]);
        /* The path as the program gave it when absolute, else joined to the
         * directory it is relative to (the -y annotation of dirfd, which is
         * the cwd for AT_FDCWD), as the recorder does; else the -y
         * annotation of the new fd; else as given. */
        path = arg_path;
        if (arg_path[0] != '/' && arg_path[0] != '\0') {
            const char *dir = pa ? annotation_path(s, a[0].p, a[0].n) : NULL;
            if (dir) {
                if (join_path(s, dir, arg_path, &path) < 0)
                    return -1;
            } else if (r.path) {
                path = r.path;
            }
        }
        ev.has |= IOT_HAS_PATH | IOT_HAS_FLAGS;
        ev.path = path;
        if (r.val >= 0) {
            ev.has |= IOT_HAS_FD;
            ev.fd = (int32_t)r.val;
            if (fdtab_set(p, r.val, path) < 0)
                return -1;
        }
        break;
    }
    case SC_CLOSE:
        if (na < 1)
            return 0;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        if (r.val == 0)
            fdtab_set(p, fd, NULL);
        break;
    case SC_RWV:
    case SC_PRWV:
    case SC_PRWV2:
        if (na < 3)
            return 0;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_SIZE;
        ev.size = sum_iov_len(a[1]);
        if (kind != SC_RWV && na > 3) {
            int64_t off = arg_int(a[3], NULL);
            if (kind == SC_PRWV2 && off == -1) {
                /* -1: the file position, as readv/writev */
                ev.op = ev.op == IOT_OP_PREADV ? IOT_OP_READV : IOT_OP_WRITEV;
            } else {
                ev.has |= IOT_HAS_OFFSET;
                ev.offset = off;
            }
        }
        break;
    case SC_LSEEK:
    case SC_LLSEEK: {
        struct arg w;
        if (na < 3 || (kind == SC_LLSEEK && na < 4))
            return 0;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_OFFSET | IOT_HAS_WHENCE;
        ev.offset = arg_int(a[1], NULL);
        w = a[kind == SC_LLSEEK ? 3 : 2];
        ev.whence = starts(w, "SEEK_SET") ? SEEK_SET : starts(w, "SEEK_CUR") ? SEEK_CUR :
                    starts(w, "SEEK_END") ? SEEK_END : starts(w, "SEEK_DATA") ? SEEK_DATA :
                    starts(w, "SEEK_HOLE") ? SEEK_HOLE : (int32_t)arg_int(w, NULL);
        if (kind == SC_LLSEEK && r.val == 0)
            ev.ret = arg_bracket(a[2]);
        break;
    }
    case SC_DUP:
    case SC_DUP2:
    case SC_FCNTL:
        if (na < 1)
            return 0;
        if (kind == SC_FCNTL && na >= 3 && starts(a[1], "F_SETFD")) {
            /* whether the fd survives exec: shells mark their script fd */
            fd = arg_fd(s, p, a[0], &path);
            set_fd(&ev, fd, path);
            ev.op = IOT_OP_FCNTL;
            ev.has |= IOT_HAS_FLAGS;
            ev.flags = memmem(a[2].p, a[2].n, "FD_CLOEXEC", 10) || arg_int(a[2], NULL) == 1
                       ? O_CLOEXEC : 0;
            break;
        }
        if (kind == SC_FCNTL && (na < 2 || !(starts(a[1], "F_DUPFD") ||
                                              starts(a[1], "F_DUPFD_CLOEXEC"))))
            return 0;
        if ((kind == SC_FCNTL && starts(a[1], "F_DUPFD_CLOEXEC")) ||
            (kind == SC_DUP2 && na >= 3 && memmem(a[2].p, a[2].n, "O_CLOEXEC", 9))) {
            ev.has |= IOT_HAS_FLAGS;
            ev.flags = O_CLOEXEC;
        }
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_NEWFD;
        ev.newfd = (int32_t)r.val;
        if (r.val >= 0 && fdtab_set(p, r.val, fdtab_get(p, fd) ? fdtab_get(p, fd) : path) < 0)
            return -1;
        break;
    case SC_NEWFD:
        if (r.val >= 0) {
            ev.has |= IOT_HAS_FD;
            ev.fd = (int32_t)r.val;
            if (fdtab_set(p, r.val, NULL) < 0)
                return -1;
        }
        break;
    case SC_PIPE: {
        /* "[3, 4]" or, with -y, "[3<pipe:[91]>, 4<pipe:[91]>]" */
        struct arg fds = a[na > 3 ? 3 : 0];
        int64_t first = arg_bracket(fds), second = -1;

        for (size_t k = 1; k + 2 < fds.n; k++)
            if (fds.p[k] == ',' && fds.p[k + 1] == ' ' && fds.p[k + 2] >= '0' && fds.p[k + 2] <= '9') {
                struct arg rest = { fds.p + k + 2, fds.n - k - 2 };
                second = arg_int(rest, NULL);
                break;
            }
        if (r.val != 0 || first < 0 || second < 0 || first > INT32_MAX || second > INT32_MAX)
            break;
        ev.has |= IOT_HAS_FD | IOT_HAS_NEWFD;
        ev.fd = (int32_t)first;
        ev.newfd = (int32_t)second;
        if (fdtab_set(p, first, NULL) < 0 || fdtab_set(p, second, NULL) < 0)
            return -1;
        break;
    }
    case SC_MMAP:
    case SC_MMAP2:
        if (na < 6)
            return 0;
        fd = arg_fd(s, p, a[4], &path);
        if (fd < 0)
            return 0;  /* anonymous memory is not file I/O */
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev.size = arg_int(a[1], NULL);
        /* mmap2 counts 4096-byte pages (unsigned: a bad log wraps, never UB) */
        ev.offset = (int64_t)((uint64_t)arg_int(a[5], NULL) * (kind == SC_MMAP2 ? 4096u : 1u));
        if (r.val != -1) {
            if (p->nmaps == p->capmaps) {
                size_t cap = p->capmaps ? p->capmaps * 2 : 16;
                struct fmap *m = realloc(p->maps, cap * sizeof(*m));
                if (!m)
                    return -1;
                p->maps = m;
                p->capmaps = cap;
            }
            p->maps[p->nmaps].addr = (uint64_t)r.val;
            p->maps[p->nmaps].len = (uint64_t)ev.size;
            p->nmaps++;
        }
        break;
    case SC_MUNMAP: {
        uint64_t addr;
        size_t i;
        if (na < 2)
            return 0;
        addr = (uint64_t)arg_int(a[0], NULL);
        for (i = 0; i < p->nmaps && p->maps[i].addr != addr; i++)
            ;
        if (i == p->nmaps)
            return 0;  /* not a file mapping (malloc's arenas) */
        p->maps[i] = p->maps[--p->nmaps];
        ev.has |= IOT_HAS_SIZE;
        ev.size = arg_int(a[1], NULL);
        break;
    }
    case SC_SENDFILE: {
        const char *in_path;
        int64_t off;
        if (na < 4)
            return 0;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev.in_fd = arg_fd(s, p, a[1], &in_path);
        ev.size = arg_int(a[3], NULL);
        if ((off = arg_bracket(a[2])) >= 0) {
            ev.has |= IOT_HAS_OFFSET;
            ev.offset = off;
        }
        break;
    }
    case SC_COPY: {
        const char *in_path;
        if (na < 5)
            return 0;
        fd = arg_fd(s, p, a[2], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev.in_fd = arg_fd(s, p, a[0], &in_path);
        ev.size = arg_int(a[4], NULL);
        break;
    }
    case SC_CLOSE_RANGE: {
        int64_t first, last;
        if (na < 2)
            return 0;
        first = arg_int(a[0], NULL);
        last = arg_int(a[1], NULL);
        if (last < 0 || last > INT32_MAX)
            last = INT32_MAX;
        ev.has |= IOT_HAS_FD | IOT_HAS_LAST_FD;
        ev.fd = (int32_t)first;
        ev.last_fd = (int32_t)last;
        if (r.val == 0 && (na < 3 || !memmem(a[2].p, a[2].n, "CLOSE_RANGE_CLOEXEC", 19)))
            for (int64_t f = first; f >= 0 && f <= last && (size_t)f < p->nfd; f++)
                p->fdpath[f] = NULL;
        break;
    }
    case SC_CLONE:
    case SC_FORK: {
        int is_thread = kind == SC_CLONE && memmem(text, rest, "CLONE_THREAD", 12) != NULL;
        int32_t child = (int32_t)r.val;
        struct task *c;
        if (child <= 0)
            return 0;
        c = imap_get(&s->tasks, child);
        if (c && (!c->exited || c->exit_t >= t) && (!c->proc->exited || c->proc->exit_t >= t))
            return 0;  /* the child already showed up (or lived and died) */
        return task_create(s, child, k, is_thread, t) ? 0 : -1;
    }
    case SC_PRCTL:
        if (na >= 2 && starts(a[0], "PR_SET_NAME") && r.val == 0) {
            const char *nm = arg_str(s, a[1]);
            return nm ? thread_announce(s, k, t, nm) : 0;
        }
        return 0;
    }
    if (ev.op == IOT_OP_OPEN && !s->cur->no_k)
        return hold(s, &ev);
    return emit(s, &ev);
}

/* Buffer for joining an unfinished call's text with its resumption. */
static char *scratch_join(struct strace_src *s, const char *a, size_t an, const char *b, size_t bn)
{
    if (an + bn + 1 > s->scratch_cap) {
        size_t cap = (an + bn + 1) * 2;
        char *p = realloc(s->scratch, cap);
        if (!p)
            return NULL;
        s->scratch = p;
        s->scratch_cap = cap;
    }
    memcpy(s->scratch, a, an);
    memcpy(s->scratch + an, b, bn);
    s->scratch[an + bn] = '\0';
    return s->scratch;
}

static int task_exit(struct strace_src *s, struct task *k, int64_t t, int status, int sig)
{
    struct iot_event ev = { 0 };

    if (k->pending)
        pend_remove(s, k);
    k->exited = 1;
    k->exit_t = t;
    /* a thread's end is not a process exit (strace reports both) */
    if (k->tid != k->proc->pid)
        return 0;
    if (!k->proc->announced && proc_announce(s, k->proc, t) < 0)
        return -1;
    k->proc->exited = 1;
    k->proc->exit_t = t;
    ev.kind = IOT_EV_EXIT;
    ev.pid = k->proc->pid;
    ev.tid = k->tid;
    ev.t = t;
    ev.status = status;
    if (sig) {
        ev.has |= IOT_HAS_SIGNAL;
        ev.signal = sig;
    }
    return emit(s, &ev);
}

/* Process the line ahead of log l. */
static int process_line(struct strace_src *s, struct slog *l)
{
    const char *body = l->line + l->body, *g = NULL;
    size_t n = l->len - l->body;
    int32_t tid = l->pid ? l->pid : l->default_pid;
    int64_t t = l->abs - s->origin;
    struct task *k;
    long gl;

    if (n > 1 && body[0] == '>' && body[1] == ' ')
        return add_frame(s, l, body, n);  /* -k: the stack of the call above */
    if (l->has_held && !l->held_frames)
        l->no_k = 1;  /* written without -k: opens need not wait */
    if (flush_held(s, l) < 0)
        return -1;
    if (n == 0)
        return 0;
    if (body[0] == '-' || (n > 7 && memcmp(body, "strace:", 7) == 0))
        return 0;  /* signals, strace's own messages */
    if (body[0] == '+') {
        int status, sig = 0;
        if (re_match(s, s->re_exit, body, n) > 0) {
            gl = re_group(s, 1, body, &g);
            status = (int)(num_n(g, gl) & 0xff);  /* an exit status is 8 bits */
        } else if (re_match(s, s->re_killed, body, n) > 0) {
            gl = re_group(s, 1, body, &g);
            sig = signal_number(g, (size_t)gl);
            status = 128 + sig;
        } else {
            return 0;  /* "+++ superseded by execve +++" and the like */
        }
        if (!(k = task_of(s, tid, t)))
            return -1;
        return task_exit(s, k, t, status, sig);
    }
    if (body[0] == '<') {
        size_t start;
        char *joined, *name;
        int rc;
        if (re_match(s, s->re_resumed, body, n) <= 0)
            goto unknown;
        start = pcre2_get_ovector_pointer(s->md)[1];
        gl = re_group(s, 1, body, &g);
        k = imap_get(&s->tasks, tid);
        if (!k || !k->pending || strlen(k->pend_name) != (size_t)gl ||
            memcmp(k->pend_name, g, (size_t)gl) != 0)
            goto unknown;
        if (!(joined = scratch_join(s, k->pend_args, strlen(k->pend_args), body + start, n - start)))
            return -1;
        name = k->pend_name;
        k->pend_name = NULL;
        t = k->pend_t;
        pend_remove(s, k);
        rc = handle_call(s, k, name, strlen(name), joined, strlen(joined), t);
        free(name);
        return rc;
    }
    if (re_match(s, s->re_call, body, n) > 0) {
        size_t start = pcre2_get_ovector_pointer(s->md)[1];
        const char *name = NULL;
        long nlen = re_group(s, 1, body, &name);
        if (!(k = task_of(s, tid, t)))
            return -1;
        if (re_match(s, s->re_unfinished, body + start, n - start) > 0) {
            size_t cut = start + pcre2_get_ovector_pointer(s->md)[0];
            int op;
            const struct syscall *sc = syscall_find(name, (size_t)nlen, &op);
            if (k->pending)
                pend_remove(s, k);
            k->pend_name = strndup(name, (size_t)nlen);
            k->pend_args = strndup(body + start, cut - start);
            if (!k->pend_name || !k->pend_args)
                return -1;
            k->pending = 1;
            k->pend_t = t;
            k->pend_child = 0;
            k->pend_clone = sc && (sc->kind == SC_CLONE || sc->kind == SC_FORK);
            k->pend_thread = k->pend_clone && strstr(k->pend_args, "CLONE_THREAD") != NULL;
            if (s->npend == s->cappend) {
                size_t cap = s->cappend ? s->cappend * 2 : 8;
                struct task **v = realloc(s->pend, cap * sizeof(*v));
                if (!v)
                    return -1;
                s->pend = v;
                s->cappend = cap;
            }
            s->pend[s->npend++] = k;
            return 0;
        }
        return handle_call(s, k, name, (size_t)nlen, body + start, n - start, t);
    }
unknown:
    s->info.unknown_lines++;
    l->info.unknown_lines++;
    return 0;
}

/* ------------------------------------------------------------- open/next */

static int compile_all(struct strace_src *s)
{
    s->re_prefix = re_compile(PAT_PREFIX);
    s->re_exit = re_compile(PAT_EXIT);
    s->re_killed = re_compile(PAT_KILLED);
    s->re_resumed = re_compile(PAT_RESUMED);
    s->re_call = re_compile(PAT_CALL);
    s->re_unfinished = re_compile(PAT_UNFINISHED);
    s->re_ret = re_compile(PAT_RET);
    s->re_tail = re_compile(PAT_TAIL);
    s->re_frame = re_compile(PAT_FRAME);
    if (!s->re_prefix || !s->re_exit || !s->re_killed || !s->re_resumed || !s->re_call ||
        !s->re_unfinished || !s->re_ret || !s->re_tail || !s->re_frame)
        return -1;
    s->md = pcre2_match_data_create(20, NULL);
    return s->md ? 0 : -1;
}

/* The pid in a -ff log name "LOG.PID", or 0. */
static int32_t pid_from_name(const char *name)
{
    const char *dot = name ? strrchr(name, '.') : NULL;
    long v = 0;

    if (!dot || !dot[1])
        return 0;
    for (const char *p = dot + 1; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT32_MAX / 10)
            return 0;
        v = v * 10 + (*p - '0');
    }
    return (int32_t)v;
}

static struct strace_src *open_many(FILE *const *files, const char *const *names, size_t n,
                                   int own, struct iot_strtab *st, char *errbuf)
{
    struct strace_src *s = calloc(1, sizeof(*s));
    int have_origin = 0;

    if (!s || compile_all(s) < 0 || !(s->logs = calloc(n ? n : 1, sizeof(*s->logs)))) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
        if (own)
            for (size_t i = 0; i < n; i++)
                if (files[i] && files[i] != stdin)
                    fclose(files[i]);
        strace_close(s);
        return NULL;
    }
    s->st = st;
    s->nlogs = n;
    s->cur = s->logs;
    for (size_t i = 0; i < n; i++) {
        struct slog *l = &s->logs[i];
        struct stat sb;
        l->f = files[i];
        l->own = own;
        l->name = names[i];
        l->default_pid = pid_from_name(names[i]);
        if (!l->default_pid)
            l->default_pid = DEFAULT_PID;
        if (fstat(fileno(l->f), &sb) == 0 && S_ISREG(sb.st_mode))
            l->mtime_ns = sec_ns((int64_t)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
        else
            l->mtime_ns = sec_ns((int64_t)time(NULL), 0);
        /* leading strace messages tell no time: the first real line does */
        do {
            if (slog_advance(s, l) < 0) {
                snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot read '%s': %s", l->name,
                         strerror(l->err));
                strace_close(s);
                return NULL;
            }
        } while (l->have && l->tk == TK_UNSET);
        if (l->have && (!have_origin || l->abs < s->origin)) {
            s->origin = l->abs;
            have_origin = 1;
        }
    }
    if (n && (s->logs[0].tk == TK_TOD || s->logs[0].tk == TK_EPOCH))
        s->unix_origin = s->origin;
    else if (n)
        s->unix_origin = s->logs[0].mtime_ns;
    return s;
}

struct strace_src *strace_open(FILE *f, const char *name, struct iot_strtab *st, char *errbuf)
{
    return open_many(&f, &name, 1, 0, st, errbuf);
}

struct strace_src *strace_open_paths(const char *const *paths, size_t n,
                                     struct iot_strtab *st, char *errbuf)
{
    FILE **files = calloc(n ? n : 1, sizeof(*files));
    struct strace_src *s;

    if (!files) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        files[i] = strcmp(paths[i], "-") == 0 ? stdin : fopen(paths[i], "r");
        if (!files[i]) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot open '%s': %s", paths[i], strerror(errno));
            for (size_t j = 0; j < i; j++)
                if (files[j] != stdin)
                    fclose(files[j]);
            free(files);
            return NULL;
        }
    }
    s = open_many(files, paths, n, 1, st, errbuf);
    free(files);
    return s;
}

/* The log whose line ahead is earliest, or NULL when all are done. */
static struct slog *next_log(struct strace_src *s)
{
    struct slog *best = NULL;

    for (size_t i = 0; i < s->nlogs; i++) {
        struct slog *l = &s->logs[i];
        if (l->have && (!best || l->abs < best->abs))
            best = l;
    }
    return best;
}

/*
 * Events earlier than this may leave: no line still to come and no
 * unfinished call can produce an event that starts before it.
 */
static int64_t release_bound(struct strace_src *s, const struct slog *next)
{
    int64_t bound = next ? next->abs - s->origin : INT64_MAX;

    for (size_t i = 0; next && i < s->npend; i++)
        if (s->pend[i]->pend_t < bound)
            bound = s->pend[i]->pend_t;
    for (size_t i = 0; i < s->nlogs; i++)
        if (s->logs[i].has_held && s->logs[i].held.t < bound)
            bound = s->logs[i].held.t;
    return bound;
}

int strace_next(struct strace_src *s, struct iot_event *ev, char *errbuf)
{
    for (;;) {
        struct slog *l = next_log(s);
        if (s->nheap && (s->nheap >= MAX_HELD || s->heap[0].ev.t <= release_bound(s, l))) {
            heap_pop(s, ev);
            ev->plain = (uint8_t)iot_event_plain(ev);
            s->info.events++;
            return 1;
        }
        if (!l)
            return 0;
        s->cur = l;
        if (process_line(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s': out of memory", l->name);
            return -1;
        }
        if (slog_advance(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot read '%s': %s", l->name, strerror(l->err));
            return -1;
        }
        if (!l->have && flush_held(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s': out of memory", l->name);
            return -1;
        }
        if (l->tk == TK_NONE && l->have) {
            /* no timestamps: each line starts when the previous one ended */
            l->clock += 1;
            l->abs = l->clock;
        }
    }
}

void strace_info(const struct strace_src *s, struct strace_info *out)
{
    *out = s->info;
}

void strace_file_info(const struct strace_src *s, size_t i, struct strace_info *out)
{
    if (i < s->nlogs)
        *out = s->logs[i].info;
    else
        memset(out, 0, sizeof(*out));
}

void strace_close(struct strace_src *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nlogs; i++) {
        if (s->logs[i].own && s->logs[i].f && s->logs[i].f != stdin)
            fclose(s->logs[i].f);
        free(s->logs[i].line);
        free(s->logs[i].stk);
    }
    free(s->logs);
    while (s->all_tasks) {
        struct task *k = s->all_tasks;
        s->all_tasks = k->next_all;
        free(k->pend_name);
        free(k->pend_args);
        free(k);
    }
    while (s->all_procs) {
        struct proc *p = s->all_procs;
        s->all_procs = p->next_all;
        free(p->fdpath);
        free(p->maps);
        free(p);
    }
    for (size_t i = 0; i < s->nargvs; i++)
        free(s->argvs[i]);
    free(s->argvs);
    imap_free(&s->tasks);
    imap_free(&s->procs);
    free(s->pend);
    free(s->heap);
    free(s->scratch);
    free(s->sbuf);
    pcre2_code_free(s->re_prefix);
    pcre2_code_free(s->re_exit);
    pcre2_code_free(s->re_killed);
    pcre2_code_free(s->re_resumed);
    pcre2_code_free(s->re_call);
    pcre2_code_free(s->re_unfinished);
    pcre2_code_free(s->re_ret);
    pcre2_code_free(s->re_tail);
    pcre2_code_free(s->re_frame);
    pcre2_match_data_free(s->md);
    free(s);
}
