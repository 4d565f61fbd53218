/*
 * The replay engine (engine.h).
 *
 * Model:
 *  - struct ofd is one open file description = one session. Every fd-table
 *    entry and every stdio stream that refers to it holds a reference; the
 *    session ends when the last reference goes (close, fclose, exit, or the
 *    end of the trace).
 *  - fork (a PROCESS event whose ppid is a live known process) copies the
 *    parent's fd table and streams; exec (a PROCESS event for a live pid)
 *    keeps fds except O_CLOEXEC ones and drops streams (the image is gone).
 *  - Offsets: an ofd has a file offset (-1 unknown) moved by read/write byte
 *    counts and set by lseek results; pread/pwrite use their own offset.
 *    O_APPEND writes always land at the end, so they are sequential.
 *    A stdio stream has its own position, moved by its calls and fseek.
 *  - stdio buffering: a stream's calls are turned into estimated syscalls
 *    (eff_ops) from its buffer size and mode; see stream_* below.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "hmap.h"
#include "issue.h"

#define MAX_FD (1 << 20)        /* fds beyond this are ignored */
#define DEFAULT_STDIO_BUF 4096  /* when fopen did not say */

/*
 * The figures of each direction of a session, [0] reads and [1] writes. Data
 * calls index them by is_write instead of branching on it (arrays rather
 * than an array of structs: an index scaled by 8 is free in an address);
 * session_end copies them into the session and profile figures.
 */
struct ofd_dirs {
    uint64_t calls[2];          /* rule_session reads/writes = profile reads/writes
                                   (count_call and count_position go in pairs) */
    uint64_t random[2];         /* not at the end of the previous one */
    int64_t ns[2], max_ns[2];   /* durations */
    int64_t bytes[2];           /* bytes moved (returned) */
    int64_t prev_end[2];        /* where the previous one ended, -1: none yet or unknown */
};

/*
 * What every data call reads or updates besides dir, kept in two cache
 * lines: the session's own figures are spread over several, and a call
 * waits for each line it touches. session_figures copies them over.
 */
struct ofd_hot {
    int64_t op_size, buffer, max_continual_ns;              /* rule_session's */
    int64_t main_cost_ns, main_max_once_ns, main_max_continual_ns;
    uint64_t main_ops;
    uint64_t seeks;                                         /* prof_counts' */
    int64_t last_end, cur_cont;                             /* the current run */
    int64_t main_last_end, main_cur_cont;
    int64_t off;                /* file offset, -1 unknown */
    int32_t main_tid;
    int op_type;
    int timed;
    int append;
    int32_t calls_on;           /* whose calls it has had (enum calls_on, or a tid) */
};

/*
 * Most sessions are used by one thread, so all their calls are on the main
 * thread or none is. While that holds the main-thread figures are not kept
 * apart: they are the session's own (calls_on: that main thread's tid) or
 * nothing (ON_OTHERS), and session_figures makes them. The first call that
 * breaks it (count_mixed) makes them from what was counted so far, and from
 * then on every call updates them (ON_BOTH). On the bench trace, whose
 * sessions are all one thread's, that is 10 fewer instructions per event.
 */
enum calls_on {
    ON_OTHERS = -1,             /* none on a main thread */
    ON_BOTH = -2,
    ON_NONE = -4                /* no call yet */
    /* >= 0: all on the main thread of that tid */
};

/*
 * What calls_on is if the session's calls so far were all like this one's,
 * main_thread 0 or 1 (a main thread's with a negative tid, hostile input
 * only: never). Arithmetic: as ?:s gcc made a branch of it, which
 * mispredicted on every other call as threads alternate.
 */
static inline int32_t calls_on_key(int main_thread, int32_t tid)
{
    int32_t neg = tid >> 31;

    return ((tid & ~neg) | (-3 & neg)) | (main_thread - 1);  /* ON_OTHERS is all ones */
}

struct ofd {
    struct ofd_hot h;           /* first: with dir, the lines a data call touches */
    struct ofd_dirs dir;
    int refs;
    struct rule_session s;      /* the figures end up here (session_figures) */
    struct prof_counts pc;
    struct proc *opener;
    int ignored;
    int64_t leak_t;
};

struct fdent {
    struct ofd *o;
    int cloexec;
};

struct stream {
    struct ofd *o;              /* holds a reference */
    int32_t fd;
    int64_t pos;                /* -1 unknown */
    int64_t bufsize;            /* 0 unbuffered */
    int64_t defsize;            /* the buffer glibc would allocate (fopen's size) */
    int bufmode;
    int append;
    int64_t pending;            /* bytes written into the buffer, not yet flushed */
    int64_t avail;              /* bytes read into the buffer, not yet consumed */
};

struct thr {
    int32_t pid, tid;
    const char *name;
    int is_main;
};

struct proc {
    int32_t pid, ppid;
    const char *exe, *name;
    int64_t start_t, start_unix_ns;
    struct fdent *fds;
    int32_t nfds;
    struct hmap streams;        /* stream id -> struct stream */
    int exited;
};

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
    struct hmap procs;          /* pid -> proc */
    struct hmap thrs;           /* tid -> thr */
    struct hmap ignored;        /* path pointer -> (void *)1 ignored / 2 not */
    struct proc *last_proc;
    struct thr *last_thr;
    struct rule_slot *slots;
    size_t nslots;
    int64_t gap;                /* cfg->gap_ns */
    size_t nmain;               /* cfg->nmain_names */
    /* st.events and st.calls are summed up by engine_stats from these */
    uint64_t other_events;      /* not calls, or calls of no process (out of memory) */
    uint64_t calls_bad_op;      /* calls of an op out of range */
    struct engine_stats st;
    const char *empty;
};

/* ------------------------------------------------------------ helpers */

struct engine;

/*
 * Bad input must not overflow: each event's times are bounded on entry
 * (engine_event, event_clamped) and running sums saturate.
 */
#define LIM_T ((int64_t)1 << 60)     /* times: 36 years of ns either way */
#define LIM_V ((int64_t)1 << 50)     /* durations, sizes, offsets, return values */
#define LIM_U ((int64_t)1 << 62)     /* start_unix_ns: until 2116 */

static inline int64_t sadd(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX / 2 : INT64_MIN / 2;
    return r;
}
#define SADD(a, b) ((a) = sadd((a), (b)))

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

