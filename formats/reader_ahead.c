/*
 * reader_ahead.c - decompression ahead: the chunks pass 2 will load next
 * are read and decompressed before it wants them, so that the thread
 * merging the chains only decodes. zstd is about a third of that thread's
 * instructions on a typical trace (docs/performance.md). The work is done
 * by a thread of the reader's own (iot_trace_ahead), or a chunk at a time
 * by whichever of the caller's threads has time (iot_trace_ahead_step):
 * the same work, in the same order, and the same events either way.
 *
 * Which chunk pass 2 loads next is the merge's choice, made one event at a
 * time; the worker guesses it without the events: chain s loads chunk i + 1
 * once chunk i's events run out, which is after chunk i started, so the
 * chunks are taken in the order of their predecessor's start time (chunk 0
 * by its own). A guess that comes too late costs nothing but the work: the
 * reader decompresses a chunk it does not find ready itself, as without
 * decompression ahead, and the worker drops it. The bytes the reader
 * decodes are the same either way, so are the events; damage is left to
 * the reader, which finds it as before (the worker hands over only frames
 * that decompressed whole).
 *
 * Memory: AHEAD_SLOTS buffers of at most AHEAD_CHUNK_MAX bytes each (larger
 * chunks are left to the reader), whatever the trace's length. Chains whose
 * chunk list went to the spill file (reader_chunks.c) and inputs read by
 * name are left to the reader too: their state is the reader thread's.
 * Up to AHEAD_WORKERS threads step at once, each with its own zstd context.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "thread.h"
#include "reader_int.h"

#define AHEAD_SLOTS 8
/* Threads that may decompress ahead at once: the engine's and the reader's, stepping. */
#define AHEAD_WORKERS 2
#define AHEAD_CHUNK_MAX ((size_t)1 << 20)

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };

struct ahead_slot {
    int state;
    size_t chain, idx;      /* the chunk it holds (FILLING, READY) */
    uint8_t *buf;           /* content followed by IOT_DEC_PAD zero bytes */
    size_t cap, n;          /* cap counts the content, as a chain's buf_cap */
};

/* What one thread decompressing ahead needs of its own. */
struct ahead_worker {
    int busy;
    ZSTD_DCtx *dctx;
    uint8_t *cbuf;          /* the compressed frame */
    size_t cbuf_cap;
};

/* The worker's next chunk of a chain, keyed by its predecessor's start. */
struct ahead_ent {
    int64_t key;
    size_t chain, idx;
};

struct trace_ahead {
    struct iot_trace *tr;
    int threaded;           /* th runs ahead_main; else the caller steps (iot_trace_ahead_step) */
    pthread_t th;
    pthread_mutex_t lock;
    pthread_cond_t space;   /* the worker waits for a free slot */
    pthread_cond_t filled;  /* the reader waits for a slot being filled with its chunk */
    int stop;
    struct ahead_slot slot[AHEAD_SLOTS];
    size_t *taken;          /* per chain: chunks below it the reader has loaded */
    struct ahead_ent *heap;
    size_t nheap;
    struct ahead_worker worker[AHEAD_WORKERS];
};

static int ent_less(const struct ahead_ent *x, const struct ahead_ent *y)
{
    return x->key < y->key || (x->key == y->key && x->chain < y->chain);
}

