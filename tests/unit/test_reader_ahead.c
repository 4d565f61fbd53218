/*
 * test_reader_ahead.c - decompression ahead (iot_trace_ahead, the pipelined
 * analyzer's third thread): the events, their order and the reader's
 * figures are those of a reader without it, on traces of one to many
 * threads in small chunks, and on a damaged one.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"
#include "unit.h"

#define CALLS 60000

/* `threads` threads of calls in chunks of 2048 bytes, a process event with argv now and then. */
static void write_trace(const char *path, int threads)
{
    static const char *const argv[] = { "app", "--flag", "x" };
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, 2048, err);
    struct iot_event e;
    int64_t t = 1000000;

    CU_ASSERT_FATAL(w != NULL);
    for (long i = 0; i < CALLS; i++) {
        memset(&e, 0, sizeof(e));
        if (i % 997 == 0) {
            e.kind = IOT_EV_PROCESS;
            e.pid = e.tid = 100 + (int)(i / 997);
            e.ppid = 1;
            e.exe = "/bin/app";
            e.argc = 1 + (int)(i % 3);
            e.argv = argv;
        } else {
            e.kind = IOT_EV_CALL;
            e.op = (i / 7) % 3 ? IOT_OP_READ : IOT_OP_PREAD;
            e.has = IOT_HAS_FD | IOT_HAS_SIZE | (e.op == IOT_OP_PREAD ? IOT_HAS_OFFSET : 0);
            e.pid = 100;
            e.tid = 100 + (int)(i % threads);
            e.fd = 3 + (int)((i / 50) % 4);
            e.size = e.ret = (i / 7) % 5 ? 4096 : 1 + i % 100;
            e.offset = e.op == IOT_OP_PREAD ? (i / 7) * 4096 : 0;
            e.dur = 1 + i % 13;
        }
        e.t = t;
        t += 1 + i % 5;
        CU_ASSERT_FATAL(iot_writer_event(w, &e, err) == 0);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
}

/* Equal events, argv by its strings. */
static int same(const struct iot_event *a, const struct iot_event *b)
{
    if (a->kind != b->kind || a->t != b->t || a->tid != b->tid)
        return 0;
    if (a->kind == IOT_EV_PROCESS)
        return a->argc == b->argc && a->exe == b->exe;
    return iot_event_equal(a, b);
}

/* Read path whole, with decompression ahead or not: the events into
   ev[0..*n), the end's return value and the figures. */
static int read_all(const char *path, int ahead, struct iot_strtab *st, struct iot_event *ev,
                    size_t *n, struct iot_trace_stats *stats)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    int r;

    CU_ASSERT_FATAL(tr != NULL);
    if (ahead)
        CU_ASSERT_EQUAL(iot_trace_ahead(tr), 0);
    *n = 0;
    while ((r = iot_trace_next(tr, &ev[*n], err)) > 0) {
        struct iot_event *e = &ev[(*n)++];

        CU_ASSERT_FATAL(*n <= CALLS);
        if (e->kind == IOT_EV_PROCESS) {
            /* argv is the reader's until the next event: checked now */
            static const char *const want[] = { "app", "--flag", "x" };

            CU_ASSERT_FATAL(e->argc >= 1 && e->argc <= 3);
            for (int i = 0; i < e->argc; i++)
                CU_ASSERT_STRING_EQUAL(e->argv[i], want[i]);
            e->argv = want;
        }
    }
    iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    return r;
}

static void compare(const char *path, size_t want_events)
{
    struct iot_strtab *st = iot_strtab_create();
    struct iot_event *a = malloc(CALLS * sizeof(*a)), *b = malloc(CALLS * sizeof(*b));
    struct iot_trace_stats sa, sb;
    size_t na, nb, wrong = 0;
    int ra, rb;

    CU_ASSERT_FATAL(st && a && b);
    ra = read_all(path, 0, st, a, &na, &sa);
    rb = read_all(path, 1, st, b, &nb, &sb);
    CU_ASSERT_EQUAL(ra, rb);
    CU_ASSERT_EQUAL(na, nb);
    if (want_events)
        CU_ASSERT_EQUAL(na, want_events);
    for (size_t i = 0; i < na && i < nb; i++)
        wrong += !same(&a[i], &b[i]);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(sa.chunks, sb.chunks);
    CU_ASSERT_EQUAL(sa.chunks_damaged, sb.chunks_damaged);
    CU_ASSERT_EQUAL(sa.bytes_skipped, sb.bytes_skipped);
    CU_ASSERT_EQUAL(sa.raw_bytes, sb.raw_bytes);
    CU_ASSERT_EQUAL(sa.bytes_read, sb.bytes_read);
    CU_ASSERT_EQUAL(sa.events, sb.events);
    free(a);
    free(b);
    iot_strtab_free(st);
}

static void test_ahead_same_events(void)
{
    const char *path = unit_tmp_path("ahead.zst");

    for (int threads = 1; threads <= 17; threads += 8) {
        write_trace(path, threads);
        compare(path, CALLS);
    }
}

static void test_ahead_damaged(void)
{
    const char *path = unit_tmp_path("ahead_damaged.zst");
    unsigned char *buf;
    size_t len;

    write_trace(path, 5);
    buf = unit_slurp(path, &len);
    /* bytes in the middle of several frames: checksums pass 2 finds wrong */
    for (size_t at = len / 5; at < len; at += len / 5)
        buf[at] ^= 0x5a;
    unit_spill(path, buf, len);
    free(buf);
    compare(path, 0);
}

void reader_ahead_suite(void)
{
    CU_pSuite s = CU_add_suite("reader_ahead", NULL, NULL);

    CU_add_test(s, "the same events and figures with decompression ahead", test_ahead_same_events);
    CU_add_test(s, "the same events and figures of a damaged trace", test_ahead_damaged);
}
