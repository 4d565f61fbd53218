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
    /* which call record's fields each batch slot holds (iot_dec_batch) */
    const uint8_t *held[IOT_DEC_BATCH];
    unsigned last_slot;    /* the slot written last */
};

/* Prepare d for a chunk; keeps d's arrays from earlier chunks. */
void iot_dec_start(struct iot_dec *d, const struct iot_chunk_hdr *h,
                   const uint8_t *records, struct iot_strtab *st, int64_t origin);
/*
 * Decodes up to max (<= IOT_DEC_BATCH) events into evs[0..], stopping early
 * after a process event, at the end of the chunk or at damage. Returns the
 * number decoded; *last is 1 (stopped with more to come), 0 (end of chunk)
 * or -1 (damaged record after the events returned; message in errbuf).
 * evs must be the same array, unmodified by the caller, on every call for
 * one decoder: a slot already holding a repeated call only gets new times.
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
