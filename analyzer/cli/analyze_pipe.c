/*
 * analyze_pipe.c - a lone native trace analysed on two threads: the reader
 * (reading, decompression, decoding, the merge of the chains) on a thread
 * of its own, the engine and rules on the calling one, batches of events
 * handed over a bounded queue.
 *
 * The engine gets the same events in the same order as on one thread, only
 * cut into other batches, which it does not see: the output is the same
 * byte for byte (tests/e2e/test_an_pipeline.sh).
 *
 * What crosses between the CPUs' caches is what costs (docs/performance.md):
 * a struct iot_event is 280 bytes, and the reader would write each anew for
 * the other CPU to read. So the calls that make most of a trace, plain ones
 * with no field beyond fd, size, offset and whence, cross as a pipe_rec of
 * 56 bytes (struct engine_call), and only the other events are copied
 * whole. The engine takes the records as they are (engine_calls): a record
 * holds everything such an event has (every member its has-bits do not
 * name is zero in a call the reader decoded, decode.c), so the engine sees
 * the events the reader decoded. Where an observer must see every event,
 * the engine's thread turns the records back into events in a few arrays
 * of its own, which stay in its cache. The reader decodes into its chains'
 * rings as on one thread. Memory: PIPE_DEPTH batches of at most PIPE_CAP
 * events, whatever the trace's length.
 *
 * Decompression is done ahead of the reader (reader_ahead.c): by both
 * threads, in the time either would wait for the other, on two CPUs; by a
 * third thread with more.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"
#include "thread.h"
#include "analyze_pipe.h"

#define PIPE_DEPTH 8
#define PIPE_BATCH 2048
/*
 * A thread with nothing to do waits PIPE_SPIN turns awake, then sleeps
 * until the other has done half the queue's worth: on a busy machine each
 * wake-up waits for a turn on a CPU, so there are few (one per
 * PIPE_DEPTH / 2 batches at most).
 */
#define PIPE_SPIN 100
#define PIPE_CAP (PIPE_BATCH + IOT_TRACE_BATCH_MAX)
/* A trace read on two threads by default: about 2 M events of bench/gen_trace. */
#define PIPE_MIN_BYTES ((uint64_t)8 << 20)
/* Events the engine's thread rebuilds at a time (engine_events' batch). */
#define PIPE_EXPAND 64

/* The has-bits a call crossing as a record may have (engine.h). */
#define REC_HAS (IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_WHENCE)
_Static_assert((REC_HAS & ~0xffffu) == 0, "a record's has-bits fit its has");

/* A batch: the calls that cross as records, in order, and the events
   copied whole, full[k] coming after the first full_at[k] records */
struct pipe_slot {
    struct engine_call *recs;       /* PIPE_CAP */
    unsigned n;
    struct iot_event *full;         /* PIPE_CAP, made when needed */
    unsigned *full_at;
    unsigned nfull;
    const char **argv;              /* their process events' argv arrays, one after another */
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
    struct placement *place;        /* where the threads run, or NULL: where the scheduler puts them */
    int step;                       /* both threads decompress ahead while they would wait */
    char errbuf[IOT_ERRBUF_SIZE];
    struct pipe_slot slot[PIPE_DEPTH];
};

/* Whether ev crosses as a record: a plain call whose fields a record holds. */
static inline int rec_fits(const struct iot_event *ev)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* kind, op, bufmode, plain and has are the event's first 8 bytes: one
       test for all but op, which may be any */
    _Static_assert(offsetof(struct iot_event, op) == 1 && offsetof(struct iot_event, bufmode) == 2 &&
                   offsetof(struct iot_event, plain) == 3 && offsetof(struct iot_event, has) == 4 &&
                   sizeof(ev->has) == 4, "the first 8 bytes of struct iot_event");
    const uint64_t mask = ~((uint64_t)0xff << 8 | (uint64_t)REC_HAS << 32);
    const uint64_t want = (uint64_t)IOT_EV_CALL | (uint64_t)1 << 24;
    uint64_t head;

    memcpy(&head, ev, sizeof(head));
    return ((head & mask) == want) & ((uint32_t)ev->whence <= UINT8_MAX);
