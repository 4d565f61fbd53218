/*
 * decode_int.h - what decode.c and decode_ext.c share: reading the input's
 * varints, times and strings, each checked before use.
 */
#ifndef IOT_DECODE_INT_H
#define IOT_DECODE_INT_H

#include <stdint.h>

#include "codec.h"
#include "decode.h"
#include "records.h"

#define GET(v) do { if (iot_get_varint(&d->p, d->end, &(v)) < 0) goto bad; } while (0)

/*
 * Time arithmetic on deltas read from the input: wraps instead of
 * overflowing (hostile deltas), and the result is then checked by
 * time_ok() against IOT_MAX_TIME, which the chunk's base time also obeys.
 */
static inline int64_t tadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int time_ok(int64_t t)
{
    return t >= -IOT_MAX_TIME && t <= IOT_MAX_TIME;
}

/* Reads a length-prefixed byte string and interns it. */
static inline const char *get_string(struct iot_dec *d)
{
    uint64_t len;
    const char *s;

    if (iot_get_varint(&d->p, d->end, &len) < 0 || len > IOT_MAX_STRING ||
        len > (uint64_t)(d->end - d->p))
        return NULL;
    s = iot_intern(d->st, (const char *)d->p, (size_t)len);
    d->p += len;
    return s;
}

/*
 * An extension record of a tag this version reads (IOT_TAG_MODULE, _LABEL,
 * _JIT_SYMBOL, _NAME, _WAITS, _PY_CODE; d->p just past the tag) into ev: 0,
 * or -1 when its payload is not that record (decode_ext.c).
 */
int iot_dec_ext(struct iot_dec *d, unsigned tag, struct iot_event *ev);

#endif /* IOT_DECODE_INT_H */
