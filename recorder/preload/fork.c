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

/*
 * What the prepare handler took, for the parent or child handler of the
 * same fork to give back: thread-locals, since forks on two threads may
 * overlap (libc runs its forks' handlers one fork at a time, but a raw
 * fork runs them beside).
 */
static __thread int guarded REC_TLS;   /* the prepare handler took the guard */
static __thread int locked REC_TLS;    /* and rec_flush_lock */

void rec_fork_prepare(void)
{
    if (!rec_started)
        return;
    /*
     * The guard first: between here and the parent or child handler the
     * recorder's locks are held by this thread, and a signal handler that
     * runs meanwhile (an earlier child's SIGCHLD, taken as the fork
     * returns) must defer its calls, not wait for a lock its own thread
     * holds. Not taken when a handler forks while this thread is in the
     * recorder: its guard is set already.
     */
    guarded = rec_enter(rec_stamp()) != NULL;
    /*
     * No other thread may be writing a frame at the fork: the child would
     * inherit half of it. Not taken when a handler forks while this thread
     * writes: then the child restarts the lock and the compressor.
     */
    locked = !rec_collected && rec_flush_lock_take(1);
    if (rec_stacks)
        rec_stack_fork_prepare();
}

void rec_fork_parent(void)
{
    int saved = errno;   /* a failed fork's */

    if (!rec_started)
        return;
    if (rec_stacks)
        rec_stack_fork_parent();
    if (locked)
        rec_flush_lock_drop();
    if (guarded)
        rec_leave();   /* what handlers deferred meanwhile */
    errno = saved;
}

/*
 * The forking thread's deferred calls, copied at the fork, were made in the
 * parent before it and are the parent's to append; so is the work due.
 */
static void parents_deferred_drop(struct rec_thread *self)
{
    if (self->deferred) {
        rec_pending_reset(self);
        self->deferred = 0;
    }
    __atomic_store_n(&self->npending, 0, __ATOMIC_RELEASE);
    self->due = 0;
}

static void child_begin(void)
{
    struct rec_thread *self = rec_self;

    rec_trace_fork_child();
    if (self)
        parents_deferred_drop(self);
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

void rec_fork_child(void)
{
    int saved = errno;

    if (!rec_started)
        return;
    if (rec_stacks)
        rec_stack_fork_child();
    child_begin();
    if (guarded)
        rec_leave();   /* what a handler deferred in the child, into its own chain */
    errno = saved;
}

void rec_fork_init(void)
{
    pthread_atfork(rec_fork_prepare, rec_fork_parent, rec_fork_child);
}
