/* gen.h - seeded random events for the format tests. */
#ifndef GEN_H
#define GEN_H

#include "iotrace.h"
#include "unit.h"

#define GEN_STRINGS 64
#define GEN_ARGS 5

struct gen {
    uint64_t rng;
    int64_t t;
    int nproc, nthreads;
    char strs[GEN_STRINGS][48];
    size_t nstr;
    const char *argv[GEN_ARGS];
    struct iot_event last;
    int have_last;
};

void gen_init(struct gen *g, uint64_t seed, int nproc, int nthreads);
/*
 * The next event. Its strings live in g until GEN_STRINGS more are made, and
 * argv until the next call: copy what must live longer.
 */
void gen_event(struct gen *g, struct iot_event *ev, int valid_utf8);

#endif
