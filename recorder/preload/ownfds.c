/*
 * ownfds.c - the fds the recorder keeps in the program's table: the trace
 * (without a collector), or the collector's segment and liveness pipe
 * (with one). They sit at high numbers, out of the program's usual range;
 * to the program they are not open: close, dup and fcntl on them fail with
 * EBADF, close_range and closefrom pass over them, and a dup2 onto one of
 * their numbers moves ours away first. Each is marked REC_FD_OWN in the
 * wrappers' fd table (wrap.h), so the other wrappers that take an fd (read,
 * write, lseek, fstat, mmap, ftruncate, ...) fail with EBADF on it at no
 * cost to their hot path. What still shows them: /proc/self/fd, raw
 * syscalls, and calls the recorder does not wrap (poll, ioctl, ...).
 */
#include <fcntl.h>
#include <sys/resource.h>

#include "internal.h"
#include "sandbox.h"
#include "wrap.h"

static int own[3] = { -1, -1, -1 };   /* by REC_OWN_* */

/* The wrappers' mark of fd, set or cleared here only (rec_fd_set keeps off it). */
static void own_mark(int fd, unsigned state)
{
    if ((unsigned)fd < REC_FD_SEEN)
        __atomic_store_n(&rec_fd_state[(unsigned)fd], (uint8_t)state, __ATOMIC_RELAXED);
}

void rec_own_fd_set(int kind, int fd)
{
    int old = __atomic_exchange_n(&own[kind], fd, __ATOMIC_ACQ_REL);

    if (old >= 0 && old != fd)
        own_mark(old, REC_FD_UNSEEN);
    if (fd >= 0)
        own_mark(fd, REC_FD_OWN);
}

int rec_own_fd_get(int kind)
{
    return __atomic_load_n(&own[kind], __ATOMIC_ACQUIRE);
}

int rec_own_fd(int fd)
{
    if (fd < 0)
        return 0;
    for (int k = 0; k < 3; k++)
        if (fd == rec_own_fd_get(k))
            return 1;
    return 0;
}

/* A close-on-exec duplicate of fd at a high number (-1 when none). */
int rec_fd_high(int fd)
{
    int nfd = rec_seg_fd_high(fd, F_DUPFD_CLOEXEC, 8);

    return nfd >= 0 ? nfd : (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
}

/*
 * Move the segment or the pipe: a new high number that survives exec. The
 * process's POSIX locks on the memfd go with the close of any fd of it, so
 * the entry is out of the collector's judgement (MOVING, segment.h) until
 * the lock is back.
 */
static void move_inherited(int kind, int fd)
{
    struct rec_seg_proc *e = NULL;
    int nfd = rec_fd_high(fd);

    if (nfd < 0)
        return;
    syscall(SYS_fcntl, nfd, F_SETFD, 0);
    if (kind == REC_OWN_SEG && rec_proc) {
        e = rec_seg_proc_at(rec_seg, rec_proc - 1);
        /* DYING is the collector checking on us: it hands the entry back. */
        for (;;) {
            uint32_t live = REC_PROC_LIVE;

            if (__atomic_compare_exchange_n(&e->state, &live, REC_PROC_MOVING, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                break;
            if (live != REC_PROC_DYING) {
                e = NULL;   /* not ours any more: nothing to keep */
                break;
            }
            syscall(SYS_sched_yield);
        }
    }
    rec_own_fd_set(kind, nfd);
    syscall(SYS_close, fd);
    if (e) {
        rec_seg_lock(nfd, rec_proc - 1);
        __atomic_store_n(&e->state, REC_PROC_LIVE, __ATOMIC_RELEASE);
    }
}

void rec_own_fd_move(int fd)
{
    if (fd < 0)
        return;
    if (fd == rec_own_fd_get(REC_OWN_TRACE))
        rec_trace_fd_move();
    else if (fd == rec_own_fd_get(REC_OWN_SEG))
        move_inherited(REC_OWN_SEG, fd);
    else if (fd == rec_own_fd_get(REC_OWN_LIVE))
        move_inherited(REC_OWN_LIVE, fd);
}

int rec_close_range_around(unsigned first, unsigned last, int flags)
{
    int keep[3];

    for (int k = 0; k < 3; k++)
        keep[k] = rec_own_fd_get(k);
    return rec_seg_close_range_except(first, last, flags, keep, 3);
}

/*
 * Our fds below the soft fd limit take numbers the program has natively
 * (the hard limit left no room above it, segment.h): it gets EMFILE that
 * many opens early. Said in the trace, once per process.
 */
void rec_own_fds_report(void)
{
    struct rlimit rl;
    uint64_t in_range = 0;

    if (rec_filter_may_stand())
        return;   /* no getrlimit of our own there */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= 1024)
        return;
    for (int k = 0; k < 3; k++)
        if (rec_own_fd_get(k) >= 0 && (rlim_t)rec_own_fd_get(k) < rl.rlim_cur)
            in_range++;
    if (in_range)
        rec_lost("fds_in_range", in_range);
}
