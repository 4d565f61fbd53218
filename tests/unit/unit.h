/* Shared declarations of the unit tests. */
#ifndef UNIT_H
#define UNIT_H

#include <stdint.h>

/*
 * Every suite, one line each: X(name) where tests/unit/test_<name>.c defines
 * void <name>_suite(void).
 */
#define UNIT_SUITES(X) \
    X(format)          \
    X(jsonl)           \
    X(rules)           \
    X(strace)          \
    X(ci)              \
    X(config)          \
    X(recorder)        \
    X(engine)          \
    X(reader_damage)

#define UNIT_SUITE_DECL_(name) void name##_suite(void);
UNIT_SUITES(UNIT_SUITE_DECL_)
#undef UNIT_SUITE_DECL_

/* The seed of this run's random tests: IOSCOPE_SEED, or the time. */
uint64_t unit_seed(void);
/* xorshift64* generator. */
uint64_t unit_rand(uint64_t *state);

#endif
