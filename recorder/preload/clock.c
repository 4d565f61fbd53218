/*
 * clock.c - rdtsc stamps converted to CLOCK_MONOTONIC nanoseconds.
 *
 * Reading the TSC costs a fraction of a vDSO clock read (docs/performance.md),
 * so the hot path takes two rdtsc per call and converts with one 128-bit
 * multiply.
 * Every process anchors the TSC to CLOCK_MONOTONIC itself, so the events of
 * all processes of a run share one time base. A thread switching chunks
 * re-anchors about once a second (rec_clock_tick), slewing the rate so the
 * converted time stays continuous and never jumps backwards. Measuring the rate is clock.h's, shared with the
 * launcher.
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "sandbox.h"

int rec_use_tsc;
clockid_t rec_clock_id = CLOCK_MONOTONIC;

/* Published parameters: a ring so a reader holding an old one stays valid. */
#define CLOCK_RING 64
static struct rec_clock ring[CLOCK_RING];
static unsigned ring_next;
static struct rec_clock identity;
const struct rec_clock *rec_clock_cur = &identity;

/* The first anchor, to measure the TSC rate over the whole run. */
static uint64_t base_tsc;
static int64_t  base_ns;
static uint64_t base_mult;

static void publish(uint64_t tsc0, int64_t ns0, uint64_t mult)
{
    struct rec_clock *c = &ring[ring_next++ % CLOCK_RING];

    c->tsc0 = tsc0;
    c->ns0 = ns0;
    c->mult = mult;
    __atomic_store_n(&rec_clock_cur, c, __ATOMIC_RELEASE);
}

void rec_clock_init(void)
{
#if REC_HAVE_TSC
    const char *env = getenv("IORECORD_TSC");
    uint64_t mult = 0, t0;
    int64_t n0;

    rec_use_tsc = 0;
    if ((env && strcmp(env, "0") == 0) || (rec_sandbox & REC_SANDBOX_NOTSC))
        return;
    if (env && *env)
        mult = strtoull(env, NULL, 10);
    /* The launcher's rate comes from a TSC it found invariant: cpuid, a
       trap to the hypervisor in a VM, is asked once per run, not per exec. */
    if (mult == 0 && !rec_tsc_invariant())
        return;
    if (mult == 0) {
        /*
         * No calibration from the launcher: a short spin measures the rate.
         * 0.5 ms: a pair of samples is within ~20 ns, so the rate is within
         * 0.01%, and the re-anchoring every second (reanchor) slews out what
         * that error adds up to and then measures the rate over the run.
         * Paid at the start of every process without the launcher's rate.
         */
        mult = rec_tsc_measure(500000, &t0, &n0);
        if (mult == 0)
            return;
    } else {
        rec_tsc_sample(&t0, &n0);
    }
    base_tsc = t0;
    base_ns = n0;
    base_mult = mult;
    publish(t0, n0, mult);
    rec_use_tsc = 1;
#endif
}

int64_t rec_clock_offset;

void rec_clock_tsc_off(void)
{
    struct timespec fine, coarse;

    /* The TSC still runs here (the program's call comes after): measure
       how far the coarse clock lags. */
    clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
    clock_gettime(CLOCK_MONOTONIC, &fine);
    __atomic_store_n(&rec_clock_offset,
                     (int64_t)(fine.tv_sec - coarse.tv_sec) * 1000000000LL +
                         (fine.tv_nsec - coarse.tv_nsec),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&rec_clock_id, CLOCK_MONOTONIC_COARSE, __ATOMIC_RELAXED);
    __atomic_store_n(&rec_use_tsc, 0, __ATOMIC_RELEASE);
}

void rec_clock_tsc_on(void)
{
    __atomic_store_n(&rec_clock_id, CLOCK_MONOTONIC, __ATOMIC_RELAXED);
    __atomic_store_n(&rec_clock_offset, 0, __ATOMIC_RELAXED);
#if REC_HAVE_TSC
    if (base_mult) {
        uint64_t t;
        int64_t n;

        /* Stamps were nanoseconds meanwhile: a fresh anchor, the same rate. */
        rec_tsc_sample(&t, &n);
        publish(t, n, rec_clock_cur->mult ? rec_clock_cur->mult : base_mult);
        __atomic_store_n(&rec_use_tsc, 1, __ATOMIC_RELEASE);
    }
#endif
}

clockid_t rec_wall_clock_id(void)
{
    return __atomic_load_n(&rec_clock_id, __ATOMIC_RELAXED) == CLOCK_MONOTONIC
               ? CLOCK_REALTIME : CLOCK_REALTIME_COARSE;
}

uint64_t rec_clock_mult(void)
{
    return rec_use_tsc ? rec_clock_cur->mult : 0;
}

static void reanchor(void)
{
#if REC_HAVE_TSC
    const struct rec_clock *c = rec_clock_cur;
    uint64_t tsc, mult;
    int64_t ns, conv, err;

    if (!rec_use_tsc)
        return;
    rec_tsc_sample(&tsc, &ns);
    conv = rec_ns_with(c, tsc);
    err = ns - conv;
    /* The rate measured over the whole run is the most precise one. */
    if (tsc > base_tsc + 1000000 && ns > base_ns)
        mult = (uint64_t)(((unsigned __int128)(ns - base_ns) << 32) /
                          (tsc - base_tsc));
    else
        mult = base_mult;
    if (err > 1000000 || err < -1000000) {
        /* Far off (suspend, clock step): jump rather than slew. */
        publish(tsc, ns, mult);
        return;
    }
    /*
     * Continue from the converted time and correct the error over the next
     * second: ticks per second = 2^32 * 1e9 / mult.
     */
    {
        __int128 ticks_1s = ((__int128)1000000000 << 32) / (__int128)mult;
        __int128 adj = (__int128)err * ((__int128)1 << 32) /
                       (ticks_1s ? ticks_1s : 1);

        publish(tsc, conv, (uint64_t)((__int128)mult + adj));
    }
#endif
}

void rec_clock_tick(int64_t now)
{
    static int64_t last;
    static int busy;

    /* one thread at a time: publish() moves the ring on */
    if (now - __atomic_load_n(&last, __ATOMIC_RELAXED) < 1000000000LL ||
        __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
        return;
    if (now - last >= 1000000000LL) {
        reanchor();
        __atomic_store_n(&last, now, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

