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

struct ofd {
    int refs;
    struct rule_session s;      /* the figures accumulate right here */
    struct prof_counts pc;
    struct proc *opener;
    int64_t off;                /* file offset, -1 unknown */
    int append;
    int ignored;
    int64_t last_end, cur_cont;
    int64_t main_last_end, main_cur_cont;
    int64_t prev_read_end, prev_write_end;   /* -1: none yet or unknown */
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
    unsigned cls[IOT_OP_COUNT];
    int64_t origin_set;
    struct engine_stats st;
    const char *empty;
};

/* ------------------------------------------------------------ helpers */

struct engine;

/*
 * Bad input must not overflow: each event's times are bounded on entry
 * (event_bounded) and running sums saturate.
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

static int64_t clamp(int64_t v, int64_t lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

static const struct iot_event *event_bounded(const struct engine *e, const struct iot_event *ev,
                                             struct iot_event *tmp)
{
    int stream_id;

    if (ev->t <= LIM_T && ev->t >= -LIM_T && ev->dur >= 0 && ev->dur <= LIM_V &&
        ev->size <= LIM_V && ev->size >= -LIM_V && ev->offset <= LIM_V && ev->offset >= -LIM_V &&
        ev->file_size <= LIM_V && ev->file_size >= -LIM_V &&
        ev->start_unix_ns >= 0 && ev->start_unix_ns <= LIM_U &&
        ev->ret <= LIM_V && ev->ret >= -LIM_V)
        return ev;
    /* a stream id (fopen's return value) is an identity, not a quantity */
    stream_id = ev->kind == IOT_EV_CALL && ev->op < IOT_OP_COUNT &&
                (e->cls[ev->op] & (IOT_OPC_STDIO | IOT_OPC_OPEN)) == (IOT_OPC_STDIO | IOT_OPC_OPEN);
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

static struct proc *proc_get(struct engine *e, int32_t pid)
{
    struct proc *p = e->last_proc;

