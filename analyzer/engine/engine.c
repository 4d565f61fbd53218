/*
 * The replay engine (engine.h): dispatch. Events go by kind, calls by their
 * op's class and interface (schema.h) to the parts of engine_int.h; the
 * plain data calls and lseeks that make most of every trace take one
 * straight path here (event), inlined in engine_events' loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "fold.h"

/* ------------------------------------------------------------ bounds */

/*
 * Bad input must not overflow: each event's quantities are bounded on entry
 * (event_in_bounds, else event_clamped), so that adding a few cannot, and
 * running sums saturate (iot_sadd).
 */
#define LIM_T ((int64_t)1 << 60)     /* times: 36 years of ns either way */
#define LIM_V ((int64_t)1 << 50)     /* durations, sizes, offsets, return values */
#define LIM_U ((int64_t)1 << 62)     /* start_unix_ns: until 2116 */

static int64_t clamp(int64_t v, int64_t lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

/* Nonzero when v is outside [-lim, lim), resp. [0, lim); lim is a power of
   two, so each is an add and a shift. */
#define OUTSIDE(v, lim) (((uint64_t)(v) + (uint64_t)(lim)) / (2 * (uint64_t)(lim)))
#define OUTSIDE0(v, lim) ((uint64_t)(v) / (uint64_t)(lim))

/*
 * The test every event takes, one branch for all fields. A value exactly at
 * a limit fails it and goes through event_clamped, which leaves it as is.
 */
static inline int event_in_bounds(const struct iot_event *ev)
{
    return !(OUTSIDE(ev->t, LIM_T) | OUTSIDE0(ev->dur, LIM_V) | OUTSIDE(ev->size, LIM_V) |
             OUTSIDE(ev->offset, LIM_V) | OUTSIDE(ev->file_size, LIM_V) |
             OUTSIDE0(ev->start_unix_ns, LIM_U) | OUTSIDE(ev->ret, LIM_V));
}

/* The event with every quantity clamped into its limits, in *tmp. */
static __attribute__((noinline, cold)) const struct iot_event *
event_clamped(const struct iot_event *ev, struct iot_event *tmp)
{
    int stream_id;

    /* a stdio stream id (fopen's return value) is an identity, not a quantity */
    stream_id = ev->kind == IOT_EV_CALL && ev->op < IOT_OP_COUNT &&
                iot_ops[ev->op].api == IOT_API_STDIO && iot_ops[ev->op].cls == IOT_CLASS_OPEN;
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

/* ------------------------------------------------------------ calls */

/*
 * The plain fd data calls, the bulk of every trace, and lseek, by op. Data
 * calls all take one path (fd_data), told the direction and whether the
 * call says where; engine_event takes these ops in its stride.
 */
#define DC_DATA 1u
#define DC_WRITE 2u          /* = is_write << 1 */
#define DC_POSITIONAL 4u     /* pread/pwrite: the offset is the call's own */
#define DC_SEEK 8u           /* lseek */

#define DC_OF(cls, api, dir, pos)                                                         \
    ((api) != IOT_API_POSIX ? 0u                                                          \
     : (cls) == IOT_CLASS_DATA                                                            \
         ? DC_DATA | ((dir) == IOT_DIR_WRITE ? DC_WRITE : 0u) | ((pos) ? DC_POSITIONAL : 0u) \
     : (cls) == IOT_CLASS_SEEK ? DC_SEEK : 0u)
/* Indexed by any uint8_t op: the ops this analyzer does not know are 0. */
static const uint8_t data_class[256] = {
#define DATA_CLASS_(e, name, dir, pos, cls, api, role, fields) \
    [IOT_OP_##e] = DC_OF(IOT_CLASS_##cls, IOT_API_##api, IOT_DIR_##dir, pos),
    IOT_OPS(DATA_CLASS_)
#undef DATA_CLASS_
};

static void on_fd_data(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                       unsigned is_write, int32_t fd, int positional)
{
    struct ofd *o = engine_fd_ofd(p, fd);
    int64_t moved = ev->ret > 0 ? ev->ret : 0;
    int timed = !(ev->has & IOT_HAS_NO_DUR);
    int main_thread = call_on_main(e, ev->pid, ev->tid);
    uint64_t scattered;

    if (!o) {
        /* a request or a reply: what came after the newest file write */
        if (fd >= 0 && fd < p->nfds && p->fds[fd].socket) {
            if (p->peer_after == PEER_NONE)
                p->peer_after = is_write ? PEER_WRITE : PEER_READ;
            else if (p->peer_after == PEER_WRITE && !is_write)
                p->peer_after = PEER_WRITE_READ;
            p->write_watch = 1;
        }
        return;
    }
    if (is_write)
        note_file_write(p, o, ev->tid);
    o->h.last_seq = p->calls;
    scattered = ofd_scattered(o, is_write);
    fd_data(o, ev->tid, ev->t, ev->has, &ev->offset, main_thread, calls_on_key(main_thread, ev->tid),
            is_write, positional, (ev->has & IOT_HAS_SIZE) ? ev->size : moved, moved,
            timed ? ev->dur : 0, timed, &e->gap);
    ofd_site_seen(o, ev, ofd_scattered(o, is_write) != scattered);
}

/* A loss the recorder declared: counted by reason for the summary. */
static void on_lost(struct engine_stats *st, const struct iot_event *ev)
{
    const char *why = (ev->has & IOT_HAS_MODE) && ev->mode ? ev->mode : "?";
    uint64_t n = (ev->has & IOT_HAS_SIZE) && ev->size > 0 ? (uint64_t)ev->size : 0;
    size_t i;

    st->lost_records++;
    for (i = 0; i < st->nlost_why; i++)
        if (strncmp(st->lost_why[i], why, sizeof(st->lost_why[i]) - 1) == 0)
            break;
    if (i == st->nlost_why) {
        if (i == ENGINE_UNSEEN_NAMED) {
            st->lost_more_why = 1;
            return;
        }
        snprintf(st->lost_why[i], sizeof(st->lost_why[i]), "%s", why);
        st->nlost_why++;
    }
    st->lost_why_calls[i] += n;
    if (!n)
        st->lost_why_uncounted[i] = 1;
}

/*
 * What the recorder could not follow, counted for the summary. io_uring's
 * requests are the exception where the kernel path covers the process (a
 * coverage record, at its end): they are recorded there.
 */
static void on_unseen(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct engine_stats *st = &e->st;
    int uring = ev->op == IOT_OP_ASYNC && (ev->has & IOT_HAS_MODE) && ev->mode &&
                strncmp(ev->mode, "io_uring", 8) == 0;

    if (ev->op == IOT_OP_LOST) {
        on_lost(st, ev);
        return;
    }

    if (ev->op == IOT_OP_UNRECORDED) {
        if (st->unrecorded < ENGINE_UNSEEN_NAMED) {
            snprintf(st->unrecorded_path[st->unrecorded], sizeof(st->unrecorded_path[0]), "%s",
                     (ev->has & IOT_HAS_PATH) && ev->path ? ev->path : "?");
            snprintf(st->unrecorded_why[st->unrecorded], sizeof(st->unrecorded_why[0]), "%s",
                     (ev->has & IOT_HAS_MODE) && ev->mode ? ev->mode : "?");
        }
        st->unrecorded++;
        return;
    }
    if (uring && p->uring_covered)
        return;
    st->async_calls++;
    p->uring_calls += uring;
    if ((ev->has & IOT_HAS_FD) && e->async_fds.n < 1024) {
        uint64_t key = (uint64_t)(uint32_t)ev->pid << 32 | (uint32_t)ev->fd;

        if (!hmap_get(&e->async_fds, key) && hmap_put(&e->async_fds, key, (void *)1) == 0) {
            st->async_fds++;
            p->uring_fds += uring;
        }
    }
}

/* The kernel path recorded p: its io_uring requests are in the trace. */
static void on_covered(struct engine *e, struct engine_proc *p)
{
    e->st.async_calls -= p->uring_calls;
    e->st.async_fds -= p->uring_fds;
    p->uring_calls = 0;
    p->uring_fds = 0;
    p->uring_covered = 1;
    engine_unobserved_covered(e, p);
}

/*
 * I/O the process submitted that the recorder could not follow: an async
 * request naming a file's fd (Linux AIO, POSIX aio) marks that file's
 * session; one naming no file (io_uring's ring) marks the process, and so
 * every session of it open then or later. A failed submission did none.
 */
static void on_async(struct engine_proc *p, const struct iot_event *ev, int failed)
{
    const char *what = (ev->has & IOT_HAS_MODE) && ev->mode ? ev->mode : "";
    struct ofd *o;

    if (failed)
        return;
    o = (ev->has & IOT_HAS_FD) && strncmp(what, "io_uring", 8) != 0 ? engine_fd_ofd(p, ev->fd)
                                                                     : NULL;
    if (o)
        o->s.unseen_io |= RULE_UNSEEN_FILE;
    else
        p->unseen_io = 1;
}

/* A map whose stores write the file: its writes are not calls. */
static void on_map(struct engine_proc *p, const struct iot_event *ev)
{
    const unsigned written = IOT_MAP_WRITE | IOT_MAP_SHARED;
    struct ofd *o;

    if (!(ev->has & IOT_HAS_FLAGS) || ((unsigned)ev->flags & written) != written)
        return;
    o = engine_fd_ofd(p, ev->fd);
    if (o)
        o->s.unseen_io |= RULE_UNSEEN_FILE;
}

/*
 * A writeback or cache hint (sync_file_range, posix_fadvise) on o's file:
 * it promises no durability, so it is counted apart from the syncs, which
 * sync_storm and every "syncs" figure count.
 */
static void on_hint(struct ofd *o, const struct iot_event *ev)
{
    if (!o)
        return;
    o->pc.hints++;
    SADD(o->pc.hint_ns, (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur);
}

static void on_call(struct engine *e, const struct iot_event *ev)
{
    /* a coverage record comes at the process's end, after its exit: a note
       on that process, not a call that makes its pid live again */
    struct engine_proc *p = ev->op == IOT_OP_COVERAGE ? engine_proc_find(e, ev->pid)
                                                      : engine_proc_get(e, ev->pid);
    const struct iot_op_info *info;
    unsigned dc;
    int failed = ev->ret < 0 || (ev->has & IOT_HAS_ERRNO);

    if (!p) {
        e->other_events++;
        return;
    }
    p->other_tid_seen |= ev->tid != ev->pid;
    if (ev->has & IOT_HAS_NO_DUR)
        e->st.calls_no_dur++;
    if (ev->op >= IOT_OP_COUNT) {
        e->calls_bad_op++;
        return;
    }
    e->st.per_op[ev->op]++;
    p->calls++;
    if (failed) {
        p->failed_seq = p->calls;
        p->failed_tid = ev->tid;
        p->write_watch = 1;
    }
    engine_call_model(p, ev);
    if (ev->has & IOT_HAS_PATH) {
        size_t at, n;

        engine_on_path_call(e, p, ev, failed);
        /* Python's tempfile names: made by an exclusive create (fold.h) */
        if (!failed && e->issues && fold_made_by_call(ev, &at, &n))
            issues_template(e->issues, ev->path, at, n);
    }
    if (iot_ops[ev->op].cls == IOT_CLASS_META)
        engine_paths_note(e, p, ev, failed);
    engine_on_blocking_call(e, p, ev);
    dc = data_class[ev->op];
    info = &iot_ops[ev->op];
    /* a data call's time is its session's, added when the session ends */
    if (!(dc & DC_DATA) && info->cls != IOT_CLASS_COPY &&
        !(info->api == IOT_API_STDIO && info->cls == IOT_CLASS_DATA) &&
        !(ev->has & IOT_HAS_NO_DUR))
        SADD(p->io_ns, ev->dur);
    if (dc & DC_DATA) {
        if (!failed)
            on_fd_data(e, p, ev, (dc & DC_WRITE) >> 1, ev->fd, (dc & DC_POSITIONAL) != 0);
        return;
    }
    if (info->api == IOT_API_STDIO) {
        switch (info->cls) {
        case IOT_CLASS_OPEN:
            stdio_on_open(e, p, ev);
            break;
        case IOT_CLASS_CLOSE:
            stdio_on_close(e, p, ev);
            break;
        case IOT_CLASS_DATA:
            stdio_on_data(e, p, ev, info->dir == IOT_DIR_WRITE);
            break;
        default:
            stdio_on_other(e, p, ev);
            break;
        }
        return;
    }
    switch (info->cls) {
    case IOT_CLASS_COPY:
        if (failed)
            break;
        /* the request of a copy is an upper bound (copy_file_range is often
           asked for "everything", 2^50 bytes): the bytes copied are its size */
        {
            struct iot_event copy = *ev;

            copy.has &= ~IOT_HAS_SIZE;
            on_fd_data(e, p, &copy, 1, ev->fd, 0);
            if ((ev->has & IOT_HAS_IN_FD) && ev->in_fd != ev->fd)
                on_fd_data(e, p, &copy, 0, ev->in_fd, 0);
        }
        break;
    case IOT_CLASS_OPEN:
        engine_on_open(e, p, ev);
        break;
    case IOT_CLASS_CLOSE:
        engine_on_close(e, p, ev, failed);
        break;
    case IOT_CLASS_FD:
        engine_on_fd_table(e, p, ev, failed);
        break;
    case IOT_CLASS_SEEK: {
        struct ofd *o = engine_fd_ofd(p, ev->fd);

        if (!o)
            break;
        o->h.seeks++;
        if (!failed)
            o->h.off = ev->ret;
        break;
    }
    case IOT_CLASS_SYNC: {
        struct ofd *o = (ev->has & IOT_HAS_FD) ? engine_fd_ofd(p, ev->fd) : NULL;
        int64_t dur = (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur;

        if (info->role == IOT_ROLE_SYNC && !failed)
            engine_sync_seen(p, o);
        if (!o)
            break;
        if (info->role == IOT_ROLE_HINT) {
            on_hint(o, ev);
            break;
        }
        /* the profile's fsyncs and sync_time_us read these (profile.h) */
        ofd_site_seen(o, ev, 0);
        o->s.syncs++;
        count_thread(o, ev->tid);
        o->s.synced_writes = o->dir.calls[1];
        o->s.synced_bytes = o->dir.bytes[1];
        SADD(o->s.sync_ns, dur);
        if (!o->s.sync_op)
            o->s.sync_op = info->name;
        else if (o->s.sync_op != info->name)
            o->s.sync_ops_mixed = 1;
        break;
    }
    case IOT_CLASS_META:
        if (ev->op == IOT_OP_FORK) {
            if (!failed)
                engine_on_fork(e, p, ev);
            break;
        }
        if (ev->op == IOT_OP_CWD) {
            if (!failed && (ev->has & IOT_HAS_PATH) && ev->path && ev->path[0] == '/')
                p->cwd = ev->path;
            break;
        }
        if (ev->op == IOT_OP_PTHREAD_CREATE) {
            if (!failed && p)
                p->threads_created++;
            break;
        }
        if (ev->op == IOT_OP_MMAP) {
            if (!failed)
                on_map(p, ev);
            break;
        }
        if (ev->op == IOT_OP_COVERAGE) {
            /* the kernel path recorded what the preload could not see of it */
            on_covered(e, p);
            break;
        }
        if (ev->op == IOT_OP_UNRECORDED || ev->op == IOT_OP_ASYNC || ev->op == IOT_OP_LOST) {
            if (ev->op == IOT_OP_ASYNC)
                on_async(p, ev, failed);
            if (ev->op == IOT_OP_UNRECORDED)
                engine_unobserved_note(e, p, ev);
            on_unseen(e, p, ev);
            break;
        }
        if (info->role == IOT_ROLE_HINT) {
            on_hint((ev->has & IOT_HAS_FD) ? engine_fd_ofd(p, ev->fd) : NULL, ev);
            break;
        }
        if (ev->op == IOT_OP_FTRUNCATE) {
            struct ofd *o = engine_fd_ofd(p, ev->fd);

            /* writes after a truncation do not continue the old run */
            if (o && !failed) {
                o->dir.prev_end[1] = -1;
                o->s.truncations++;
            }
        }
        break;
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
    e->last_proc = &e->no_proc;
    e->gap = cfg->gap_ns;
    e->nmain = cfg->nmain_names;
    e->st.first_t = INT64_MAX;
    e->st.last_t = INT64_MIN;
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
        rs->ctx.size = sizeof(rs->ctx);
        rs->ctx.p = cfg->params[i];
        rs->ctx.gap_ns = cfg->gap_ns;
        rs->ctx.timing = 1;
        rs->ctx.sink = &rs->bind;
        rs->ctx.engine = e;
        e->nslots++;
    }
    return e;
fail:
    engine_free(e);
    return NULL;
}

/* Any event within bounds, the long way: everything event() does not take in its stride. */
static void event_dispatch(struct engine *e, const struct iot_event *ev)
{
    if (ev->kind == IOT_EV_CALL) {
        /* dur >= 0 here: the end is t + dur */
        if (ev->t < e->st.first_t)
            e->st.first_t = ev->t;
        if (ev->t + ev->dur > e->st.last_t)
            e->st.last_t = ev->t + ev->dur;
        on_call(e, ev);
        return;
    }
    e->other_events++;
    if (ev->kind != IOT_EV_THREAD) {
        if (ev->t < e->st.first_t)
            e->st.first_t = ev->t;
        if (ev->t > e->st.last_t)
            e->st.last_t = ev->t;
    }
    switch (ev->kind) {
    case IOT_EV_PROCESS:
        engine_on_process(e, ev);
        if (e->issues)
            issues_process_args(e->issues, ev->pid, ev->argv, ev->argc);
        break;
    case IOT_EV_THREAD:
        engine_on_thread(e, ev);
        break;
    case IOT_EV_EXIT:
        engine_on_exit(e, ev);
        break;
    case IOT_EV_MODULE:
        if (e->issues)
            issues_module(e->issues, ev->path, ev->build_id);
        break;
    case IOT_EV_JIT_SYMBOL:
        if (e->issues)
            issues_jit_symbol(e->issues, ev->pid, ev->bias, ev->code_size, ev->symbol);
        break;
    case IOT_EV_PY_CODE:
        if (e->issues)
            issues_py_code(e->issues, ev->pid, ev->bias, ev->py_file, ev->symbol, ev->first_line,
                           ev->py_lines);
        break;
    case IOT_EV_WAITS:
        engine_on_waits(e, ev);
        break;
    case IOT_EV_LABEL:
        if (e->issues)
            issues_label(e->issues, ev->pid, ev->label_key, ev->label_value);
        break;
    case IOT_EV_HOME: {
        struct engine_proc *p = engine_proc_get(e, ev->pid);

        if (p && ev->path && ev->path[0] == '/')
            p->home = ev->path;
        break;
    }
    case IOT_EV_RUNTIME_ENV:
        if (e->issues)
            issues_runtime_env(e->issues, ev->pid, ev->label_value);
        break;
    case IOT_EV_TEMPLATE:
        if (e->issues && ev->random_at >= 0 && ev->random_len > 0)
            issues_template(e->issues, ev->path, (size_t)ev->random_at, (size_t)ev->random_len);
        break;
    default:
        break;
    }
}

static __attribute__((noinline, cold)) void event_dispatch_clamped(struct engine *e,
                                                                  const struct iot_event *ev)
{
    struct iot_event tmp;

    event_dispatch(e, event_clamped(ev, &tmp));
}

/*
 * Any event, the long way. The clamped copy is made out of line: with it on
 * this frame, the handlers that event_dispatch ends in could not be tail
 * calls, and each would cost a second prologue and epilogue.
 */
static __attribute__((noinline)) void event_slow(struct engine *e, const struct iot_event *ev)
{
    if (__builtin_expect(!event_in_bounds(ev), 0)) {
        event_dispatch_clamped(e, ev);
        return;
    }
    event_dispatch(e, ev);
}

/*
 * The common case in the stride of one straight path: a plain call (its
 * reader says so) of a data op or an lseek, on a file the last process seen
 * has open, with its time in bounds. Anything else, or anything this path
 * would need a lookup or a call for, is left to the slow path (returns 0)
 * before a figure changes; so is an event whose reader left plain 0, which
 * event_slow counts alike. 1: it took the call.
 *
 * The call is the event ev when is_event, else the struct engine_call c: a
 * constant at each caller, so that the choice folds away, and each field
 * is read where it is used, as gcc keeps it then (passed as values, they
 * were all loaded first, for 3 instructions more per event).
 */
#define CALL_FIELD(f) (is_event ? ev->f : c->f)
static inline __attribute__((always_inline)) int
straight(struct engine *e, int is_event, const struct iot_event *ev, const struct engine_call *c)
{
    unsigned dc = data_class[CALL_FIELD(op)];
    uint32_t has = CALL_FIELD(has);
    struct engine_proc *p = e->last_proc;
    struct ofd *o;
    int main_thread;
    uint64_t bad;

    /*
     * plain (iot_event_plain): the reader vouches for the call's success,
     * its timing, tid >= 0 (its calls_on key is one or, below) and its
     * quantities, within LIM_V. Its time is checked here, as an unsigned
     * range: t in [-LIM_T, LIM_T).
     */
    _Static_assert(IOT_PLAIN_LIMIT <= LIM_V, "a plain event's quantities are in bounds");
    bad = (uint64_t)!(dc & (DC_DATA | DC_SEEK)) | ((uint64_t)CALL_FIELD(t) + LIM_T) >> 61;
    /* its site is counted on the slow path; a struct engine_call is plain
       and has no stack by its definition */
    if (is_event)
        bad |= (uint64_t)!ev->plain | !!(has & IOT_HAS_STACK);
    if (__builtin_expect(bad || p->pid != CALL_FIELD(pid) ||
                         (uint32_t)CALL_FIELD(fd) >= (uint32_t)p->nfds || !(o = p->fds[CALL_FIELD(fd)].o), 0))
        return 0;
    /* call_on_main without a call (one here costs every event spills) */
    main_thread = CALL_FIELD(tid) == CALL_FIELD(pid);
    if (__builtin_expect((e->nmain | e->nwaiting) != 0, 0)) {
        struct engine_thread *th = e->last_thr;

        if (!th || th->tid != CALL_FIELD(tid) || th->pid != CALL_FIELD(pid))
            return 0;
        main_thread = th->is_main;
    }
    e->st.per_op[CALL_FIELD(op)]++;
    p->calls++;
    if (__builtin_expect(CALL_FIELD(t) < e->st.first_t, 0))
        e->st.first_t = CALL_FIELD(t);
    /* threads' calls end out of order: a select */
    e->st.last_t = max64(e->st.last_t, CALL_FIELD(t) + CALL_FIELD(dur));
    if (dc & DC_SEEK) {
        o->h.seeks++;
        o->h.off = CALL_FIELD(ret);
        return 1;
    }
    if (dc & DC_WRITE)
        note_file_write(p, o, CALL_FIELD(tid));
    o->h.last_seq = p->calls;
    fd_data(o, CALL_FIELD(tid), CALL_FIELD(t), has, is_event ? &ev->offset : &c->offset, main_thread,
            CALL_FIELD(tid) | (main_thread - 1),
            (dc & DC_WRITE) >> 1, dc & DC_POSITIONAL,
            (has & IOT_HAS_SIZE) ? CALL_FIELD(size) : CALL_FIELD(ret), CALL_FIELD(ret),
            CALL_FIELD(dur), 1, &e->gap);
    return 1;
}
#undef CALL_FIELD

static inline __attribute__((always_inline)) void event(struct engine *e, const struct iot_event *ev)
{
    if (!straight(e, 1, ev, NULL))
        event_slow(e, ev);
}

void engine_event(struct engine *e, const struct iot_event *ev)
{
    event(e, ev);
}

/* A batch in one call: the fast path inlined in the loop, no call per event. */
void engine_events(struct engine *e, const struct iot_event *const *evs, size_t n)
{
    /* No prefetch of the next event's session: the sessions of a batch stay
       in cache, and a prefetch only adds instructions to every event. */
    for (const struct iot_event *const *end = evs + n; evs < end; evs++)
        event(e, *evs);
}

/* A call the straight path did not take, as the event it stands for. */
static __attribute__((noinline, cold)) void call_slow(struct engine *e, const struct engine_call *c)
{
    struct iot_event ev;

    memset(&ev, 0, sizeof(ev));
    engine_call_event(&ev, c);
    event_slow(e, &ev);
}

void engine_calls(struct engine *e, const struct engine_call *c, size_t n)
{
    for (const struct engine_call *end = c + n; c < end; c++)
        if (!straight(e, 0, NULL, c))
            call_slow(e, c);
}

void engine_finish(struct engine *e)
{
    int64_t end = e->st.last_t == INT64_MIN ? 0 : e->st.last_t;

    for (size_t i = 0; i < e->procs.cap; i++) {
        struct engine_proc *p;

        if (!e->procs.used[i])
            continue;
        p = e->procs.vals[i];
        if (!p->exited)
            engine_proc_drop_all(e, p, end, RULE_END_TRACE, 0);
    }
    engine_unobserved_report(e);
    for (size_t i = 0; i < e->nslots; i++) {
        struct rule_slot *rs = &e->slots[i];

        rs->ctx.timing = engine_timing(e);
        if (rs->rule->on_end)
            rs->rule->on_end(rs->state, &rs->ctx);
    }
}

void engine_stats(const struct engine *e, struct engine_stats *out)
{
    *out = e->st;
    out->calls = e->calls_bad_op;
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        out->calls += out->per_op[op];
    out->events = out->calls + e->other_events;
    if (out->first_t == INT64_MAX)
        out->first_t = out->last_t = 0;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    /* engine_finish normally released every session; this is the error path */
    engine_procs_free(e);
    hmap_release(&e->ignored);
    hmap_release(&e->async_fds);
    hmap_release(&e->dirs);
    hmap_release(&e->open_paths);
    engine_unobserved_free(e);
    for (size_t i = 0; i < e->nslots; i++) {
        if (e->slots[i].rule->fini)
            e->slots[i].rule->fini(e->slots[i].state);
        free(e->slots[i].state);
    }
    free(e->slots);
    free(e);
}
