/*
 * decode.h - turning one chunk's records back into events (internal to
 * formats/; the reader and the tests use it).
 */
#ifndef IOT_DECODE_H
#define IOT_DECODE_H

#include "iotrace.h"

/*
 * Zero bytes a chunk's records must be followed by (the reader allocates
 * them): the decoder reads a record's varints before checking the end.
 */
#define IOT_DEC_PAD 256
/*
 * Events decoded at a time from one chunk. Decoding a run of one thread's
 * calls together keeps the decoder's branches predictable when the merge
 * interleaves threads call by call; 16 rather than 32 keeps the batches of
 * a few threads in L1 until the analysis reads them (docs/performance.md).
 */
#define IOT_DEC_BATCH 16

struct iot_dec {
    const uint8_t *p, *end;
    int32_t pid, tid;
    int64_t base_t;        /* absolute chunk start */
    int64_t prev_end;      /* absolute end of the previous call */
    int64_t origin;        /* subtracted from every absolute time */
    int bad0;              /* what a record's damage flags start from (decode.c) */
    /* the previous call, for REPEAT records: its fields are decoded again */
    const uint8_t *prev_fields;
    uint32_t prev_has;     /* as on the wire: with bits this reader does not know */
    unsigned prev_op;      /* may be an op this reader does not know */
    /* what a newer writer added, skipped (iot_trace_stats) */
    uint64_t calls_unknown, fields_unknown, records_unknown;
    struct iot_strtab *st;
    const char **strs;     /* chunk-local string ids -> interned strings */
    size_t nstrs, strs_cap;
    const char **argv;
    size_t argv_cap;
    /* which call record's fields each slot of the events array holds
       (iot_dec_batch): held_own, or the array iot_dec_switch named */
    const uint8_t **held;
    const uint8_t *held_own[IOT_DEC_BATCH];
    unsigned last_slot;    /* the slot written last */
    int last_here;         /* last_slot is in the array decoded into now */
};

/*
 * Decode into another events array from the next batch on, whose slots
 * hold what held[0..IOT_DEC_BATCH) says (all NULL: nothing of this chunk).
 * A reader that hands out several batches of one decoder at once keeps one
 * array per batch in flight, each with its held.
 */
static inline void iot_dec_switch(struct iot_dec *d, const uint8_t **held)
{
    d->held = held;
    d->last_here = 0;
}

/* Prepare d for a chunk; keeps d's arrays from earlier chunks. The held
   array in use is cleared; the caller clears any other it switches to. */
void iot_dec_start(struct iot_dec *d, const struct iot_chunk_hdr *h,
                   const uint8_t *records, struct iot_strtab *st, int64_t origin);
/*
 * Decodes up to max (<= IOT_DEC_BATCH) events into evs[0..], stopping early
 * after a process event, at the end of the chunk or at damage. Returns the
 * number decoded; *last is 1 (stopped with more to come), 0 (end of chunk)
 * or -1 (damaged record after the events returned; message in errbuf).
 * evs must be the same array, unmodified by the caller, on every call for
 * one decoder (or, after iot_dec_switch, the array its held describes): a
 * slot already holding a repeated call only gets new times.
 * Its events' strings live in the string table; a process event's argv
 * lives in d until the next call.
 */
int iot_dec_batch(struct iot_dec *d, struct iot_event *evs, unsigned max, int *last,
                  char *errbuf);
/* Free d's arrays. */
void iot_dec_free(struct iot_dec *d);

/* A Python code record's line table bytes as the event's text, interned; NULL when damaged. */
const char *iot_py_lines_text(struct iot_strtab *st, const uint8_t *p, size_t n,
                              int64_t first_line);

#endif
