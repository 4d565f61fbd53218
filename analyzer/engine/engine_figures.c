/*
 * A session's figures (engine_int.h): every call counts inline there
 * (count_call, count_position, fd_data), into figures kept apart for speed;
 * here they are made whole when the session ends, into the rule_session
 * and the profile's counts, both from tables.
 */
#include "engine_int.h"

/*
 * The figures only rule_session has, X(member, value), value an
 * expression as in PROFILE_COLUMNS' (profile.h), which holds the ones the
 * profile has too.
 */
#define SESSION_FIGURES(X)                                      \
    X(op_size,               h->op_size)                        \
    X(buffer,                h->buffer)                         \
    X(cost_ns,               iot_sadd(d->ns[0], d->ns[1]))      \
    X(max_continual_ns,      h->max_continual_ns)               \
    X(main_cost_ns,          h->main_cost_ns)                   \
    X(main_max_once_ns,      h->main_max_once_ns)               \
    X(main_max_continual_ns, h->main_max_continual_ns)          \
    X(main_tid,              h->main_tid)                       \
    X(op_type,               h->op_type)                        \
    X(timed,                 h->timed)                          \
    X(op,                    d->calls[0] + d->calls[1])         \
    X(max_once_ns,           max64(d->max_ns[0], d->max_ns[1])) \
    X(reread,                d->jumps[JUMP_AGAIN][0])           \
    X(rewritten,             d->jumps[JUMP_AGAIN][1])           \
    X(write_wraps,           d->jumps[JUMP_WRAP][1])            \
    X(read_skips,            d->jumps[JUMP_AHEAD][0])           \
    X(write_skips,           d->jumps[JUMP_AHEAD][1])           \
    X(last_data_t,           d->calls[0] + d->calls[1] ? h->last_end : o->s.open_t) \
    X(last_data_seq,         d->calls[0] + d->calls[1] ? h->last_seq : o->s.open_seq) \
    X(read_from,             d->calls[0] ? d->first_start[0] : -1)  \
    X(write_from,            d->calls[1] ? d->first_start[1] : -1) \
    X(write_extent,          d->extent[1])                      \
    X(last_bytes,            d->last_moved)

void ofd_figures(struct ofd *o)
{
    const struct ofd_dirs *d = &o->dir;
    const struct ofd_hot *h = &o->h;

    /* a session of one thread kept no main-thread figures apart */
    if (h->calls_on >= 0)
        main_from_all(o);
#define SESSION_FILL_(member, value) o->s.member = (value);
    SESSION_FIGURES(SESSION_FILL_)
#undef SESSION_FILL_
#define FIGURE_FILL_(kind, column, print, ...) FIGURE_FILL_##kind(__VA_ARGS__)
#define FIGURE_FILL_ROW(value)
#define FIGURE_FILL_FIG(member, type, reduce, session, value) FIGURE_TO_##session(member, value)
#define FIGURE_TO_FILL(member, value) o->pc.member = o->s.member = (value);
#define FIGURE_TO_KEPT(member, value) o->pc.member = (value);
#define FIGURE_TO_NONE(member, value) o->pc.member = (value);
#define FIGURE_TO_LIVE(member, value)
    PROFILE_COLUMNS(FIGURE_FILL_)
}
