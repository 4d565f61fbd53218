/*
 * analyze_pipe.c - a lone native trace analysed on two threads: the reader
 * (reading, decompression, decoding, the merge of the chains) on a thread
 * of its own, the engine and rules on the calling one, batches of events
 * handed over a bounded queue.
 *
 * The engine gets the same events in the same order as on one thread, only
 * cut into other batches, which it does not see: the output is the same
 * byte for byte (tests/e2e/test_an_pipeline.sh). The reader holds the
 * events of the batches in the queue (iot_trace_hold), so nothing is
 * copied but the pointers, and a process event with its argv (the only
 * part of an event the decoder reuses). Memory: PIPE_DEPTH batches of at
 * most PIPE_BATCH + IOT_TRACE_BATCH_MAX events, whatever the trace's length.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"
#include "analyze_pipe.h"

#define PIPE_DEPTH 8
#define PIPE_BATCH 1024
/*
 * A thread with nothing to do waits PIPE_SPIN turns awake, then sleeps
 * until the other has done half the queue's worth: on a busy machine each
 * wake-up waits for a turn on a CPU, so there are few (one per
 * PIPE_DEPTH / 2 batches at most). The queue is small because the
 * events cross from one core's cache to the other's: 8 batches of 1024
 * events (2.3 MB of events) cost less CPU than 8 of 4096 (docs/performance.md).
 */
#define PIPE_SPIN 100
#define PIPE_CAP (PIPE_BATCH + IOT_TRACE_BATCH_MAX)

struct pipe_slot {
    const struct iot_event **evs;   /* PIPE_CAP */
    unsigned n;
    struct iot_event *procs;        /* process events, copied (PIPE_CAP, made when needed) */
    unsigned nprocs;
    const char **argv;              /* their argv arrays, one after another */
    size_t argv_n, argv_cap;
};

struct pipe {
    struct iot_trace *tr;
    _Atomic uint64_t produced, consumed;  /* batches handed over, batches done with */
    _Atomic int end;                /* the reader is done: rc 0 at the end, -1 error */
    int rc;
    /* a thread that found nothing to do for PIPE_SPIN turns sleeps on its
       condition, saying so in its flag, which the other reads after each
       batch (both sequentially consistent: one of the two sees the other) */
    pthread_mutex_t lock;
    pthread_cond_t space, data;     /* the reader waits for space, the engine for data */
    _Atomic int reader_sleeps, engine_sleeps;
    char errbuf[IOT_ERRBUF_SIZE];
    struct pipe_slot slot[PIPE_DEPTH];
};

/* ev, a process event, copied into sl with its argv (argv's place as an
   offset until the batch is full: the array may still move) */
static int keep_process(struct pipe_slot *sl, const struct iot_event *ev)
{
    struct iot_event *c;
    size_t need = (size_t)(ev->argc > 0 ? ev->argc : 0) + 1;

    if (!sl->procs && !(sl->procs = malloc(PIPE_CAP * sizeof(*sl->procs))))
        return -1;
    if (iot_grow(&sl->argv, &sl->argv_cap, sl->argv_n + need, sizeof(*sl->argv)) < 0)
        return -1;
    c = &sl->procs[sl->nprocs++];
    *c = *ev;
    if (ev->argv)
        memcpy(sl->argv + sl->argv_n, ev->argv, need * sizeof(*sl->argv));
    else
        memset(sl->argv + sl->argv_n, 0, need * sizeof(*sl->argv));
    c->argv = (const char *const *)(uintptr_t)sl->argv_n;
    sl->argv_n += need;
    sl->evs[sl->n++] = c;
    return 0;
}

