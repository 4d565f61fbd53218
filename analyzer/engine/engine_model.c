/*
 * engine_model.c - the modelled cost (cost_model.h) of what the program
 * did, kept beside the measured durations: a session's calls and syncs
 * (rule_session's model_* figures), a call outside sessions, and each
 * process's total (the share severities are made from). Every judgement
 * rests on these; the durations stay evidence.
 */
#include "cost_model.h"
#include "engine_int.h"

int64_t engine_sync_model(const struct ofd *o)
{
    /* what this sync makes durable: the bytes written since the previous
       one (a directory's sync: its entries, no bytes of its own) */
    int64_t durable = o ? o->dir.bytes[1] - o->synced_bytes : 0;

    return cost_model_sync_ns(durable > 0 ? durable : 0);
}

void engine_sync_seen(struct engine_proc *p, struct ofd *o)
{
    int64_t ns = engine_sync_model(o);

    if (o) {
        SADD(o->sync_model_ns, ns);
        o->sync_model_once_ns = max64(o->sync_model_once_ns, ns);
        o->synced_bytes = o->dir.bytes[1];
    }
    /* a session's syncs join its process's total when the session ends */
    if (!o && p)
        SADD(p->model_ns, ns);
}

void engine_call_model(struct engine_proc *p, const struct iot_event *ev)
{
    const struct iot_op_info *info = &iot_ops[ev->op];

    /* data calls and syncs on a session count when it ends, with the bytes
       they moved; a note is no call; a seek is left out everywhere, as the
       engine's fast path takes plain ones without this */
    if (info->cls == IOT_CLASS_DATA || info->cls == IOT_CLASS_COPY || info->cls == IOT_CLASS_SEEK ||
        info->role == IOT_ROLE_SYNC || iot_op_is_note(ev->op))
        return;
    SADD(p->model_ns, cost_model_op_ns(ev->op, 0));
}

/*
 * The session's model_* figures, after ofd_figures: its data calls as
 * syscalls (a stdio session's by the syscalls its buffer made, each
 * library call a little more), its syncs as they came.
 */
void engine_session_model(struct engine *e, struct ofd *o)
{
    struct rule_session *s = &o->s;
    struct engine_proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)s->pid);
    int64_t data, once, largest;

    if (s->layer == RULE_LAYER_STDIO) {
        unsigned role = s->op_type == RULE_OP_WRITE ? IOT_ROLE_WRITE : IOT_ROLE_READ;

        data = iot_sadd(cost_model_ns(role, s->eff_ops, s->eff_bytes),
                        (int64_t)s->op * COST_MODEL_STDIO_CALL_NS);
        /* the costliest syscall: a full buffer, or the largest request
           where the stream has none */
        largest = s->stream_buffer > 0 && s->stream_buffer < s->buffer ? s->stream_buffer
                                                                        : s->buffer;
        once = s->eff_ops ? cost_model_ns(role, 1, largest) : 0;
    } else {
        data = iot_sadd(cost_model_ns(IOT_ROLE_READ, o->dir.calls[0], o->dir.bytes[0]),
                        cost_model_ns(IOT_ROLE_WRITE, o->dir.calls[1], o->dir.bytes[1]));
        once = s->op ? cost_model_ns(IOT_ROLE_READ, 1, s->buffer) : 0;
    }
    s->model_ns = iot_sadd(data, o->sync_model_ns);
    s->model_once_ns = max64(once, o->sync_model_once_ns);
    s->sync_model_ns = o->sync_model_ns;
    s->open_model_ns = cost_model_ns(IOT_ROLE_OPEN, 1, 0);
    /* a main thread's share of the data calls, by its share of the calls
       (all of them in the usual session of one thread) */
    if (s->main_ops >= s->op) {
        s->main_model_ns = data;
        s->main_model_once_ns = once;
    } else if (s->main_ops) {
        s->main_model_ns = (int64_t)((double)data * (double)s->main_ops / (double)s->op);
        s->main_model_once_ns = once;
    } else {
        s->main_model_ns = s->main_model_once_ns = 0;
    }
    if (p) {
        SADD(p->model_ns, s->model_ns);
        s->model_clock_ns = p->model_ns;
    }
}

int64_t engine_proc_model_ns_of(const struct engine *e, int32_t pid)
{
    const struct engine_proc *p = hmap_get(&e->procs, (uint64_t)(uint32_t)pid);

    return p ? p->model_ns : 0;
}
