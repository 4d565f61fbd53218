/*
 * wrap_wait.c - the calls a thread waits for events in (epoll_wait, poll,
 * select and their variants): not I/O, and not recorded one by one. A
 * thread that makes one is an event loop, a thread others wait on, which
 * is what main_thread judges (docs/analyzer.md). The first such call of a
 * thread writes one waits record (5.16) before it waits; every later one
 * costs a thread-local compare. A call with a zero timeout asks whether an
 * event is there without waiting (a tool checking a pipe) and is not one.
 *
 * The record goes before the real call, so that the wait itself (which may
 * last forever) is untouched and errno is the call's own.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "real.h"
#include "rec.h"

REAL_HERE(int, epoll_wait, (int, struct epoll_event *, int, int));
REAL_HERE(int, epoll_pwait, (int, struct epoll_event *, int, int, const sigset_t *));
REAL_HERE(int, poll, (struct pollfd *, nfds_t, int));
REAL_HERE(int, __poll_chk, (struct pollfd *, nfds_t, int, size_t));
REAL_HERE(int, ppoll, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *));
REAL_HERE(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *));
REAL_HERE(int, pselect, (int, fd_set *, fd_set *, fd_set *, const struct timespec *,
                         const sigset_t *));

/* The process whose waits record this thread wrote (a forked child's first
   thread starts with its parent's value, and writes its own). */
static __thread int32_t waits_noted REC_TLS;

static __attribute__((noinline)) void note_wait_slow(void)
{
    int saved = errno;
    int64_t now = rec_now_ns();
    struct rec_thread *t = rec_enter((uint64_t)now);

    if (t) {
        if (iot_enc_waits(&t->enc, now, 1) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_waits(&t->enc, now, 1);
        }
        rec_publish(t);
        waits_noted = rec_pid;
        rec_leave_as(t);
    }
    errno = saved;
}

static inline void note_wait(void)
{
    if (REC_UNLIKELY(waits_noted != rec_pid) && rec_active)
        note_wait_slow();
}

int epoll_wait(int fd, struct epoll_event *ev, int max, int timeout)
{
    if (timeout != 0)
        note_wait();
    return CALL_REAL(-1, epoll_wait, fd, ev, max, timeout);
}

int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
    if (timeout != 0)
        note_wait();
    return CALL_REAL(-1, epoll_pwait, fd, ev, max, timeout, mask);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (timeout != 0)
        note_wait();
    return CALL_REAL(-1, poll, fds, n, timeout);
}

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t len)
{
    if (timeout != 0)
        note_wait();
    return CALL_REAL(-1, __poll_chk, fds, n, timeout, len);
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
    if (!timeout || timeout->tv_sec || timeout->tv_nsec)
        note_wait();
    return CALL_REAL(-1, ppoll, fds, n, timeout, mask);
}

int select(int n, fd_set *r, fd_set *w, fd_set *x, struct timeval *timeout)
{
    if (!timeout || timeout->tv_sec || timeout->tv_usec)
        note_wait();
    return CALL_REAL(-1, select, n, r, w, x, timeout);
}

int pselect(int n, fd_set *r, fd_set *w, fd_set *x, const struct timespec *timeout,
            const sigset_t *mask)
{
    if (!timeout || timeout->tv_sec || timeout->tv_nsec)
        note_wait();
    return CALL_REAL(-1, pselect, n, r, w, x, timeout, mask);
}
