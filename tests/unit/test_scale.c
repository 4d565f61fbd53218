/*
 * Many processes: the tables keyed by (pid, path) or pid spread their keys
 * however the pids and paths are made, and the strace importer keeps a few
 * hundred bytes per process it has seen exit. Assertions on counts and
 * bytes, never on time.
 */
#include <CUnit/CUnit.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "infile.h"
#include "per_file.h"
#include "strace.h"
#include "unit.h"

enum { PROCS = 30000 };

/* 30,000 processes each with a session of the one path (no stack, so no
   site to work out: no rule context): every entry found
   again, and none far from its home slot (the old hash put the pid above
   bit 40, where the slot never looked, so all of them shared one slot). */
static void test_per_file_many_pids(void)
{
    static const char path[] = "/data/shared.conf";
    struct per_file_table t = {0};
    struct rule_session s = {.path = path, .end = RULE_END_CLOSE, .file_size = -1};
    size_t found = 0;

    for (int i = 0; i < PROCS; i++) {
        s.pid = 1000 + i;
        CU_ASSERT_PTR_NOT_NULL_FATAL(per_file_add(&t, NULL, &s));
    }
    for (int i = 0; i < PROCS; i += 2) {   /* a second session of every other one */
        s.pid = 1000 + i;
        CU_ASSERT_PTR_NOT_NULL_FATAL(per_file_add(&t, NULL, &s));
    }
    PER_FILE_FOREACH(&t, f) {
        found++;
        CU_ASSERT_EQUAL(f->sessions, (f->first.pid - 1000) % 2 ? 1u : 2u);
    }
    CU_ASSERT_EQUAL(found, PROCS);
    CU_ASSERT(per_file_max_probe(&t) < 64);
    per_file_free(&t);
}

/* The engine's keys: pid << 32 | fd, pids, and pointers 4 KiB apart. */
static void test_hmap_keys_spread(void)
{
    struct hmap a = HMAP_INIT, b = HMAP_INIT, c = HMAP_INIT;

    for (uint64_t i = 0; i < PROCS; i++) {
        CU_ASSERT_EQUAL_FATAL(hmap_put(&a, (1000 + i) << 32 | 3, (void *)1), 0);
        CU_ASSERT_EQUAL_FATAL(hmap_put(&b, 1000 + i, (void *)1), 0);
        CU_ASSERT_EQUAL_FATAL(hmap_put(&c, 0x7f0000000000ull + (i << 12), (void *)1), 0);
    }
    CU_ASSERT_EQUAL(a.n, PROCS);
    CU_ASSERT(hmap_max_probe(&a) < 64);
    CU_ASSERT(hmap_max_probe(&b) < 64);
    CU_ASSERT(hmap_max_probe(&c) < 64);
    for (uint64_t i = 0; i < PROCS; i++)
        CU_ASSERT_PTR_NOT_NULL(hmap_get(&a, (1000 + i) << 32 | 3));
    hmap_release(&a);
    hmap_release(&b);
    hmap_release(&c);
}

/*
 * A parent holding fd 1000 forks 5,000 children that each open a file and
 * exit: each child's fd table (a copy of the parent's, 8 KiB) is freed at
 * its exit, so the importer's heap grows by bytes per child, not KiBs.
 */
static void test_strace_many_pids_memory(void)
{
    enum { CHILDREN = 5000 };
    const char *path = unit_tmp_path("many_pids.log");
    FILE *f = fopen(path, "w");
    char err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_event ev;
    struct strace_src *src;
    size_t before, peak = 0, exits = 0;
    long us = 0;
    int rc;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "100 1700000000.%06ld dup2(0</dev/null>, 1000</dev/null>) = 1000 <0.000001>\n", us++);
    for (int i = 0; i < CHILDREN; i++) {
        int child = 200 + i;

        fprintf(f, "100 1700000000.%06ld clone(child_stack=NULL, flags=SIGCHLD) = %d <0.000010>\n",
                us++, child);
        fprintf(f, "%d 1700000000.%06ld openat(AT_FDCWD, \"/data/f\", O_RDONLY) = 3</data/f> "
                   "<0.000010>\n", child, us++);
        fprintf(f, "%d 1700000000.%06ld +++ exited with 0 +++\n", child, us++);
    }
    CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    before = mallinfo2().uordblks;
    src = strace_open(f, path, st, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    while ((rc = strace_next(src, &ev, err)) == 1) {
        size_t now = mallinfo2().uordblks;

        exits += ev.kind == IOT_EV_EXIT;
        if (now > peak)
            peak = now;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(exits, CHILDREN);
    /* what stays per child: its process and task (a few hundred bytes),
       its interned strings and table slots; its 8 KiB fd table is gone */
    CU_ASSERT((peak - before) / CHILDREN < 1024);
    if ((peak - before) / CHILDREN >= 1024)
        fprintf(stderr, "\nstrace importer: %zu bytes per exited child\n", (peak - before) / CHILDREN);
    strace_close(src);
    fclose(f);
    iot_strtab_free(st);
}

void scale_suite(void)
{
    CU_pSuite s = CU_add_suite("scale", NULL, NULL);

    CU_add_test(s, "per_file_many_pids", test_per_file_many_pids);
    CU_add_test(s, "hmap_keys_spread", test_hmap_keys_spread);
    CU_add_test(s, "strace_many_pids_memory", test_strace_many_pids_memory);
}
