/*
 * reader_chunks.c - each chain's list of chunks (pass 1 notes them, pass 2
 * reads them in order), in memory that does not grow with the trace.
 *
 * A trace of small chunks has tens of millions of them (a 2 GB trace of
 * one thread made 510 MB of chunk_refs). So a chain keeps at most
 * SPILL_BLOCK of its refs in memory: each full block goes to the reader's
 * unnamed temporary file (iot_spool_file) and pass 2 reads it back a block
 * at a time. That needs the chain's chunks in sequence order as the file
 * holds them, which is how one recorder writes a chain: partial snapshots
 * of a chunk come before its complete version, so "keep the version with
 * the most records" is decided as each ref arrives. A chain whose chunks
 * come out of order (several writers, a damaged file) is read back whole
 * and sorted, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "reader_int.h"
#include "spool.h"

/* Refs of a chain kept in memory, and the size of a block on disk (128 KiB). */
#define SPILL_BLOCK 4096

/* Whether ref b supersedes a, of the same seq: more records, then later in the file. */
static int supersedes(const struct chunk_ref *b, const struct chunk_ref *a)
{
    return b->nrec != a->nrec ? b->nrec > a->nrec : b->off > a->off;
}

static int write_block(struct iot_trace *tr, const struct chunk_ref *refs, uint64_t at)
{
    const char *p = (const char *)refs;
    size_t left = SPILL_BLOCK * sizeof(*refs);

    while (left) {
        ssize_t w = pwrite(tr->spill_fd, p, left, (off_t)at);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        left -= (size_t)w;
        at += (uint64_t)w;
    }
    return 0;
}

static int read_block(const struct iot_trace *tr, struct chunk_ref *refs, uint64_t at)
{
    char *p = (char *)refs;
    size_t left = SPILL_BLOCK * sizeof(*refs);

    while (left) {
        ssize_t r = pread(tr->spill_fd, p, left, (off_t)at);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        left -= (size_t)r;
        at += (uint64_t)r;
    }
    return 0;
}

/* The first SPILL_BLOCK refs in memory to the spill file; the one after them stays. */
static int spill(struct iot_trace *tr, struct trace_chain *s)
{
    size_t tail = s->n - s->nspilled;

    if (!tr->spill_open) {
        tr->spill_fd = iot_spool_file();
        if (tr->spill_fd < 0)
            return 0;  /* no temporary file: the refs stay in memory */
        tr->spill_open = 1;
    }
    if (iot_grow(&s->blocks, &s->blocks_cap, s->nblocks + 1, sizeof(*s->blocks)) < 0 ||
        write_block(tr, s->chunks, tr->spill_end) < 0)
        return 0;
    s->blocks[s->nblocks++] = tr->spill_end;
    tr->spill_end += SPILL_BLOCK * sizeof(*s->chunks);
    memmove(s->chunks, s->chunks + SPILL_BLOCK, (tail - SPILL_BLOCK) * sizeof(*s->chunks));
    s->nspilled += SPILL_BLOCK;
    return 0;
}

int trace_chain_add(struct iot_trace *tr, struct trace_chain *s, const struct chunk_ref *c)
{
    size_t tail = s->n - s->nspilled;

    if (s->n && !s->disordered) {
        struct chunk_ref *last = tail ? &s->chunks[tail - 1] : NULL;

        if (last && c->seq == last->seq) {
            /* another version of the last chunk: one of the two is superseded */
            tr->stats.chunks_superseded++;
            if (supersedes(c, last)) {
                s->csize_kept += c->csize - last->csize;
                *last = *c;
            }
            return 0;
        }
        if (!last || c->seq < last->seq)
            s->disordered = 1;  /* sorted at the end (trace_chain_settle) */
    }
    /* room for one first: most chains of a trace of many short processes
       have a single chunk, and iot_grow's first 16 cost 512 bytes each */
    if (!s->cap && (s->chunks = malloc(sizeof(*s->chunks))))
        s->cap = 1;
    if (iot_grow(&s->chunks, &s->cap, tail + 1, sizeof(*s->chunks)) < 0)
        return -1;
    s->chunks[tail] = *c;
    s->n++;
    s->csize_kept += c->csize;
    /* a block goes when one more follows it: the last ref stays to be superseded */
    if (!s->disordered && tail + 1 > SPILL_BLOCK)
        return spill(tr, s);
    return 0;
}

static int chunk_cmp(const void *a, const void *b)
{
    const struct chunk_ref *x = a, *y = b;

    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->nrec != y->nrec)
        return x->nrec < y->nrec ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

int trace_chain_settle(struct iot_trace *tr, struct trace_chain *s)
{
    size_t out = 0;

    if (!s->disordered)
        return 0;  /* in order, each seq kept once as it came */
    if (s->nspilled) {
        /* out of order after some went to disk: all back, to be sorted */
        struct chunk_ref *all = malloc(s->n * sizeof(*all));

        if (!all)
            return -1;
        for (size_t b = 0; b < s->nblocks; b++)
            if (read_block(tr, all + b * SPILL_BLOCK, s->blocks[b]) < 0) {
                free(all);
                return -1;
            }
        memcpy(all + s->nspilled, s->chunks, (s->n - s->nspilled) * sizeof(*all));
        free(s->chunks);
        free(s->blocks);
        s->blocks = NULL;
        s->nblocks = s->blocks_cap = 0;
        s->chunks = all;
        s->cap = s->n;
        s->nspilled = 0;
    }
    qsort(s->chunks, s->n, sizeof(*s->chunks), chunk_cmp);
    s->csize_kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i + 1 < s->n && s->chunks[i + 1].seq == s->chunks[i].seq) {
            tr->stats.chunks_superseded++;
            continue;
        }
        s->csize_kept += s->chunks[i].csize;
        s->chunks[out++] = s->chunks[i];
    }
    s->n = out;
    return 0;
}

const struct chunk_ref *trace_chain_chunk(struct iot_trace *tr, struct trace_chain *s, size_t i)
{
    size_t b = i / SPILL_BLOCK;

    if (i >= s->nspilled)
        return &s->chunks[i - s->nspilled];
    if (!s->window && !(s->window = malloc(SPILL_BLOCK * sizeof(*s->window))))
        return NULL;
    if (s->window_block != b + 1) {
        if (read_block(tr, s->window, s->blocks[b]) < 0)
            return NULL;
        s->window_block = b + 1;
    }
    return &s->window[i % SPILL_BLOCK];
}

void trace_chain_refs_free(struct trace_chain *s)
{
    free(s->chunks);
    free(s->blocks);
    free(s->window);
    s->chunks = s->window = NULL;
    s->blocks = NULL;
}
