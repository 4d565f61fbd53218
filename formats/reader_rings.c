/*
 * reader_rings.c - the arrays each chain decodes its batches into.
 *
 * A caller that reads events a batch at a time and is done with them
 * before the next call needs one ring per chain, rewritten batch after
 * batch: that is the reader's default. A pipelined caller (the analyzer
 * decoding on one thread and analysing on another) holds the events it was
 * handed for a while: iot_trace_hold() makes each chain decode every batch
 * into a fresh ring and retire the one handed out, tagged with the caller's
 * batch number (iot_trace_hold_seq); iot_trace_hold_done() gives back the
 * rings of the batches the caller is done with. A ring goes back to the
 * chain that filled it, whose decoder knows which calls its slots hold, so
 * that a repeated call in a reused slot still only gets new times. Memory
 * stays bounded by the events the caller holds, plus RINGS_SPARE.
 */
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"

/* Rings all chains keep for their next batches, at most (beyond: freed). */
#define RINGS_SPARE 1024

void iot_trace_hold(struct iot_trace *tr)
{
    tr->hold = 1;
}

void iot_trace_hold_seq(struct iot_trace *tr, uint64_t seq)
{
    tr->hold_seq = seq;
}

static void ring_free(struct iot_trace *tr, struct trace_ring *r)
{
    tr->inflated -= RING_BYTES;
    free(r);
}

void iot_trace_hold_done(struct iot_trace *tr, uint64_t done)
{
    struct trace_ring *r;

    while ((r = tr->retired) && r->seq < done) {
        struct trace_chain *s = &tr->chains[r->chain];

        tr->retired = r->next;
        if (!tr->retired)
            tr->retired_tail = NULL;
        if (s->ended || tr->spares >= RINGS_SPARE) {
            ring_free(tr, r);
            continue;
        }
        r->next = s->spare;
        s->spare = r;
        tr->spares++;
    }
}

static void ring_retire(struct iot_trace *tr, struct trace_ring *r)
{
    r->seq = tr->hold_seq;
    r->next = NULL;
    if (tr->retired_tail)
        tr->retired_tail->next = r;
    else
        tr->retired = r;
    tr->retired_tail = r;
}

int trace_ring_take(struct iot_trace *tr, struct trace_chain *s)
{
    struct trace_ring *r = s->spare;

    if (r) {
        s->spare = r->next;
        tr->spares--;
    } else {
        /* zeroed: the decoder takes a zero slot for an empty call */
        r = calloc(1, sizeof(*r));
        if (!r)
            return -1;
        tr->inflated += RING_BYTES;
    }
    if (r->gen != s->gen) {
        /* its slots hold calls of an earlier chunk, whose buffer the
           current one may reuse: they hold nothing of this one */
        memset(r->held, 0, sizeof(r->held));
        r->gen = s->gen;
    }
    r->chain = (uint32_t)(s - tr->chains);
    if (s->ring)
        ring_retire(tr, s->ring);
    s->ring = r;
    s->ring_used = 0;
    iot_dec_switch(&s->dec, r->held);
    return 0;
}

void trace_ring_drop(struct iot_trace *tr, struct trace_chain *s)
{
    s->ended = 1;
    if (s->ring && tr->hold && s->ring_used)
        ring_retire(tr, s->ring);
    else if (s->ring)
        ring_free(tr, s->ring);
    s->ring = NULL;
    while (s->spare) {
        struct trace_ring *r = s->spare;

        s->spare = r->next;
        tr->spares--;
        ring_free(tr, r);
    }
}

void trace_rings_free(struct iot_trace *tr)
{
    while (tr->retired) {
        struct trace_ring *r = tr->retired;

        tr->retired = r->next;
        free(r);
    }
    tr->retired_tail = NULL;
}
