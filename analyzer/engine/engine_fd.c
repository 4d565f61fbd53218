/*
 * Open file descriptions and fd tables (engine_int.h): a session from the
 * open that makes it to the end of its last reference, where the rules and
 * the profile get it; the per-process tables of fds referring to sessions,
 * and the calls that change them (open, close, dup, pipe, fcntl).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "grow.h"

#define MAX_FD (1 << 20)        /* fds beyond this are ignored */
#define FDS_FIRST 64            /* entries in a process's first fd table */

int engine_path_ignored(struct engine *e, const char *path)
{
    void *v = hmap_get(&e->ignored, hmap_ptr_key(path));
    int ig;

    if (v)
        return v == (void *)1;
    ig = config_ignored(e->cfg, path);
    hmap_put(&e->ignored, hmap_ptr_key(path), ig ? (void *)1 : (void *)2);
    return ig;
}

struct ofd *ofd_new(struct engine *e, const struct iot_event *ev, struct engine_proc *p,
                    const char *path, int layer)
{
    struct ofd *o = calloc(1, sizeof(*o));
    struct engine_thread *th = engine_thread_get(e, ev->pid, ev->tid);

    if (!o)
        return NULL;
    o->opener = p;
    o->h.off = 0;
    o->dir.prev_end[0] = o->dir.prev_end[1] = -1;
    o->dir.prev_start[0] = o->dir.prev_start[1] = -1;
    o->dir.extent[0] = o->dir.extent[1] = -1;
    o->ignored = engine_path_ignored(e, path);
    o->s.size = sizeof(o->s);
    o->s.path = path;
    engine_names_opened(e, path, 1);
    o->s.directory = engine_path_is_dir(e, path);
    o->s.process = p->name;
    o->s.thread = th ? th->name : p->name;
    o->s.stack = (ev->has & IOT_HAS_STACK) && ev->stack ? ev->stack : e->empty;
    o->s.pid = ev->pid;
    o->s.tid = ev->tid;
    o->s.layer = layer;
    o->h.timed = 1;
    o->h.calls_on = ON_NONE;
    o->s.open_t = ev->t;
    o->s.open_seq = p->calls;
    o->s.open_ns = (ev->has & IOT_HAS_NO_DUR) || ev->dur < 0 ? 0 : ev->dur;
    o->s.file_size = -1;
    return o;
}

/* The kind of site op's calls count for, OFD_SITE_KINDS for none. */
static unsigned site_kind(unsigned op)
{
    switch (op < IOT_OP_COUNT ? iot_ops[op].role : IOT_ROLE_OPEN) {
    case IOT_ROLE_READ:
        return OFD_SITE_READ;
    case IOT_ROLE_WRITE:
        return OFD_SITE_WRITE;
    case IOT_ROLE_SYNC:
        return OFD_SITE_SYNC;
    default:
        return OFD_SITE_KINDS;
    }
}

void ofd_site_seen(struct ofd *o, const struct iot_event *ev, int scattered)
{
    unsigned kind = site_kind(ev->op);

    if (!o || kind == OFD_SITE_KINDS || !(ev->has & IOT_HAS_STACK) || !ev->stack ||
        !*ev->stack)
        return;
    for (struct ofd_site *v = o->sites[kind]; v < o->sites[kind] + OFD_SITES; v++) {
        if (!v->stack)
            v->stack = ev->stack;
        if (v->stack == ev->stack) {
            v->calls++;
            v->scattered += (uint64_t)scattered;
            return;
        }
    }
}

/* The stack seen on the most calls of kind (ties: the first met), or none. */
static const char *site_top(const struct ofd *o, unsigned kind, const char *none)
{
    const struct ofd_site *top = NULL;

    for (const struct ofd_site *v = o->sites[kind]; v < o->sites[kind] + OFD_SITES && v->stack;
         v++)
        if (!top || v->calls > top->calls)
            top = v;
    return top ? top->stack : none;
}

