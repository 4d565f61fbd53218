/* unixtime.c - a process's trace time and Unix time, one from the other (iotrace.h). */
#include "iotrace.h"

int iot_unix_ns_of(int64_t start_t, int64_t start_unix_ns, int64_t t, int64_t *unix_ns)
{
    int64_t since, ns;

    /* hostile input carries any times: every step checked */
    if (!start_unix_ns || __builtin_sub_overflow(t, start_t, &since) ||
        __builtin_add_overflow(since, start_unix_ns, &ns))
        return 0;
    *unix_ns = ns;
    return 1;
}

int iot_trace_t_of(int64_t start_t, int64_t start_unix_ns, int64_t unix_ms, int64_t *t)
{
    int64_t ns, since, at;

    if (!start_unix_ns || __builtin_mul_overflow(unix_ms, 1000000, &ns) ||
        __builtin_sub_overflow(ns, start_unix_ns, &since) ||
        __builtin_add_overflow(since, start_t, &at))
        return 0;
    *t = at;
    return 1;
}
