/*
 * site.h - when a call carries its stack: the call-site table.
 *
 * An issue names the code that makes the harmful calls (the sync loop, the
 * small-write loop, the re-read), so reads, writes, syncs and metadata
 * calls carry stacks too, not only opens. A stack walk costs ~100 ns, as
 * much as a small write, so only a few calls of each call site (the return
 * address into the program) carry one:
 *   - the first read, the first write and the first sync of each site in
 *     each fd's session (open to close), so every session has its sites;
 *   - the 1st, 2nd, 4th, 8th ... call of a site across the process, so a
 *     site's share of the stacked calls grows with its share of the calls
 *     (a 1M-write loop: ~20 stacked calls), and the analyzer's most-seen
 *     stack of a session is its busiest site.
 * The stacks themselves are interned in the trace (one string per distinct
 * stack per chunk), so the trace grows per site, not per call.
 *
 * The hot path (rec_site_due) is one load of the fd's slot, a compare with
 * the site's pc and a counter bump: the slow side runs when the fd's
 * session meets a site it has not cached for that class.
 */
#ifndef REC_SITE_H
#define REC_SITE_H

#include <stdint.h>

#include "rec.h"

#pragma GCC visibility push(hidden)

/* The classes of calls a session keeps a site for. */
enum rec_site_class {
    REC_SITE_READ,
    REC_SITE_WRITE,
    REC_SITE_SYNC,
    REC_SITE_CLASSES,
    REC_SITE_NONE = REC_SITE_CLASSES   /* a call whose site is not followed */
};

/* Call sites followed per process (then: no stacks for new ones); slot 0
   is "none" in the fd slots. */
#define REC_SITE_SLOTS 4096
/* fds whose sessions are followed (fds above: the process-wide doubling only) */
#define REC_SITE_FDS 4096

extern uintptr_t rec_site_pc[REC_SITE_SLOTS];
extern uint32_t rec_site_calls[REC_SITE_SLOTS];

/* What one fd's session has seen: the site slot last met per class. */
struct rec_fd_sites {
    uint32_t session;                   /* 0: not yet numbered */
    uint16_t site[REC_SITE_CLASSES];
};
extern struct rec_fd_sites rec_fd_sites[REC_SITE_FDS];

/* The class of op's calls: a switch the compiler folds for a constant op. */
static inline unsigned rec_site_class(unsigned op)
{
    switch (op) {
    case IOT_OP_READ: case IOT_OP_PREAD: case IOT_OP_READV: case IOT_OP_PREADV:
    case IOT_OP_FREAD: case IOT_OP_FGETS: case IOT_OP_FGETC: case IOT_OP_GETDELIM:
    case IOT_OP_FSCANF: case IOT_OP_INLINE_GET:
        return REC_SITE_READ;
    case IOT_OP_WRITE: case IOT_OP_PWRITE: case IOT_OP_WRITEV: case IOT_OP_PWRITEV:
    case IOT_OP_FWRITE: case IOT_OP_FPUTS: case IOT_OP_FPUTC: case IOT_OP_FPRINTF:
    case IOT_OP_INLINE_PUT:
        return REC_SITE_WRITE;
    case IOT_OP_FSYNC: case IOT_OP_FDATASYNC: case IOT_OP_SYNC_FILE_RANGE: case IOT_OP_SYNC:
        return REC_SITE_SYNC;
    default:
        return REC_SITE_NONE;
    }
}

/* The slow side of rec_site_due: find or take pc's slot, then judge. */
int rec_site_first(int fd, unsigned cls, uintptr_t pc);

/*
 * Whether this call of class cls on fd, returning to ra, should carry a
 * stack. Relaxed and unlocked: threads racing on one site may lose a count
 * or take one stack too many, which only moves the sampling.
 */
static inline __attribute__((always_inline)) int rec_site_due(int fd, unsigned cls,
                                                             const void *ra)
{
    uintptr_t pc = (uintptr_t)ra;

    if (cls >= REC_SITE_CLASSES || REC_UNLIKELY(!rec_stacks))
        return 0;
    if (REC_LIKELY((unsigned)fd < REC_SITE_FDS)) {
        unsigned k = __atomic_load_n(&rec_fd_sites[fd].site[cls], __ATOMIC_RELAXED);

        if (REC_LIKELY(k != 0 && __atomic_load_n(&rec_site_pc[k], __ATOMIC_RELAXED) == pc)) {
            uint32_t n = __atomic_load_n(&rec_site_calls[k], __ATOMIC_RELAXED) + 1;

            __atomic_store_n(&rec_site_calls[k], n, __ATOMIC_RELAXED);
            return REC_UNLIKELY((n & (n - 1)) == 0);
        }
    }
    return rec_site_first(fd, cls, pc);
}

/* A call with no fd (a metadata call on a path): the process-wide doubling
   up to the 64th call of the site, then every 64th. */
int rec_site_sampled(uintptr_t pc);

/* fd starts or ends a session: its sites are forgotten. */
static inline void rec_site_fd_reset(int fd)
{
    if ((unsigned)fd < REC_SITE_FDS) {
        __atomic_store_n(&rec_fd_sites[fd].session, 0, __ATOMIC_RELAXED);
        for (unsigned c = 0; c < REC_SITE_CLASSES; c++)
            __atomic_store_n(&rec_fd_sites[fd].site[c], 0, __ATOMIC_RELAXED);
    }
}

/* In a forked child: each inherited fd starts a session of the child's. */
void rec_site_fork_child(void);

#pragma GCC visibility pop

#endif
