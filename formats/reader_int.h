/*
 * reader_int.h - what the parts of the native trace reader share (internal
 * to formats/). The public interface is iotrace.h's struct iot_trace.
 *
 *   reader.c        the reader's life: open (inputs, pass 1, merge start), close
 *   reader_input.c  the input policy: mapping inputs, standard input spooled to
 *                   a file, which inputs stay open, reading a frame in pass 2
 *   reader_index.c  pass 1: walking each input's frames into chains of chunks
 *   reader_chunks.c each chain's list of chunks, in bounded memory
 *   reader_merge.c  pass 2: decoding the chains and merging them by time
 *   reader_ahead.c  decompression ahead, on a thread of its own or stepped by
 *                   the caller's threads (iot_trace_ahead, iot_trace_ahead_step)
 */
#ifndef IOT_READER_INT_H
#define IOT_READER_INT_H

#include <stdio.h>
#include <zstd.h>

#include "decode.h"
#include "iotrace.h"

/* One input file. */
struct trace_input {
    char *name;
    const uint8_t *map;     /* pass 1 only */
    size_t size;
    int fd;                 /* pass 2 reads the frames (trace_input_read_frame); -1: by name */
};

/* Where one chunk is and what pass 1 learnt of it. */
struct chunk_ref {
    uint64_t off;
    uint32_t csize;         /* compressed: the data frame's size */
    uint32_t dsize;         /* decompressed: header and records, as counted in raw_bytes */
    uint32_t seq;
    uint32_t nrec;
    int64_t base_t;
};

/*
 * A batch of one chain's decoded events, and which call record's fields
 * each slot holds (the decoder's held, decode.h). A chain decodes into one
 * ring for good, batch after batch: the caller is done with a batch's
 * events by its next call (iotrace.h).
 */
struct trace_ring {
    struct iot_event ev[IOT_DEC_BATCH];
    const uint8_t *held[IOT_DEC_BATCH];
};

/* One thread life (pid, tid, chain_id) of one input: its chunks, and pass 2's decoding. */
struct trace_chain {
    uint32_t input;
    int32_t pid, tid;
    uint64_t chain_id;
    /* its chunks in sequence order (reader_chunks.c): n in all, the first
       nspilled of them in blocks of the spill file (at blocks[]), the
       others in chunks[] (cap); window: the block pass 2 reads from */
    struct chunk_ref *chunks;
    size_t n, cap, nspilled;
    uint64_t *blocks;
    size_t nblocks, blocks_cap;
    struct chunk_ref *window;
    size_t window_block;    /* index + 1 of the block in window, 0: none */
    int disordered;         /* a seq came after a higher one: sorted once pass 1 ends */
    uint64_t csize_kept;    /* compressed bytes of the chunks kept */
    size_t next;            /* next chunk to load */
    int loaded;             /* dec holds a chunk */
    struct trace_ring *ring; /* the batch of decoded events */
    unsigned count;         /* how many */
    int last;               /* how the batch ended (iot_dec_batch's *last) */
    uint8_t *buf;
    size_t buf_cap;
    struct iot_dec dec;
};

/* Events one merge round hands out at most. */
#define OUT_MAX IOT_TRACE_BATCH_MAX
/* Up to this many chains the merge scans a list instead of keeping a heap. */
#define SCAN_MAX 8

/*
 * Merge entries hold their key (merge_key) and the chain's batch, so that
 * handing out events never touches the big chain structs: each event
 * depends on the choice before it, so every load on that path is latency.
 */
struct merge_ent {
    int64_t key;            /* a heap's; a scan keeps its keys in tr->sorted */
    const struct iot_event *cur, *end;  /* the batch's next event, and its end */
    uint32_t idx;
};

struct iot_trace {
    struct trace_input *inputs;
    size_t ninputs;
    struct trace_chain *chains;
    size_t nchains, chains_cap;
    uint32_t *chain_slots; /* pass 1: (input, chain) -> index in chains + 1, 0 empty */
    size_t chain_slots_cap;
    struct merge_ent *heap; /* min-heap of chains on (key, index) */
    size_t nheap;
    int scan;               /* few chains: heap is a list in index order (SCAN_MAX) */
    size_t top;             /* the smallest entry: 0 in a heap */
    size_t live;            /* entries whose chain has not ended */
    int64_t sorted[SCAN_MAX]; /* scan: the entries' keys, smallest first */
    int64_t key2[SCAN_MAX]; /* scan: each entry's key after cur's */
    ZSTD_DCtx *dctx;
    struct iot_strtab *st;
    int64_t origin;
    const char **argv;      /* the returned process event's argv */
    size_t argv_cap;
    int64_t limit;          /* merge_heap_limit(), kept up to date */
    /* events merged in time order, handed out one by one (merge_round) */
    const struct iot_event **out;
    unsigned out_n, out_pos;
    struct iot_trace_stats stats;
    size_t inflated;        /* bytes of chain chunk buffers (IOT_MAX_INFLATED) */
    uint8_t *cbuf;          /* the compressed frame being decoded (trace_input_read_frame) */
    size_t cbuf_cap;
    int spill_fd, spill_open; /* the chains' chunk lists beyond memory (reader_chunks.c) */
    uint64_t spill_end;
    struct trace_ahead *ahead;  /* decompression ahead (reader_ahead.c), or NULL */
};

