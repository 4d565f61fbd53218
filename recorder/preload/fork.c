/*
 * fork.c - a forked child records as a process of its own: a new pid in
 * new thread chains of chunks, and none of the parent's chunks (the parent
 * writes those). Only the forking thread lives on in the child; its chunk
 * chain starts anew in a slot and buffer of its own. Under a collector the
 * child takes a process entry and its lock (POSIX locks are not
 * inherited); without one the trace fd is inherited (O_APPEND keeps both
 * processes' frames whole).
 */
#include "internal.h"
#include "sandbox.h"
#include "site.h"

static int locked;   /* the prepare handler took rec_flush_lock */

void rec_fork_prepare(void)
{
    /*
     * No other thread may be writing a frame at the fork: the child would
     * inherit half of it. Not taken when a handler forks while this thread
     * writes: then the child restarts the lock and the compressor.
     */
    locked = rec_started && !rec_collected && rec_flush_lock_take(1);
}

void rec_fork_parent(void)
{
    if (locked)
        rec_flush_lock_drop();
}

void rec_fork_child(void)
{
    struct rec_thread *self = rec_self;

    if (!rec_started)
        return;
    rec_trace_fork_child();
    if (!rec_active || rec_finished || rec_stopped) {
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        return;
    }
    rec_sandbox_fork_child(rec_pid);
    rec_chain_ids_fork_child();
    rec_slots_fork_child(self);
    rec_site_fork_child();
    if (rec_collect_fork_child() != 0) {
        /* no entry left for one more process: this one goes unrecorded */
        rec_self = NULL;
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        return;
    }
    if (self) {
        if (rec_thread_fork_child(self) != 0) {
            rec_self = NULL;
            __atomic_store_n(&self->state, 0, __ATOMIC_RELEASE);
        }
    } else {
        /* a thread that forked before any call of its own: the new
           process's record is still due, first */
        rec_thread_init(1, rec_now_ns());
    }
    if (__atomic_load_n(&rec_active, __ATOMIC_ACQUIRE))
        rec_pid_shared_report();
}

void rec_fork_init(void)
{
    pthread_atfork(rec_fork_prepare, rec_fork_parent, rec_fork_child);
}
