/*
 * engine.h - the replay engine: events in time order in, sessions out.
 *
 * Keeps per-process fd tables of open file descriptions (shared by dup'ed
 * and inherited fds), stdio streams over them, thread names and process
 * metadata; reconstructs file offsets; computes Matrix's per-session figures
 * and hands every ended session to the enabled rules and the profile.
 * Memory is bounded by open sessions, processes, threads and distinct
 * paths -- never by the number of events.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdint.h>

#include "config.h"
#include "iotrace.h"
#include "profile.h"

struct engine;
struct issues;

/* What the recorder says it could not see: the first few named. */
#define ENGINE_UNSEEN_NAMED 4

struct engine_stats {
    uint64_t events, calls, calls_no_dur;
    uint64_t sessions, processes, threads;
    uint64_t per_op[IOT_OP_COUNT];
    int64_t first_t, last_t;
    /* programs exec'd unrecorded (op unrecorded): path and why ("static",
       "setuid"), copied (the summary outlives the input's strings);
       unrecorded counts them all */
    uint64_t unrecorded;
    char unrecorded_path[ENGINE_UNSEEN_NAMED][256], unrecorded_why[ENGINE_UNSEEN_NAMED][16];
    /* async I/O (op async) the analysis cannot follow: calls, and the
       distinct (process, fd) pairs they were on (counted up to 1024) */
    uint64_t async_calls, async_fds;
    /* what the recorder says it lost (op lost): records, and the first few
       reasons with what they count; uncounted when a record of that reason
       could not count (size 0) */
    uint64_t lost_records;
    int lost_more_why;
    size_t nlost_why;
    char lost_why[ENGINE_UNSEEN_NAMED][24];
    uint64_t lost_why_calls[ENGINE_UNSEEN_NAMED];
    int lost_why_uncounted[ENGINE_UNSEEN_NAMED];
};

/* cfg must outlive the engine; issues and prof may be NULL. */
struct engine *engine_create(const struct config *cfg, struct issues *issues,
                             struct profile *prof);
/* Feed one event (events must come in time order). */
void engine_event(struct engine *e, const struct iot_event *ev);
/* engine_event for evs[0..n), in order. */
void engine_events(struct engine *e, const struct iot_event *const *evs, size_t n);

/*
 * A plain call (the reader set plain) whose has-bits are within IOT_HAS_FD,
 * IOT_HAS_SIZE, IOT_HAS_OFFSET and IOT_HAS_WHENCE, in 56 bytes: it stands for
 * the event of kind IOT_EV_CALL, plain 1, bufmode 0, with these members and
 * every other one 0, as the native reader decodes such a call. Most calls
 * of a trace are such calls; a thread handed them by another reads them
 * without making the 280-byte events.
 */
struct engine_call {
    int32_t pid, tid;           /* pid to ret and size to offset in struct iot_event's */
    int64_t t, dur, ret;        /* order: copied as two blocks */
    int64_t size, offset;
    int32_t fd;
    uint8_t op, whence;
    uint16_t has;
};
/*
 * ev := the event c stands for. ev held only such calls or was zeroed: the
 * members no struct engine_call has stay 0.
 */
static inline void engine_call_event(struct iot_event *ev, const struct engine_call *c)
{
    ev->kind = IOT_EV_CALL;
    ev->plain = 1;
    ev->op = c->op;
    ev->has = c->has;
    ev->pid = c->pid;
    ev->tid = c->tid;
    ev->t = c->t;
    ev->dur = c->dur;
    ev->ret = c->ret;
    ev->fd = c->fd;
    ev->size = c->size;
    ev->offset = c->offset;
    ev->whence = c->whence;
}

/* engine_event for the events calls c[0..n) stand for, in order. */
void engine_calls(struct engine *e, const struct engine_call *c, size_t n);
/* End of input: sessions of processes that did not exit end here (not leaks);
   rules report what they held back. */
void engine_finish(struct engine *e);
void engine_stats(const struct engine *e, struct engine_stats *out);
/*
 * The file a call touches, as the engine knows it before being fed the call:
 * its own path (open, fopen), else the path its fd (also a stdio call's) was
 * opened with in its process, NULL when unknown (not a call, a pipe, an fd
 * opened before the trace began). Interned: equal paths are equal pointers.
 */
const char *engine_call_path(struct engine *e, const struct iot_event *ev);
/* The file offset a data call on a file starts at: its own (pread, pwrite)
   or its fd's position before it, which the engine follows; 0 with *off
   unset when unknown (an append, a pipe, an fd never seen opened). */
int engine_call_offset(struct engine *e, const struct iot_event *ev, int64_t *off);
/* The name of process pid (the basename of the argv[0] it was invoked by,
   else of its exe), NULL when not seen yet. */
const char *engine_proc_name_of(struct engine *e, int32_t pid);
/* The name of the image a process event starts (see engine_proc_name_of). */
const char *engine_image_name(const struct iot_event *ev);
/* The executable of process pid's latest image, NULL when not known. */
const char *engine_proc_exe_of(struct engine *e, int32_t pid);
/* The working directory of process pid as last recorded (or inherited),
   NULL when not known. */
const char *engine_proc_cwd_of(struct engine *e, int32_t pid);
/* The process's $HOME as its home record said (inherited), or NULL. */
const char *engine_proc_home_of(const struct engine *e, int32_t pid);
/*
 * The time process pid spent in the calls the engine followed, ns: its
 * sessions' data calls (counted when each ends) and its other calls (opens,
 * closes, syncs, metadata); after engine_finish, the whole run's. 0 for an
 * unknown pid or an input without durations.
 */
int64_t engine_proc_io_ns_of(const struct engine *e, int32_t pid);
/* The modelled cost (cost_model.h) of pid's calls: what an issue's share is
   of. 0 for an unknown pid. */
int64_t engine_proc_model_ns_of(const struct engine *e, int32_t pid);
/* Trace time t of process pid in ms since the epoch (floor) into *ms: 1, or 0
   when the process or its start on the epoch is unknown. */
int engine_unix_ms(struct engine *e, int32_t pid, int64_t t, int64_t *ms);
/*
 * st: the table the input interns its strings in (iot_strtab), so that a
 * name the engine makes (a file's path under a renamed directory) is the
 * same pointer as the input's equal ones. Without it, files under a
 * renamed directory keep their old names.
 */
void engine_set_strtab(struct engine *e, struct iot_strtab *st);
void engine_free(struct engine *e);

#endif /* ENGINE_H */
