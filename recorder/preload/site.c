/*
 * site.c - the call-site table (site.h): which calls carry a stack.
 *
 * One table of sites for the process, open addressing on the return
 * address; a site's slot, once taken, is never given back (a site is code,
 * and code unloaded by dlclose is rare enough that its slot is simply
 * lost). Each fd keeps, per class, the slot of the site it met last, and a
 * session number; each site keeps the session it last gave a stack to, so
 * a session that alternates between two sites still takes one stack per
 * site, not one per switch.
 */
#include <string.h>

#include "internal.h"
#include "site.h"

#define SITE_PROBES 8

uintptr_t rec_site_pc[REC_SITE_SLOTS];
uint32_t rec_site_calls[REC_SITE_SLOTS];
/* the session (rec_fd_sites[].session) each site last stacked a call of */
static uint32_t site_session[REC_SITE_SLOTS];
struct rec_fd_sites rec_fd_sites[REC_SITE_FDS];

static uint32_t sessions;       /* the last session number given */
static unsigned fds_high;       /* every fd whose slot was written is below */

/* pc's slot (taken now if free), or 0 when the table is full around it. */
static unsigned site_slot(uintptr_t pc)
{
    unsigned h = (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 52);

    for (unsigned i = 0; i < SITE_PROBES; i++) {
        unsigned k = (h + i) & (REC_SITE_SLOTS - 1);
        uintptr_t cur = __atomic_load_n(&rec_site_pc[k], __ATOMIC_RELAXED);

        if (k == 0)
            continue;   /* "none" in the fd slots */
        if (cur == pc)
            return k;
        if (cur == 0 && (__atomic_compare_exchange_n(&rec_site_pc[k], &cur, pc, 0,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
                         cur == pc))
            return k;
    }
    return 0;
}

/* The doubling: the 1st, 2nd, 4th, 8th ... call of slot k. */
static int count_call(unsigned k)
{
    uint32_t n = __atomic_add_fetch(&rec_site_calls[k], 1, __ATOMIC_RELAXED);

    return (n & (n - 1)) == 0;
}

/*
 * A metadata call has no session to give each of its groups a first
 * stack: a helper that probes paths for the whole program is one site whose
 * later paths would find the doubling far apart. So past the 64th call a
 * site's calls carry one every 64 (still one walk per 64 calls of ~1 us).
 */
#define META_EVERY 64

int rec_site_sampled(uintptr_t pc)
{
    unsigned k;
    uint32_t n;

    if (!rec_stacks || !(k = site_slot(pc)))
        return 0;
    n = __atomic_add_fetch(&rec_site_calls[k], 1, __ATOMIC_RELAXED);
    return (n & (n - 1)) == 0 || n % META_EVERY == 0;
}

int rec_site_first(int fd, unsigned cls, uintptr_t pc)
{
    struct rec_fd_sites *s;
    unsigned k;
    uint32_t session;
    int due;

    if (cls >= REC_SITE_CLASSES || !rec_stacks || !(k = site_slot(pc)))
        return 0;
    due = count_call(k);
    if ((unsigned)fd >= REC_SITE_FDS)
        return due;
    s = &rec_fd_sites[fd];
    session = __atomic_load_n(&s->session, __ATOMIC_RELAXED);
    if (session == 0) {
        session = __atomic_add_fetch(&sessions, 1, __ATOMIC_RELAXED);
        if (session == 0)   /* wrapped: 0 stays "not numbered" */
            session = __atomic_add_fetch(&sessions, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&s->session, session, __ATOMIC_RELAXED);
        if ((unsigned)fd >= __atomic_load_n(&fds_high, __ATOMIC_RELAXED))
            __atomic_store_n(&fds_high, (unsigned)fd + 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&s->site[cls], (uint16_t)k, __ATOMIC_RELAXED);
    if (__atomic_load_n(&site_session[k], __ATOMIC_RELAXED) != session) {
        __atomic_store_n(&site_session[k], session, __ATOMIC_RELAXED);
        return 1;   /* the site's first call in this session */
    }
    return due;
}

void rec_site_fork_child(void)
{
    /* Only the slots written so far: the rest are zero and stay unshared. */
    memset(rec_fd_sites, 0, fds_high * sizeof(rec_fd_sites[0]));
}