static void heap_down(struct ahead_ent *h, size_t n, size_t i)
{
    struct ahead_ent e = h[i];

    for (;;) {
        size_t l = 2 * i + 1, m;

        if (l >= n)
            break;
        m = l + 1 < n && ent_less(&h[l + 1], &h[l]) ? l + 1 : l;
        if (!ent_less(&h[m], &e))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = e;
}

/* Whether the worker may read chain s's chunks: its list in memory, its input open. */
static int chain_eligible(const struct iot_trace *tr, const struct trace_chain *s)
{
    return s->n && !s->nspilled && tr->inputs[s->input].fd >= 0;
}

/* The frame of chunk c of input in, decompressed into sl; 0, or -1. */
static int fill_slot(struct ahead_worker *a, const struct trace_input *in,
                     const struct chunk_ref *c, struct ahead_slot *sl)
{
    size_t got = 0, r;
    unsigned long long content;

    if (iot_grow(&a->cbuf, &a->cbuf_cap, c->csize, 1) < 0)
        return -1;
    while (got < c->csize) {
        ssize_t k = pread(in->fd, a->cbuf + got, c->csize - got, (off_t)(c->off + got));

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    content = ZSTD_getFrameContentSize(a->cbuf, c->csize);
    if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
        content < IOT_CHUNK_HDR_SIZE || content > AHEAD_CHUNK_MAX)
        return -1;
    if (content > sl->cap) {
        uint8_t *nb = realloc(sl->buf, content + IOT_DEC_PAD);

        if (!nb)
            return -1;
        sl->buf = nb;
        sl->cap = content;
    }
    r = ZSTD_decompressDCtx(a->dctx, sl->buf, content, a->cbuf, c->csize);
    if (ZSTD_isError(r) || r != content)
        return -1;
    memset(sl->buf + r, 0, IOT_DEC_PAD);
    sl->n = r;
    return 0;
}

/* A free slot, making free those whose chunk the reader loaded itself; NULL: none. */
static struct ahead_slot *free_slot(struct trace_ahead *a)
{
    for (size_t i = 0; i < AHEAD_SLOTS; i++) {
        struct ahead_slot *sl = &a->slot[i];

        if (sl->state == SLOT_READY && sl->idx < a->taken[sl->chain])
            sl->state = SLOT_FREE;
        if (sl->state == SLOT_FREE)
            return sl;
    }
    return NULL;
}

/*
 * Decompress the next chunk the reader is thought to load, into a free
 * slot. wait: for a slot, when none is free (the thread's way); else
 * return 0 at once (iot_trace_ahead_step's). 1: a chunk was decompressed
 * (or found unusable), 0: no free slot, -1: nothing left to do (or told
 * to stop).
 */
static int ahead_one(struct trace_ahead *a, int wait)
{
    struct iot_trace *tr = a->tr;
    struct ahead_slot *sl = NULL;
    const struct chunk_ref *c;
    struct trace_chain *s;
    struct ahead_worker *w = NULL;
    struct ahead_ent e;
    int ok;

    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < AHEAD_WORKERS && !w; i++)
        if (!a->worker[i].busy)
            w = &a->worker[i];
    if (!w) {
        /* as many threads as there are contexts are at it: none for this one */
        pthread_mutex_unlock(&a->lock);
        return 0;
    }
    for (;;) {
        while (!a->stop && a->nheap && !(sl = free_slot(a))) {
            if (!wait) {
                pthread_mutex_unlock(&a->lock);
                return 0;
            }
            pthread_cond_wait(&a->space, &a->lock);
        }
        if (a->stop || !a->nheap) {
            pthread_mutex_unlock(&a->lock);
            return -1;
        }
        e = a->heap[0];
        s = &tr->chains[e.chain];
        c = &s->chunks[e.idx];
        if (e.idx + 1 < s->n) {
            a->heap[0] = (struct ahead_ent){.key = c->base_t, .chain = e.chain, .idx = e.idx + 1};
        } else {
            a->heap[0] = a->heap[--a->nheap];
        }
        if (a->nheap > 1)
            heap_down(a->heap, a->nheap, 0);
        /* too large for a slot, or the reader got there first */
        if (c->dsize <= AHEAD_CHUNK_MAX && e.idx >= a->taken[e.chain])
            break;
    }
    sl->state = SLOT_FILLING;
    sl->chain = e.chain;
    sl->idx = e.idx;
    w->busy = 1;
    pthread_mutex_unlock(&a->lock);
    ok = fill_slot(w, &tr->inputs[s->input], c, sl) == 0;
    pthread_mutex_lock(&a->lock);
    w->busy = 0;
    sl->state = ok ? SLOT_READY : SLOT_FREE;
    pthread_cond_broadcast(&a->filled);
    pthread_mutex_unlock(&a->lock);
    return 1;
}

static void *ahead_main(void *arg)
{
    struct trace_ahead *a = arg;

    while (ahead_one(a, 1) >= 0)
        ;
    return NULL;
}

