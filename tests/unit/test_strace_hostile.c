/*
 * strace logs as input, the hard ones: real captures, logs damaged byte by
 * byte, absurd numbers and thousands of unfinished calls. Never a crash,
 * and the figures that can be known are right. Part of the strace suite
 * (test_strace.c).
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "strace.h"
#include "strace_evs.h"
#include "unit.h"

/* Real captures (tests/fixtures/strace/README): figures counted with grep. */
static void test_real(void)
{
    static const char *ff[] = { "real_ff/log.8714", "real_ff/log.8715", "real_ff/log.8716" };
    struct evs e;
    size_t c;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_dd.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT(evs_ordered(&e));
    c = 0;
    int64_t bytes = 0;
    for (size_t i = 0; i < e.n; i++)
        if (e.ev[i].kind == IOT_EV_CALL && e.ev[i].op == IOT_OP_WRITE && e.ev[i].path &&
            strcmp(e.ev[i].path, "/tmp/ioscope-fixture/copy") == 0) {
            c++;
            bytes += e.ev[i].ret;
        }
    CU_ASSERT_EQUAL(c, 20);       /* bs=64 over a 1221-byte file */
    CU_ASSERT_EQUAL(bytes, 1221);
    c = 0;
    for (size_t i = 0; i < e.n; i++)
        c += e.ev[i].kind == IOT_EV_CALL && e.ev[i].op == IOT_OP_READ && e.ev[i].fd == 0;
    CU_ASSERT_EQUAL(c, 21);
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_zstd_threads.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT(evs_ordered(&e));
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_PROCESS), 1);
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_THREAD), 4);
    c = 0;
    for (size_t i = 0; i < e.n; i++)
        c += e.ev[i].kind == IOT_EV_CALL && e.ev[i].op == IOT_OP_WRITE && e.ev[i].path &&
             strstr(e.ev[i].path, "nums.zst") && e.ev[i].tid == 8834 && e.ev[i].pid == 8833;
    CU_ASSERT_EQUAL(c, 7);   /* the writer thread's writes belong to the process */
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_gzip_noT.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL(e.info.has_durations, 0);
    CU_ASSERT_EQUAL(e.info.has_paths, 1);
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_sh.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT(evs_ordered(&e));
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_EXIT), 3);
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load(&e, ff, 3), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT(evs_ordered(&e));
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_PROCESS), 5);  /* sh, 2 forks, 2 execs */
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_EXIT), 3);
    for (size_t i = 0; i < e.n; i++)
        if (e.ev[i].kind == IOT_EV_PROCESS && e.ev[i].pid != 8714)
            CU_ASSERT_EQUAL(e.ev[i].ppid, 8714);
    evs_release(&e);
}

/* Damaged logs: lines cut, bytes flipped. Never a crash or an error, and
 * never more events than lines allow. */
static void test_mutations(void)
{
    static const char *srcs[] = { "unfinished.log", "ops.log", "strings.log", "real_sh.log" };
    uint64_t seed = unit_seed(), rng = seed;
    char err[IOT_ERRBUF_SIZE];

    for (size_t f = 0; f < sizeof(srcs) / sizeof(srcs[0]); f++) {
        char path[256];
        FILE *in;
        char *buf;
        long len;

        snprintf(path, sizeof(path), FIXTURES "%s", srcs[f]);
        in = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(in);
        fseek(in, 0, SEEK_END);
        len = ftell(in);
        rewind(in);
        buf = malloc((size_t)len);
        CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)len, in), (size_t)len);
        fclose(in);
        for (int round = 0; round < 60; round++) {
            char *m = malloc((size_t)len);
            size_t mlen = (size_t)len, flips = 1 + unit_rand(&rng) % 8;
            struct iot_strtab *st = iot_strtab_create();
            struct strace_src *s;
            struct iot_event ev;
            struct strace_info info;
            FILE *mf;
            int rc;

            memcpy(m, buf, mlen);
            for (size_t k = 0; k < flips; k++) {
                size_t at = unit_rand(&rng) % mlen;
                static const char junk[] = "()<>\"\\,= ?.\n0123456789x{}[]+-";
                m[at] = junk[unit_rand(&rng) % (sizeof(junk) - 1)];
            }
            if (round % 3 == 0)
                mlen = unit_rand(&rng) % mlen;
            mf = fmemopen(m, mlen ? mlen : 1, "r");
            s = strace_open(mf, srcs[f], st, err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            while ((rc = strace_next(s, &ev, err)) == 1)
                ;
            strace_info(s, &info);
            if (rc != 0 || info.events > 3 * info.lines + 3)
                printf("\nstrace mutation failed: %s round %d seed %llu\n", srcs[f], round,
                       (unsigned long long)seed);
            CU_ASSERT_EQUAL(rc, 0);
            strace_close(s);
            fclose(mf);
            iot_strtab_free(st);
            free(m);
        }
        free(buf);
    }
}

