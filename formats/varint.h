/*
 * varint.h - the integer encodings of the trace format (internal to formats/).
 * Unsigned LEB128 varints; signed values zigzag-mapped first so small
 * magnitudes of either sign take one byte.
 */
#ifndef IOT_VARINT_H
#define IOT_VARINT_H

#include <stdint.h>
#include <string.h>

#define IOT_VARINT_MAX 10  /* bytes of the longest 64-bit varint */

static inline uint64_t iot_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t iot_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The bytes iot_put_varint writes for v. */
static inline size_t iot_varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v at p (room for IOT_VARINT_MAX bytes assumed); returns the end. */
static inline uint8_t *iot_put_varint(uint8_t *p, uint64_t v)
{
    /* one and two bytes without the loop: a recorded call's time gap and
       duration are mostly under 16 us, and the loop's exit mispredicts */
    if (v < 0x80) {
        p[0] = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/*
 * Reads a varint from [*pp, end). Returns 0 and advances *pp, or -1 when the
 * input ends inside the varint or it is longer than 10 bytes.
 */
static inline int iot_get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;

    if (p < end && *p < 0x80) {  /* the common one-byte case */
        *out = *p;
        *pp = p + 1;
        return 0;
    }
    if (end - p >= IOT_VARINT_MAX) {
        /* room for the longest varint: no bounds check per byte */
        for (shift = 0; shift < 64; shift += 7) {
            uint8_t b = *p++;

            v |= (uint64_t)(b & 0x7f) << shift;
            if (b < 0x80) {
                *out = v;
                *pp = p;
                return 0;
            }
        }
        return -1;
    }
    while (p < end && shift < 64) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *out = v;
            *pp = p;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

static inline void iot_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static inline void iot_put_le64(uint8_t *p, uint64_t v)
{
    iot_put_le32(p, (uint32_t)v);
    iot_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t iot_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t iot_get_le64(const uint8_t *p)
{
    return (uint64_t)iot_get_le32(p) | (uint64_t)iot_get_le32(p + 4) << 32;
}

#endif
