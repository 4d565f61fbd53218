/*
 * reader_merge.c - pass 2 of the reader: a k-way merge over the chains by
 * event time. Each chain decodes one chunk at a time, a batch of events at
 * a time, so memory grows with the number of chains that overlap in time,
 * never with the number of events. This is the analyzer's hot path:
 * everything it runs per event is static in this file, so that it inlines.
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "reader_int.h"
#include "records.h"

/*
 * The merge orders chains by the time of their next event, or of their
 * next chunk's start when they have none decoded; at equal times a chain
 * without an event comes first (it may hold an event at that very time, and
 * nothing may overtake it), then the lower index. Time and that bit make one
 * key. Times beyond +-2^58 ns from the origin (9 years: hostile input only)
 * are clamped, which costs only their order among themselves.
 */
#define MERGE_T_MAX ((int64_t)1 << 58)
#define KEY_READY 8             /* the bit of a key that says the chain has an event */
#define KEY_SLOT 7              /* the bits of a scanned entry's position */
#define KEY_ENDED (INT64_MAX & ~(int64_t)KEY_SLOT)  /* a scanned entry whose chain ended */

/* Time and ready bit, shifted to leave KEY_SLOT clear: a scan puts the
   entry's position there, which makes its keys unique (the heap leaves it 0
   and compares indexes). */
static inline int64_t merge_key(int64_t t, int ready)
{
    int64_t t32;

    /* t * 32 overflows just where t is clamped: one test that never fails
       on real input, where two selects cost every event */
    if (__builtin_expect(__builtin_mul_overflow(t, 32, &t32), 0))
        t = t < 0 ? -MERGE_T_MAX : MERGE_T_MAX;
    return (int64_t)((uint64_t)(t * 2 + ready) << 3);
}

/* Whether a key's chain has an event decoded. */
static inline int key_ready(int64_t key)
{
    return (key & KEY_READY) != 0;
}

static inline int merge_heap_less(const struct merge_ent *x, const struct merge_ent *y)
{
    return x->key < y->key || (x->key == y->key && x->idx < y->idx);
}