static int64_t clamp(int64_t v, int64_t lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

/* Nonzero when v is outside [-lim, lim), resp. [0, lim); lim is a power of
   two, so each is an add and a shift. */
#define OUTSIDE(v, lim) (((uint64_t)(v) + (uint64_t)(lim)) / (2 * (uint64_t)(lim)))
#define OUTSIDE0(v, lim) ((uint64_t)(v) / (uint64_t)(lim))

/*
 * The test every event takes, one branch for all fields. A value exactly at
 * a limit fails it and goes through event_clamped, which leaves it as is.
 */
static inline int event_in_bounds(const struct iot_event *ev)
{
    return !(OUTSIDE(ev->t, LIM_T) | OUTSIDE0(ev->dur, LIM_V) | OUTSIDE(ev->size, LIM_V) |
             OUTSIDE(ev->offset, LIM_V) | OUTSIDE(ev->file_size, LIM_V) |
             OUTSIDE0(ev->start_unix_ns, LIM_U) | OUTSIDE(ev->ret, LIM_V));
}

/* The event with every quantity clamped into its limits, in *tmp. */
static __attribute__((noinline, cold)) const struct iot_event *
event_clamped(const struct iot_event *ev, struct iot_event *tmp)
{
    int stream_id;

    /* a stream id (fopen's return value) is an identity, not a quantity */
    stream_id = ev->kind == IOT_EV_CALL && ev->op < IOT_OP_COUNT &&
                iot_ops[ev->op].api == IOT_API_STDIO && iot_ops[ev->op].cls == IOT_CLASS_OPEN;
    *tmp = *ev;
    tmp->t = clamp(ev->t, LIM_T);
    tmp->dur = ev->dur < 0 ? 0 : clamp(ev->dur, LIM_V);
    tmp->size = clamp(ev->size, LIM_V);
    tmp->offset = clamp(ev->offset, LIM_V);
    tmp->file_size = clamp(ev->file_size, LIM_V);
    tmp->start_unix_ns = ev->start_unix_ns < 0 ? 0 : clamp(ev->start_unix_ns, LIM_U);
    if (!stream_id)
        tmp->ret = clamp(ev->ret, LIM_V);
    return tmp;
}

static const char *base_name(const char *p)
{
    const char *s;

    if (!p)
        return "unknown";
    s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int path_ignored(struct engine *e, const char *path)
{
    void *v = hmap_get(&e->ignored, hmap_ptr_key(path));
    int ig;

    if (v)
        return v == (void *)1;
    ig = config_ignored(e->cfg, path);
    hmap_put(&e->ignored, hmap_ptr_key(path), ig ? (void *)1 : (void *)2);
    return ig;
}

static struct proc *proc_new(struct engine *e, int32_t pid)
{
    struct proc *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->pid = pid;
    p->name = "unknown";
    if (hmap_put(&e->procs, (uint64_t)(uint32_t)pid, p) < 0) {
        free(p);
        return NULL;
    }
    e->st.processes++;
    return p;
}

static struct proc *proc_lookup(struct engine *e, int32_t pid)
{
    struct proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)pid);

    if (!p)
        p = proc_new(e, pid);
    else if (p->exited)
        p->exited = 0;      /* calls after the exit: the pid was reused, unannounced */
    e->last_proc = p;
    return p;
}

/* The process of pid; the last one asked for is at hand (calls come in runs). */
static inline struct proc *proc_get(struct engine *e, int32_t pid)
{
    struct proc *p = e->last_proc;

    return p && p->pid == pid ? p : proc_lookup(e, pid);
}

static struct thr *thr_get(struct engine *e, int32_t pid, int32_t tid)
{
    struct thr *t = e->last_thr;

    if (t && t->tid == tid && t->pid == pid)
        return t;
    t = hmap_get(&e->thrs, (uint64_t)(uint32_t)tid);
    if (!t || t->pid != pid) {
        struct proc *p = proc_get(e, pid);

        if (!t) {
            t = calloc(1, sizeof(*t));
            if (!t)
                return NULL;
            if (hmap_put(&e->thrs, (uint64_t)(uint32_t)tid, t) < 0) {
                free(t);
                return NULL;
            }
            e->st.threads++;
        }
        /* A new thread, or a tid reused by another process: Linux names a
           thread after its creator, so the process name is the default. */
        t->pid = pid;
        t->tid = tid;
        t->name = p ? p->name : "unknown";
        t->is_main = tid == pid || config_main_name(e->cfg, t->name);
    }
    e->last_thr = t;
    return t;
}

/*
 * Only the main-thread test is needed per call; without main_thread_names it
 * is tid == pid and needs no thread lookup (the hot path).
 */
static inline int call_on_main(struct engine *e, int32_t pid, int32_t tid)
{
    struct thr *t;

    if (!e->nmain)
        return tid == pid;
    t = thr_get(e, pid, tid);
    return t ? t->is_main : tid == pid;
}

static int64_t unix_ms(const struct proc *p, int64_t t)
{
    if (!p || !p->start_unix_ns)
        return t / 1000000;
    return (p->start_unix_ns + (t - p->start_t)) / 1000000;
}

/* ------------------------------------------------------------ sessions */

/* The main-thread figures of a session whose calls were all on main_tid. */
static void main_from_all(struct ofd *o)
{
    struct ofd_hot *h = &o->h;

    h->main_cost_ns = sadd(o->dir.ns[0], o->dir.ns[1]);
    h->main_max_once_ns = max64(o->dir.max_ns[0], o->dir.max_ns[1]);
    h->main_max_continual_ns = h->max_continual_ns;
    h->main_cur_cont = h->cur_cont;
    h->main_last_end = h->last_end;
    h->main_ops = o->dir.calls[0] + o->dir.calls[1];
}

