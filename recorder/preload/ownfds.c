/*
 * ownfds.c - the fds the recorder keeps in the program's table: the trace
 * (without a collector), or the collector's segment and liveness pipe
 * (with one). They sit at high numbers, out of the program's usual range;
 * to the program they are not open: close, dup and fcntl on them fail with
 * EBADF, close_range and closefrom pass over them, and a dup2 onto one of
 * their numbers moves ours away first (ownfds_move.c). Each is marked
 * REC_FD_OWN in the wrappers' fd table (wrap.h), so the other wrappers that
 * take an fd (read, write, lseek, fstat, mmap, ftruncate, ...) fail with
 * EBADF on it at no cost to their hot path. What still shows them: /proc/self/fd, raw
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

    /* the segment's extents are mapped from wherever its fd is now */
    if (kind == REC_OWN_SEG && rec_seg_view.shared)
        rec_seg_view_fd(fd);

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

/*
 * Set once the program met its soft fd limit with ours below it
 * (ownfds_room.c): from then on ours go above the limit (the program's fd
 * table is that big already).
 */
static int own_above;

void rec_own_fds_above(void)
{
    own_above = 1;
}

/*
 * A close-on-exec duplicate of fd just above the soft fd limit, the soft
 * limit lifted for the dup and put back (-1: the hard limit is the soft one,
 * or no number is free there).
 */
static int fd_above_limit(int fd)
{
    struct rlimit rl, lifted;
    int nfd;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= rl.rlim_cur))
        return -1;
    lifted = rl;
    lifted.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur + 8
                          ? rl.rlim_max : rl.rlim_cur + 8;
    if (setrlimit(RLIMIT_NOFILE, &lifted) != 0)
        return -1;
    nfd = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)rl.rlim_cur);
    setrlimit(RLIMIT_NOFILE, &rl);
    return nfd;
}

/* A close-on-exec duplicate of fd at a high number (-1 when none). */
int rec_fd_high(int fd)
{
    int nfd = own_above ? fd_above_limit(fd) : -1;

    if (nfd < 0)
        nfd = rec_seg_fd_high(fd, F_DUPFD_CLOEXEC, 8);
    return nfd >= 0 ? nfd : (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
}


int rec_close_range_around(unsigned first, unsigned last, int flags)
{
    int keep[3];

    for (int k = 0; k < 3; k++)
        keep[k] = rec_own_fd_get(k);
    return rec_seg_close_range_except(first, last, flags, keep, 3);
}
