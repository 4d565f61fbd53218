/*
 * decode.h - turning one chunk's records back into events (internal to
 * formats/; the reader and the tests use it).
 */
#ifndef IOT_DECODE_H
#define IOT_DECODE_H

#include "iotrace.h"

struct iot_dec {
    const uint8_t *p, *end;
    int32_t pid, tid;
    int64_t base_t;        /* absolute chunk start */
    int64_t prev_end;      /* absolute end of the previous call */
    int64_t origin;        /* subtracted from every absolute time */
    int have_prev;
    struct iot_event prev; /* the previous call, for REPEAT records */
    struct iot_strtab *st;
    const char **strs;     /* chunk-local string ids -> interned strings */
    size_t nstrs, strs_cap;
    const char **argv;
    size_t argv_cap;
    uint32_t nread;        /* records read, definitions included */
    const struct iot_event *out_prev;  /* ev last filled with a call, if still unchanged */
};

/* Prepare d for a chunk; keeps d's arrays from earlier chunks. */
void iot_dec_start(struct iot_dec *d, const struct iot_chunk_hdr *h,
                   const uint8_t *records, struct iot_strtab *st, int64_t origin);
/*
 * 1 event, 0 end of chunk, -1 damaged record (message in errbuf). A caller
 * that passes the same, unmodified ev each time lets a repeated call be
 * decoded by updating its times only.
 */
int iot_dec_next(struct iot_dec *d, struct iot_event *ev, char *errbuf);
/* Free d's arrays. */
void iot_dec_free(struct iot_dec *d);

#endif
