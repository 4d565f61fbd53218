/*
 * engine_paths.c - calls that name a path, handed one by one to the rules
 * that judge them (on_path_call: metadata_storm): the lookups (stat,
 * access, readlink on a path, not on an fd), the opens that failed, and
 * the directories opened to be listed (which tell a directory a program
 * searches from a file it asks about again and again). A successful open
 * is also a session and reaches the rules as one. Of the calls that change
 * names, the renames that succeeded reach the rules that ask for them
 * (RULE_F_RENAMES: a file written under a temporary name and moved aside);
 * the others (unlink, mkdir, ...) are counted per op only.
 */
#include <fcntl.h>

#include "cost_model.h"
#include "engine_int.h"

/* Whether ev is a path call, and of which kind (enum rule_path_kind); -1: not one. */
static int path_kind(const struct iot_event *ev, int failed)
{
    /* fstat and its kin look nothing up */
    if (iot_ops[ev->op].role == IOT_ROLE_LOOKUP)
        return (ev->has & IOT_HAS_FD) ? -1 : RULE_PATH_LOOKUP;
    switch (ev->op) {
    case IOT_OP_OPENDIR:
        return failed ? RULE_PATH_OPEN_FAILED : RULE_PATH_DIR_OPENED;
    case IOT_OP_OPEN:
        if (!failed)
            return (ev->has & IOT_HAS_FLAGS) && (ev->flags & O_DIRECTORY) ? RULE_PATH_DIR_OPENED
                                                                          : -1;
        return RULE_PATH_OPEN_FAILED;
    case IOT_OP_FOPEN:
        return failed ? RULE_PATH_OPEN_FAILED : -1;
    case IOT_OP_RENAME:
        return failed ? -1 : RULE_PATH_RENAMED;
    default:
        return -1;
    }
}

void engine_on_path_call(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                         int failed)
{
    struct rule_path_call c;
    struct engine_thread *th;
    int kind = path_kind(ev, failed);
    int64_t dur = (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur;

    if (kind < 0 || !(ev->has & IOT_HAS_PATH) || !ev->path || engine_path_ignored(e, ev->path))
        return;
    th = engine_thread_get(e, ev->pid, ev->tid);
    c = (struct rule_path_call){
        .size = sizeof(c),
        .path = ev->path,
        .op = iot_op_name(ev->op),
        .process = p->name,
        .thread = th && th->name ? th->name : p->name,
        .stack = (ev->has & IOT_HAS_STACK) && ev->stack ? ev->stack : e->empty,
        .pid = ev->pid,
        .tid = ev->tid,
        .kind = kind,
        .err = (ev->has & IOT_HAS_ERRNO) ? ev->err : 0,
        .t = ev->t,
        .dur = dur,
        .unix_ms = engine_proc_unix_ms(p, ev->t + dur),
        .newpath = kind == RULE_PATH_RENAMED && (ev->has & IOT_HAS_NEWPATH) ? ev->newpath : NULL,
        .model_ns = cost_model_op_ns(ev->op, 0),
    };
    for (size_t i = 0; i < e->nslots; i++) {
        struct rule_slot *rs = &e->slots[i];

        if (rs->rule->on_path_call &&
            (kind != RULE_PATH_RENAMED || (rs->rule->flags & RULE_F_RENAMES))) {
            rs->ctx.timing = engine_timing(e);
            rs->rule->on_path_call(rs->state, &rs->ctx, &c);
        }
    }
}