/* The stack seen on the most scattered calls of kind (ties: the first
   met), or none when no call that jumped back carried one. */
static const char *site_scattered_top(const struct ofd *o, unsigned kind, const char *none)
{
    const struct ofd_site *top = NULL;

    for (const struct ofd_site *v = o->sites[kind]; v < o->sites[kind] + OFD_SITES && v->stack;
         v++)
        if (v->scattered && (!top || v->scattered > top->scattered))
            top = v;
    return top ? top->stack : none;
}

const char *ofd_site_of(const struct ofd *o, unsigned op)
{
    unsigned kind = site_kind(op);

    return kind == OFD_SITE_KINDS ? o->s.stack : site_top(o, kind, o->s.stack);
}

/*
 * Whose session it is: a file opened by one process and used by another
 * only, from its main thread (calls_on: that tid), is judged as the
 * user's - a shell's `> out` inherited by the program it forks or execs.
 * The opener is kept as "opened by". An exec keeps the pid: the image that
 * made the calls is the one the process runs when the session ends.
 */
static void session_user(struct engine *e, struct ofd *o)
{
    struct rule_session *s = &o->s;
    int32_t user = o->h.calls_on;
    struct engine_proc *p;
    struct engine_thread *th;

    if (user < 0)
        return;
    p = hmap_get(&e->procs, (uint64_t)(uint32_t)user);
    if (!p || (user == s->pid && p->name == s->process))
        return;
    th = hmap_get(&e->thrs, (uint64_t)(uint32_t)user);
    s->opener_process = s->process;
    s->opener_pid = s->pid;
    s->process = p->name;
    s->pid = user;
    s->tid = user;
    s->thread = th && th->pid == user ? th->name : p->name;
}

void ofd_thread_run(struct ofd *o, int32_t tid)
{
    struct ofd_thread *t = o->threads;

    if (o->h.run_calls) {
        while (t < o->threads + OFD_THREADS && t->tid && t->tid != o->h.run_tid)
            t++;
        if (t == o->threads + OFD_THREADS) {
            o->other_threads_calls += o->h.run_calls;
        } else {
            t->tid = o->h.run_tid;
            t->calls += o->h.run_calls;
        }
    }
    o->h.run_tid = tid;
    o->h.run_calls = 0;
}

/*
 * Whose calls they were: the thread that made the most of its data calls
 * and syncs (ties: the first met), its calls and how many threads made
 * them (those beyond the table count as one more).
 */
static void session_threads(struct engine *e, struct ofd *o)
{
    struct rule_session *s = &o->s;
    const struct ofd_thread *top = NULL;
    struct engine_thread *th;

    ofd_thread_run(o, 0);
    for (const struct ofd_thread *t = o->threads; t < o->threads + OFD_THREADS && t->tid; t++) {
        s->calls_threads++;
        if (!top || t->calls > top->calls)
            top = t;
    }
    s->calls_threads += o->other_threads_calls > 0;
    if (!top)
        return;
    th = engine_thread_find(e, s->pid, top->tid);
    s->calls_tid = top->tid;
    s->calls_tid_calls = top->calls;
    s->calls_thread = th && th->name ? th->name : top->tid == s->tid ? s->thread : s->process;
}

/*
 * Whose session it is when its calls came from threads that are not a main
 * one: all of them threads of one other process (ripgrep's searchers
 * writing to the `> hits.txt` its shell opened) make it that process's, as
 * session_user does for a main thread's calls, so that the process
 * and the thread it names are one process's. The threads are known by the
 * thread records; one the trace never named, or more threads than the
 * table holds, leaves it the opener's.
 */