#else
    return ev->kind == IOT_EV_CALL && ev->plain == 1 && !(ev->has & ~REC_HAS) &&
           (uint32_t)ev->whence <= UINT8_MAX && !ev->bufmode;
#endif
}

static inline void rec_put(struct engine_call *r, const struct iot_event *ev)
{
    /* two runs of members in the same order in both: block copies */
    _Static_assert(offsetof(struct iot_event, ret) - offsetof(struct iot_event, pid) ==
                   offsetof(struct engine_call, ret) - offsetof(struct engine_call, pid) &&
                   offsetof(struct iot_event, tid) - offsetof(struct iot_event, pid) ==
                   offsetof(struct engine_call, tid) - offsetof(struct engine_call, pid) &&
                   offsetof(struct iot_event, t) - offsetof(struct iot_event, pid) ==
                   offsetof(struct engine_call, t) - offsetof(struct engine_call, pid) &&
                   offsetof(struct iot_event, dur) - offsetof(struct iot_event, pid) ==
                   offsetof(struct engine_call, dur) - offsetof(struct engine_call, pid) &&
                   offsetof(struct iot_event, offset) - offsetof(struct iot_event, size) ==
                   offsetof(struct engine_call, offset) - offsetof(struct engine_call, size),
                   "pid..ret and size..offset in the same order");
    memcpy(&r->pid, &ev->pid,
           offsetof(struct engine_call, ret) + sizeof(r->ret) - offsetof(struct engine_call, pid));
    memcpy(&r->size, &ev->size, sizeof(r->size) + sizeof(r->offset));
    r->fd = ev->fd;
    r->op = ev->op;
    r->whence = (uint8_t)ev->whence;
    r->has = (uint16_t)ev->has;
}

/* ev, an event that does not fit a record, copied into sl whole, with
   a process event's argv (its place as an offset until the batch is full:
   the array may still move) */
static int keep_full(struct pipe_slot *sl, const struct iot_event *ev)
{
    struct iot_event *c;

    if (!sl->full && !(sl->full = malloc(PIPE_CAP * sizeof(*sl->full))))
        return -1;
    if (!sl->full_at && !(sl->full_at = malloc(PIPE_CAP * sizeof(*sl->full_at))))
        return -1;
    c = &sl->full[sl->nfull];
    *c = *ev;
    if (ev->kind == IOT_EV_PROCESS) {
        size_t need = (size_t)(ev->argc > 0 ? ev->argc : 0) + 1;

        if (iot_grow(&sl->argv, &sl->argv_cap, sl->argv_n + need, sizeof(*sl->argv)) < 0)
            return -1;
        if (ev->argv)
            memcpy(sl->argv + sl->argv_n, ev->argv, need * sizeof(*sl->argv));
        else
            memset(sl->argv + sl->argv_n, 0, need * sizeof(*sl->argv));
        c->argv = (const char *const *)(uintptr_t)sl->argv_n;
        sl->argv_n += need;
    }
    sl->full_at[sl->nfull++] = sl->n;
    return 0;
}

/* Fill sl with the events of the next batch: 1 more to come, 0 end, -1 error. */
static int fill(struct pipe *p, struct pipe_slot *sl)
{
    int rc = 1;

    sl->n = sl->nfull = 0;
    sl->argv_n = 0;
    while (sl->n + sl->nfull < PIPE_BATCH) {
        const struct iot_event *const *got, *const *evs, *const *end;
        /* the next record by a pointer kept in a register: as sl->n, the
           records' stores would make gcc reload it */
        struct engine_call *r = sl->recs + sl->n;

        rc = iot_trace_next_batch(p->tr, &got, p->errbuf);
        if (rc <= 0)
            break;
        /* evs live until the next call: copied now */
        for (evs = got, end = got + rc; evs < end; evs++) {
            if (__builtin_expect(rec_fits(*evs), 1)) {
                rec_put(r++, *evs);
                continue;
            }
            sl->n = (unsigned)(r - sl->recs);
            if (keep_full(sl, *evs) < 0) {
                snprintf(p->errbuf, sizeof(p->errbuf), "out of memory");
                rc = -1;
                goto out;   /* the events kept so far are handed over */
            }
        }
        sl->n = (unsigned)(r - sl->recs);
        rc = 1;
    }
out:
    for (unsigned i = 0; i < sl->nfull; i++)
        if (sl->full[i].kind == IOT_EV_PROCESS)
            sl->full[i].argv = sl->argv + (uintptr_t)sl->full[i].argv;
    return rc;
}

