/*
 * engine_blocking.c - the calls besides reads and writes that make a main
 * thread wait for storage, handed one by one to the rules that judge them
 * (on_main_call: main_thread). Which ops those are is decided here, once,
 * in blocking_ops below; reads and writes reach the rules in sessions.
 */
#include "cost_model.h"
#include "engine_int.h"

/*
 * Every op that can block on storage without moving the program's data.
 * Left out on purpose: sync_file_range and fadvise (hints that start or
 * drop writeback and return), fflush (its write is the stream's data,
 * judged with the session), msync and sync (no file: the recorder gives
 * msync an address, sync nothing), fdopen and the fd-table calls (no I/O).
 */
static const unsigned char blocking_ops[IOT_OP_COUNT] = {
    /* syncs: wait for the device */
    [IOT_OP_FSYNC] = 1, [IOT_OP_FDATASYNC] = 1,
    /* opens: a path walk, and a create or truncate writes metadata */
    [IOT_OP_OPEN] = 1, [IOT_OP_FOPEN] = 1, [IOT_OP_FREOPEN] = 1, [IOT_OP_OPENDIR] = 1,
    [IOT_OP_MKSTEMP] = 1, [IOT_OP_TMPFILE] = 1,
    /* closes: fclose writes what its buffer holds, close may flush (NFS) */
    [IOT_OP_CLOSE] = 1, [IOT_OP_FCLOSE] = 1,
    /* metadata: the path walk, the inode, the directory */
    [IOT_OP_STAT] = 1, [IOT_OP_ACCESS] = 1, [IOT_OP_READLINK] = 1, [IOT_OP_UNLINK] = 1,
    [IOT_OP_RMDIR] = 1, [IOT_OP_RENAME] = 1, [IOT_OP_MKDIR] = 1, [IOT_OP_LINK] = 1,
    [IOT_OP_SYMLINK] = 1, [IOT_OP_CHMOD] = 1, [IOT_OP_CHOWN] = 1, [IOT_OP_UTIMES] = 1,
    [IOT_OP_TRUNCATE] = 1, [IOT_OP_FTRUNCATE] = 1, [IOT_OP_FALLOCATE] = 1,
    [IOT_OP_READDIR] = 1,
};

void engine_on_blocking_call(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct rule_path_call c;
    struct engine_thread *th;
    struct ofd *o = NULL;
    const char *path = NULL, *stack = NULL;
    size_t i;

    /* judged by what the call did (its modelled cost), so an input without
       durations (strace without -T) is judged alike */
    if (!blocking_ops[ev->op] || !call_on_main(e, ev->pid, ev->tid))
        return;
    for (i = 0; i < e->nslots && !e->slots[i].rule->on_main_call; i++)
        ;
    if (i == e->nslots)
        return;
    /*
     * A call on an fd (a sync, a close) is its session's, whether or not
     * the event also names the file (a JSONL dump names it on every call):
     * the path and the call site are the session's, so that a trace and
     * its own dump give the same issues. An open's fd is its result.
     */
    if ((ev->has & IOT_HAS_FD) && iot_ops[ev->op].cls != IOT_CLASS_OPEN)
        o = engine_fd_ofd(p, ev->fd);
    if (o && !o->ignored)
        path = o->s.path;
    else if ((ev->has & IOT_HAS_PATH) && ev->path && *ev->path)
        path = ev->path;
    if (!path || engine_path_ignored(e, path))
        return;
    if ((ev->has & IOT_HAS_STACK) && ev->stack)
        stack = ev->stack;
    else if (o)
        stack = ofd_site_of(o, ev->op);   /* its site's stack, sampled on an earlier call
                                             (a sync), else the file's open site */
    th = engine_thread_get(e, ev->pid, ev->tid);
    c = (struct rule_path_call){
        .size = sizeof(c),
        .path = path,
        .op = iot_op_name(ev->op),
        .process = p->name,
        .thread = th && th->name ? th->name : p->name,
        .stack = stack ? stack : e->empty,
        .pid = ev->pid,
        .tid = ev->tid,
        .kind = RULE_PATH_MAIN_BLOCKING,
        .err = (ev->has & IOT_HAS_ERRNO) ? ev->err : 0,
        .t = ev->t,
        .dur = (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur,
        .unix_ms = engine_proc_unix_ms(p, ev->t + ev->dur),
        .model_ns = iot_ops[ev->op].role == IOT_ROLE_SYNC ? engine_sync_model(o)
                                                           : cost_model_op_ns(ev->op, 0),
    };
    for (; i < e->nslots; i++) {
        struct rule_slot *rs = &e->slots[i];

        if (rs->rule->on_main_call) {
            rs->ctx.timing = engine_timing(e);
            rs->rule->on_main_call(rs->state, &rs->ctx, &c);
        }
    }
}