/* The figures kept apart (struct ofd_hot, struct ofd_dirs) into the session and profile. */
static void session_figures(struct ofd *o)
{
    const struct ofd_dirs *d = &o->dir;
    const struct ofd_hot *h = &o->h;

    o->s.op_size = h->op_size;
    o->s.buffer = h->buffer;
    o->s.cost_ns = sadd(d->ns[0], d->ns[1]);
    o->s.max_continual_ns = h->max_continual_ns;
    if (h->calls_on >= 0)
        main_from_all(o);
    o->s.main_cost_ns = h->main_cost_ns;
    o->s.main_max_once_ns = h->main_max_once_ns;
    o->s.main_max_continual_ns = h->main_max_continual_ns;
    o->s.main_ops = h->main_ops;
    o->s.main_tid = h->main_tid;
    o->s.op_type = h->op_type;
    o->s.timed = h->timed;
    o->pc.seeks = h->seeks;
    o->s.op = d->calls[0] + d->calls[1];
    o->s.max_once_ns = max64(d->max_ns[0], d->max_ns[1]);
    o->s.reads = d->calls[0];
    o->s.writes = d->calls[1];
    o->s.random_reads = d->random[0];
    o->s.random_writes = d->random[1];
    o->pc.reads = d->calls[0];
    o->pc.writes = d->calls[1];
    o->pc.random_reads = d->random[0];
    o->pc.random_writes = d->random[1];
    o->pc.seq_reads = d->calls[0] - d->random[0];
    o->pc.seq_writes = d->calls[1] - d->random[1];
    o->pc.read_ns = d->ns[0];
    o->pc.write_ns = d->ns[1];
    o->pc.max_read_ns = d->max_ns[0];
    o->pc.max_write_ns = d->max_ns[1];
    o->pc.read_bytes = d->bytes[0];
    o->pc.write_bytes = d->bytes[1];
    o->pc.main_ops = o->s.main_ops;
}

static void session_end(struct engine *e, struct ofd *o, int64_t t, int end)
{
    struct rule_session *s = &o->s;

    session_figures(o);
    s->end_t = t;
    s->end = end;
    s->end_unix_ms = unix_ms(o->opener, end == RULE_END_EXIT && o->leak_t ? o->leak_t : t);
    if (!o->ignored) {
        for (size_t i = 0; i < e->nslots; i++) {
            struct rule_slot *rs = &e->slots[i];

            rs->ctx.timing = e->st.calls_no_dur == 0;
            rs->rule->on_session(rs->state, &rs->ctx, s);
        }
    }
    if (e->prof)
        profile_add(e->prof, s->pid, s->path, s->layer, &o->pc,
                    (double)s->open_t / 1e9, (double)t / 1e9, s->file_size);
    e->st.sessions++;
    free(o);
}

static void ofd_unref(struct engine *e, struct ofd *o, int64_t t, int end)
{
    if (--o->refs == 0)
        session_end(e, o, t, end);
}

static struct ofd *ofd_new(struct engine *e, const struct iot_event *ev, struct proc *p,
                           const char *path, int layer)
{
    struct ofd *o = calloc(1, sizeof(*o));
    struct thr *th = thr_get(e, ev->pid, ev->tid);

    if (!o)
        return NULL;
    o->opener = p;
    o->h.off = 0;
    o->dir.prev_end[0] = o->dir.prev_end[1] = -1;
    o->ignored = path_ignored(e, path);
    o->s.path = path;
    o->s.process = p->name;
    o->s.thread = th ? th->name : p->name;
    o->s.stack = (ev->has & IOT_HAS_STACK) && ev->stack ? ev->stack : e->empty;
    o->s.pid = ev->pid;
    o->s.tid = ev->tid;
    o->s.layer = layer;
    o->h.timed = 1;
    o->h.calls_on = ON_NONE;
    o->s.open_t = ev->t;
    o->s.file_size = -1;
    o->pc.opens = 1;
    return o;
}

/* ------------------------------------------------------------ fd tables */

static struct fdent *fd_slot(struct proc *p, int32_t fd, int create)
{
    if (fd < 0 || fd >= MAX_FD)
        return NULL;
    if (fd >= p->nfds) {
        int32_t n = p->nfds ? p->nfds : 64;
        struct fdent *nf;

        if (!create)
            return NULL;
        while (n <= fd)
            n *= 2;
        nf = realloc(p->fds, (size_t)n * sizeof(*nf));
        if (!nf)
            return NULL;
        memset(nf + p->nfds, 0, (size_t)(n - p->nfds) * sizeof(*nf));
        p->fds = nf;
        p->nfds = n;
    }
    return &p->fds[fd];
}

static struct ofd *fd_ofd(struct proc *p, int32_t fd)
{
    return fd >= 0 && fd < p->nfds ? p->fds[fd].o : NULL;
}

static void fd_close(struct engine *e, struct proc *p, int32_t fd, int64_t t)
{
    struct fdent *f = fd_slot(p, fd, 0);

    if (f && f->o) {
        struct ofd *o = f->o;

        f->o = NULL;
        ofd_unref(e, o, t, RULE_END_CLOSE);
    }
}

static void fd_install(struct engine *e, struct proc *p, int32_t fd, struct ofd *o,
                       int cloexec, int64_t t)
{
    struct fdent *f = fd_slot(p, fd, 1);

    if (!f) {
        ofd_unref(e, o, t, RULE_END_CLOSE);
        return;
    }
    /* The kernel handed out this fd, so whatever we had there was closed
       in a way we did not see. */
    if (f->o)
        fd_close(e, p, fd, t);
    f->o = o;
    f->cloexec = cloexec;
}

static void stream_drop(struct engine *e, struct stream *s, int64_t t, int end)
{
    if (s->o)
        ofd_unref(e, s->o, t, end);
    free(s);
}

/*
 * Everything p holds goes; leaks are marked when p exits normally. A file
 * held only as a standard stream (fd 0-2: `cmd > file`, freopen(stdout))
 * is the process's output, closed by exit itself: not a leak.
 */
static void proc_drop_all(struct engine *e, struct proc *p, int64_t t, int end, int leaks)
{
    for (size_t i = 0; i < p->streams.cap; i++) {
        struct stream *s;

        if (!p->streams.used[i])
            continue;
        s = p->streams.vals[i];
        if (leaks && s->o && s->fd > 2 && s->o->s.pid == p->pid && !s->o->s.leaked) {
            s->o->s.leaked = 1;
            s->o->leak_t = t;
        }
        stream_drop(e, s, t, end);
    }
    hmap_release(&p->streams);
    for (int32_t fd = 0; fd < p->nfds; fd++) {
        struct ofd *o = p->fds[fd].o;

        if (!o)
            continue;
        p->fds[fd].o = NULL;
        if (leaks && fd > 2 && o->s.pid == p->pid && !o->s.leaked) {
            o->s.leaked = 1;
            o->leak_t = t;
        }
        ofd_unref(e, o, t, end);
    }
}

