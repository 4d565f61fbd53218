/*
 * future_enc.h - records as a later ioscope would write them: the encoder of
 * this version built again with extra ops and fields appended to the schema
 * (future_enc.c). The compatibility test reads them with this version's
 * reader, which must skip what it does not know and lose nothing else.
 */
#ifndef FUTURE_ENC_H
#define FUTURE_ENC_H

#include <stddef.h>
#include <stdint.h>

/* The ops future_enc.c appends: numbers this version has no row for. */
#define FUTURE_OP_NEAR 0  /* the first number after this version's ops */
#define FUTURE_OP_FAR  1  /* a number past the one-byte call tags (escape tag) */

/* One call of the script, in terms both layouts of struct iot_event share. */
struct future_call {
    int known_op;        /* this version's op number, or -1 ... */
    int future_op;       /* ... for FUTURE_OP_* */
    int32_t fd;
    int64_t size, ret;   /* size < 0: no size field */
    const char *path;    /* NULL: no path field */
    int future_fields;   /* also carries the fields this version does not know */
    int64_t t, dur;      /* absolute */
};

/* The op numbers FUTURE_OP_* stand for in the future encoder. */
unsigned future_op_number(int which);

/*
 * Appends to buf[0..cap) the records of one chunk starting at base_t: a
 * process record (argv0 "future"), the calls in order, each followed by an
 * extension record of an unknown kind after the call with index ext_after,
 * and an exit record at exit_t. Returns the number of bytes, 0 when they do
 * not fit; *nrec the number of records.
 */
size_t future_records(uint8_t *buf, size_t cap, int64_t base_t, const struct future_call *calls,
                      size_t n, size_t ext_after, int64_t exit_t, uint32_t *nrec);

#endif