static void merge_heap_down(struct iot_trace *tr, size_t i)
{
    struct merge_ent *h = tr->heap, e = h[i];
    size_t n = tr->nheap;

    for (;;) {
        size_t l = 2 * i + 1, m;

        if (l >= n)
            break;
        m = l + 1 < n && merge_heap_less(&h[l + 1], &h[l]) ? l + 1 : l;
        if (!merge_heap_less(&h[m], &e))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = e;
}

/*
 * The smallest key below the top. While the top chain's next event comes
 * strictly before it, the top stays on top: one comparison per event
 * instead of a sift, which is what a thread's run of calls costs.
 */
static int64_t merge_heap_limit(const struct iot_trace *tr)
{
    const struct merge_ent *h = tr->heap;

    if (tr->nheap > 2)
        return h[1].key < h[2].key ? h[1].key : h[2].key;
    return tr->nheap == 2 ? h[1].key : INT64_MAX;
}

/*
 * Up to SCAN_MAX chains the entries are not a heap but a list in index
 * order, and their keys are kept sorted apart from it (tr->sorted). Threads
 * running at once interleave call by call, so the smallest changes about
 * every other event, at random: putting the chosen chain's next key in its
 * place among the others with selects (min and max down the list) then
 * costs less than a sift whose branches mispredict. Keys with their
 * position are unique, and the first says where it is.
 *
 * x into sorted[1..n) (sorted[0] is the key it replaces): sorted[0..n)
 * sorted again. Unrolled where it is expanded, so that the scan's copy of
 * the keys lives in registers (rolled, gcc kept it on the stack, with a
 * flag per key saying whether the loop had changed it).
 */
static inline __attribute__((always_inline)) void sorted_insert(int64_t *sorted, size_t n,
                                                                int64_t x)
{
#pragma GCC unroll 8
    for (size_t i = 1; i < n; i++) {
        int64_t y = sorted[i];

        sorted[i - 1] = x < y ? x : y;
        x = x < y ? y : x;
    }
    sorted[n - 1] = x;
}

int trace_merge_start(struct iot_trace *tr)
{
    tr->heap = calloc(tr->nchains ? tr->nchains : 1, sizeof(*tr->heap));
    tr->out = malloc(OUT_MAX * sizeof(*tr->out));
    if (!tr->heap || !tr->out)
        return -1;
    for (size_t i = 0; i < tr->nchains; i++) {
        /* nothing decoded yet: the first chunk's start */
        const struct chunk_ref *first = trace_chain_chunk(tr, &tr->chains[i], 0);

        if (!first)
            return -1;
        tr->heap[tr->nheap].key = merge_key(first->base_t - tr->origin, 0);
        tr->heap[tr->nheap++].idx = (uint32_t)i;
    }
    tr->live = tr->nheap;
    tr->scan = tr->nheap <= SCAN_MAX;
    if (tr->scan) {
        _Static_assert(SCAN_MAX - 1 <= KEY_SLOT, "a scanned entry's position fits its key");
        for (size_t i = 0; i < tr->nheap; i++) {
            /* an insertion sort: sorted[0..i) holds the keys before i's */
            int64_t key = tr->heap[i].key | (int64_t)i;
            size_t j = i;

            for (; j > 0 && tr->sorted[j - 1] > key; j--)
                tr->sorted[j] = tr->sorted[j - 1];
            tr->sorted[j] = key;
        }
        tr->top = (size_t)(tr->sorted[0] & KEY_SLOT);
    } else {
        for (size_t i = tr->nheap / 2 + 1; i-- > 0;)
            if (i < tr->nheap)
                merge_heap_down(tr, i);
        tr->limit = merge_heap_limit(tr);
    }
    return 0;
}

/*
 * The top entry's chain has a new key (r = 1) or has ended (r = 0):
 * choose the next top.
 */
static void merge_settle(struct iot_trace *tr, int r, int64_t key)
{
    struct merge_ent *h = tr->heap;

    tr->live -= !r;
    if (tr->scan) {
        /* an ended chain keeps its place, behind every other key */
        sorted_insert(tr->sorted, tr->nheap, (r ? key : KEY_ENDED) | (int64_t)tr->top);
        tr->top = (size_t)(tr->sorted[0] & KEY_SLOT);
        return;
    }
    if (r) {
        h[0].key = key;
    } else {
        h[0] = h[--tr->nheap];
    }
    if (tr->nheap > 1)
        merge_heap_down(tr, 0);
    tr->limit = merge_heap_limit(tr);
}

void trace_chain_release(struct trace_chain *s)
{
    free(s->buf);
    free(s->ring);
    s->buf = NULL;
    s->ring = NULL;
    s->buf_cap = 0;
    iot_dec_free(&s->dec);
}

/*
 * Chunk c failed in pass 2 (a checksum or structure error pass 1 could not
 * see, or a frame that could no longer be read): it counts as damaged
 * instead of intact. What pass 1 counted for it comes from c, not from the
 * header just read, which may not have been parsed.
 */
static void chunk_damaged(struct iot_trace *tr, const struct chunk_ref *c)
{
    tr->stats.chunks--;
    tr->stats.chunks_damaged++;
    tr->stats.bytes_skipped += c->csize;
    tr->stats.raw_bytes -= c->dsize;
}

/* Bytes a chain's ring counts in tr->inflated. */
#define RING_BYTES sizeof(struct trace_ring)

/* Give chain s the ring it decodes every batch into. 0, or -1 out of memory. */
static int ring_take(struct iot_trace *tr, struct trace_chain *s)
{
    /* zeroed: the decoder takes a zero slot for an empty call */
    s->ring = calloc(1, sizeof(*s->ring));
    if (!s->ring)
        return -1;
    tr->inflated += RING_BYTES;
    iot_dec_switch(&s->dec, s->ring->held);
    return 0;
}

/*
 * Decode s's next batch of events from its loaded chunk, loading the next
 * chunks as needed. Returns 1 (s->ring[0..s->count) set), 0 (the chain
 * ended), -1 error.
 */
static int trace_chain_refill(struct iot_trace *tr, struct trace_chain *s, char *errbuf)
{
    char why[IOT_ERRBUF_SIZE];  /* damage is counted (chunks_damaged), not told per chunk */

    for (;;) {
        if (s->loaded) {
            if (s->last > 0) {
                int n = iot_dec_batch(&s->dec, s->ring->ev, IOT_DEC_BATCH, &s->last, why);

                if (n > 0) {
                    s->count = (unsigned)n;
                    return 1;
                }
            }
            /* the chunk is done: at its end, or at damage after the events given */
            s->loaded = 0;
            if (s->last < 0 && iot_strtab_full(tr->st)) {
                /* not damage: going on would only refuse every new string */
                if (errbuf)
                    snprintf(errbuf, IOT_ERRBUF_SIZE,
                             "cannot read trace '%s': more than %zu MiB of distinct strings "
                             "(paths, stacks, names); hostile input?",
                             tr->inputs[s->input].name, IOT_STRTAB_MAX_BYTES >> 20);
                return -1;
            }
            if (s->last < 0)
                tr->stats.chunks_damaged++;  /* events before the damage were kept */
        }
        if (s->next >= s->n) {
            tr->inflated -= s->buf_cap;
            tr->inflated -= s->ring ? RING_BYTES : 0;
            trace_chain_release(s);
            return 0;
        }
        const struct chunk_ref *c = trace_chain_chunk(tr, s, s->next++);
        const struct trace_input *in = &tr->inputs[s->input];
        struct iot_chunk_hdr h;
        const uint8_t *src;

        if (!c) {
            trace_set_err(errbuf, "cannot read trace '%s': %s", in->name,
                          "its list of chunks in the temporary file cannot be read back");
            return -1;
        }
        size_t had = s->buf_cap, n = 0;
        unsigned long long want;

        /* decompressed ahead, or read and decompressed here (below) */
        if (tr->ahead)
            n = trace_ahead_take(tr, (size_t)(s - tr->chains), s->next - 1, &s->buf, &s->buf_cap);
        src = n ? NULL : trace_input_read_frame(tr, in, c);
        /* read, whether it decodes or not: progress (iotrace.h) */
        tr->stats.bytes_read += c->csize;
        want = n ? n : src ? ZSTD_getFrameContentSize(src, c->csize) : 0;

        size_t grow = (want <= IOT_MAX_CHUNK_BYTES && want > had ? (size_t)(want - had) : 0) +
                      (s->ring ? 0 : RING_BYTES);

        /* pass 1 bounded each chunk; this bounds all threads' chunks together */
        if (tr->inflated + grow > IOT_MAX_INFLATED) {
            if (errbuf)
                snprintf(errbuf, IOT_ERRBUF_SIZE,
                         "cannot read trace '%s': its threads' chunks would need more than %zu MiB "
                         "of memory at once (a decompression bomb?)", in->name, IOT_MAX_INFLATED >> 20);
            return -1;
        }
        if (!s->ring && ring_take(tr, s) < 0) {
            trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, "out of memory");
            return -1;
        }
        if (!n)
            n = src ? trace_frame_decode(tr, src, c->csize, &s->buf, &s->buf_cap) : 0;
        /* modulo: a buffer from the ahead thread may be the smaller */
        tr->inflated += s->buf_cap - had;

        if (!n || iot_chunk_hdr_get(s->buf, n, &h) < 0 || h.bytes != n - IOT_CHUNK_HDR_SIZE ||
            h.seq != c->seq || h.nrec != c->nrec || h.base_t != c->base_t || h.pid != s->pid ||
            h.tid != s->tid || h.chain_id != s->chain_id) {
            chunk_damaged(tr, c);
            continue;
        }
        /* clears the ring's held: its slots hold nothing of this chunk */
        iot_dec_start(&s->dec, &h, s->buf + IOT_CHUNK_HDR_SIZE, tr->st, tr->origin);
        s->loaded = 1;
        s->last = 1;
    }
}