    if (p && p->pid == pid)
        return p;
    p = hmap_get(&e->procs, (uint64_t)(uint32_t)pid);
    if (!p)
        p = proc_new(e, pid);
    else if (p->exited)
        p->exited = 0;      /* calls after the exit: the pid was reused, unannounced */
    e->last_proc = p;
    return p;
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
static int call_on_main(struct engine *e, int32_t pid, int32_t tid)
{
    struct thr *t;

    if (!e->cfg->nmain_names)
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

static void session_end(struct engine *e, struct ofd *o, int64_t t, int end)
{
    struct rule_session *s = &o->s;

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
    o->off = 0;
    o->prev_read_end = o->prev_write_end = -1;
    o->ignored = path_ignored(e, path);
    o->s.path = path;
    o->s.process = p->name;
    o->s.thread = th ? th->name : p->name;
    o->s.stack = (ev->has & IOT_HAS_STACK) && ev->stack ? ev->stack : e->empty;
    o->s.pid = ev->pid;
    o->s.tid = ev->tid;
    o->s.layer = layer;
    o->s.timed = 1;
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

/* Matrix's figures plus the main-thread view; dur < 0 means unknown. */
static void count_call(struct ofd *o, int32_t tid, int main_thread, int is_write, int64_t size,
                       int64_t t, int64_t dur, int64_t gap)
{
    struct rule_session *s = &o->s;
    int64_t end = t + (dur > 0 ? dur : 0);

    if (dur < 0) {
        s->timed = 0;
        dur = 0;
    }
    s->op++;
    SADD(s->op_size, size);
    if (size > s->buffer)
        s->buffer = size;
    SADD(s->cost_ns, dur);
    if (dur > s->max_once_ns)
        s->max_once_ns = dur;
    if (s->op > 1 && t - o->last_end < gap)
        SADD(o->cur_cont, dur);
    else
        o->cur_cont = dur;
    if (o->cur_cont > s->max_continual_ns)
        s->max_continual_ns = o->cur_cont;
    o->last_end = end;
    if (s->op_type == RULE_OP_INIT)
        s->op_type = is_write ? RULE_OP_WRITE : RULE_OP_READ;
    if (main_thread) {
        s->main_ops++;
        s->main_tid = tid;
        SADD(s->main_cost_ns, dur);
        if (dur > s->main_max_once_ns)
            s->main_max_once_ns = dur;
        if (s->main_ops > 1 && t - o->main_last_end < gap)
            SADD(o->main_cur_cont, dur);
        else
            o->main_cur_cont = dur;
        if (o->main_cur_cont > s->main_max_continual_ns)
            s->main_max_continual_ns = o->main_cur_cont;
        o->main_last_end = end;
        o->pc.main_ops++;
    }
    if (is_write) {
        o->pc.writes++;
        SADD(o->pc.write_ns, dur);
        if (dur > o->pc.max_write_ns)
            o->pc.max_write_ns = dur;
    } else {
        o->pc.reads++;
        SADD(o->pc.read_ns, dur);
        if (dur > o->pc.max_read_ns)
            o->pc.max_read_ns = dur;
    }
}

/* Sequential or not: pos -1 = unknown (given the benefit of the doubt). */
static void count_position(struct ofd *o, int is_write, int64_t pos, int64_t moved)
{
    int64_t *prev = is_write ? &o->prev_write_end : &o->prev_read_end;
    int random = pos >= 0 && *prev >= 0 && pos != *prev;

    if (is_write) {
        o->s.writes++;
        o->s.random_writes += (uint64_t)random;
        if (random)
            o->pc.random_writes++;
        else
            o->pc.seq_writes++;
        SADD(o->pc.write_bytes, moved);
    } else {
        o->s.reads++;
        o->s.random_reads += (uint64_t)random;
        if (random)
            o->pc.random_reads++;
        else
            o->pc.seq_reads++;
        SADD(o->pc.read_bytes, moved);
    }
    *prev = pos >= 0 ? sadd(pos, moved) : -1;
}

static void on_fd_data(struct engine *e, struct proc *p, const struct iot_event *ev,
                       int is_write, int32_t fd, int positional)
{
    struct ofd *o = fd_ofd(p, fd);
    int64_t size, moved, pos;

    if (!o)
        return;
    moved = ev->ret > 0 ? ev->ret : 0;
    size = (ev->has & IOT_HAS_SIZE) ? ev->size : moved;
    count_call(o, ev->tid, call_on_main(e, ev->pid, ev->tid), is_write, size, ev->t,
               (ev->has & IOT_HAS_NO_DUR) ? -1 : ev->dur, e->cfg->gap_ns);
    if (positional) {
        pos = (ev->has & IOT_HAS_OFFSET) ? ev->offset : -1;
    } else if (is_write && o->append) {
        /* lands at the end of the file: sequential by construction */
        pos = o->prev_write_end;
        o->off = -1;
    } else {
        pos = o->off;
        if (o->off >= 0)
            SADD(o->off, moved);
    }
    count_position(o, is_write, pos, moved);
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
        if (cur && cur->s.path == path && cur->s.op == 0) {
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

    if (!s || (ev->has & IOT_HAS_ERRNO))
        return;
    o = s->o;
    moved = ev->ret > 0 ? ev->ret : 0;
    size = (ev->has & IOT_HAS_SIZE) ? ev->size : moved;
    if (ev->op == IOT_OP_FGETC || ev->op == IOT_OP_FPUTC)
        size = 1;
    count_call(o, ev->tid, call_on_main(e, ev->pid, ev->tid), is_write, size, ev->t,
               (ev->has & IOT_HAS_NO_DUR) ? -1 : ev->dur, e->cfg->gap_ns);
    stream_model(s, is_write, size);
    count_position(o, is_write, is_write && s->append ? o->prev_write_end : s->pos, moved);
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
        s->o->pc.seeks++;
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
        o->append = (ev->flags & 02000) != 0;           /* O_APPEND */
    fd_install(e, p, (int32_t)ev->ret, o,
               (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000), ev->t);  /* O_CLOEXEC */
}

static void on_call(struct engine *e, const struct iot_event *ev)
{
    struct proc *p = proc_get(e, ev->pid);
    unsigned cls;
    int failed = ev->ret < 0 || (ev->has & IOT_HAS_ERRNO);

    if (!p)
        return;
    e->st.calls++;
    if (ev->has & IOT_HAS_NO_DUR)
        e->st.calls_no_dur++;
    if (ev->op >= IOT_OP_COUNT)
        return;
    e->st.per_op[ev->op]++;
    cls = e->cls[ev->op];

    if (cls & IOT_OPC_STDIO) {
        if (cls & IOT_OPC_OPEN)
            on_stream_open(e, p, ev);
        else if (cls & IOT_OPC_CLOSE)
            on_stream_close(e, p, ev);
        else if (cls & (IOT_OPC_READ | IOT_OPC_WRITE))
            on_stream_data(e, p, ev, (cls & IOT_OPC_WRITE) != 0);
        else
            on_stream_other(e, p, ev);
        return;
    }
    switch (ev->op) {
    case IOT_OP_READ: case IOT_OP_READV:
        if (!failed)
            on_fd_data(e, p, ev, 0, ev->fd, 0);
        break;
    case IOT_OP_WRITE: case IOT_OP_WRITEV:
        if (!failed)
            on_fd_data(e, p, ev, 1, ev->fd, 0);
        break;
    case IOT_OP_PREAD: case IOT_OP_PREADV:
        if (!failed)
            on_fd_data(e, p, ev, 0, ev->fd, 1);
        break;
    case IOT_OP_PWRITE: case IOT_OP_PWRITEV:
        if (!failed)
            on_fd_data(e, p, ev, 1, ev->fd, 1);
        break;
    case IOT_OP_SENDFILE: case IOT_OP_COPY_FILE_RANGE: case IOT_OP_SPLICE:
        if (failed)
            break;
        on_fd_data(e, p, ev, 1, ev->fd, 0);
        if ((ev->has & IOT_HAS_IN_FD) && ev->in_fd != ev->fd)
            on_fd_data(e, p, ev, 0, ev->in_fd, 0);
        break;
    case IOT_OP_OPEN:
        on_open(e, p, ev);
        break;
    case IOT_OP_CLOSE: {
        struct ofd *o = fd_ofd(p, ev->fd);

        if (!o)
            break;
        if (ev->has & IOT_HAS_FILE_SIZE)
            o->s.file_size = ev->file_size;
        /* Even a failed close() releases the fd on Linux. */
        p->fds[ev->fd].o = NULL;
        ofd_unref(e, o, ev->t + (ev->dur > 0 ? ev->dur : 0), RULE_END_CLOSE);
        break;
    }
    case IOT_OP_FCNTL: {
        /* F_SETFD: whether the fd survives exec */
        struct fdent *f = fd_slot(p, ev->fd, 0);

        if (!failed && f && f->o && (ev->has & IOT_HAS_FLAGS))
            f->cloexec = (ev->flags & 02000000) != 0;  /* O_CLOEXEC */
        break;
    }
    case IOT_OP_PIPE: case IOT_OP_SOCKET:
        /* new fds that are not files: a file their numbers named is gone */
        if (failed)
            break;
        if (ev->has & IOT_HAS_FD)
            fd_close(e, p, ev->fd, ev->t);
        if (ev->has & IOT_HAS_NEWFD)
            fd_close(e, p, ev->newfd, ev->t);
        if (!(ev->has & IOT_HAS_FD) && ev->ret >= 0 && ev->ret <= INT32_MAX)
            fd_close(e, p, (int32_t)ev->ret, ev->t);
        break;
    case IOT_OP_CLOSE_RANGE: {
        int32_t last = (ev->has & IOT_HAS_LAST_FD) ? ev->last_fd : ev->fd;

        if (failed)
            break;
        if (last >= p->nfds)
            last = p->nfds - 1;
        for (int32_t fd = ev->fd < 0 ? 0 : ev->fd; fd <= last; fd++)
            fd_close(e, p, fd, ev->t);
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
    case IOT_OP_LSEEK: {
        struct ofd *o = fd_ofd(p, ev->fd);

        if (!o)
            break;
        o->pc.seeks++;
        if (!failed)
            o->off = ev->ret;
        break;
    }
    case IOT_OP_FSYNC: case IOT_OP_FDATASYNC: {
        struct ofd *o = fd_ofd(p, ev->fd);

        if (o)
            o->pc.fsyncs++;
        break;
    }
    case IOT_OP_FTRUNCATE: {
        struct ofd *o = fd_ofd(p, ev->fd);

        /* writes after a truncation do not continue the old run */
        if (o && !failed)
            o->prev_write_end = -1;
        break;
    }
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
    e->st.first_t = INT64_MAX;
    e->st.last_t = INT64_MIN;
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        e->cls[op] = iot_op_class(op);
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

void engine_event(struct engine *e, const struct iot_event *ev0)
{
    struct iot_event tmp;
    const struct iot_event *ev = event_bounded(e, ev0, &tmp);

    e->st.events++;
    if (ev->kind == IOT_EV_CALL) {
        if (ev->t < e->st.first_t)
            e->st.first_t = ev->t;
        if (ev->t + ev->dur > e->st.last_t)
            e->st.last_t = ev->t + (ev->dur > 0 ? ev->dur : 0);
        on_call(e, ev);
        return;
    }
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
