/*
 * retake.c - the collector's fds, taken back after the program closed or
 * replaced them with syscall instructions of its own (close_range, close,
 * dup2 or dup3 that no wrapper sees: the wrappers keep it out of the way).
 *
 * Closing any fd of the memfd drops this process's POSIX lock on its entry,
 * which tells the collector the process is gone (segment.h), and without
 * the fd a child can take no entry. The memfd cannot be opened again
 * through our own mapping (/proc/self/map_files needs CAP_SYS_ADMIN), but
 * the collector, which runs as our user, holds it and the liveness pipe:
 * /proc/COLLECTOR/fd/N opens them again. The entry is MOVING while the
 * lock is away, as when an inherited fd moves (ownfds.c), so the collector
 * does not judge it.
 *
 * Checked before each fork, exec and exit and at each chunk switch (one
 * fstat of the memfd fd; the pipe is checked only when the memfd was
 * taken). When the collector cannot be reached (a pid namespace of its
 * own), the entry stays MOVING and a `lost` record (fds_clobbered) says
 * that the children forked from then on are not recorded. When the
 * collector has judged the process gone already (it looks every 20 ms),
 * recording stops: what came after the fds were taken is not recorded, and
 * nothing in the trace can say so.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "internal.h"
#include "sandbox.h"

struct rec_fd_ident rec_seg_ident, rec_live_ident;
void (*rec_retake_lost)(const char *why, uint64_t count);

static int same_file(const struct stat *st, const struct rec_fd_ident *id)
{
    return st->st_dev == id->dev && st->st_ino == id->ino;
}

static int still_ours(int fd, const struct rec_fd_ident *id)
{
    struct stat st;

    return fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && same_file(&st, id);
}

/* A new fd on the collector's open file id (flags: O_RDWR, O_WRONLY), -1. */
static int from_collector(const struct rec_fd_ident *id, int flags)
{
    char path[48], buf[1024];
    int dir, found = -1;
    long n;

    rec_stpnum(stpcpy(path, "/proc/"), (unsigned)rec_seg->collector_pid);
    strcat(path, "/fd");
    dir = (int)syscall(SYS_openat, AT_FDCWD, path,
                       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    while (found < 0 && (n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < n && found < 0;) {
            const struct dirent64 *d = (const struct dirent64 *)(buf + off);
            struct stat st;

            off += d->d_reclen;
            /* the link's target, not opened unless it is the one */
            if (d->d_name[0] < '0' || d->d_name[0] > '9' ||
                syscall(SYS_newfstatat, dir, d->d_name, &st, 0) != 0 ||
                !same_file(&st, id))
                continue;
            found = (int)syscall(SYS_openat, dir, d->d_name,
                                 flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        }
    }
    syscall(SYS_close, dir);
    if (found >= 0 && flags == O_WRONLY)
        syscall(SYS_fcntl, found, F_SETFL, 0);   /* a blocking pipe, as before */
    return found;
}

/* An inheritable fd at a high number for kind, from fd (closed). */
static int settle(int kind, int fd)
{
    int nfd = rec_fd_high(fd);

    if (nfd < 0)
        nfd = fd;
    else
        syscall(SYS_close, fd);
    syscall(SYS_fcntl, nfd, F_SETFD, 0);   /* exec'd images inherit it */
    rec_own_fd_set(kind, nfd);
    return nfd;
}

#define RETAKEN      0
#define UNREACHABLE -1   /* the entry stays MOVING: never judged */
#define JUDGED      -2   /* the collector has taken the entry back */

static int retake(void)
{
    struct rec_seg_proc *e = rec_seg_proc_at(rec_seg, rec_proc - 1);
    int seg, live = rec_own_fd_get(REC_OWN_LIVE);

    for (;;) {
        uint32_t state = REC_PROC_LIVE;

        if (__atomic_compare_exchange_n(&e->state, &state, REC_PROC_MOVING, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            break;
        if (state != REC_PROC_DYING || e->pid != rec_pid)
            return JUDGED;
        syscall(SYS_sched_yield);
    }
    if (!still_ours(live, &rec_live_ident)) {
        live = from_collector(&rec_live_ident, O_WRONLY);
        if (live >= 0)
            settle(REC_OWN_LIVE, live);
        else
            rec_own_fd_set(REC_OWN_LIVE, -1);
    }
    seg = from_collector(&rec_seg_ident, O_RDWR);
    if (seg < 0) {
        rec_own_fd_set(REC_OWN_SEG, -1);
        return UNREACHABLE;
    }
    rec_seg_lock(settle(REC_OWN_SEG, seg), rec_proc - 1);
    __atomic_store_n(&e->state, REC_PROC_LIVE, __ATOMIC_RELEASE);
    return RETAKEN;
}

void rec_collect_fds_check(void)
{
    static int told;

    /* where a seccomp filter may stand, no fstat of our own: not checked */
    if (!rec_collected || told || rec_filter_may_stand() ||
        still_ours(rec_own_fd_get(REC_OWN_SEG), &rec_seg_ident))
        return;
    told = 1;
    switch (retake()) {
    case RETAKEN:
        told = 0;
        break;
    case UNREACHABLE:
        /* Without its lock the entry stays MOVING, so the collector keeps
           our thread chains ours; it learns of our end from the pipe. */
        if (rec_retake_lost)
            rec_retake_lost("fds_clobbered", 0);
        break;
    default:
        /* Our open chunks' buffers are the collector's again and may be
           another process's already: writing on would hand our records
           to it. Nothing more can be said from here. */
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        break;
    }
}
