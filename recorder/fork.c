/*
 * fork.c - a forked child records as a process of its own: a new pid in
 * new streams, and none of the parent's chunks (the parent writes those).
 * Only the forking thread lives on in the child; its stream starts anew,
 * in the buffer it had open. The trace fd is inherited (O_APPEND keeps both
 * processes' frames whole).
 */
#include "internal.h"

static int locked;   /* the prepare handler took rec_flush_lock */

static void atfork_prepare(void)
{
    /*
     * No other thread may be writing a frame at the fork: the child would
     * inherit half of it. Not taken when a handler forks while this thread
     * writes: then the child restarts the lock and the compressor.
     */
    locked = rec_started && rec_flush_lock_take(1);
}

static void atfork_parent(void)
{
    if (locked)
        rec_flush_lock_drop();
}

static void atfork_child(void)
{
    struct rec_thread *self = rec_self;
    uint32_t keep = self ? self->buf : 0;

    if (!rec_started)
        return;
    rec_trace_fork_child();
    if (!rec_active || rec_finished || rec_stopped) {
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        return;
    }
    rec_pid = (int32_t)getpid();
    rec_stream_ids_fork_child();
    rec_bufpool_fork_child(keep);
    rec_slots_fork_child(self);
    if (self)
        rec_thread_fork_child(self, keep);
    else    /* a thread that forked before any call of its own: the new
               process's record is still due, first */
        rec_thread_init(1, rec_mono_ns());
}

void rec_fork_init(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