static void session_thread_user(struct engine *e, struct ofd *o)
{
    struct rule_session *s = &o->s;
    struct engine_thread *th;
    struct engine_proc *p;
    int32_t user = -1;

    if (o->h.calls_on >= 0 || s->opener_process || o->other_threads_calls || !s->calls_tid)
        return;
    for (const struct ofd_thread *t = o->threads; t < o->threads + OFD_THREADS && t->tid; t++) {
        th = hmap_get(&e->thrs, (uint64_t)(uint32_t)t->tid);
        if (!th || (user >= 0 && th->pid != user))
            return;
        user = th->pid;
    }
    if (user < 0 || user == s->pid || !(p = engine_proc_find(e, user)))
        return;
    th = engine_thread_find(e, user, s->calls_tid);
    s->opener_process = s->process;
    s->opener_pid = s->pid;
    s->process = p->name;
    s->pid = user;
    s->tid = s->calls_tid;
    s->thread = th && th->name ? th->name : p->name;
    s->calls_thread = s->thread;
}

/* The session is over: the rules (unless its path is ignored) and the profile get it. */
static void session_end(struct engine *e, struct ofd *o, int64_t t, int end)
{
    struct rule_session *s = &o->s;
    struct engine_proc *user;

    ofd_figures(o);
    engine_names_opened(e, s->path, -1);
    s->read_stack = site_top(o, OFD_SITE_READ, e->empty);
    s->write_stack = site_top(o, OFD_SITE_WRITE, e->empty);
    s->sync_stack = site_top(o, OFD_SITE_SYNC, e->empty);
    s->read_scattered_stack = site_scattered_top(o, OFD_SITE_READ, e->empty);
    s->write_scattered_stack = site_scattered_top(o, OFD_SITE_WRITE, e->empty);
    session_user(e, o);
    session_threads(e, o);
    session_thread_user(e, o);
    /* a thread known only by its data calls on a file its process opened
       is a thread of that process (main_thread's scope); when another
       process used the file too, whose thread it was is not known */
    if (o->other_thread_calls && !s->opener_process && o->opener)
        o->opener->other_tid_seen = 1;
    user = hmap_get(&e->procs, (uint64_t)(uint32_t)s->pid);
    if ((o->opener && o->opener->unseen_io) || (user && user->unseen_io))
        s->unseen_io |= RULE_UNSEEN_PROCESS;
    s->exe = user ? user->exe : NULL;
    s->end_t = t;
    s->end = end;
    s->end_unix_ms = engine_proc_unix_ms(o->opener,
                                         end == RULE_END_EXIT && o->leak_t ? o->leak_t : t);
    engine_session_model(e, o);
    engine_proc_io_add(e, s->pid, s->cost_ns);
    if (!o->ignored) {
        for (size_t i = 0; i < e->nslots; i++) {
            struct rule_slot *rs = &e->slots[i];

            if (!rs->rule->on_session)
                continue;
            rs->ctx.timing = engine_timing(e);
            rs->rule->on_session(rs->state, &rs->ctx, s);
        }
    }
    if (e->prof)
        profile_add(e->prof, s->pid, s->process, s->path, s->layer, &o->pc,
                    (double)s->open_t / 1e9, (double)t / 1e9, s->file_size);
    e->st.sessions++;
    free(o);
}

void ofd_unref(struct engine *e, struct ofd *o, int64_t t, int end)
{
    if (--o->refs == 0)
        session_end(e, o, t, end);
}

/*
 * A file held only as a standard stream (fd 0-2: `cmd > file`,
 * freopen(stdout)) is the process's output, closed by exit itself: not a
 * leak; nor is a copy inherited from another process.
 */
void ofd_mark_leak(struct ofd *o, int32_t pid, int32_t fd, int64_t t)
{
    if (fd > 2 && o->s.pid == pid && !o->s.leaked) {
        o->s.leaked = 1;
        o->leak_t = t;
    }
}