/*
 * The engine's side of a batch: runs of records to calls, the events
 * copied whole between them to each; without calls, the records rebuilt
 * into events, PIPE_EXPAND at a time, in evs (zeroed once, then only ever
 * holding such calls).
 */
static void drain(const struct pipe_slot *sl, struct iot_event *evs, const struct pipe_sink *to)
{
    const struct iot_event *ptrs[PIPE_EXPAND];
    unsigned k = 0, from = 0, full = 0;

    if (to->calls) {
        for (; full < sl->nfull; full++) {
            const struct iot_event *ev = &sl->full[full];

            if (sl->full_at[full] > from)
                to->calls(to->arg, sl->recs + from, sl->full_at[full] - from);
            from = sl->full_at[full];
            to->events(to->arg, &ev, 1);
        }
        if (sl->n > from)
            to->calls(to->arg, sl->recs + from, sl->n - from);
        return;
    }
    for (unsigned i = 0; i <= sl->n; i++) {
        /* the events copied whole that came before record i */
        for (; full < sl->nfull && sl->full_at[full] == i; full++) {
            ptrs[k++] = &sl->full[full];
            if (k == PIPE_EXPAND) {
                to->events(to->arg, ptrs, k);
                k = 0;
            }
        }
        if (i == sl->n)
            break;
        engine_call_event(&evs[k], &sl->recs[i]);
        ptrs[k] = &evs[k];
        if (++k == PIPE_EXPAND) {
            to->events(to->arg, ptrs, k);
            k = 0;
        }
    }
    if (k)
        to->events(to->arg, ptrs, k);
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

/*
 * Where the two threads run when the process may use exactly two CPUs: one
 * on each, so that neither waits out a turn of the other's on a CPU they
 * would share while the other CPU idles (docs/analyzer.md, "Threads").
 * With three CPUs or more nothing is placed. Where the threads run changes
 * nothing in the output, only its speed.
 */
struct placement {
    cpu_set_t all;          /* the calling thread's own, given back at the end */
    cpu_set_t reader, rest;
};

/* Places the calling thread (the engine's) and so the threads it starts,
   which inherit its CPUs; the reader's moves itself (reader_main). NULL:
   not placed. */
static struct placement *place_engine(struct placement *pl)
{
    int first = -1, second = -1;

    if (sched_getaffinity(0, sizeof(pl->all), &pl->all) != 0 || CPU_COUNT(&pl->all) != 2)
        return NULL;
    for (int c = 0; c < CPU_SETSIZE && second < 0; c++) {
        if (!CPU_ISSET(c, &pl->all))
            continue;
        if (first < 0)
            first = c;
        else
            second = c;
    }
    CPU_ZERO(&pl->rest);
    CPU_SET(first, &pl->rest);
    CPU_ZERO(&pl->reader);
    CPU_SET(second, &pl->reader);
    return pthread_setaffinity_np(pthread_self(), sizeof(pl->rest), &pl->rest) == 0 ? pl : NULL;
}

/* How many CPUs this process may run on (its affinity mask); 1 when unknown. */
static int usable_cpus(void)
{
    cpu_set_t cpus;

    return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
}

static void *reader_main(void *arg)
{
    struct pipe *p = arg;

    if (p->place)
        (void)pthread_setaffinity_np(pthread_self(), sizeof(p->place->reader), &p->place->reader);
    for (uint64_t seq = 0;; seq++) {
        struct pipe_slot *sl = &p->slot[seq % PIPE_DEPTH];
        int rc;

        for (int spin = 0; !reader_may_go(p); spin++) {
            if (p->step && iot_trace_ahead_step(p->tr) > 0) {
                spin = 0;
                continue;
            }
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
        rc = fill(p, sl);
        if (rc <= 0)
            p->rc = rc;
        if (sl->n + sl->nfull)
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

int analyze_pipe(struct iot_trace *tr, const struct pipe_sink *to, char *errbuf)
{
    struct pipe *p = calloc(1, sizeof(*p));
    struct iot_event *evs = calloc(PIPE_EXPAND, sizeof(*evs));
    struct placement place;
    pthread_t th;
    int rc = -1;

    if (!p || !evs)
        goto oom;
    p->tr = tr;
    for (int i = 0; i < PIPE_DEPTH; i++)
        if (!(p->slot[i].recs = malloc(PIPE_CAP * sizeof(*p->slot[i].recs))))
            goto oom;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->space, NULL);
    pthread_cond_init(&p->data, NULL);
    p->place = place_engine(&place);
    /*
     * zstd ahead of the reader. With three CPUs or more on a thread of its
     * own. With two, a third busy thread would take the scheduler's turns
     * of milliseconds with one of the others, while the queue between them
     * lasts a fraction of one; so there each thread decompresses a chunk
     * ahead whenever it would otherwise wait for the other, and the work
     * goes to whichever has the time (docs/performance.md). Without
     * either, the reader decompresses each chunk as it loads it.
     */
    if (usable_cpus() > 2)
        (void)iot_trace_ahead(tr);
    else
        p->step = iot_trace_ahead_stepped(tr) == 0;
    if (iot_thread_start(&th, reader_main, p) != 0) {
        /* no second thread (a limit on threads or memory): the same
           batches, read and analysed in turn on this one */
        do {
            p->rc = fill(p, &p->slot[0]);
            drain(&p->slot[0], evs, to);
        } while (p->rc > 0);
        goto done;
    }
    for (uint64_t seq = 0;; seq++) {
        struct pipe_slot *sl = &p->slot[seq % PIPE_DEPTH];

        for (int spin = 0; !engine_may_go(p, seq); spin++) {
            if (p->step && iot_trace_ahead_step(tr) > 0) {
                spin = 0;
                continue;
            }
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
        drain(sl, evs, to);
        atomic_store(&p->consumed, seq + 1);
        if (atomic_load(&p->produced) - (seq + 1) <= PIPE_DEPTH / 2)
            wake(p, &p->reader_sleeps, &p->space);
    }
    pthread_join(th, NULL);
done:
    if (p->place)
        (void)pthread_setaffinity_np(pthread_self(), sizeof(place.all), &place.all);
    rc = p->rc;
    if (rc < 0)
        memcpy(errbuf, p->errbuf, IOT_ERRBUF_SIZE);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->space);
    pthread_cond_destroy(&p->data);
    goto free;
oom:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
free:
    for (int i = 0; p && i < PIPE_DEPTH; i++) {
        free(p->slot[i].recs);
        free(p->slot[i].full);
        free(p->slot[i].full_at);
        free(p->slot[i].argv);
    }
    free(p);
    free(evs);
    return rc;
}

int analyze_threads(int jobs, const struct iot_trace *tr)
{
    struct iot_trace_stats st;

    if (jobs > 0)
        return jobs;
    /*
     * By what the process may use and the trace's size, never by the
     * machine's load (which would make the path taken, and its cost,
     * depend on what else runs). Two threads cost about 13% more
     * instructions than one (the records, the handovers), split so that
     * neither thread does more than half of one thread's work
     * (docs/performance.md); below PIPE_MIN_BYTES the run is too short
     * for the threads to pay.
     */
    if (usable_cpus() < 2)
        return 1;
    iot_trace_stats(tr, &st);
    return st.file_bytes >= PIPE_MIN_BYTES ? 2 : 1;
}
