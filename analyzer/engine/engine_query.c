/*
 * What the reports ask of the engine between events (engine.h): which file a
 * call touched. Kept apart from the engine's own files: nothing here runs on
 * the analysis' hot path, and nothing here changes what the engine knows
 * (engine_proc_find: a question makes no process and revives none).
 */
#include "engine_int.h"

const char *engine_call_path(struct engine *e, const struct iot_event *ev)
{
    struct engine_proc *p;
    struct ofd *o;

    if (ev->kind != IOT_EV_CALL)
        return NULL;
    if ((ev->has & IOT_HAS_PATH) && ev->path)
        return ev->path;
    if (!(ev->has & IOT_HAS_FD))
        return NULL;
    p = engine_proc_find(e, ev->pid);
    o = p ? engine_fd_ofd(p, ev->fd) : NULL;
    return o ? o->s.path : NULL;
}

int engine_call_offset(struct engine *e, const struct iot_event *ev, int64_t *off)
{
    struct engine_proc *p;
    struct ofd *o;

    if (ev->kind != IOT_EV_CALL)
        return 0;
    if (ev->has & IOT_HAS_OFFSET) {
        *off = ev->offset;
        return ev->offset >= 0;
    }
    if (!(ev->has & IOT_HAS_FD))
        return 0;
    p = engine_proc_find(e, ev->pid);
    o = p ? engine_fd_ofd(p, ev->fd) : NULL;
    if (!o || o->h.off < 0 || o->h.append)
        return 0;
    *off = o->h.off;
    return 1;
}

const char *engine_proc_name_of(struct engine *e, int32_t pid)
{
    struct engine_proc *p = engine_proc_find(e, pid);

    return p ? p->name : NULL;
}

const char *engine_proc_exe_of(struct engine *e, int32_t pid)
{
    struct engine_proc *p = engine_proc_find(e, pid);

    return p ? p->exe : NULL;
}

const char *engine_proc_cwd_of(struct engine *e, int32_t pid)
{
    struct engine_proc *p = engine_proc_find(e, pid);

    return p ? p->cwd : NULL;
}

const char *engine_proc_home_of(const struct engine *e, int32_t pid)
{
    const struct engine_proc *p = engine_proc_find(e, pid);

    return p ? p->home : NULL;
}

int engine_unix_ms(struct engine *e, int32_t pid, int64_t t, int64_t *ms)
{
    struct engine_proc *p = engine_proc_find(e, pid);
    int64_t ns;

    if (!p || !iot_unix_ns_of(p->start_t, p->start_unix_ns, t, &ns))
        return 0;
    *ms = ns / 1000000;
    return 1;
}

void engine_proc_io_add(struct engine *e, int32_t pid, int64_t ns)
{
    /* processes stay in the table after they exit: a session that ends
       with its process finds it */
    struct engine_proc *p = engine_proc_find(e, pid);

    if (p && ns > 0)
        SADD(p->io_ns, ns);
}

int64_t engine_proc_io_ns_of(const struct engine *e, int32_t pid)
{
    const struct engine_proc *p = engine_proc_find(e, pid);

    return p ? p->io_ns : 0;
}
