/*
 * defer.c - calls made by a signal handler that interrupted the recorder on
 * its thread (the guard was set). They are not encoded there and then: a
 * buffer must never be written by two frames at once, and nothing may take
 * a lock a handler could deadlock on. Their fields go into the thread's
 * small pending array, and the interrupted recorder appends them when it
 * leaves (rec_leave); the handler has finished by then.
 *
 * Only this thread and its nested handlers touch `pending`; a handler runs
 * to completion before the code it interrupted resumes, so a slot reserved
 * with one atomic add is the handler's alone until it marks it valid.
 *
 * Handlers that make many calls, or nest (one signal's handler inside
 * another's), or come one after another while the recorder is held up
 * (waiting for a buffer) outgrow the 16 slots of the thread's own: the
 * list goes on in blocks that the handler that first needs one maps (mmap
 * is safe in a handler; a nested handler that maps the same block at the
 * same time gives its copy back), kept for the slot's later owners. A call
 * with no room even there (REC_PENDING + 64 x 256 of them waiting, or no
 * memory) is counted, and the drain writes the count as a `lost` record
 * (handler_calls): never dropped unsaid.
 *
 * Leaving the recorder (rec_leave_slow) also does the work that came due
 * while the thread was in it (rec_do_due): a rename's record, writing the
 * queue after a chunk closed.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* Deferred call i's slot, mapping its block if need be; NULL: no room. */
static struct rec_pending *pending_slot(struct rec_thread *t, uint32_t i, int map)
{
    struct rec_pending *b;
    uint32_t j;

    if (i < REC_PENDING)
        return &t->pending[i];
    j = i - REC_PENDING;
    if (j >= REC_PENDING_BLOCK * REC_PENDING_BLOCKS)
        return NULL;
    b = __atomic_load_n(&t->more[j / REC_PENDING_BLOCK], __ATOMIC_ACQUIRE);
    if (!b && map) {
        struct rec_pending *none = NULL;
        size_t size = sizeof(*b) * REC_PENDING_BLOCK;
        void *p = (void *)syscall(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
            return NULL;
        if (__atomic_compare_exchange_n(&t->more[j / REC_PENDING_BLOCK], &none, p,
                                        0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            b = p;
        } else {
            syscall(SYS_munmap, p, size);
            b = none;
        }
    }
    return b ? &b[j % REC_PENDING_BLOCK] : NULL;
}

void rec_pending_reset(struct rec_thread *t)
{
    for (int i = 0; i < REC_PENDING; i++)
        __atomic_store_n(&t->pending[i].valid, 0, __ATOMIC_RELAXED);
    for (int b = 0; b < REC_PENDING_BLOCKS && t->more[b]; b++)
        for (int i = 0; i < REC_PENDING_BLOCK; i++)
            __atomic_store_n(&t->more[b][i].valid, 0, __ATOMIC_RELAXED);
    t->handler_lost = 0;
}

void rec_defer(const struct iot_event *ev, const char *path, const char *mode,
               uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_self;
    struct rec_pending *p;
    uint32_t i;
    int saved = errno;   /* a handler's mmap failing must not change it */

    if (!t)
        return;
    t->deferred = 1;
    i = __atomic_fetch_add(&t->npending, 1, __ATOMIC_ACQ_REL);
    p = pending_slot(t, i, 1);
    errno = saved;
    if (!p) {
        __atomic_add_fetch(&t->handler_lost, 1, __ATOMIC_RELAXED);
        return;
    }
    p->ev = *ev;
    p->s0 = s0;
    p->s1 = s1;
    p->has_path = path != NULL;
    p->has_mode = mode != NULL;
    if (path) {
        size_t n = strlen(path);

        if (n >= sizeof(p->path))
            n = sizeof(p->path) - 1;
        memcpy(p->path, path, n);
        p->path[n] = '\0';
    }
    if (mode) {
        size_t n = strlen(mode);

        if (n >= sizeof(p->mode))
            n = sizeof(p->mode) - 1;
        memcpy(p->mode, mode, n);
        p->mode[n] = '\0';
    }
    __atomic_store_n(&p->valid, 1, __ATOMIC_RELEASE);
}

void rec_defer_data(unsigned op, int32_t fd, uint64_t stream, int64_t size,
                    int64_t ret, int32_t err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };

    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_FD | IOT_HAS_SIZE | (stream ? IOT_HAS_STREAM : 0) |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = stream;
    ev.size = size;
    ev.ret = ret;
    ev.err = err;
    rec_defer(&ev, NULL, NULL, s0, s1);
}

void rec_drain(struct rec_thread *t)
{
    uint32_t i = 0;

    for (;;) {
        uint32_t n = __atomic_load_n(&t->npending, __ATOMIC_ACQUIRE);

        if (i >= n) {
            /* Done, unless a handler added one meanwhile. */
            if (__atomic_compare_exchange_n(&t->npending, &n, 0, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                uint64_t lost = __atomic_exchange_n(&t->handler_lost, 0,
                                                    __ATOMIC_ACQ_REL);

                if (lost)
                    rec_lost_in(t, "handler_calls", lost);
                return;
            }
            continue;
        }
        {
            struct rec_pending *p = pending_slot(t, i, 0);

            if (p && __atomic_load_n(&p->valid, __ATOMIC_ACQUIRE)) {
                struct iot_event ev = p->ev;

                rec_call_in(t, &ev, p->has_path ? p->path : NULL,
                            p->has_mode ? p->mode : NULL, NULL, p->s0, p->s1);
                __atomic_store_n(&p->valid, 0, __ATOMIC_RELEASE);
            }
        }
        i++;
    }
}

void rec_do_due(struct rec_thread *t)
{
    uint32_t due;

    /* a rename's record may close a chunk: then there is a queue to write */
    while ((due = __atomic_exchange_n(&t->due, 0, __ATOMIC_ACQ_REL)) != 0) {
        if (due & REC_DUE_RENAMED)
            rec_renamed_here(t);
        if (due & REC_DUE_FLUSH) {
            rec_guard = 0;
            rec_trace_flush();
            rec_guard = REC_GUARD_IN;
        }
    }
}

void rec_leave_slow(struct rec_thread *t)
{
    int saved = errno;   /* the program's (rec.h, rec_hold) */

    rec_guard_take();
    if (__atomic_load_n(&t->npending, __ATOMIC_ACQUIRE))
        rec_drain(t);
    if (__atomic_load_n(&t->due, __ATOMIC_RELAXED))
        rec_do_due(t);
    rec_guard_drop();
    /* A handler that deferred between the drain and the drop (and again,
       for one that does so between this drain and its end). */
    while (rec_deferred_since(t)) {
        rec_guard_take();
        rec_drain(t);
        rec_guard_drop();
    }
    errno = saved;
}
