/*
 * The lives of processes and threads (engine_int.h), their entries made by
 * engine_proctab.c: fork shares the parent's sessions, exec keeps the fds
 * that survive it, exit lets everything go (and marks what leaked); thread
 * names and which threads are main.
 */
#include <stdlib.h>

#include <string.h>

#include "engine_int.h"
#include "path.h"

void engine_proc_drop_all(struct engine *e, struct engine_proc *p, int64_t t, int end, int leaks)
{
    stdio_drop_all(e, p, t, end, leaks);
    for (int32_t fd = 0; fd < p->nfds; fd++) {
        struct ofd *o = p->fds[fd].o;

        if (!o)
            continue;
        p->fds[fd].o = NULL;
        if (leaks)
            ofd_mark_leak(o, p->pid, fd, t);
        ofd_unref(e, o, t, end);
    }
}

/* fork: the child shares the parent's open file descriptions. */
static void proc_fork(struct engine_proc *parent, struct engine_proc *p)
{
    if (parent->nfds && engine_fd_slot(p, parent->nfds - 1, 1)) {
        for (int32_t fd = 0; fd < parent->nfds; fd++) {
            p->fds[fd] = parent->fds[fd];
            if (p->fds[fd].o)
                p->fds[fd].o->refs++;
        }
    }
    stdio_fork(parent, p);
}

/* A process whose pid is reused by a new one: its old table goes; the new
   one is one more process. */
static void proc_reuse(struct engine *e, struct engine_proc *p)
{
    e->st.processes++;
    free(p->fds);
    p->fds = NULL;
    p->nfds = 0;
    p->exited = 0;
    p->cwd = NULL;
    p->home = NULL;
}

void engine_on_fork(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    int32_t pid = (int32_t)ev->ret;
    struct engine_proc *c;

    if (ev->ret <= 0 || ev->ret > INT32_MAX || pid == p->pid)
        return;
    c = hmap_get(&e->procs, (uint64_t)(uint32_t)pid);
    if (c && !c->exited)
        return;         /* already running (its events came first): keep what it has */
    if (c)
        proc_reuse(e, c);
    else
        c = engine_proc_new(e, pid);
    if (!c)
        return;
    proc_fork(p, c);
    c->forked = 1;
    c->ppid = p->pid;
    c->exe = p->exe;
    c->name = p->name;
    c->cwd = p->cwd;
    c->home = p->home;
    c->start_t = ev->t;
    if (!iot_unix_ns_of(p->start_t, p->start_unix_ns, ev->t, &c->start_unix_ns))
        c->start_unix_ns = 0;
    if (e->last_proc == c)
        e->last_proc = &e->no_proc;
}

/*
 * The name a process image goes by: its argv[0]'s last component, as it was
 * invoked, which is also what the kernel names it (comm); the executable's
 * only when argv is unknown. The executable may be a symbolic link's target
 * that names another program: redis-server is a link to redis-check-rdb,
 * which looks at argv[0] to tell which one to be.
 */
const char *engine_image_name(const struct iot_event *ev)
{
    if (ev->argc > 0 && ev->argv && ev->argv[0] && *iot_path_base(ev->argv[0]))
        return iot_path_base(ev->argv[0]);
    return iot_path_base(ev->exe);
}

void engine_on_process(struct engine *e, const struct iot_event *ev)
{
    struct engine_proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)ev->pid);
    const char *name = engine_image_name(ev);
    int fresh = 0;

    if (p && p->forked && !p->exited) {
        /* the child of a fork its parent recorded: its table is already the
           parent's at the fork */
        p->forked = 0;
    } else if (p && !p->exited && (p->exe || p->nfds || p->streams.n)) {
        /* exec: same process, new image */
        engine_unobserved_entered(e, p, 1);
        stdio_drop_all(e, p, ev->t, RULE_END_CLOSE, 0);
        for (int32_t fd = 0; fd < p->nfds; fd++)
            if (p->fds[fd].o && p->fds[fd].cloexec)
                engine_fd_close(e, p, fd, ev->t);
    } else {
        struct engine_proc *parent;

        if (p && p->exited)         /* pid reused */
            proc_reuse(e, p);
        if (!p)
            p = engine_proc_new(e, ev->pid);
        if (!p)
            return;
        parent = ev->ppid != ev->pid ? hmap_get(&e->procs, (uint64_t)(uint32_t)ev->ppid) : NULL;
        if (parent && !parent->exited && !p->nfds)
            proc_fork(parent, p);
        /* a child starts where its parent is, until it says otherwise */
        if (parent && !parent->exited && !p->cwd)
            p->cwd = parent->cwd;
        if (parent && !parent->exited && !p->home)
            p->home = parent->home;
        fresh = 1;
    }
    p->ppid = ev->ppid;
    p->exe = ev->exe;
    p->name = name;
    p->start_t = ev->t;
    p->start_unix_ns = ev->start_unix_ns;
    if (fresh)
        engine_unobserved_entered(e, p, 0);
    /* Threads named by default after the old image follow the new one. */
    {
        struct engine_thread *t = hmap_get(&e->thrs, (uint64_t)(uint32_t)ev->pid);

        if (t && t->pid == ev->pid)
            t->name = name;
    }
}

