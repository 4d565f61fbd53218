/*
 * The tables of processes and threads (engine_int.h): an entry made as a
 * call or event first names its pid or tid, and a process's clock. The
 * lowest layer of the model: the fd, stdio and process-life files all look
 * their process and thread up here, and this file calls none of them.
 */
#include <stdlib.h>

#include "engine_int.h"

struct engine_proc *engine_proc_new(struct engine *e, int32_t pid)
{
    struct engine_proc *p = calloc(1, sizeof(*p));

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

struct engine_proc *engine_proc_lookup(struct engine *e, int32_t pid)
{
    struct engine_proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)pid);

    if (!p)
        p = engine_proc_new(e, pid);
    else if (p->exited) {
        p->exited = 0;      /* calls after the exit: the pid was reused, unannounced */
        e->st.processes++;
    }
    e->last_proc = p ? p : &e->no_proc;     /* NULL: out of memory */
    return p;
}

struct engine_thread *engine_thread_get(struct engine *e, int32_t pid, int32_t tid)
{
    struct engine_thread *t = e->last_thr;

    if (t && t->tid == tid && t->pid == pid)
        return t;
    t = hmap_get(&e->thrs, (uint64_t)(uint32_t)tid);
    if (!t || t->pid != pid) {
        struct engine_proc *p = engine_proc_get(e, pid);

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
        t->waits = 0;
        if (p) {
            p->nthreads++;
            p->named_main |= e->nmain && config_main_name(e->cfg, t->name);
        }
    }
    e->last_thr = t;
    return t;
}

int64_t engine_proc_unix_ms(const struct engine_proc *p, int64_t t)
{
    int64_t ns;

    if (!p || !iot_unix_ns_of(p->start_t, p->start_unix_ns, t, &ns))
        return t / 1000000;
    return ns / 1000000;
}
