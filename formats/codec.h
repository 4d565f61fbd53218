/*
 * codec.h - what each field type of IOT_FIELDS (schema.h) means to the code
 * that expands the list (internal to formats/). For a field row
 * X(NAME, bit, member, type, key), IOT_<OP>_<type>(..., member) is:
 *
 *   PUT    append the member's wire form at p (encoder)
 *   SAME   the member equal in two events as the writer sees them (ids)
 *   EQ     the member equal in two events as a reader sees them (strings
 *          by content)
 *   GET    store the varint v read from the wire (decoder); a value the
 *          type cannot hold sets *bad
 *   CLEAR  the member back to its absent value
 *
 * Every type is one varint on the wire (schema.h, the ranges of bits).
 */
#ifndef IOT_CODEC_H
#define IOT_CODEC_H

#include "iotrace.h"
#include "varint.h"

#define IOT_PUT_I32(p, ev, m)     iot_put_varint(p, iot_zigzag((ev)->m))
#define IOT_PUT_I64(p, ev, m)     iot_put_varint(p, iot_zigzag((ev)->m))
#define IOT_PUT_U32(p, ev, m)     iot_put_varint(p, (uint32_t)(ev)->m)
#define IOT_PUT_OCT(p, ev, m)     iot_put_varint(p, (uint64_t)(ev)->m)
#define IOT_PUT_HEX(p, ev, m)     iot_put_varint(p, (ev)->m)
#define IOT_PUT_STR(p, ev, m)     iot_put_varint(p, (ev)->m##_id)
#define IOT_PUT_BUFMODE(p, ev, m) iot_put_varint(p, (ev)->m)

#define IOT_SAME_I32(a, b, m)     ((a)->m == (b)->m)
#define IOT_SAME_I64(a, b, m)     ((a)->m == (b)->m)
#define IOT_SAME_U32(a, b, m)     ((a)->m == (b)->m)
#define IOT_SAME_OCT(a, b, m)     ((a)->m == (b)->m)
#define IOT_SAME_HEX(a, b, m)     ((a)->m == (b)->m)
#define IOT_SAME_STR(a, b, m)     ((a)->m##_id == (b)->m##_id)
#define IOT_SAME_BUFMODE(a, b, m) ((a)->m == (b)->m)

#define IOT_EQ_I32(a, b, m)       ((a)->m == (b)->m)
#define IOT_EQ_I64(a, b, m)       ((a)->m == (b)->m)
#define IOT_EQ_U32(a, b, m)       ((a)->m == (b)->m)
#define IOT_EQ_OCT(a, b, m)       ((a)->m == (b)->m)
#define IOT_EQ_HEX(a, b, m)       ((a)->m == (b)->m)
#define IOT_EQ_STR(a, b, m)       iot_str_eq((a)->m, (b)->m)
#define IOT_EQ_BUFMODE(a, b, m)   ((a)->m == (b)->m)

/* lookup(v) maps a string id to its string, NULL when undefined */
#define IOT_GET_I32(ev, m, v, bad, lookup)     ((ev)->m = (int32_t)iot_unzigzag(v))
#define IOT_GET_I64(ev, m, v, bad, lookup)     ((ev)->m = iot_unzigzag(v))
#define IOT_GET_U32(ev, m, v, bad, lookup)     ((ev)->m = (int32_t)(v))
#define IOT_GET_OCT(ev, m, v, bad, lookup)     ((ev)->m = (int64_t)(v))
#define IOT_GET_HEX(ev, m, v, bad, lookup)     ((ev)->m = (v))
#define IOT_GET_STR(ev, m, v, bad, lookup) \
    ((ev)->m##_id = (uint32_t)(v), *(bad) |= !((ev)->m = lookup(v)))
#define IOT_GET_BUFMODE(ev, m, v, bad, lookup) \
    (*(bad) |= (v) > IOT_BUF_NONE, (ev)->m = (uint8_t)(v))

#define IOT_CLEAR_I32(ev, m)      ((ev)->m = 0)
#define IOT_CLEAR_I64(ev, m)      ((ev)->m = 0)
#define IOT_CLEAR_U32(ev, m)      ((ev)->m = 0)
#define IOT_CLEAR_OCT(ev, m)      ((ev)->m = 0)
#define IOT_CLEAR_HEX(ev, m)      ((ev)->m = 0)
#define IOT_CLEAR_STR(ev, m)      ((ev)->m = NULL, (ev)->m##_id = 0)
#define IOT_CLEAR_BUFMODE(ev, m)  ((ev)->m = 0)

/* Strings equal by content; NULL equals "" (an absent or empty string). */
int iot_str_eq(const char *a, const char *b);

#endif /* IOT_CODEC_H */
