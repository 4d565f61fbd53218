/*
 * strace_evs.h - the strace unit tests' reading of fixture logs: every
 * event of some logs, read through the strace source as ioanalyze opens
 * them, and counts over them (strace_evs.c).
 */
#ifndef STRACE_EVS_H
#define STRACE_EVS_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#include "infile.h"
#include "strace.h"

#define FIXTURES "tests/fixtures/strace/"

struct evs {
    struct iot_strtab *st;
    struct infiles *pool;
    struct strace_src *src;
    struct iot_event *ev;
    size_t n;
    struct strace_info info;
    /* the cwd calls (AT_FDCWD annotations), kept apart from ev so that
       each test's events keep their places: in order, pid and path */
    struct { int32_t pid; const char *path; } cwd[16];
    size_t ncwd;
};

/* The logs at paths[0..n) as one source, as ioanalyze opens them; NULL with err. */
struct strace_src *evs_open_logs(struct infiles *pool, const char *const *paths, size_t n,
                                 struct iot_strtab *st, char *err);
/* Read every event of the logs (paths relative to FIXTURES): strace_next's last result. */
int evs_load(struct evs *e, const char *const *names, size_t n);
int evs_load1(struct evs *e, const char *name);
void evs_release(struct evs *e);
size_t evs_count_op(const struct evs *e, int op);
size_t evs_count_kind(const struct evs *e, int kind);
/* The events are in time order. */
int evs_ordered(const struct evs *e);

/* The tests of test_strace_hostile.c, added to the strace suite s. */
void strace_hostile_tests(CU_pSuite s);

#define STR_EQ(a, b) CU_ASSERT((a) && strcmp((a), (b)) == 0)

#endif /* STRACE_EVS_H */