static void ahead_free(struct trace_ahead *a)
{
    for (size_t i = 0; i < AHEAD_SLOTS; i++)
        free(a->slot[i].buf);
    free(a->taken);
    free(a->heap);
    for (size_t i = 0; i < AHEAD_WORKERS; i++) {
        free(a->worker[i].cbuf);
        ZSTD_freeDCtx(a->worker[i].dctx);
    }
    free(a);
}

static int ahead_setup(struct iot_trace *tr, int threaded)
{
    struct trace_ahead *a;
    int ok;

    if (tr->ahead)
        return 0;
    a = calloc(1, sizeof(*a));
    if (!a)
        return -1;
    a->tr = tr;
    a->taken = calloc(tr->nchains ? tr->nchains : 1, sizeof(*a->taken));
    a->heap = calloc(tr->nchains ? tr->nchains : 1, sizeof(*a->heap));
    ok = a->taken && a->heap;
    for (size_t i = 0; i < AHEAD_WORKERS; i++)
        ok &= (a->worker[i].dctx = ZSTD_createDCtx()) != NULL;
    if (!ok) {
        ahead_free(a);
        return -1;
    }
    for (size_t i = 0; i < tr->nchains; i++) {
        const struct trace_chain *s = &tr->chains[i];

        /* before any event is read: the reader's state is pass 1's */
        if (chain_eligible(tr, s) && s->next == 0)
            a->heap[a->nheap++] = (struct ahead_ent){.key = s->chunks[0].base_t, .chain = i};
    }
    for (size_t i = a->nheap / 2 + 1; i-- > 0;)
        if (i < a->nheap)
            heap_down(a->heap, a->nheap, i);
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->space, NULL);
    pthread_cond_init(&a->filled, NULL);
    a->threaded = threaded;
    if (threaded && iot_thread_start(&a->th, ahead_main, a) != 0) {
        pthread_mutex_destroy(&a->lock);
        pthread_cond_destroy(&a->space);
        pthread_cond_destroy(&a->filled);
        ahead_free(a);
        return -1;
    }
    tr->ahead = a;
    return 0;
}

int iot_trace_ahead(struct iot_trace *tr)
{
    return ahead_setup(tr, 1);
}

int iot_trace_ahead_stepped(struct iot_trace *tr)
{
    return ahead_setup(tr, 0);
}

int iot_trace_ahead_step(struct iot_trace *tr)
{
    struct trace_ahead *a = tr->ahead;

    return a && !a->threaded ? ahead_one(a, 0) : -1;
}

size_t trace_ahead_take(struct iot_trace *tr, size_t chain, size_t idx, uint8_t **buf,
                        size_t *cap)
{
    struct trace_ahead *a = tr->ahead;
    size_t n = 0;

    pthread_mutex_lock(&a->lock);
    a->taken[chain] = idx + 1;
    for (size_t i = 0; i < AHEAD_SLOTS; i++) {
        struct ahead_slot *sl = &a->slot[i];

        if (sl->state == SLOT_FREE || sl->chain != chain || sl->idx != idx)
            continue;
        /* being filled: waiting costs less than decompressing it again */
        while (sl->state == SLOT_FILLING)
            pthread_cond_wait(&a->filled, &a->lock);
        if (sl->state == SLOT_READY && sl->chain == chain && sl->idx == idx) {
            /* the buffers change hands: the slot keeps the chain's old one */
            uint8_t *b = *buf;
            size_t c = *cap;

            *buf = sl->buf;
            *cap = sl->cap;
            n = sl->n;
            sl->buf = b;
            sl->cap = c;
            sl->state = SLOT_FREE;
        }
        break;
    }
    pthread_cond_signal(&a->space);
    pthread_mutex_unlock(&a->lock);
    return n;
}

void trace_ahead_stop(struct iot_trace *tr)
{
    struct trace_ahead *a = tr->ahead;

    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    a->stop = 1;
    pthread_cond_broadcast(&a->space);
    pthread_mutex_unlock(&a->lock);
    if (a->threaded)
        pthread_join(a->th, NULL);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->space);
    pthread_cond_destroy(&a->filled);
    ahead_free(a);
    tr->ahead = NULL;
}
