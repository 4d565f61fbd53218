/*
 * A session's figures (engine_int.h): every call counts inline there
 * (count_call, count_position, fd_data), into figures kept apart for speed;
 * here they are made whole when the session ends.
 */
#include "engine_int.h"

void ofd_figures(struct ofd *o)
{
    const struct ofd_dirs *d = &o->dir;
    const struct ofd_hot *h = &o->h;

    o->s.op_size = h->op_size;
    o->s.buffer = h->buffer;
    o->s.cost_ns = iot_sadd(d->ns[0], d->ns[1]);
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
    o->s.last_data_t = o->s.op ? h->last_end : o->s.open_t;
    o->s.max_once_ns = max64(d->max_ns[0], d->max_ns[1]);
    o->s.reads = d->calls[0];
    o->s.writes = d->calls[1];
    o->s.random_reads = d->random[0];
    o->s.random_writes = d->random[1];
    o->s.reread = d->again[0];
    o->s.rewritten = d->again[1];
    o->s.read_bytes = d->bytes[0];
    o->s.write_bytes = d->bytes[1];
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