struct fdent *engine_fd_slot(struct engine_proc *p, int32_t fd, int create)
{
    if (fd < 0 || fd >= MAX_FD)
        return NULL;
    if (fd >= p->nfds) {
        struct fdent *fds = p->fds;
        size_t cap = (size_t)p->nfds;

        /* the table doubles from FDS_FIRST: cap stays a power of two <= MAX_FD */
        if (!create || iot_grow(&fds, &cap, fd < FDS_FIRST ? FDS_FIRST : (size_t)fd + 1,
                                sizeof(*fds)) < 0)
            return NULL;
        memset(fds + p->nfds, 0, (cap - (size_t)p->nfds) * sizeof(*fds));
        p->fds = fds;
        p->nfds = (int32_t)cap;
    }
    return &p->fds[fd];
}

void engine_fd_close(struct engine *e, struct engine_proc *p, int32_t fd, int64_t t)
{
    struct fdent *f = engine_fd_slot(p, fd, 0);

    if (f)
        f->socket = 0;
    if (f && f->o) {
        struct ofd *o = f->o;

        f->o = NULL;
        ofd_unref(e, o, t, RULE_END_CLOSE);
    }
}

void engine_fd_install(struct engine *e, struct engine_proc *p, int32_t fd, struct ofd *o,
                       int cloexec, const struct iot_event *ev)
{
    struct fdent *f = engine_fd_slot(p, fd, 1);

    if (!f) {
        ofd_unref(e, o, ev->t, RULE_END_CLOSE);
        return;
    }
    /* The kernel handed out this fd, so whatever we had there was closed
       in a way we did not see yet (another thread's close still running
       when this call began) or at all. */
    f->displaced_until = f->o ? engine_call_end(ev) : 0;
    if (f->o)
        engine_fd_close(e, p, fd, ev->t);
    f->o = o;
    f->cloexec = cloexec;
    f->socket = 0;
}

int engine_fd_close_freed(struct engine_proc *p, int32_t fd, int64_t t)
{
    struct fdent *f = engine_fd_slot(p, fd, 0);

    if (!f || t >= f->displaced_until)
        return 0;
    f->displaced_until = 0;
    return 1;
}

/* ------------------------------------------------------------ calls */

/*
 * Whether an fdpath's target (the kernel's name of the open file) names
 * the file a session was opened as: the same path, or the same with the
 * kernel's " (deleted)" after it.
 */
static int fdpath_names(const char *target, const char *path)
{
    size_t n = path ? strlen(path) : 0;

    if (!path || strncmp(target, path, n) != 0)
        return 0;
    return target[n] == '\0' || strcmp(target + n, " (deleted)") == 0;
}

void engine_on_open(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct ofd *o;

    if (ev->ret < 0 || (ev->has & IOT_HAS_ERRNO) || !(ev->has & IOT_HAS_PATH) || !ev->path)
        return;
    if (ev->op == IOT_OP_FDPATH) {
        /*
         * An fd the recorder saw used before it saw it made. Known here
         * (inherited from a recorded process) and still naming that file:
         * the session goes on. Naming another, the fd was replaced where
         * no wrapper could see it (a vfork child's dup2 before its exec,
         * posix_spawn's file actions): the inherited session ends there
         * and the fd is what the process itself says. A pipe, socket or
         * other non-file ("pipe:[12]") is no session.
         */
        struct ofd *known = (ev->has & IOT_HAS_FD) ? engine_fd_ofd(p, ev->fd) : NULL;

        if (known && fdpath_names(ev->path, known->s.path))
            return;
        if (ev->path[0] != '/') {
            engine_fd_close(e, p, (int32_t)ev->ret, ev->t);
            return;
        }
    }
    o = ofd_new(e, ev, p, ev->path, RULE_LAYER_SYSCALL);
    if (!o)
        return;
    o->refs = 1;
    if (ev->op == IOT_OP_FDPATH)
        o->h.off = (ev->has & IOT_HAS_OFFSET) ? ev->offset : -1;
    if (ev->has & IOT_HAS_FLAGS)
        o->h.append = (ev->flags & 02000) != 0;         /* O_APPEND */
    if (ev->op == IOT_OP_OPENDIR ||
        ((ev->has & IOT_HAS_FLAGS) && (ev->flags & 0200000))) {   /* O_DIRECTORY */
        engine_paths_note_dir(e, ev->path);
        o->s.directory = 1;
    }
    engine_fd_install(e, p, (int32_t)ev->ret, o,
                      (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000), ev);  /* O_CLOEXEC */
}

