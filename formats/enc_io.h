/*
 * enc_io.h - the encoder's path for the common data call (read, write and
 * their kin: fd, size, ret, errno; fread, fwrite and their kin: the same
 * and the stdio stream id), inline, for the recorder's wrappers: at one record per
 * 1-byte read or 64-byte fwrite, the calls into the format library and
 * their frames cost as much as the encoding itself. encode.c's iot_enc_io()
 * is this function out of line, without a stdio stream. Same encoding as
 * iot_enc_call.
 */
#ifndef IOT_ENC_IO_H
#define IOT_ENC_IO_H

#include <string.h>

#include "iotrace.h"
#include "records.h"
#include "varint.h"

/* Worst case of a call record: tag, op, has, gap, dur, ret and every field. */
#define IOT_CALL_MAX (1 + 5 * IOT_VARINT_MAX + IOT_FIELD_COUNT * IOT_VARINT_MAX)

/*
 * A call's tag: its op, or for ops from IOT_TAG_CALL_EXT on, the escape tag
 * followed by the op as a varint (docs/trace-format.md 5.1).
 */
static inline uint8_t *iot_put_op(uint8_t *p, unsigned op)
{
    if (op < IOT_TAG_CALL_EXT) {
        *p++ = (uint8_t)op;
        return p;
    }
    *p++ = IOT_TAG_CALL_EXT;
    return iot_put_varint(p, op);
}

/*
 * A call with has = FD|SIZE, |STREAM when stream is not 0, |ERRNO when err
 * is not 0: 0 appended, -1 no room (nothing written).
 */
static inline __attribute__((always_inline)) int
iot_enc_io_inline(struct iot_enc *e, unsigned op, int32_t fd, uint64_t stream,
                  int64_t size, int64_t ret, int32_t err, int64_t t,
                  int64_t dur)
{
    uint32_t has = IOT_HAS_FD | IOT_HAS_SIZE | (stream ? IOT_HAS_STREAM : 0) |
                   (err ? IOT_HAS_ERRNO : 0);
    const struct iot_event *pv = &e->prev;
    uint8_t *p;

    if (e->cap - e->len < IOT_CALL_MAX)
        return -1;
    p = e->buf + e->len;
    /* equal has: prev.stream was set with it (iot_enc_call copies it too) */
    if (e->have_prev && pv->op == op && pv->has == has && pv->fd == fd &&
        pv->size == size && pv->ret == ret && pv->err == err &&
        pv->stream == stream) {
        *p++ = IOT_TAG_REPEAT;
        p = iot_put_varint(p, iot_zigzag(t - e->prev_end));
        p = iot_put_varint(p, (uint64_t)dur);
    } else {
        p = iot_put_op(p, op);
        p = iot_put_varint(p, has);
        p = iot_put_varint(p, iot_zigzag(t - e->prev_end));
        p = iot_put_varint(p, (uint64_t)dur);
        p = iot_put_varint(p, iot_zigzag(ret));
        if (err)
            p = iot_put_varint(p, (uint32_t)err);
        /* the fields in schema order: errno, fd, size, stream */
        p = iot_put_varint(p, iot_zigzag(fd));
        p = iot_put_varint(p, iot_zigzag(size));
        if (stream)
            p = iot_put_varint(p, stream);
        e->prev.op = (uint8_t)op;
        e->prev.has = has;
        e->prev.fd = fd;
        e->prev.size = size;
        e->prev.ret = ret;
        e->prev.err = err;
        e->prev.stream = stream;
        e->have_prev = 1;
    }
    e->prev_end = t + dur;
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

/*
 * The previous call again, untimed (5.12): at the previous call's end,
 * lasting 0. For a call the recorder did not stamp because it only moved
 * bytes within a stdio stream's buffer. 0 appended, -1 no room or no previous
 * call (nothing written).
 */
static inline __attribute__((always_inline)) int
iot_enc_repeat_untimed(struct iot_enc *e)
{
    /* the record as one 16-bit store: the tag, then the payload's length 0 */
    static const uint8_t rec[2] = { IOT_TAG_REPEAT_UNTIMED, 0 };
    size_t len = e->len;

    if (!e->have_prev || e->cap - len < 2)
        return -1;
    memcpy(e->buf + len, rec, 2);
    e->len = len + 2;
    e->nrec++;
    return 0;
}

#endif
