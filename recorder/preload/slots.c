/*
 * slots.c - one slot per recorded thread (struct rec_thread), and the two
 * thread-locals every wrapper reads: the guard and the thread's slot.
 *
 * Slots come in blocks of SLOT_BLOCK mapped on first use, so a process with
 * few threads maps ~600 KiB rather than room for REC_MAX_THREADS. Blocks
 * are never unmapped and are mapped in order, so a snapshot and a renaming
 * thread can walk them without a lock; a slot is claimed by a
 * compare-and-swap of its state from 0 to 1.
 */
#include <sys/mman.h>

#include "internal.h"

__thread int rec_guard REC_TLS;
__thread struct rec_thread *rec_self REC_TLS;

#define SLOT_BLOCK 64
static struct rec_thread *slot_blocks[REC_MAX_THREADS / SLOT_BLOCK];
static int slots_hwm;   /* slots [0, hwm) have been taken at some time */

struct rec_thread *rec_slot_at(int i)
{
    struct rec_thread *b = __atomic_load_n(&slot_blocks[i / SLOT_BLOCK],
                                           __ATOMIC_ACQUIRE);

    return b ? &b[i % SLOT_BLOCK] : NULL;
}

int rec_slots_mapped(void)
{
    int n = 0;

    while (n < REC_MAX_THREADS / SLOT_BLOCK &&
           __atomic_load_n(&slot_blocks[n], __ATOMIC_ACQUIRE))
        n++;
    return n * SLOT_BLOCK;
}

struct rec_thread *rec_slot_take(void)
{
    for (int blk = 0; blk < REC_MAX_THREADS / SLOT_BLOCK; blk++) {
        struct rec_thread *b = __atomic_load_n(&slot_blocks[blk],
                                               __ATOMIC_ACQUIRE);

        if (!b) {
            struct rec_thread *nb = NULL;

            b = mmap(NULL, sizeof(*b) * SLOT_BLOCK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (b == MAP_FAILED)
                return NULL;
            if (!__atomic_compare_exchange_n(&slot_blocks[blk], &nb, b, 0,
                                             __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE)) {
                syscall(SYS_munmap, b, sizeof(*b) * SLOT_BLOCK);
                b = nb;   /* another thread mapped it first */
            }
        }
        for (int i = 0; i < SLOT_BLOCK; i++) {
            int zero = 0;

            if (__atomic_load_n(&b[i].state, __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(&b[i].state, &zero, 1, 0,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                int n = blk * SLOT_BLOCK + i + 1, h = __atomic_load_n(&slots_hwm, __ATOMIC_RELAXED);

                while (h < n && !__atomic_compare_exchange_n(&slots_hwm, &h, n, 1,
                                                             __ATOMIC_RELEASE,
                                                             __ATOMIC_RELAXED))
                    ;
                return &b[i];
            }
        }
    }
    return NULL;
}

void rec_slots_fork_child(struct rec_thread *self)
{
    /* Only slots ever taken, and written only where taken: a fork child
       that execs at once should fault in (or copy) none of the others'
       pages, ~7 KiB each. */
    for (int i = 0, n = __atomic_load_n(&slots_hwm, __ATOMIC_ACQUIRE); i < n; i++)
        if (rec_slot_at(i) != self && rec_slot_at(i)->state)
            rec_slot_at(i)->state = 0;
}
