/*
 * ownfds_move.c - a dup2 (or dup3, or dprintf's) onto the number of one of
 * the recorder's fds (ownfds.c) moves ours away first: the trace's under
 * its flush lock (tracefile.c), the collector's segment or liveness pipe
 * with the process's entry held out of the collector's judgement while
 * its POSIX lock is away.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

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
