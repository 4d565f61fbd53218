/*
 * bufpool.c - a chunk buffer for a thread: from the segment's free list or
 * its untouched buffers, else wait for the writer of the trace to free one;
 * always one whose data this process has mapped.
 * The lists themselves are segment.c's.
 */
#include "internal.h"
#include "sandbox.h"

void rec_buf_put(uint32_t b)
{
    rec_seg_buf_put(rec_seg, b);
}

void rec_queue_push(uint32_t b)
{
    rec_seg_queue_push(rec_seg, b);
}

/*
 * Wait ns for the writer of the trace: nanosleep, or where a seccomp filter
 * may stand (no syscall of ours) a spin on the coarse-or-vDSO clock.
 */
static void wait_a_little(long ns)
{
    struct timespec ts = { 0, ns };
    int64_t until;

    if (!rec_filter_may_stand()) {
        syscall(SYS_nanosleep, &ts, NULL);
        return;
    }
    until = rec_now_ns() + ns;
    while (rec_now_ns() < until)
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#else
        ;
#endif
}

/*
 * b, once its extent is mapped here (segment.h). Where it cannot be (the
 * program's RLIMIT_AS is reached), a few more free buffers are tried, whose
 * extents this process may have mapped already; the others go back. 0 when
 * none is at hand: the caller's records are lost, and counted (no_memory).
 */
static uint32_t mapped(uint32_t b, uint32_t open_as)
{
    uint32_t tried[8];
    int n = 0;

    while (b && !rec_seg_data(rec_seg, b)) {
        tried[n++] = b;
        b = n < 8 ? rec_seg_buf_take(rec_seg, open_as) : 0;
    }
    while (n > 0)
        rec_buf_put(tried[--n]);
    return b;
}

uint32_t rec_buf_get(uint32_t open_as)
{
    for (int spins = 0; spins < 20000; spins++) {
        uint32_t b;

        if (__atomic_load_n(&rec_stopped, __ATOMIC_RELAXED))
            return 0;
        if (rec_collected && __atomic_load_n(&rec_seg->stopped, __ATOMIC_ACQUIRE)) {
            /* The collector could not write and has said so on its stderr. */
            __atomic_store_n(&rec_stopped, 1, __ATOMIC_RELEASE);
            __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
            return 0;
        }
        b = rec_seg_buf_take(rec_seg, open_as);
        if (b)
            return mapped(b, open_as);
        /* Every buffer is queued or open: have the queue written, or wait
           for whoever is writing it. */
        if (rec_collected) {
            rec_collect_wake();
            /* its lock is asked with fcntl: not where a filter may stand */
            if (spins % 256 == 255 && !rec_filter_may_stand() && !rec_collector_alive()) {
                rec_stop("the collector is gone: cannot write trace", EPIPE);
                return 0;
            }
        } else {
            rec_trace_flush();
        }
        if (!(uint32_t)__atomic_load_n(&rec_seg->free_head, __ATOMIC_ACQUIRE))
            wait_a_little(200000);
    }
    /* All buffers queued and no progress for seconds: the writer is stuck. */
    rec_stop("cannot write trace", ETIMEDOUT);
    return 0;
}
