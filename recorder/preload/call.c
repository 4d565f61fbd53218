/*
 * call.c - recording a call from anywhere: enter the recorder (which
 * starts the thread's chain at its first event), encode (record.c), leave
 * (appending what handlers deferred); or, when a handler interrupted the
 * recorder on this thread, defer the call to it (defer.c). rec_lost is a
 * lost record made the same way.
 */
#include <errno.h>

#include "internal.h"
#include "wrap.h"

void rec_call(struct iot_event *ev, const char *path, const char *mode,
              const char *stack, uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_enter(s0);

    if (!t) {
        if (rec_deferring())
            rec_defer(ev, path, mode, s0, s1);
        return;
    }
    rec_call_in(t, ev, path, mode, stack, s0, s1);
    rec_leave();
}

/* The same with the call's own stack, taken here (a sync: main_thread
   judges it at its own site). */
void rec_call_stacked(struct iot_event *ev, uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_enter(s0);

    if (!t) {
        if (rec_deferring())
            rec_defer(ev, NULL, NULL, s0, s1);   /* a handler's: no stack */
        return;
    }
    rec_call_in(t, ev, NULL, NULL, rec_stacks ? rec_stack_capture() : NULL, s0, s1);
    rec_leave();
}

/* wrap.h: rec_data's record, with the call's stack. */
void rec_data_stacked(unsigned op, int32_t fd, uint64_t stream, int64_t size, int64_t ret,
                      int32_t err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(op, ret, err);

    ev.has |= IOT_HAS_FD | IOT_HAS_SIZE | (stream ? IOT_HAS_STREAM : 0);
    ev.fd = fd;
    ev.stream = stream;
    ev.size = size;
    rec_call_stacked(&ev, s0, s1);
}

void rec_pid_shared_report(void)
{
    uint32_t n = rec_collect_pid_shared();

    if (n)
        rec_lost("pid_shared", n);
}

/* A lost record through rec_call. */
void rec_lost(const char *why, uint64_t count)
{
    struct iot_event ev = rec_lost_event(count);
    int saved = errno;
    uint64_t s;

    if (!rec_active)
        return;
    s = rec_stamp();
    rec_call(&ev, NULL, why, NULL, s, s);
    errno = saved;
}
