/*
 * thread.c - a recorded thread's life around its chain of chunks (chain.c):
 * the chain begins at the thread's first event (with the process record
 * for the first thread), its last chunk closes when the thread ends, a
 * fork child's thread starts a chain of its own, and a rename is written
 * by the thread renamed.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "internal.h"
#include "sandbox.h"

static pthread_key_t thread_key;
/* ----------------------------------------------------- start and end */

/* The slot the collector or a snapshot sees the thread's chunks through. */
static struct rec_seg_slot *slot_for(int32_t tid)
{
    struct rec_seg_slot *ps = rec_seg_slot_take(rec_seg, rec_proc, rec_image,
                                                rec_pid, tid);

    if (ps)
        __atomic_store_n(&ps->chain_id, rec_chain_id_new(), __ATOMIC_RELAXED);
    return ps;
}

struct rec_thread *rec_thread_init(int first, int64_t now)
{
    struct rec_thread *t = rec_slot_take();
    int32_t tid = rec_sandbox_tid();
    uint32_t bi = 0;

    if (!t)
        return NULL;
    /*
     * A signal handler that runs from here on finds the guard set and
     * defers its calls, which needs rec_self: the slot's list (perhaps left
     * by its last owner) starts empty, and rec_leave appends them.
     */
    if (t->deferred) {
        /* only a slot whose list was used: the list spans pages that a
           process that never defers should not touch */
        rec_pending_reset(t);
        t->deferred = 0;
    }
    __atomic_store_n(&t->npending, 0, __ATOMIC_RELEASE);
    t->due = 0;
    t->errp = &errno;
    t->ps = slot_for(tid);
    if (t->ps) {
        rec_self = t;
        bi = rec_buf_get(rec_slot_number(t));
    }
    if (!bi) {
        rec_self = NULL;
        if (t->ps)
            rec_seg_slot_drop(t->ps);
        __atomic_store_n(&t->state, 0, __ATOMIC_RELEASE);
        return NULL;
    }
    t->tid = tid;
    t->self = pthread_self();
    rec_chain_begin(t, bi, now);
    pthread_setspecific(thread_key, t);
    if (first)
        rec_process_record(t, now);
    rec_thread_name_record(t, now);
    return t;
}

struct rec_thread *rec_thread_start(uint64_t s0)
{
    int saved = errno;
    struct rec_thread *t = NULL;
    int64_t t0 = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE),
                             s0);
    int64_t now = rec_now_ns();
    int mask_ok = !rec_filter_may_stand();
    sigset_t all, old;

    /*
     * The caller holds the guard, so a handler's call made before rec_self
     * is set could not be deferred anywhere and would be lost (the signal
     * storm of tests/e2e/test_stress_recorder.sh reaches that window).
     * Signals wait until the thread's chain of chunks is whole, as at its
     * end (thread_end); the handler's calls are then deferred to it.
     */
    sigfillset(&all);
    /* not where a seccomp filter may refuse rt_sigprocmask: a handler's
       call in that moment is lost there */
    if (mask_ok)
        pthread_sigmask(SIG_SETMASK, &all, &old);
    if (!rec_finished)
        t = rec_thread_init(0, t0 < now ? t0 : now);
    if (mask_ok)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return t;
}

/* pthread key destructor: the thread is ending. */
static void thread_end(void *arg)
{
    struct rec_thread *t = arg;
    int saved = errno, mask_ok = !rec_filter_may_stand();   /* as at its start */
    sigset_t all, old;

    if (!t || t != rec_self)
        return;
    /*
     * A handler's calls while the last chunk closes would be deferred to a
     * chain that is going away: signals wait until it is gone, and a
     * handler then starts a chain of its own.
     */
    sigfillset(&all);
    if (mask_ok)
        pthread_sigmask(SIG_SETMASK, &all, &old);
    rec_guard = 1;
    if (__atomic_load_n(&t->npending, __ATOMIC_ACQUIRE))
        rec_drain(t);
    rec_chunk_close(t, IOT_CHUNK_LAST);
    rec_trace_flush();
    if (t->ps->buf) {
        /* an empty chunk's buffer is ours to give back */
        uint32_t bi = t->ps->buf;

        __atomic_store_n(&t->ps->buf, 0, __ATOMIC_RELEASE);
        rec_buf_put(bi);
    }
    rec_seg_slot_drop(t->ps);
    rec_self = NULL;
    __atomic_store_n(&t->state, 0, __ATOMIC_RELEASE);
    rec_guard = 0;
    if (mask_ok)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

int rec_thread_key_init(void)
{
    return pthread_key_create(&thread_key, thread_end);
}

/*
 * In a fork child: the forking thread's chain starts anew, in a slot and
 * a buffer of the child's own (the parent's slot and open buffer are still
 * the parent's, in a shared segment). 0, or -1 when none is left.
 */
int rec_thread_fork_child(struct rec_thread *self)
{
    int64_t now = rec_now_ns();
    uint32_t bi;

    self->tid = rec_pid;    /* the child's only thread: no gettid */
    self->errp = &errno;
    self->self = pthread_self();
    self->ps = slot_for(self->tid);
    if (!self->ps)
        return -1;
    bi = rec_buf_get(rec_slot_number(self));
    if (!bi) {
        rec_seg_slot_drop(self->ps);
        return -1;
    }
    rec_chain_begin(self, bi, now);
    rec_process_record(self, now);
    rec_thread_name_record(self, now);
    return 0;
}

/* ---------------------------------------------------------------- names */

void rec_thread_renamed(pthread_t thread, const char *name)
{
    struct rec_thread *t;

    if (pthread_equal(thread, pthread_self())) {
        int fresh = rec_self == NULL;

        t = rec_enter(rec_stamp());
        if (!t)
            return;
        if (fresh) {
            /* Its first event: the thread record just written has the name. */
            rec_leave();
            return;
        }
        int64_t now = rec_now_ns();

        if (iot_enc_thread(&t->enc, now, name) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_thread(&t->enc, now, name);
        }
        rec_publish(t);
        rec_leave();
        return;
    }
    /* Another thread's chunk is its own: it notes the name at its next call. */
    for (int i = 0, n = rec_slots_mapped(); i < n; i++) {
        struct rec_thread *s = rec_slot_at(i);

        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) &&
            pthread_equal(s->self, thread))
            __atomic_or_fetch(&s->due, REC_DUE_RENAMED, __ATOMIC_RELEASE);
    }
}