/* A chain's key once cur is handed out: cur[1]'s, or the batch's end's. */
static inline int64_t next_key(const struct iot_event *cur, const struct iot_event *end)
{
    int more = cur + 1 < end;

    return merge_key(cur[more].t, more);
}

/*
 * The merge hands out events while the top chain has them decoded. When a
 * chain's batch runs out its next key is unknown until it decodes again,
 * which overwrites its ring, so the round ends there, keeping it on top
 * (clearing the key's bit only makes it smaller), and so it does when the
 * new top is a chain still to decode. Returns the number of events put in
 * tr->out. One loop per way of finding the top, so each stays tight.
 *
 * Each choice depends on the one before, so the path from one choice to the
 * next is what the merge costs per event, and it is kept short:
 *  - the chosen chain's next key was worked out at its previous turn
 *    (key2, in an array indexed by position: no address arithmetic);
 *  - it goes into its place among the other keys, kept sorted in registers
 *    for the round, with selects only (a ?: on a load, or an ||, became
 *    branches that mispredict as the threads alternate); the first min
 *    down the list is already the next choice;
 *  - keys are unique (their position is in their low bits), so no index is
 *    carried along: the smallest key says where it is.
 */
static inline __attribute__((always_inline)) unsigned
emit_scan_n(struct iot_trace *tr, size_t k, int64_t first)
{
    struct merge_ent *h = tr->heap;
    int64_t *key2 = tr->key2;
    const struct iot_event **out = tr->out, **o = out;
    int64_t sk[SCAN_MAX];

#pragma GCC unroll 8
    for (size_t i = 0; i < k; i++)
        sk[i] = tr->sorted[i];
    /* the top chain's key after its refill, in its place */
    sorted_insert(sk, k, first);
    while (key_ready(sk[0])) {
        size_t t = (size_t)(sk[0] & KEY_SLOT);
        struct merge_ent *e = &h[t];
        const struct iot_event *c = e->cur, *end = e->end;
        int64_t key = key2[t];

        *o++ = c;
        e->cur = c + 1;
        if (c + 1 == end) {
            /* the batch's end (no ready bit): t stays first */
            sk[0] = key;
            break;
        }
        key2[t] = next_key(c + 1, end) | (int64_t)t;
        sorted_insert(sk, k, key);
        /* no count to check: a round hands out at most one batch per chain */
        _Static_assert(SCAN_MAX * IOT_DEC_BATCH <= OUT_MAX, "a round fits tr->out");
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < k; i++)
        tr->sorted[i] = sk[i];
    tr->top = (size_t)(sk[0] & KEY_SLOT);
    return (unsigned)(o - out);
}

