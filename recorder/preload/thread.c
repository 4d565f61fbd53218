/*
 * thread.c - each recorded thread's chain of chunks: it begins at the
 * thread's first event, switches chunks when one is full or a second old,
 * and closes its last chunk when the thread ends.
 *
 * The thread brackets a chunk switch with its slot's gen (odd while
 * switching), so a snapshot never pairs one chunk's buffer with another's
 * length; the slot's pub is 0 whenever its buf changes (segment.h).
 */
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"
#include "sandbox.h"

static pthread_key_t thread_key;
static uint64_t chain_salt;
static uint64_t chain_counter;

/* ----------------------------------------------------------- chain ids */

void rec_chain_ids_init(void)
{
    const uint8_t *rnd = (const uint8_t *)getauxval(AT_RANDOM);

    if (rnd)
        memcpy(&chain_salt, rnd + 8, sizeof(chain_salt));
    chain_salt ^= (uint64_t)rec_pid << 32 ^ (uint64_t)rec_now_ns();
}

void rec_chain_ids_fork_child(void)
{
    chain_salt ^= (uint64_t)rec_pid * 0xbf58476d1ce4e5b9ULL;
}

uint64_t rec_chain_id_new(void)
{
    return chain_salt ^ (__atomic_add_fetch(&chain_counter, 1,
                                             __ATOMIC_RELAXED) *
                          0x9e3779b97f4a7c15ULL);
}

/* -------------------------------------------------------------- chunks */

uint32_t rec_slot_number(const struct rec_thread *t)
{
    return (uint32_t)(t->ps - rec_seg_slot_at(rec_seg, 0)) + 1;
}

/* pub is 0 here (a new slot, or rec_chunk_close): buf may change. */
static void chain_begin(struct rec_thread *t, uint32_t bi, int64_t now)
{
    struct rec_seg_slot *ps = t->ps;

    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->buf, bi, __ATOMIC_RELEASE);
    if (bi)
        iot_enc_begin(&t->enc, rec_buf_data(bi), REC_CHUNK_CAP, now);
    else
        iot_enc_begin(&t->enc, NULL, 0, now);   /* every append fails */
    __atomic_store_n(&ps->base_t, now, __ATOMIC_RELAXED);
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
}

/*
 * Keeps the buffer when the chunk is empty. The chunk is queued before the
 * slot lets go of it: a process killed in between leaves the chunk to the
 * queue, its buffer marked queued, never lost nor written twice.
 */
int rec_chunk_close(struct rec_thread *t, uint32_t flags)
{
    struct rec_seg_slot *ps = t->ps;
    uint32_t bi = ps->buf;
    struct iot_chunk_hdr *h;

    if (!bi || t->enc.nrec == 0)
        return 0;
    h = &rec_seg_meta(rec_seg, bi)->hdr;
    memset(h, 0, sizeof(*h));
    h->version = IOT_FORMAT_VERSION;
    h->flags = flags;
    h->pid = rec_pid;
    h->tid = t->tid;
    h->stream_id = ps->chain_id;
    h->seq = ps->seq;
    h->nrec = t->enc.nrec;
    h->base_t = t->enc.base_t;
    h->bytes = (uint32_t)t->enc.len;
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    rec_queue_push(bi);
    __atomic_store_n(&ps->pub, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->buf, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->seq, ps->seq + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    __atomic_or_fetch(&t->due, REC_DUE_FLUSH, __ATOMIC_RELAXED);
    return 1;
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

void rec_chunk_switch(struct rec_thread *t, int64_t now)
{
    int saved = errno;
    uint32_t bi = t->ps->buf;

    if (rec_collected) {
        rec_collect_fds_check();
        if (!__atomic_load_n(&rec_active, __ATOMIC_ACQUIRE)) {
            /* the collector has taken our buffers back: queue nothing,
               and let every append fail from now on */
            iot_enc_begin(&t->enc, NULL, 0, now);
            errno = saved;
            return;
        }
    }
    if (rec_chunk_close(t, 0) || !bi)
        bi = rec_buf_get(rec_slot_number(t));
    chain_begin(t, bi, now);
    rec_clock_tick(now);
    errno = saved;
}

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
    chain_begin(t, bi, now);
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
    self->self = pthread_self();
    self->ps = slot_for(self->tid);
    if (!self->ps)
        return -1;
    bi = rec_buf_get(rec_slot_number(self));
    if (!bi) {
        rec_seg_slot_drop(self->ps);
        return -1;
    }
    chain_begin(self, bi, now);
    rec_process_record(self, now);
    rec_thread_name_record(self, now);
    return 0;
}
