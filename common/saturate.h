/*
 * saturate.h - the one saturating addition. Sums of figures from a trace
 * (hostile input: durations, sizes, offsets near 2^63) stop at the ends of
 * int64_t rather than wrap, and a sum never comes out smaller than a
 * positive addend would make it: overflow gives INT64_MAX, underflow
 * INT64_MIN.
 */
#ifndef IOT_SATURATE_H
#define IOT_SATURATE_H

#include <stdint.h>

static inline int64_t iot_sadd(int64_t a, int64_t b)
{
    int64_t r;

    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

#endif /* IOT_SATURATE_H */