/*
 * The scan unrolled for each number of chains: its loop is most of the
 * merge. first: the top chain's new key (it has just decoded), which
 * replaces sorted[0]; when it is no longer the smallest and the new top
 * has no event decoded, nothing is handed out (0).
 */
static unsigned emit_scan(struct iot_trace *tr, int64_t first)
{
    _Static_assert(SCAN_MAX == 8, "one case per number of chains");
    switch (tr->nheap) {
    case 1: return emit_scan_n(tr, 1, first);
    case 2: return emit_scan_n(tr, 2, first);
    case 3: return emit_scan_n(tr, 3, first);
    case 4: return emit_scan_n(tr, 4, first);
    case 5: return emit_scan_n(tr, 5, first);
    case 6: return emit_scan_n(tr, 6, first);
    case 7: return emit_scan_n(tr, 7, first);
    default: return emit_scan_n(tr, 8, first);
    }
}

static unsigned emit_heap(struct iot_trace *tr)
{
    struct merge_ent *h = tr->heap;
    const struct iot_event **out = tr->out;
    unsigned n = 0;

    for (;;) {
        out[n++] = h[0].cur++;
        if (h[0].cur == h[0].end) {
            h[0].key &= ~(int64_t)KEY_READY;
            break;
        }
        h[0].key = merge_key(h[0].cur->t, 1);
        if (h[0].key >= tr->limit) {
            /* no longer strictly first: sift */
            merge_heap_down(tr, 0);
            tr->limit = merge_heap_limit(tr);
        }
        if (n == OUT_MAX || !key_ready(h[0].key))
            break;
    }
    return n;
}

