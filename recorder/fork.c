/*
 * fork.c - a forked child records as a process of its own: a new pid in
 * new streams, its own trace fd and flusher, and none of the parent's
 * chunks (the parent writes those). Only the forking thread lives on in
 * the child; its stream starts anew, in the buffer it had open.
 */
#include "internal.h"

static void atfork_prepare(void)
{
    /* The child must not inherit a half-written frame or compressor state. */
    if (rec_started)
        pthread_mutex_lock(&rec_flush_lock);
}

static void atfork_parent(void)
{
    if (rec_started)
        pthread_mutex_unlock(&rec_flush_lock);
}

static void atfork_child(void)
{
    struct rec_thread *self = rec_self;
    uint32_t keep = self ? self->buf : 0;

    if (!rec_started)
        return;
    pthread_mutex_init(&rec_flush_lock, NULL);
    if (!rec_active || rec_finished || rec_stopped) {
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        return;
    }
    rec_pid = (int32_t)getpid();
    rec_stream_ids_fork_child();
    rec_bufpool_fork_child(keep);
    rec_slots_fork_child(self);
    if (rec_flusher_fork_child() != 0)
        return;
    if (self)
        rec_thread_fork_child(self, keep);
}

void rec_fork_init(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