/* A one-line message "fmt" with the input's name and what went wrong, when errbuf is given. */
static inline void trace_set_err(char *errbuf, const char *fmt, const char *name, const char *what)
{
    if (errbuf)
        snprintf(errbuf, IOT_ERRBUF_SIZE, fmt, name, what);
}

/* ------------------------------------------------------ reader_input.c */

/*
 * Map the input named path into *in: fd when it is >= 0 (taken over: it
 * stays open for pass 2 and is closed by trace_input_close, also on
 * failure), else the file at path ("-": standard input). keep_open: the file
 * opened here stays open for pass 2. 0, or -1 with a message in errbuf;
 * in->name and in->fd are set either way (trace_input_close frees them).
 */
int trace_input_open(struct trace_input *in, const char *path, int fd, int keep_open,
                     char *errbuf);
/* Pass 1 is done with in[off..off+len): its pages may leave the resident set. */
void trace_input_release(const struct trace_input *in, size_t off, size_t len);
/* Pass 1 is done with the whole mapping. */
void trace_input_unmap(struct trace_input *in);
/*
 * The compressed frame of chunk c, read into tr->cbuf; NULL when it cannot
 * be read (the chunk then counts as damaged).
 */
const uint8_t *trace_input_read_frame(struct iot_trace *tr, const struct trace_input *in,
                                      const struct chunk_ref *c);
void trace_input_close(struct trace_input *in);

/* ------------------------------------------------------ reader_index.c */

/*
 * Pass 1 over input idx: its chunks into tr->chains, its figures into
 * tr->stats and tr->origin. *scratch (*scratch_cap bytes) is a buffer the
 * caller keeps from one input to the next and frees. 0, or -1 with a
 * message in errbuf (out of memory, or not one readable chunk).
 */
int trace_index_input(struct iot_trace *tr, uint32_t idx, uint8_t **scratch,
                      size_t *scratch_cap, char *errbuf);
/*
 * Decompress the frame src[0..csize) into *buf (grown as needed, followed by
 * IOT_DEC_PAD zero bytes). Returns the content size, or 0 when the frame is
 * damaged.
 */
size_t trace_frame_decode(struct iot_trace *tr, const uint8_t *src, size_t csize,
                          uint8_t **buf, size_t *cap);

/* ----------------------------------------------------- reader_chunks.c */

/* Note chunk c of chain s (pass 1, in file order); 0, or -1 out of memory. */
int trace_chain_add(struct iot_trace *tr, struct trace_chain *s, const struct chunk_ref *c);
/* Once pass 1 is over: s's chunks by seq, of each seq the version with the
   most records (counted in tr->stats.chunks_superseded). 0, or -1 out of
   memory or when the spill file cannot be read. */
int trace_chain_settle(struct iot_trace *tr, struct trace_chain *s);
/* The i-th chunk of settled chain s (i < s->n); NULL when its block cannot be read. */
const struct chunk_ref *trace_chain_chunk(struct iot_trace *tr, struct trace_chain *s, size_t i);
void trace_chain_refs_free(struct trace_chain *s);

/* ------------------------------------------------------ reader_merge.c */

/* Set up the merge once every chain is settled; 0, or -1 when out of memory. */
int trace_merge_start(struct iot_trace *tr);
/* Free what pass 2 allocated for s (its chunk list stays). */
void trace_chain_release(struct trace_chain *s);

/* ------------------------------------------------------ reader_ahead.c */

/*
 * Pass 2 loads chunk idx of chain: when the ahead thread has it
 * decompressed, its buffer and *buf (capacity *cap, as a chain's buf_cap)
 * change hands and its content size is returned; else 0, and the caller
 * reads and decompresses the frame itself. Only with tr->ahead.
 */
size_t trace_ahead_take(struct iot_trace *tr, size_t chain, size_t idx, uint8_t **buf,
                        size_t *cap);
/* End the ahead thread, if any, and free what it holds (iot_trace_close). */
void trace_ahead_stop(struct iot_trace *tr);

#endif /* IOT_READER_INT_H */