/*
 * Fills tr->out with the next events in time order: first the top chain
 * decodes its next batch (or chunk) for as long as it has none, then events
 * are handed out. Returns 1 (tr->out holds events), 0 (no more), -1 error.
 */
static __attribute__((noinline)) int merge_round(struct iot_trace *tr, char *errbuf)
{
    tr->out_n = tr->out_pos = 0;
    if (tr->scan) {
        /* a scan's top never has an event decoded when a round starts */
        while (tr->live) {
            struct merge_ent *top = &tr->heap[tr->top];
            struct trace_chain *s = &tr->chains[top->idx];
            int r = trace_chain_refill(tr, s, errbuf);

            if (r < 0)
                return -1;
            if (r == 0) {
                merge_settle(tr, 0, 0);
                if (tr->live && key_ready(tr->sorted[0]))
                    break;
                continue;
            }
            top->cur = s->ring->ev;
            top->end = s->ring->ev + s->count;
            tr->key2[tr->top] = next_key(s->ring->ev, top->end) | (int64_t)tr->top;
            tr->out_n = emit_scan(tr, merge_key(s->ring->ev[0].t, 1) | (int64_t)tr->top);
            if (tr->out_n)
                return 1;
        }
        if (!tr->live)
            return 0;
        /* an ended chain left a top with events: hand them out */
        tr->out_n = emit_scan(tr, tr->sorted[0]);
        return 1;
    }
    /* the top's key: a scan's first sorted one, a heap's root */
    while (tr->live && !key_ready(tr->scan ? tr->sorted[0] : tr->heap[0].key)) {
        struct merge_ent *top = &tr->heap[tr->top];
        struct trace_chain *s = &tr->chains[top->idx];
        int r = trace_chain_refill(tr, s, errbuf);

        if (r < 0)
            return -1;
        if (r > 0) {
            top->cur = s->ring->ev;
            top->end = s->ring->ev + s->count;
            if (tr->scan)
                tr->key2[tr->top] = next_key(s->ring->ev, top->end) | (int64_t)tr->top;
        }
        merge_settle(tr, r, r > 0 ? merge_key(s->ring->ev[0].t, 1) : 0);
    }
    if (!tr->live)
        return 0;
    tr->out_n = emit_heap(tr);
    return 1;
}

int iot_trace_next_ref(struct iot_trace *tr, const struct iot_event **ev, char *errbuf)
{
    if (tr->out_pos == tr->out_n) {
        int r = merge_round(tr, errbuf);

        if (r <= 0)
            return r;
    }
    *ev = tr->out[tr->out_pos++];
    tr->stats.events++;
    return 1;
}

int iot_trace_next_batch(struct iot_trace *tr, const struct iot_event *const **evs, char *errbuf)
{
    int n;

    if (tr->out_pos == tr->out_n) {
        int r = merge_round(tr, errbuf);

        if (r <= 0)
            return r;
    }
    *evs = tr->out + tr->out_pos;
    n = (int)(tr->out_n - tr->out_pos);
    tr->out_pos = tr->out_n;
    tr->stats.events += (uint64_t)n;
    return n;
}

static int copy_argv(struct iot_trace *tr, struct iot_event *ev)
{
    size_t need = (size_t)ev->argc + 1;

    if (iot_grow(&tr->argv, &tr->argv_cap, need, sizeof(*tr->argv)) < 0)
        return -1;
    memcpy(tr->argv, ev->argv, need * sizeof(*tr->argv));
    ev->argv = tr->argv;
    return 0;
}

int iot_trace_next(struct iot_trace *tr, struct iot_event *ev, char *errbuf)
{
    const struct iot_event *ref;
    int r = iot_trace_next_ref(tr, &ref, errbuf);

    if (r != 1)
        return r;
    *ev = *ref;
    /* the chain's decoder reuses its argv array for the next event */
    if (ev->kind == IOT_EV_PROCESS && copy_argv(tr, ev) < 0) {
        trace_set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
        return -1;
    }
    return 1;
}