/* Fill sl with the events of batch seq: 1 more to come, 0 end, -1 error. */
static int fill(struct pipe *p, struct pipe_slot *sl, uint64_t seq)
{
    int rc = 1;

    iot_trace_hold_seq(p->tr, seq);
    sl->n = sl->nprocs = 0;
    sl->argv_n = 0;
    while (sl->n < PIPE_BATCH) {
        const struct iot_event *const *evs;

        rc = iot_trace_next_batch(p->tr, &evs, p->errbuf);
        if (rc <= 0)
            break;
        for (int i = 0; i < rc; i++) {
            if (__builtin_expect(evs[i]->kind != IOT_EV_PROCESS, 1)) {
                sl->evs[sl->n++] = evs[i];
            } else if (keep_process(sl, evs[i]) < 0) {
                snprintf(p->errbuf, sizeof(p->errbuf), "out of memory");
                return -1;
            }
        }
        rc = 1;
    }
    for (unsigned i = 0; i < sl->nprocs; i++)
        sl->procs[i].argv = sl->argv + (uintptr_t)sl->procs[i].argv;
    return rc;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int reader_may_go(struct pipe *p)
{
    return atomic_load(&p->produced) - atomic_load(&p->consumed) < PIPE_DEPTH;
}

static int engine_may_go(struct pipe *p, uint64_t seq)
{
    return atomic_load(&p->produced) > seq || atomic_load(&p->end);
}

/* Wake the other thread if it sleeps on cv. */
static void wake(struct pipe *p, _Atomic int *sleeps, pthread_cond_t *cv)
{
    if (atomic_load(sleeps)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_signal(cv);
        pthread_mutex_unlock(&p->lock);
    }
}

static void *reader_main(void *arg)
{
    struct pipe *p = arg;

    for (uint64_t seq = 0;; seq++) {
        struct pipe_slot *sl = &p->slot[seq % PIPE_DEPTH];
        int rc;

        for (int spin = 0; !reader_may_go(p); spin++) {
            if (spin < PIPE_SPIN) {
                relax();
                continue;
            }
            pthread_mutex_lock(&p->lock);
            atomic_store(&p->reader_sleeps, 1);
            while (!reader_may_go(p))
                pthread_cond_wait(&p->space, &p->lock);
            atomic_store(&p->reader_sleeps, 0);
            pthread_mutex_unlock(&p->lock);
        }
        /* the rings of the batches the engine is done with are the reader's again */
        iot_trace_hold_done(p->tr, atomic_load(&p->consumed));
        rc = fill(p, sl, seq);
        if (rc <= 0)
            p->rc = rc;
        if (sl->n)
            atomic_store(&p->produced, seq + 1);
        if (rc <= 0)
            atomic_store(&p->end, 1);
        if (rc <= 0 || seq + 1 - atomic_load(&p->consumed) >= PIPE_DEPTH / 2)
            wake(p, &p->engine_sleeps, &p->data);
        if (rc <= 0)
            break;
    }
    return NULL;
}

int analyze_pipe(struct iot_trace *tr, analyze_pipe_fn *each, void *arg, char *errbuf)
{
    struct pipe *p = calloc(1, sizeof(*p));
    pthread_t th;
    int rc = -1;

    if (!p)
        goto oom;
    p->tr = tr;
    for (int i = 0; i < PIPE_DEPTH; i++)
        if (!(p->slot[i].evs = malloc(PIPE_CAP * sizeof(*p->slot[i].evs))))
            goto oom;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->space, NULL);
    pthread_cond_init(&p->data, NULL);
    iot_trace_hold(tr);
    if (pthread_create(&th, NULL, reader_main, p) != 0) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot start the reader's thread");
        goto out;
    }
    for (uint64_t seq = 0;; seq++) {
        struct pipe_slot *sl = &p->slot[seq % PIPE_DEPTH];

        for (int spin = 0; !engine_may_go(p, seq); spin++) {
            if (spin < PIPE_SPIN) {
                relax();
                continue;
            }
            pthread_mutex_lock(&p->lock);
            atomic_store(&p->engine_sleeps, 1);
            while (!engine_may_go(p, seq))
                pthread_cond_wait(&p->data, &p->lock);
            atomic_store(&p->engine_sleeps, 0);
            pthread_mutex_unlock(&p->lock);
        }
        if (atomic_load(&p->produced) == seq)
            break;  /* the end, or the reader's error */
        each(arg, sl->evs, sl->n);
        atomic_store(&p->consumed, seq + 1);
        if (atomic_load(&p->produced) - (seq + 1) <= PIPE_DEPTH / 2)
            wake(p, &p->reader_sleeps, &p->space);
    }
    pthread_join(th, NULL);
    rc = p->rc;
    if (rc < 0)
        memcpy(errbuf, p->errbuf, IOT_ERRBUF_SIZE);
out:
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->space);
    pthread_cond_destroy(&p->data);
    goto free;
oom:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
free:
    for (int i = 0; p && i < PIPE_DEPTH; i++) {
        free(p->slot[i].evs);
        free(p->slot[i].procs);
        free(p->slot[i].argv);
    }
    free(p);
    return rc;
}

int analyze_threads(int jobs)
{
    /* one thread unless asked: on this project's 2-CPU measurements the
       second thread has not yet paid for the events crossing between the
       CPUs' caches (docs/performance.md), and a default that followed the
       machine's load would make the path taken depend on it */
    return jobs > 0 ? jobs : 1;
}
