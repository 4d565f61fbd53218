/*
 * flusher.c - one thread per recorded process that compresses and writes
 * the queued chunks (waking on a queued chunk or every 100 ms), snapshots
 * open chunks twice a second, re-anchors the clock once a second, and
 * serves synchronous flush requests (exit, exec): with the trace fd in its
 * private table, nobody else can write it.
 *
 * It blocks every signal (the program's signals are never delivered to it)
 * and records nothing (its guard is REC_GUARD_OFF).
 */
#include <signal.h>

#include "internal.h"

int rec_flusher_running;
__thread int rec_is_flusher REC_TLS;

static pthread_t flusher;
static uint32_t wake_word;                /* futex the flusher sleeps on */
static int flusher_waiting;
static uint32_t flusher_ready;            /* futex: 1 started, 2 with a private table */
static int32_t flusher_tid;
static uint32_t sync_req, sync_done;      /* futex: synchronous flush requests */

void rec_flusher_notify(void)
{
    __atomic_add_fetch(&wake_word, 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&flusher_waiting, __ATOMIC_ACQUIRE))
        rec_futex_wake(&wake_word);
}

void rec_flusher_wake(void)
{
    rec_futex_wake(&wake_word);
}

static void *flusher_main(void *arg)
{
    int64_t last_snap = rec_mono_ns(), last_anchor = last_snap;
    uint32_t served = __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE);

    (void)arg;
    rec_is_flusher = 1;
    flusher_tid = rec_gettid();
    rec_guard = REC_GUARD_OFF;   /* nothing this thread does is the program's I/O */
    __atomic_store_n(&flusher_ready, rec_trace_go_private() ? 2 : 1,
                     __ATOMIC_RELEASE);
    rec_futex_wake_all(&flusher_ready);
    for (;;) {
        uint32_t seen = __atomic_load_n(&wake_word, __ATOMIC_ACQUIRE);
        uint32_t req = __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE);
        int64_t now;

        pthread_mutex_lock(&rec_flush_lock);
        rec_trace_drain();
        now = rec_mono_ns();
        /* Twice a second, so a kill -9 loses about the last second at most. */
        if (req != served || now - last_snap >= 500000000LL) {
            rec_trace_snapshot();
            last_snap = now;
        }
        pthread_mutex_unlock(&rec_flush_lock);
        if (req != served) {
            served = req;
            __atomic_store_n(&sync_done, req, __ATOMIC_RELEASE);
            rec_futex_wake_all(&sync_done);
        }
        if (now - last_anchor >= 1000000000LL) {
            rec_clock_reanchor();
            last_anchor = now;
        }
        __atomic_store_n(&flusher_waiting, 1, __ATOMIC_RELEASE);
        if (rec_queue_empty() &&
            __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE) == served)
            rec_futex_wait(&wake_word, seen, 100000000L);
        __atomic_store_n(&flusher_waiting, 0, __ATOMIC_RELEASE);
    }
    return NULL;
}

void rec_flusher_start(void)
{
    sigset_t all, old;
    int64_t deadline;

    /* The program's signals must never be delivered to our thread. */
    sigfillset(&all);
    __atomic_store_n(&flusher_ready, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rec_flusher_running = pthread_create(&flusher, NULL, flusher_main,
                                         NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!rec_flusher_running)
        return;
    deadline = rec_mono_ns() + 2000000000LL;
    while (__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE) == 0 &&
           rec_mono_ns() < deadline)
        rec_futex_wait(&flusher_ready, 0, 10000000L);
    rec_trace_settle(__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE) == 2);
}

/*
 * With a private trace fd only the flusher can write: ask it and wait
 * (bounded, so a flusher that is gone cannot hang the program's exit).
 */
void rec_flush_now(void)
{
    uint32_t my;
    int64_t deadline;

    if (!rec_trace_private() || !rec_flusher_running) {
        pthread_mutex_lock(&rec_flush_lock);
        rec_trace_drain();
        rec_trace_snapshot();
        pthread_mutex_unlock(&rec_flush_lock);
        return;
    }
    my = __atomic_add_fetch(&sync_req, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&wake_word, 1, __ATOMIC_RELEASE);
    rec_futex_wake(&wake_word);
    deadline = rec_mono_ns() + 5000000000LL;
    for (;;) {
        uint32_t done = __atomic_load_n(&sync_done, __ATOMIC_ACQUIRE);

        if ((int32_t)(done - my) >= 0 || rec_mono_ns() > deadline)
            break;
        rec_futex_wait(&sync_done, done, 20000000L);
    }
}

int rec_flusher_fork_child(void)
{
    /* The parent's flusher is not ours; its tid names its fd table. */
    if (rec_trace_fork_child(flusher_tid) != 0)
        return -1;
    sync_req = sync_done = 0;
    rec_flusher_start();
    return 0;
}
