/* Shared declarations of the unit tests. */
#ifndef UNIT_H
#define UNIT_H

#include <stddef.h>
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
    X(recorder_procs)  \
    X(recorder_errno)  \
    X(engine)          \
    X(engine_figures)  \
    X(reader_damage)   \
    X(reader_ahead)    \
    X(infile)          \
    X(scale)           \
    X(text)            \
    X(symbolize)       \
    X(symcache)        \
    X(kconvert)        \
    X(kstack)          \
    X(fold)            \
    X(cost_model)      \
    X(syscalls)        \
    X(issue_rec)       \
    X(report_layout)

#define UNIT_SUITE_DECL_(name) void name##_suite(void);
UNIT_SUITES(UNIT_SUITE_DECL_)
#undef UNIT_SUITE_DECL_

/* The seed of this run's random tests: IOSCOPE_SEED, or the time. */
uint64_t unit_seed(void);
/* xorshift64* generator. */
uint64_t unit_rand(uint64_t *state);
/*
 * A path for `name` in this run's temporary directory (made on first use);
 * the string lives until the next call.
 */
const char *unit_tmp_path(const char *name);
/* The whole file at path (malloc'ed; fails the test when unreadable) ... */
unsigned char *unit_slurp(const char *path, size_t *len);
/* ... and a file made of buf[0..len). */
void unit_spill(const char *path, const void *buf, size_t len);
/* Remove that directory, unless IOSCOPE_KEEP is set (to look at the files). */
void unit_tmp_remove(void);

#endif
