/*
 * ownfds_room.c - the recorder's fds (ownfds.c) and the program's soft fd
 * limit: when they sit below it, the program gets EMFILE as many opens
 * early. Where the hard limit leaves room, they move above the limit when
 * the program first meets it (a wrapper's call that makes an fd failed
 * with EMFILE: wrap.h, CALL_REAL_NEWFD), and the call is made again; where
 * it leaves none, the process says so in its trace, once.
 */
#include <errno.h>
#include <sys/resource.h>

#include "internal.h"
#include "sandbox.h"

/* The process that said in its trace that ours stay below the limit. */
static int32_t in_range_said;

/* How many of ours sit below the soft fd limit (0 when it cannot be read). */
static int own_below_limit(void)
{
    struct rlimit rl;
    int n = 0;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    for (int k = 0; k < 3; k++)
        if (rec_own_fd_get(k) >= 0 && (rlim_t)rec_own_fd_get(k) < rl.rlim_cur)
            n++;
    return n;
}

void rec_own_fds_in_range_say(int n)
{
    if (n <= 0 || __atomic_exchange_n(&in_range_said, rec_pid, __ATOMIC_ACQ_REL) == rec_pid)
        return;
    rec_lost("fds_in_range", (uint64_t)n);
}

int rec_own_fds_make_room(void)
{
    int saved = errno, before, after;

    if (!rec_active || rec_guard || rec_filter_may_stand())
        return 0;   /* no getrlimit or dup of our own there */
    before = own_below_limit();
    if (before == 0) {
        errno = saved;
        return 0;   /* the program's own limit, as natively */
    }
    rec_own_fds_above();
    for (int k = 0; k < 3; k++) {
        int fd = rec_own_fd_get(k);
        struct rlimit rl;

        if (fd >= 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 && (rlim_t)fd < rl.rlim_cur)
            rec_own_fd_move(fd);
    }
    after = own_below_limit();
    rec_own_fds_in_range_say(after);
    errno = saved;
    return after < before;
}