/* Absurd numbers (found by tests/fuzz): saturated, no overflow (UBSan). */
/*
 * Thousands of calls left unfinished at once, resumed in a scrambled order,
 * with a clone among them: every call comes out once, at its start, in time
 * order, and the new tid met while the clone is unfinished is its child.
 */
static void test_many_unfinished(void)
{
    enum { N = 3000 };
    const char *path = unit_tmp_path("many_unfinished.log");
    FILE *f = fopen(path, "w");
    char err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st = iot_strtab_create();
    struct strace_src *src;
    struct infiles *pool = infiles_create();
    struct iot_event ev;
    int64_t last_t = INT64_MIN;
    int reads = 0, ordered = 1, child_of_clone = 0, others_of_clone = 0, rc;
    long us = 1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "500 1700000000.%06ld clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>\n", us++);
    for (int i = 0; i < N; i++)
        fprintf(f, "%d 1700000000.%06ld read(3, <unfinished ...>\n", 1000 + i, us++);
    fprintf(f, "500 1700000000.%06ld <... clone resumed>, child_tidptr=0x1) = 1000\n", us++);
    for (int i = 0; i < N; i++)
        fprintf(f, "%d 1700000000.%06ld <... read resumed>\"\", 10) = 0\n",
                1000 + (int)((long)i * 7919 % N), us++);
    fclose(f);
    src = evs_open_logs(pool, &path, 1, st, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    while ((rc = strace_next(src, &ev, err)) == 1) {
        if (ev.kind == IOT_EV_PROCESS && ev.ppid == 500)
            *(ev.pid == 1000 ? &child_of_clone : &others_of_clone) += 1;
        if (ev.kind != IOT_EV_CALL || ev.op != IOT_OP_READ)
            continue;
        reads++;
        CU_ASSERT_EQUAL(ev.size, 10);
        /* a call is at its start: tid 1000 + i started at i + 2 us */
        CU_ASSERT_EQUAL(ev.t, (int64_t)(ev.tid - 1000 + 1) * 1000);
        ordered &= ev.t >= last_t;
        last_t = ev.t;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(reads, N);
    CU_ASSERT(ordered);
    CU_ASSERT_EQUAL(child_of_clone, 1);
    CU_ASSERT_EQUAL(others_of_clone, 0);
    strace_close(src);
    infiles_free(pool);
    iot_strtab_free(st);
}

static void test_overflow(void)
{
    static const char *logs[] = {
        "4444444444444444444444444 1700000000.000000 read(3, \"\", 1) = 0 <0.000001>\n",
        "1700000000.000000 read(3, \"\", 1) = 0 <0.000001>\n"
        "17000000000000.000000 read(3, \"\", 1) = 0 <0.000001>\n",
        "1 99999999999999999999.5 read(3, \"\", 1) = 0 <99999999999999999999.000001>\n"
        "1 0.5 read(3, \"\", 1) = 0\n1 99999999999999999999.5 read(3, \"\", 1) = 0\n"
        "1 99999999999999999999.5 +++ exited with 99999999999999999999999 +++\n",
        "7 23:59:59 read(3, \"\", 1) = 0\n7 00:00:01 read(3, \"\", 1) = 0\n"
        "7 23:59:59 read(3, \"\", 1) = 0\n7 00:00:01 read(3, \"\", 1) = 0\n",
        "9 mmap2(NULL, 4096, PROT_READ, MAP_SHARED, 3</f>, 99999999999999999999) = 0x1000\n"
        "9 readv(3</f>, [{iov_base=\"\", iov_len=9223372036854775807}, "
        "{iov_base=\"\", iov_len=9223372036854775807}], 2) = 0\n",
    };
    char err[IOT_ERRBUF_SIZE];

    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        struct iot_strtab *st = iot_strtab_create();
        FILE *f = fmemopen((void *)logs[i], strlen(logs[i]), "r");
        struct strace_src *s = strace_open(f, "overflow.log", st, err);
        struct iot_event ev;
        int rc, calls = 0;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        while ((rc = strace_next(s, &ev, err)) == 1)
            calls += ev.kind == IOT_EV_CALL;
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(calls >= 1);
        strace_close(s);
        fclose(f);
        iot_strtab_free(st);
    }
}

void strace_hostile_tests(CU_pSuite s)
{
    CU_add_test(s, "real_captures", test_real);
    CU_add_test(s, "overflow", test_overflow);
    CU_add_test(s, "many_unfinished", test_many_unfinished);
    CU_add_test(s, "mutations", test_mutations);
}