/* The fd-table changes of the FD class: new fds, copies, close-on-exec. */
void engine_on_fd_table(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                        int failed)
{
    switch (ev->op) {
    case IOT_OP_FCNTL: {
        /* F_SETFD: whether the fd survives exec */
        struct fdent *f = engine_fd_slot(p, ev->fd, 0);

        if (!failed && f && f->o && (ev->has & IOT_HAS_FLAGS))
            f->cloexec = (ev->flags & 02000000) != 0;  /* O_CLOEXEC */
        break;
    }
    case IOT_OP_DUP: {
        struct ofd *o = engine_fd_ofd(p, ev->fd);
        int32_t nfd = (int32_t)ev->ret;

        if (failed || nfd == ev->fd)
            break;
        if (!o) {
            /* a copy of an fd we do not follow (a pipe, a socket) replaces
               whatever file nfd named */
            struct fdent *from = engine_fd_slot(p, ev->fd, 0);
            int socket = from && from->socket;
            struct fdent *to;

            engine_fd_close(e, p, nfd, ev->t);
            if (socket && (to = engine_fd_slot(p, nfd, 1)))
                to->socket = 1;
            break;
        }
        o->refs++;
        engine_fd_install(e, p, nfd, o, (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000), ev);
        break;
    }
    default:
        /* new fds that are not files (pipe, socket): a file their numbers
           named is gone */
        if (failed)
            break;
        if (ev->has & IOT_HAS_FD)
            engine_fd_close(e, p, ev->fd, ev->t);
        if (ev->has & IOT_HAS_NEWFD)
            engine_fd_close(e, p, ev->newfd, ev->t);
        if (!(ev->has & IOT_HAS_FD) && ev->ret >= 0 && ev->ret <= INT32_MAX)
            engine_fd_close(e, p, (int32_t)ev->ret, ev->t);
        if (ev->op == IOT_OP_SOCKET && ev->ret >= 0 && ev->ret <= INT32_MAX) {
            struct fdent *f = engine_fd_slot(p, (int32_t)ev->ret, 1);

            if (f)
                f->socket = 1;
        }
        break;
    }
}

/* The CLOSE class: close, close_range. */
void engine_on_close(struct engine *e, struct engine_proc *p, const struct iot_event *ev, int failed)
{
    if (ev->op == IOT_OP_CLOSE_RANGE) {
        int32_t last = (ev->has & IOT_HAS_LAST_FD) ? ev->last_fd : ev->fd;
        /* CLOSE_RANGE_CLOEXEC: the range is closed at the next exec, not now */
        int cloexec = (ev->has & IOT_HAS_FLAGS) && (ev->flags & 02000000);

        if (failed)
            return;
        if (last >= p->nfds)
            last = p->nfds - 1;
        for (int32_t fd = ev->fd < 0 ? 0 : ev->fd; fd <= last; fd++) {
            if (!cloexec)
                engine_fd_close(e, p, fd, ev->t);
            else if (p->fds[fd].o)
                p->fds[fd].cloexec = 1;
        }
        return;
    }
    struct ofd *o = engine_fd_ofd(p, ev->fd);

    if (!o || engine_fd_close_freed(p, ev->fd, ev->t))
        return;
    if (ev->has & IOT_HAS_FILE_SIZE)
        o->s.file_size = ev->file_size;
    /* Even a failed close() releases the fd on Linux. */
    p->fds[ev->fd].o = NULL;
    o->s.end_seq = p->calls;
    ofd_unref(e, o, engine_call_end(ev), RULE_END_CLOSE);
}