/* ------------------------------------------------------------ metadata */

static void on_process(struct engine *e, const struct iot_event *ev)
{
    struct proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)ev->pid);
    const char *name = base_name(ev->exe);

    if (p && !p->exited && (p->exe || p->nfds || p->streams.n)) {
        /* exec: same process, new image */
        for (size_t i = 0; i < p->streams.cap; i++)
            if (p->streams.used[i])
                stream_drop(e, p->streams.vals[i], ev->t, RULE_END_CLOSE);
        hmap_release(&p->streams);
        for (int32_t fd = 0; fd < p->nfds; fd++)
            if (p->fds[fd].o && p->fds[fd].cloexec)
                fd_close(e, p, fd, ev->t);
    } else {
        struct proc *parent;

        if (p && p->exited) {       /* pid reused */
            free(p->fds);
            p->fds = NULL;
            p->nfds = 0;
            p->exited = 0;
        }
        if (!p)
            p = proc_new(e, ev->pid);
        if (!p)
            return;
        parent = ev->ppid != ev->pid ? hmap_get(&e->procs, (uint64_t)(uint32_t)ev->ppid) : NULL;
        if (parent && !parent->exited && !p->nfds) {
            /* fork: the child shares the parent's open file descriptions */
            if (parent->nfds && fd_slot(p, parent->nfds - 1, 1)) {
                for (int32_t fd = 0; fd < parent->nfds; fd++) {
                    p->fds[fd] = parent->fds[fd];
                    if (p->fds[fd].o)
                        p->fds[fd].o->refs++;
                }
            }
            for (size_t i = 0; i < parent->streams.cap; i++) {
                struct stream *s, *c;

                if (!parent->streams.used[i])
                    continue;
                s = parent->streams.vals[i];
                c = malloc(sizeof(*c));
                if (!c)
                    continue;
                *c = *s;
                if (c->o)
                    c->o->refs++;
                hmap_put(&p->streams, parent->streams.keys[i], c);
            }
        }
    }
    p->ppid = ev->ppid;
    p->exe = ev->exe;
    p->name = name;
    p->start_t = ev->t;
    p->start_unix_ns = ev->start_unix_ns;
    /* Threads named by default after the old image follow the new one. */
    {
        struct thr *t = hmap_get(&e->thrs, (uint64_t)(uint32_t)ev->pid);

        if (t && t->pid == ev->pid)
            t->name = name;
    }
}

static void on_thread(struct engine *e, const struct iot_event *ev)
{
    struct thr *t = thr_get(e, ev->pid, ev->tid);

    if (!t || !ev->name)
        return;
    t->name = ev->name;
    t->is_main = t->tid == t->pid || config_main_name(e->cfg, t->name);
}

static void on_exit_ev(struct engine *e, const struct iot_event *ev)
{
    struct proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)ev->pid);

    if (!p || p->exited)
        return;
    proc_drop_all(e, p, ev->t, RULE_END_EXIT, !(ev->has & IOT_HAS_SIGNAL));
    free(p->fds);
    p->fds = NULL;
    p->nfds = 0;
    p->exited = 1;
    if (e->last_proc == p)
        e->last_proc = NULL;
}

/* ------------------------------------------------------------ data calls */

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
 * A call on (main_thread, tid) where the session's calls so far were all
 * otherwise (enum calls_on). The session's first call only sets which way
 * they go, and the session's op type: returns 0, nothing more to count.
 * Else the main-thread figures are made from the calls so far and kept
 * apart from now on: returns 1.
 */