void engine_on_thread(struct engine *e, const struct iot_event *ev)
{
    struct engine_thread *t = engine_thread_get(e, ev->pid, ev->tid);

    if (!t || !ev->name)
        return;
    t->name = ev->name;
    t->is_main = t->tid == t->pid || config_main_name(e->cfg, t->name);
    if (e->nmain && config_main_name(e->cfg, t->name)) {
        struct engine_proc *p = engine_proc_get(e, t->pid);

        if (p)
            p->named_main = 1;
    }
}

void engine_on_exit(struct engine *e, const struct iot_event *ev)
{
    struct engine_proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)ev->pid);

    if (!p || p->exited)
        return;
    engine_proc_drop_all(e, p, ev->t, RULE_END_EXIT, !(ev->has & IOT_HAS_SIGNAL));
    free(p->fds);
    p->fds = NULL;
    p->nfds = 0;
    p->exited = 1;
    if (e->last_proc == p)
        e->last_proc = &e->no_proc;
}

void engine_procs_free(struct engine *e)
{
    for (size_t i = 0; i < e->procs.cap; i++) {
        struct engine_proc *p;

        if (!e->procs.used[i])
            continue;
        p = e->procs.vals[i];
        stdio_free_all(p);
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
}

int rule_proc_threads(const struct rule_ctx *ctx, int32_t pid)
{
    struct engine *e = ctx->engine;
    struct engine_proc *p = e ? hmap_get(&e->procs, (uint64_t)(uint32_t)pid) : NULL;
    int n;

    /* a thread named as main makes the process's main thread one that
       matters, as a second thread does (main_thread's scope); a thread
       created that never did file I/O has no record but its creation */
    if (!p)
        return 0;
    n = (int)(p->nthreads > p->threads_created ? p->nthreads : p->threads_created + 1);
    /* a second thread seen only through its calls on another's file */
    if (n < 2 && p->other_tid_seen)
        n = 2;
    return n + p->named_main;
}

void engine_on_waits(struct engine *e, const struct iot_event *ev)
{
    struct engine_thread *t = engine_thread_get(e, ev->pid, ev->tid);

    e->waits_known = 1;
    if (!t || t->waits || ev->waits <= 0)
        return;
    t->waits = 1;
    /* its calls get the main-thread figures from now on; a first thread
       has them already, another makes every call ask (call_on_main) */
    if (!t->is_main)
        e->nwaiting++;
    t->is_main = 1;
}

/*
 * A runtime whose scheduler moves work between its threads (Go, a JVM,
 * BEAM): the thread that waits for events is not the one the work waits
 * on. Go is told by the recorder's word for it (an unobserved record, "go",
 * which the launcher writes of every Go executable it starts), the others
 * by the executable's name.
 */
static int runtime_moves_work(const struct engine *e, const struct engine_proc *p)
{
    static const char *const names[] = {"java", "beam.smp", "beam", "erlexec", "dotnet"};
    const char *exe = p->exe, *base;

    for (size_t i = 0; i < e->nunobs; i++)
        if (e->unobs[i].pid == p->pid && e->unobs[i].why && strcmp(e->unobs[i].why, "go") == 0)
            return 1;
    if (!exe)
        return 0;
    base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(base, names[i]) == 0)
            return 1;
    return 0;
}

int rule_thread_role(const struct rule_ctx *ctx, int32_t pid, int32_t tid)
{
    struct engine *e = ctx->engine;
    struct engine_thread *t = e ? hmap_get(&e->thrs, (uint64_t)(uint32_t)tid) : NULL;
    struct engine_proc *p = e ? hmap_get(&e->procs, (uint64_t)(uint32_t)pid) : NULL;
    int role;

    if (!e)
        return 0;
    role = (tid == pid ? RULE_ROLE_FIRST : 0) | (e->waits_known ? RULE_ROLE_WAITS_KNOWN : 0);
    if (!t || t->pid != pid)
        return role;
    if (t->name && config_main_name(e->cfg, t->name))
        role |= RULE_ROLE_NAMED;
    if (t->waits && !(p && runtime_moves_work(e, p)))
        role |= RULE_ROLE_WAITS;
    return role;
}
