/*
 * bufpool.c - the 64 KiB chunk buffers: mapped on demand (at most
 * REC_MAX_BUFS), recycled through a lock-free free list, and queued for
 * writing on a lock-free queue.
 *
 * The free list is a stack whose head carries a tag bumped by every change,
 * so a pop that read a stale `next` fails its compare-and-swap (no ABA).
 * The queue needs no tag: only a flush lock holder takes from it, and it
 * takes everything at once.
 */
#include <sys/mman.h>

#include "internal.h"

struct rec_buf rec_bufs[REC_MAX_BUFS];
static uint32_t nbufs;                    /* buffers allocated */
static uint64_t free_head;                /* tag << 32 | index + 1 */
static uint32_t queue_head;               /* index + 1 */

void rec_buf_put(uint32_t idx)
{
    uint64_t old = __atomic_load_n(&free_head, __ATOMIC_ACQUIRE), nw;

    do {
        __atomic_store_n(&rec_bufs[idx - 1].next, (uint32_t)old,
                         __ATOMIC_RELAXED);
        nw = (((old >> 32) + 1) << 32) | idx;
    } while (!__atomic_compare_exchange_n(&free_head, &old, nw, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

static uint32_t free_pop(void)
{
    uint64_t old = __atomic_load_n(&free_head, __ATOMIC_ACQUIRE), nw;
    uint32_t idx;

    do {
        idx = (uint32_t)old;
        if (idx == 0)
            return 0;
        nw = (((old >> 32) + 1) << 32) |
             __atomic_load_n(&rec_bufs[idx - 1].next, __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&free_head, &old, nw, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return idx;
}

uint32_t rec_buf_get(void)
{
    for (int spins = 0; spins < 20000; spins++) {
        uint32_t idx = free_pop(), n;

        if (idx)
            return idx;
        if (__atomic_load_n(&rec_stopped, __ATOMIC_RELAXED))
            return 0;
        n = __atomic_load_n(&nbufs, __ATOMIC_ACQUIRE);
        if (n < REC_MAX_BUFS &&
            __atomic_compare_exchange_n(&nbufs, &n, n + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            void *p = mmap(NULL, REC_CHUNK_CAP, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

            if (p == MAP_FAILED) {
                rec_stop("cannot allocate buffers for trace", ENOMEM);
                return 0;
            }
            /* Published before the index can be seen anywhere else. */
            __atomic_store_n(&rec_bufs[n].data, p, __ATOMIC_RELEASE);
            return n + 1;
        }
        if (n >= REC_MAX_BUFS) {
            /* Every buffer is queued: write them, or wait for the thread
               that is writing them. */
            struct timespec ts = { 0, 200000 };

            rec_trace_flush();
            if (!(uint32_t)__atomic_load_n(&free_head, __ATOMIC_ACQUIRE))
                syscall(SYS_nanosleep, &ts, NULL);
        }
    }
    /* 64 MiB queued and no progress for seconds: the writer is stuck. */
    rec_stop("cannot write trace", ETIMEDOUT);
    return 0;
}

void rec_queue_push(uint32_t idx)
{
    uint32_t old = __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE);

    do
        __atomic_store_n(&rec_bufs[idx - 1].next, old, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&queue_head, &old, idx, 1,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

uint32_t rec_queue_take(void)
{
    uint32_t idx = __atomic_exchange_n(&queue_head, 0, __ATOMIC_ACQ_REL);
    uint32_t rev = 0;

    /* The queue is LIFO; the chunks are written in the order they closed. */
    while (idx) {
        uint32_t next = rec_bufs[idx - 1].next;

        rec_bufs[idx - 1].next = rev;
        rev = idx;
        idx = next;
    }
    return rev;
}

int rec_queue_empty(void)
{
    return __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE) == 0;
}

void rec_bufpool_fork_child(uint32_t keep)
{
    queue_head = 0;
    free_head = 0;
    for (uint32_t i = 1; i <= nbufs; i++)
        if (i != keep && rec_bufs[i - 1].data)
            rec_buf_put(i);
}
