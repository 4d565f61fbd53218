/*
 * wrap_clone.c - processes and threads that libc's fork, vfork and
 * pthread_create do not make: syscall(SYS_fork, SYS_vfork, SYS_clone,
 * SYS_clone3) (from wrap_syscall.c) and glibc's clone().
 *
 * A child with its own memory that comes back through our code (a raw
 * fork, or a clone or clone3 without CLONE_VM and without a stack of its
 * own; glibc's clone() without CLONE_VM, whose child starts in our
 * function) is a fork's child: the fork handlers run around the call as
 * pthread_atfork would run them, and it records as a process of its own.
 *
 * Any other child cannot be recorded, and must never write into what the
 * recorder shares with the parent: it is declared with an `unrecorded`
 * record (mode raw_clone) and passes every call through (the guard is
 * REC_GUARD_OFF in its thread-locals):
 *   - one that gets a copy of our memory but never returns through us (a
 *     stack of its own, from syscall()): its copy of the guard is set;
 *   - one that shares our memory (CLONE_VM) and, without CLONE_SETTLS, the
 *     calling thread's thread-locals too, rec_self among them. The guard
 *     is then off for both: the calling thread records nothing until the
 *     child is done with our memory (glibc's clone(): its function has
 *     returned, or vfork's wait is over), or ever again when we cannot
 *     know when that is (syscall(): mode raw_clone_tls says so);
 *   - one with thread-locals of its own (CLONE_SETTLS, from glibc's
 *     clone()) sets its own guard before the program's function.
 * Signal handlers on the calling thread while its guard is off are not
 * recorded either.
 */
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

#include "real.h"
#include "rec.h"
#include "wrap.h"

/* How many children with CLONE_VM share the calling thread's thread-locals. */
static __thread uint32_t tls_sharers REC_TLS;

static void record_unrecorded(const char *why, int64_t ret)
{
    struct iot_event ev = rec_event(IOT_OP_UNRECORDED, ret, 0);
    uint64_t s = rec_stamp();

    ev.has |= IOT_HAS_MODE;
    rec_call(&ev, NULL, why, NULL, s, s);
}

static void record_fork(long r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_FORK, r, err);

    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

/*
 * Around a fork that libc does not make: the handlers pthread_atfork would
 * run (fork.c), which hold the guard across the fork so that a signal
 * handler on either side of it defers its calls until the chunk chain they
 * go to is ready (the child's begins in rec_fork_child).
 */
static void fork_begin(void)
{
    rec_collect_fds_check();
    rec_fd_shared_all();
    rec_fork_prepare();
}

static void fork_end_parent(long r, uint64_t s0)
{
    int saved = errno;
    uint64_t s1 = rec_stamp();

    rec_fork_parent();
    record_fork(r, r < 0 ? saved : 0, s0, s1);
    errno = saved;
}

/* ------------------------------------------------------------ syscall() */

