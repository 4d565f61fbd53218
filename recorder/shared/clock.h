/*
 * clock.h - CLOCK_MONOTONIC and the measurement of the TSC rate, shared by
 * the library (clock.c calibrates when run without the launcher, and
 * re-anchors) and the launcher (iorecord.c measures the rate once for every
 * process of a run and passes it in IORECORD_TSC).
 *
 * Header-only, because the launcher links nothing of the library but the
 * format library; it uses no state of either.
 */
#ifndef REC_CLOCK_H
#define REC_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define REC_HAVE_TSC 1
#else
#define REC_HAVE_TSC 0
#endif

static inline int64_t rec_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#if REC_HAVE_TSC
/* Only an invariant TSC ticks at one rate in every P/C-state and on every core. */
static inline int rec_tsc_invariant(void)
{
    unsigned a, b, c, d;

    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
        return 0;
    return (d >> 8) & 1;
}

/*
 * A (tsc, ns) pair taken as close together as the clock read allows: the
 * best of five clock reads, each between two rdtsc, paired with the TSC
 * midway.
 */
static inline void rec_tsc_sample(uint64_t *tsc, int64_t *ns)
{
    uint64_t best = 0;

    for (int i = 0; i < 5; i++) {
        uint64_t a = __builtin_ia32_rdtsc();
        int64_t n = rec_mono_ns();
        uint64_t b = __builtin_ia32_rdtsc();

        if (i == 0 || b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
}

/*
 * The TSC rate as "mult" (ns = ticks * mult >> 32), measured by spinning
 * for at least span_ns between two samples; *tsc and *ns get the second
 * sample (an anchor for the rate). 0 when the TSC did not advance.
 */
static inline uint64_t rec_tsc_measure(int64_t span_ns, uint64_t *tsc,
                                       int64_t *ns)
{
    uint64_t t0, t1;
    int64_t n0, n1;

    rec_tsc_sample(&t0, &n0);
    do
        rec_tsc_sample(&t1, &n1);
    while (n1 - n0 < span_ns);
    *tsc = t1;
    *ns = n1;
    if (t1 <= t0)
        return 0;
    return (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
}
#endif

#endif
