/*
 * format_util.h - what the format suite's files (test_format.c,
 * test_format_damage.c) share: generated traces with the events they must
 * read back as, and reading a trace whole.
 */
#ifndef FORMAT_UTIL_H
#define FORMAT_UTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "iotrace.h"

/* Expected events with their strings kept alive in their own table. */
struct expect {
    struct iot_event *ev;
    size_t n;
    struct iot_strtab *st;
};

/* A copy of ev into x, its strings (and a process's argv) kept in x. */
void expect_add(struct expect *x, const struct iot_event *ev);
void expect_free(struct expect *x);
/*
 * Write n generated events of nproc processes x nthreads threads to path;
 * the expected events (t relative) in x.
 */
void write_random_of(const char *path, uint64_t seed, size_t n, size_t chunk,
                     int nproc, int nthreads, struct expect *x);
/* ... of 3 processes x 4 threads. */
void write_random(const char *path, uint64_t seed, size_t n, size_t chunk, struct expect *x);
/* Read every event of path (argv not kept); how many, or -1 when open fails. */
long read_all(const char *path, struct iot_event **out, struct iot_strtab *st,
              struct iot_trace_stats *stats, char *err);
/* One chunk of records rec[0..len) of thread 7, alone in path. */
void spill_chunk(const char *path, const uint8_t *rec, size_t len, uint32_t nrec, int64_t base_t);

/* The damage tests (test_format_damage.c), added to the format suite. */
void format_damage_tests(CU_pSuite s);
/* The extension records' tests (test_format_ext.c), in the same suite. */
void format_extension_tests(CU_pSuite s);

#endif