long rec_raw_clone(long n, const long a[6], long (*sys)(long, ...))
{
    uint64_t flags = 0, stack = 0, s0;
    int copy;
    long r;

    if (n == SYS_fork) {
        flags = SIGCHLD;
    } else if (n == SYS_vfork) {
        flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
    } else if (n == SYS_clone) {
        flags = (uint64_t)a[0];
        stack = (uint64_t)a[1];
    } else if (a[0] && (size_t)a[1] >= CLONE_ARGS_SIZE_VER0) {
        const struct clone_args *ca = (const struct clone_args *)a[0];

        flags = ca->flags;
        stack = ca->stack;
    }
    copy = !(flags & (CLONE_VM | CLONE_THREAD));
    if (!copy && !(flags & CLONE_VM))   /* CLONE_THREAD alone: EINVAL */
        return sys(n, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (copy && stack == 0) {
        fork_begin();
        s0 = rec_stamp();
        r = sys(n, a[0], a[1], a[2], a[3], a[4], a[5]);
        if (r == 0)
            rec_fork_child();
        else
            fork_end_parent(r, s0);
        return r;
    }
    if (copy || (flags & (CLONE_VFORK | CLONE_SETTLS))) {
        /* the child's copy of the guard, or the guard until vfork's wait
           is over; a child with thread-locals of its own is out of reach */
        int saved;

        rec_guard = REC_GUARD_OFF;
        r = sys(n, a[0], a[1], a[2], a[3], a[4], a[5]);
        if (r == 0)
            return r;
        saved = errno;
        rec_guard = 0;
        if (r > 0)
            record_unrecorded("raw_clone", r);
        errno = saved;
        return r;
    }
    /* The child shares this thread's thread-locals, for as long as it
       likes: this thread records nothing more, and says so first. */
    record_unrecorded("raw_clone_tls", 0);
    rec_guard = REC_GUARD_OFF;
    r = sys(n, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (r < 0 && tls_sharers == 0) {
        int saved = errno;

        rec_guard = 0;
        errno = saved;
    }
    return r;
}

/* -------------------------------------------------------------- clone() */

REAL_HERE(int, clone, (int (*)(void *), void *, int, void *, ...));

/* What a child started by clone() with CLONE_VM needs, in memory it shares
   with its parent: taken by the parent, released by the child. */
struct clone_start {
    int (*fn)(void *);
    void *arg;
    int flags;
    uint32_t taken;
};

#define CLONE_STARTS 64
static struct clone_start clone_starts[CLONE_STARTS];

static struct clone_start *start_take(void)
{
    for (int i = 0; i < CLONE_STARTS; i++) {
        uint32_t free_ = 0;

        if (__atomic_compare_exchange_n(&clone_starts[i].taken, &free_, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return &clone_starts[i];
    }
    return NULL;
}

/* One child fewer shares the thread-locals: the last lets the thread record. */
static void tls_sharer_done(void)
{
    if (__atomic_sub_fetch(&tls_sharers, 1, __ATOMIC_ACQ_REL) == 0)
        __atomic_store_n(&rec_guard, 0, __ATOMIC_RELEASE);
}

/* A child in a copy of our memory (no CLONE_VM): a fork's child. */
static int start_forked(void *arg)
{
    struct clone_start cs = *(struct clone_start *)arg;
    int status;

    rec_fork_child();
    status = cs.fn(cs.arg);
    /* glibc's clone ends the child with the exit system call itself */
    if (!rec_guard)
        rec_finish(status & 0xff, 0);
    return status;
}

/*
 * A child that cannot be recorded: in our memory (CLONE_VM, its start
 * taken from clone_starts) or on thread-locals of its own (CLONE_SETTLS).
 */
static int start_unrecorded(void *arg)
{
    struct clone_start *p = arg;
    struct clone_start cs = *p;
    int status;

    if (cs.flags & CLONE_VM)
        __atomic_store_n(&p->taken, 0, __ATOMIC_RELEASE);
    if (cs.flags & CLONE_SETTLS)
        rec_guard = REC_GUARD_OFF;   /* its own thread-locals' guard */
    status = cs.fn(cs.arg);
    if ((cs.flags & CLONE_VM) && !(cs.flags & (CLONE_SETTLS | CLONE_VFORK)))
        tls_sharer_done();
    return status;
}

static int clone_forked(int (*fn)(void *), void *stack, int flags, void *arg,
                        pid_t *ptid, void *tls, pid_t *ctid)
{
    /* the child reads it from its copy of this frame */
    struct clone_start cs = { fn, arg, flags, 1 };
    uint64_t s0;
    int r;

    fork_begin();
    s0 = rec_stamp();
    r = real_clone(start_forked, stack, flags, &cs, ptid, tls, ctid);
    fork_end_parent(r, s0);
    return r;
}

static int clone_unrecorded(int (*fn)(void *), void *stack, int flags, void *arg,
                            pid_t *ptid, void *tls, pid_t *ctid)
{
    struct clone_start own = { fn, arg, flags, 1 }, *cs = &own;
    int shares_tls = (flags & CLONE_VM) && !(flags & CLONE_SETTLS), saved, r;

    if ((flags & CLONE_VM) && (cs = start_take()) == NULL) {
        /* no room to learn when the child is done: as from syscall() */
        record_unrecorded(shares_tls ? "raw_clone_tls" : "raw_clone", 0);
        if (shares_tls)
            rec_guard = REC_GUARD_OFF;
        return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
    }
    *cs = own;
    record_unrecorded("raw_clone", 0);
    if (shares_tls) {
        __atomic_add_fetch(&tls_sharers, 1, __ATOMIC_ACQ_REL);
        rec_guard = REC_GUARD_OFF;
    }
    r = real_clone(start_unrecorded, stack, flags, cs, ptid, tls, ctid);
    saved = errno;
    if (r < 0 && cs != &own)
        __atomic_store_n(&cs->taken, 0, __ATOMIC_RELEASE);
    if (shares_tls && (r < 0 || (flags & CLONE_VFORK)))
        tls_sharer_done();   /* no child, or it is done with our memory */
    errno = saved;
    return r;
}

/*
 * clone(fn, stack, flags, arg, parent_tid, tls, child_tid): the last three
 * are read whatever the caller passed, as glibc's clone reads them from
 * its registers and stack (so AddressSanitizer must not check the reads).
 */
__attribute__((no_sanitize_address)) int clone(int (*fn)(void *), void *stack,
                                               int flags, void *arg, ...)
{
    va_list ap;
    pid_t *ptid, *ctid;
    void *tls;

    va_start(ap, arg);
    ptid = va_arg(ap, pid_t *);
    tls = va_arg(ap, void *);
    ctid = va_arg(ap, pid_t *);
    va_end(ap);
    if (!REAL(clone)) {
        errno = ENOSYS;
        return -1;
    }
    if (!rec_active || rec_guard || !fn)
        return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
    if (!(flags & (CLONE_VM | CLONE_SETTLS)))
        return clone_forked(fn, stack, flags, arg, ptid, tls, ctid);
    return clone_unrecorded(fn, stack, flags, arg, ptid, tls, ctid);
}