static __attribute__((noinline, cold)) int count_mixed(struct ofd *o, int main_thread, int32_t tid,
                                                       unsigned is_write)
{
    struct ofd_hot *h = &o->h;

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
 * main_thread 0 or 1 and on calls_on_key(main_thread, tid).
 * op, cost_ns and max_once_ns are sums and maximum over dir, made by
 * session_figures.
 */
static inline __attribute__((always_inline)) void
count_call(struct ofd *o, int32_t tid, int main_thread, int32_t on, unsigned is_write,
           int64_t size, int64_t t, int64_t dur, int timed, int64_t gap)
{
    struct ofd_hot *h = &o->h;
    int64_t end = t + dur, cont;

    if (!timed)
        h->timed = 0;
    SADD(h->op_size, size);
    h->buffer = max64(h->buffer, size);
    /* the main thread's calls alone, when kept apart: first, as making them
       (count_mixed) takes the session's figures before this call; the first
       call comes here too (ON_NONE) */
    if (__builtin_expect(h->calls_on != on, 0)) {
        if (h->calls_on != ON_BOTH && !count_mixed(o, main_thread, tid, is_write))
            goto counted;
        cont = t - h->main_last_end < gap ? sadd(h->main_cur_cont, dur) : dur;
        h->main_ops += (uint64_t)main_thread;
        h->main_tid = main_thread ? tid : h->main_tid;
        h->main_cost_ns = main_thread ? sadd(h->main_cost_ns, dur) : h->main_cost_ns;
        h->main_max_once_ns = main_thread ? max64(h->main_max_once_ns, dur) : h->main_max_once_ns;
        h->main_cur_cont = main_thread ? cont : h->main_cur_cont;
        h->main_max_continual_ns = max64(h->main_max_continual_ns, h->main_cur_cont);
        h->main_last_end = main_thread ? end : h->main_last_end;
    }
counted:
    /* A continual run: calls less than gap apart. Before the first call the
       run is 0 long, so the first call starts one whatever the gap. */
    cont = sadd(h->cur_cont, dur);
    h->cur_cont = t - h->last_end < gap ? cont : dur;
    h->max_continual_ns = max64(h->max_continual_ns, h->cur_cont);
    h->last_end = end;
    SADD(o->dir.ns[is_write], dur);
    o->dir.max_ns[is_write] = max64(o->dir.max_ns[is_write], dur);
}

/* Sequential or not: pos -1 = unknown (given the benefit of the doubt). */
static inline __attribute__((always_inline)) void
count_position(struct ofd *o, unsigned is_write, int64_t pos, int64_t moved)
{
    struct ofd_dirs *d = &o->dir;
    int64_t end = sadd(pos, moved), prev = d->prev_end[is_write];

    d->calls[is_write]++;
    /* both known (neither has the sign bit), and apart */
    d->random[is_write] += (uint64_t)(((pos | prev) >= 0) & (pos != prev));
    SADD(d->bytes[is_write], moved);
    d->prev_end[is_write] = pos >= 0 ? end : -1;
}

/*
 * One successful read/write-class call on o: size requested, moved bytes
 * returned, dur >= 0 (timed 0: unknown), pos its own offset (pread/pwrite,
 * -1 unknown) when positional.
 */
static inline __attribute__((always_inline)) void
fd_data(struct ofd *o, const struct iot_event *ev, int main_thread, int32_t on, unsigned is_write,
        int positional, int64_t size, int64_t moved, int64_t dur, int timed, int64_t gap)
{
    int64_t pos, off;
    int append;

    count_call(o, ev->tid, main_thread, on, is_write, size, ev->t, dur, timed, gap);
    /*
     * Where it happened: pread/pwrite say; an O_APPEND write lands at the end
     * of the file (sequential by construction, and the offset is unknown
     * after it); anything else is at the file offset, which it moves.
     */
    append = is_write & o->h.append;
    off = o->h.off >= 0 ? sadd(o->h.off, moved) : o->h.off;
    pos = append ? o->dir.prev_end[1] : o->h.off;
    /*
     * Selects: reads, writes and pwrites of concurrent threads interleave
     * (as ?:s gcc made branches of them, and cachegrind's model had a
     * mispredict on every sixth event there).
     */
    o->h.off = sel((uint64_t)positional, o->h.off, sel((uint64_t)append, -1, off));
    pos = sel((uint64_t)positional, sel(ev->has & IOT_HAS_OFFSET, ev->offset, -1), pos);
    count_position(o, is_write, pos, moved);
}

static void on_fd_data(struct engine *e, struct proc *p, const struct iot_event *ev,
                       unsigned is_write, int32_t fd, int positional)
{
    struct ofd *o = fd_ofd(p, fd);
    int64_t moved = ev->ret > 0 ? ev->ret : 0;
    int timed = !(ev->has & IOT_HAS_NO_DUR);
    int main_thread = call_on_main(e, ev->pid, ev->tid);

    if (!o)
        return;
    fd_data(o, ev, main_thread, calls_on_key(main_thread, ev->tid), is_write, positional,
            (ev->has & IOT_HAS_SIZE) ? ev->size : moved, moved, timed ? ev->dur : 0, timed,
            e->gap);
}

/* ------------------------------------------------------------ stdio */

static struct stream *stream_get(struct proc *p, const struct iot_event *ev)
{
    if (!(ev->has & IOT_HAS_STREAM))
        return NULL;
    return hmap_get(&p->streams, ev->stream);
}

/* A syscall the stream makes: counted into the session's effective figures. */
static void stream_syscall(struct stream *s, int64_t bytes)
{
    s->o->s.eff_ops++;
    SADD(s->o->s.eff_bytes, bytes);
}

static void stream_flush(struct stream *s)
{
    if (s->pending > 0)
        stream_syscall(s, s->pending);
    s->pending = 0;
    s->avail = 0;
}

/*
 * What one stdio data call costs below the buffer: unbuffered streams make a
 * syscall per call; line-buffered writes are flushed per call (we do not see
 * the bytes, so a newline is assumed); fully buffered streams make one
 * syscall per buffer filled, and requests of at least a buffer go straight
 * through, as glibc does.
 */
static void stream_model(struct stream *s, int is_write, int64_t size)
{
    int64_t b = s->bufsize;

    if (size <= 0)
        return;
    if (b <= 0 || s->bufmode == IOT_BUF_NONE || (is_write && s->bufmode == IOT_BUF_LINE)) {
        s->pending = 0;
        stream_syscall(s, size);
        return;
    }
    if (is_write) {
        s->avail = 0;
        if (size >= b) {
            stream_flush(s);
            stream_syscall(s, size);
            return;
        }
        SADD(s->pending, size);
        while (s->pending >= b) {
            stream_syscall(s, b);
            s->pending -= b;
        }
    } else {
        int64_t need;

        s->pending = 0;
        if (size <= s->avail) {
            s->avail -= size;
            return;
        }
        need = size - s->avail;
        if (need >= b) {
            stream_syscall(s, need);
            s->avail = 0;
            return;
        }
        stream_syscall(s, b);
        s->avail = b - need;
    }
}

static void on_stream_open(struct engine *e, struct proc *p, const struct iot_event *ev)
{
    struct stream *s;
    struct ofd *o = NULL;
    int32_t fd = (ev->has & IOT_HAS_FD) ? ev->fd : -1;
    uint64_t id = (uint64_t)ev->ret;

    if (ev->ret == 0 || (ev->has & IOT_HAS_ERRNO))
        return;
    if (ev->op == IOT_OP_FDOPEN) {
        o = fd_ofd(p, fd);
        if (!o)
            return;     /* a stream over an fd we do not follow (a pipe, stdin) */
        o->refs++;
        o->s.layer = RULE_LAYER_STDIO;
    } else {
        const char *path = (ev->has & IOT_HAS_PATH) && ev->path ? ev->path : NULL;
        struct ofd *cur = fd_ofd(p, fd);

        if (!path && ev->op == IOT_OP_TMPFILE)
            path = "(tmpfile)";
        if (!path)
            return;
        if (cur && cur->s.path == path && cur->dir.calls[0] + cur->dir.calls[1] == 0) {
            /* the open() beneath fopen was seen too: one session */
            o = cur;
            o->s.layer = RULE_LAYER_STDIO;
            o->refs++;
        } else {
            o = ofd_new(e, ev, p, path, RULE_LAYER_STDIO);
            if (!o)
                return;
            o->refs = 1;
            if (fd >= 0) {
                o->refs++;
                fd_install(e, p, fd, o, 0, ev->t);
            }
        }
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        ofd_unref(e, o, ev->t, RULE_END_CLOSE);
        return;
    }
    s->o = o;
    s->fd = fd;
    s->bufsize = (ev->has & IOT_HAS_SIZE) && ev->size > 0 ? ev->size : DEFAULT_STDIO_BUF;
    s->defsize = s->bufsize;
    s->bufmode = IOT_BUF_FULL;
    s->append = ev->mode && strchr(ev->mode, 'a');
    s->pos = s->append ? -1 : 0;
    o->s.stream_buffer = s->bufsize;
    o->s.bufmode = s->bufmode;
    {
        struct stream *old = hmap_get(&p->streams, id);

        if (old)
            stream_drop(e, old, ev->t, RULE_END_CLOSE);
    }
    if (hmap_put(&p->streams, id, s) < 0)
        stream_drop(e, s, ev->t, RULE_END_CLOSE);
}

static void on_stream_close(struct engine *e, struct proc *p, const struct iot_event *ev)
{
    struct stream *s = stream_get(p, ev);
    struct ofd *o;
    int32_t fd;

    if (!s)
        return;
    hmap_del(&p->streams, ev->stream);
    o = s->o;
    fd = s->fd;
    if (s->pending > 0 && o->s.eff_ops == 0)
        stream_flush(s);     /* the only syscall of a short stream */
    if (ev->has & IOT_HAS_FILE_SIZE)
        o->s.file_size = ev->file_size;
    /* fclose closes the fd beneath, if it still is this stream's */
    if (fd >= 0 && fd_ofd(p, fd) == o) {
        p->fds[fd].o = NULL;
        o->refs--;
    }
    stream_drop(e, s, ev->t + (ev->dur > 0 ? ev->dur : 0), RULE_END_CLOSE);
}

static void on_stream_data(struct engine *e, struct proc *p, const struct iot_event *ev,
                           int is_write)
{
    struct stream *s = stream_get(p, ev);
    struct ofd *o;
    int64_t size, moved;
    int main_thread;

    if (!s || (ev->has & IOT_HAS_ERRNO))
        return;
    o = s->o;
    moved = ev->ret > 0 ? ev->ret : 0;
    size = (ev->has & IOT_HAS_SIZE) ? ev->size : moved;
    if (ev->op == IOT_OP_FGETC || ev->op == IOT_OP_FPUTC)
        size = 1;
    main_thread = call_on_main(e, ev->pid, ev->tid);
    count_call(o, ev->tid, main_thread, calls_on_key(main_thread, ev->tid), (unsigned)is_write,
               size, ev->t, (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur,
               !(ev->has & IOT_HAS_NO_DUR), e->gap);
    stream_model(s, is_write, size);
    count_position(o, is_write, is_write && s->append ? o->dir.prev_end[1] : s->pos, moved);
    if (s->pos >= 0)
        SADD(s->pos, moved);
}

static void on_stream_other(struct engine *e, struct proc *p, const struct iot_event *ev)
{
    struct stream *s = stream_get(p, ev);

    (void)e;
    if (!s)
        return;
    switch (ev->op) {
    case IOT_OP_FFLUSH:
        stream_flush(s);
        break;
    case IOT_OP_FSEEK:
        stream_flush(s);
        s->o->h.seeks++;
        if (ev->ret != 0)
            break;
        if ((ev->has & IOT_HAS_WHENCE) && ev->whence == 0 && (ev->has & IOT_HAS_OFFSET))
            s->pos = ev->offset;
        else if ((ev->has & IOT_HAS_WHENCE) && ev->whence == 1 && (ev->has & IOT_HAS_OFFSET) &&
                 s->pos >= 0)
            SADD(s->pos, ev->offset);
        else
            s->pos = -1;
        break;
    case IOT_OP_SETVBUF:
        if (ev->ret != 0)
            break;
        s->bufmode = ev->bufmode;
        if (s->bufmode == IOT_BUF_NONE)
            s->bufsize = 0;
        else if ((ev->has & IOT_HAS_SIZE) && ev->size > 0)
            s->bufsize = ev->size;
        else if (s->bufsize <= 0)
            /* a buffered mode without a size: glibc allocates its default */
            s->bufsize = s->defsize;
        s->o->s.stream_buffer = s->bufsize;
        s->o->s.bufmode = s->bufmode;
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ calls */

static void on_open(struct engine *e, struct proc *p, const struct iot_event *ev)
{
    struct ofd *o;

    if (ev->ret < 0 || (ev->has & IOT_HAS_ERRNO) || !(ev->has & IOT_HAS_PATH) || !ev->path)
        return;
    o = ofd_new(e, ev, p, ev->path, RULE_LAYER_SYSCALL);
    if (!o)
        return;
    o->refs = 1;
    if (ev->has & IOT_HAS_FLAGS)
        o->h.append = (ev->flags & 02000) != 0;         /* O_APPEND */
    fd_install(e, p, (int32_t)ev->ret, o,
               (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000), ev->t);  /* O_CLOEXEC */
}

/*
 * The plain fd data calls, the bulk of every trace, and lseek, by op. Data
 * calls all take one path (fd_data), told the direction and whether the
 * call says where; engine_event takes these ops in its stride.
 */
#define DC_DATA 1u
#define DC_WRITE 2u          /* = is_write << 1 */
#define DC_POSITIONAL 4u     /* pread/pwrite: the offset is the call's own */
#define DC_SEEK 8u           /* lseek */

#define DC_OF(cls, api, dir, pos)                                                         \
    ((api) != IOT_API_POSIX ? 0u                                                          \
     : (cls) == IOT_CLASS_DATA                                                            \
         ? DC_DATA | ((dir) == IOT_DIR_WRITE ? DC_WRITE : 0u) | ((pos) ? DC_POSITIONAL : 0u) \
     : (cls) == IOT_CLASS_SEEK ? DC_SEEK : 0u)
/* Indexed by any uint8_t op: the ops this analyzer does not know are 0. */
static const uint8_t data_class[256] = {
#define DATA_CLASS_(e, name, dir, pos, cls, api, fields, strace) \
    [IOT_OP_##e] = DC_OF(IOT_CLASS_##cls, IOT_API_##api, IOT_DIR_##dir, pos),
    IOT_OPS(DATA_CLASS_)
#undef DATA_CLASS_
};

/* The fd-table changes of the FD class: new fds, copies, close-on-exec. */
static void on_fd_table(struct engine *e, struct proc *p, const struct iot_event *ev, int failed)
{
    switch (ev->op) {
    case IOT_OP_FCNTL: {
        /* F_SETFD: whether the fd survives exec */
        struct fdent *f = fd_slot(p, ev->fd, 0);

        if (!failed && f && f->o && (ev->has & IOT_HAS_FLAGS))
            f->cloexec = (ev->flags & 02000000) != 0;  /* O_CLOEXEC */
        break;
    }
    case IOT_OP_DUP: {
        struct ofd *o = fd_ofd(p, ev->fd);
        int32_t nfd = (int32_t)ev->ret;

        if (failed || nfd == ev->fd)
            break;
        if (!o) {
            /* a copy of an fd we do not follow (a pipe, a socket) replaces
               whatever file nfd named */
            fd_close(e, p, nfd, ev->t);
            break;
        }
        o->refs++;
        fd_install(e, p, nfd, o, (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000), ev->t);
        break;
    }
    default:
        /* new fds that are not files (pipe, socket): a file their numbers
           named is gone */
        if (failed)
            break;
        if (ev->has & IOT_HAS_FD)
            fd_close(e, p, ev->fd, ev->t);
        if (ev->has & IOT_HAS_NEWFD)
            fd_close(e, p, ev->newfd, ev->t);
        if (!(ev->has & IOT_HAS_FD) && ev->ret >= 0 && ev->ret <= INT32_MAX)
            fd_close(e, p, (int32_t)ev->ret, ev->t);
        break;
    }
}

/* The CLOSE class: close, close_range. */
static void on_close(struct engine *e, struct proc *p, const struct iot_event *ev, int failed)
{
    if (ev->op == IOT_OP_CLOSE_RANGE) {
        int32_t last = (ev->has & IOT_HAS_LAST_FD) ? ev->last_fd : ev->fd;

        if (failed)
            return;
        if (last >= p->nfds)
            last = p->nfds - 1;
        for (int32_t fd = ev->fd < 0 ? 0 : ev->fd; fd <= last; fd++)
            fd_close(e, p, fd, ev->t);
        return;
    }
    struct ofd *o = fd_ofd(p, ev->fd);

    if (!o)
        return;
    if (ev->has & IOT_HAS_FILE_SIZE)
        o->s.file_size = ev->file_size;
    /* Even a failed close() releases the fd on Linux. */
    p->fds[ev->fd].o = NULL;
    ofd_unref(e, o, ev->t + (ev->dur > 0 ? ev->dur : 0), RULE_END_CLOSE);
}

static void on_call(struct engine *e, const struct iot_event *ev)
{
    struct proc *p = proc_get(e, ev->pid);
    const struct iot_op_info *info;
    unsigned dc;
    int failed = ev->ret < 0 || (ev->has & IOT_HAS_ERRNO);

    if (!p) {
        e->other_events++;
        return;
    }
    if (ev->has & IOT_HAS_NO_DUR)
        e->st.calls_no_dur++;
    if (ev->op >= IOT_OP_COUNT) {
        e->calls_bad_op++;
        return;
    }
    e->st.per_op[ev->op]++;
    dc = data_class[ev->op];
    if (dc & DC_DATA) {
        if (!failed)
            on_fd_data(e, p, ev, (dc & DC_WRITE) >> 1, ev->fd, (dc & DC_POSITIONAL) != 0);
        return;
    }
    info = &iot_ops[ev->op];
    if (info->api == IOT_API_STDIO) {
        switch (info->cls) {
        case IOT_CLASS_OPEN:
            on_stream_open(e, p, ev);
            break;
        case IOT_CLASS_CLOSE:
            on_stream_close(e, p, ev);
            break;
        case IOT_CLASS_DATA:
            on_stream_data(e, p, ev, info->dir == IOT_DIR_WRITE);
            break;
        default:
            on_stream_other(e, p, ev);
            break;
        }
        return;
    }
    switch (info->cls) {
    case IOT_CLASS_COPY:
        if (failed)
            break;
        on_fd_data(e, p, ev, 1, ev->fd, 0);
        if ((ev->has & IOT_HAS_IN_FD) && ev->in_fd != ev->fd)
            on_fd_data(e, p, ev, 0, ev->in_fd, 0);
        break;
    case IOT_CLASS_OPEN:
        on_open(e, p, ev);
        break;
    case IOT_CLASS_CLOSE:
        on_close(e, p, ev, failed);
        break;
    case IOT_CLASS_FD:
        on_fd_table(e, p, ev, failed);
        break;
    case IOT_CLASS_SEEK: {
        struct ofd *o = fd_ofd(p, ev->fd);

        if (!o)
            break;
        o->h.seeks++;
        if (!failed)
            o->h.off = ev->ret;
        break;
    }
    case IOT_CLASS_SYNC: {
        struct ofd *o = (ev->has & IOT_HAS_FD) ? fd_ofd(p, ev->fd) : NULL;

        if (o)
            o->pc.fsyncs++;
        break;
    }
    case IOT_CLASS_META:
        if (ev->op == IOT_OP_FTRUNCATE) {
            struct ofd *o = fd_ofd(p, ev->fd);

            /* writes after a truncation do not continue the old run */
            if (o && !failed)
                o->dir.prev_end[1] = -1;
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ API */

struct engine *engine_create(const struct config *cfg, struct issues *issues,
                             struct profile *prof)
{
    struct engine *e = calloc(1, sizeof(*e));

    if (!e)
        return NULL;
    e->cfg = cfg;
    e->issues = issues;
    e->prof = prof;
    e->empty = "";
    e->gap = cfg->gap_ns;
    e->nmain = cfg->nmain_names;
    e->st.first_t = INT64_MAX;
    e->st.last_t = INT64_MIN;
    e->slots = calloc(cfg->nrules, sizeof(*e->slots));
    if (!e->slots)
        goto fail;
    for (size_t i = 0; i < cfg->nrules; i++) {
        struct rule_slot *rs = &e->slots[e->nslots];
        const struct rule *r = cfg->rules[i];

        if (!cfg->enabled[i] || !issues)
            continue;
        rs->rule = r;
        rs->state = calloc(1, r->state_size ? r->state_size : 1);
        if (!rs->state)
            goto fail;
        rs->bind.issues = issues;
        rs->bind.rule = r;
        rs->ctx.p = cfg->params[i];
        rs->ctx.gap_ns = cfg->gap_ns;
        rs->ctx.timing = 1;
        rs->ctx.sink = &rs->bind;
        e->nslots++;
    }
    return e;
fail:
    engine_free(e);
    return NULL;
}

/* Any event, the long way: everything engine_event does not take in its stride. */
static __attribute__((noinline)) void event_slow(struct engine *e, const struct iot_event *ev)
{
    struct iot_event tmp;

    if (!event_in_bounds(ev))
        ev = event_clamped(ev, &tmp);
    if (ev->kind == IOT_EV_CALL) {
        /* dur >= 0 here: the end is t + dur */
        if (ev->t < e->st.first_t)
            e->st.first_t = ev->t;
        if (ev->t + ev->dur > e->st.last_t)
            e->st.last_t = ev->t + ev->dur;
        on_call(e, ev);
        return;
    }
    e->other_events++;
    if (ev->kind != IOT_EV_THREAD) {
        if (ev->t < e->st.first_t)
            e->st.first_t = ev->t;
        if (ev->t > e->st.last_t)
            e->st.last_t = ev->t;
    }
    switch (ev->kind) {
    case IOT_EV_PROCESS:
        on_process(e, ev);
        break;
    case IOT_EV_THREAD:
        on_thread(e, ev);
        break;
    case IOT_EV_EXIT:
        on_exit_ev(e, ev);
        break;
    default:
        break;
    }
}

/*
 * The common case in the stride of one straight path: a plain call (its
 * reader says so) of a data op or an lseek, on a file the last process seen
 * has open, with its time in bounds. Anything else, or anything this path
 * would need a lookup or a call for, goes to event_slow before a figure
 * changes; so does an event whose reader left plain 0, which event_slow
 * counts alike.
 */
static inline __attribute__((always_inline)) void event(struct engine *e, const struct iot_event *ev)
{
    unsigned dc = data_class[ev->op];
    unsigned has = ev->has;
    struct proc *p = e->last_proc;
    struct ofd *o;
    int main_thread;
    uint64_t bad;

    /*
     * plain (iot_event_plain): the reader vouches for the call's success,
     * its timing, tid >= 0 (its calls_on key is one or, below) and its
     * quantities, within LIM_V. Its time is checked here, as an unsigned
     * range: t in [-LIM_T, LIM_T).
     */
    _Static_assert(IOT_PLAIN_LIMIT <= LIM_V, "a plain event's quantities are in bounds");
    bad = !ev->plain | !(dc & (DC_DATA | DC_SEEK)) | ((uint64_t)ev->t + LIM_T) >> 61;
    if (__builtin_expect(bad || !p || p->pid != ev->pid || (uint32_t)ev->fd >= (uint32_t)p->nfds ||
                         !(o = p->fds[ev->fd].o), 0))
        return event_slow(e, ev);
    /* call_on_main without a call (one here costs every event spills) */
    main_thread = ev->tid == ev->pid;
    if (__builtin_expect(e->nmain != 0, 0)) {
        struct thr *t = e->last_thr;

        if (!t || t->tid != ev->tid || t->pid != ev->pid)
            return event_slow(e, ev);
        main_thread = t->is_main;
    }
    e->st.per_op[ev->op]++;
    if (__builtin_expect(ev->t < e->st.first_t, 0))
        e->st.first_t = ev->t;
    /* threads' calls end out of order: a select */
    e->st.last_t = max64(e->st.last_t, ev->t + ev->dur);
    if (dc & DC_SEEK) {
        o->h.seeks++;
        o->h.off = ev->ret;
        return;
    }
    fd_data(o, ev, main_thread, ev->tid | (main_thread - 1), (dc & DC_WRITE) >> 1,
            (dc & DC_POSITIONAL) != 0, (has & IOT_HAS_SIZE) ? ev->size : ev->ret, ev->ret, ev->dur,
            1, e->gap);
}

void engine_event(struct engine *e, const struct iot_event *ev)
{
    event(e, ev);
}

/* A batch in one call: the fast path inlined in the loop, no call per event. */
void engine_events(struct engine *e, const struct iot_event *const *evs, size_t n)
{
    /*
     * No prefetch of the next event's session: gcc had dropped the one
     * written here as dead code, and forced in it cost 4% more instructions
     * and 7% more time on the bench trace (the sessions stay in cache).
     */
    for (size_t i = 0; i < n; i++)
        event(e, evs[i]);
}

void engine_finish(struct engine *e)
{
    int64_t end = e->st.last_t == INT64_MIN ? 0 : e->st.last_t;

    for (size_t i = 0; i < e->procs.cap; i++) {
        struct proc *p;

        if (!e->procs.used[i])
            continue;
        p = e->procs.vals[i];
        if (!p->exited)
            proc_drop_all(e, p, end, RULE_END_TRACE, 0);
    }
    for (size_t i = 0; i < e->nslots; i++) {
        struct rule_slot *rs = &e->slots[i];

        rs->ctx.timing = e->st.calls_no_dur == 0;
        if (rs->rule->on_end)
            rs->rule->on_end(rs->state, &rs->ctx);
    }
}

void engine_stats(const struct engine *e, struct engine_stats *out)
{
    *out = e->st;
    out->calls = e->calls_bad_op;
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        out->calls += out->per_op[op];
    out->events = out->calls + e->other_events;
    if (out->first_t == INT64_MAX)
        out->first_t = out->last_t = 0;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->procs.cap; i++) {
        struct proc *p;

        if (!e->procs.used[i])
            continue;
        p = e->procs.vals[i];
        /* engine_finish normally released everything; this is the error path */
        for (size_t j = 0; j < p->streams.cap; j++) {
            struct stream *s;

            if (!p->streams.used[j])
                continue;
            s = p->streams.vals[j];
            if (s->o && --s->o->refs == 0)
                free(s->o);
            free(s);
        }
        hmap_release(&p->streams);
        for (int32_t fd = 0; fd < p->nfds; fd++) {
            struct ofd *o = p->fds[fd].o;

            if (o && --o->refs == 0)
                free(o);
        }
        free(p->fds);
        free(p);
    }
    hmap_release(&e->procs);
    for (size_t i = 0; i < e->thrs.cap; i++)
        if (e->thrs.used[i])
            free(e->thrs.vals[i]);
    hmap_release(&e->thrs);
    hmap_release(&e->ignored);
    for (size_t i = 0; i < e->nslots; i++) {
        if (e->slots[i].rule->fini)
            e->slots[i].rule->fini(e->slots[i].state);
        free(e->slots[i].state);
    }
    free(e->slots);
    free(e);
}
