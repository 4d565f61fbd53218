/*
 * test_reader_ahead.c - decompression ahead (iot_trace_ahead on a thread of
 * its own, iot_trace_ahead_step by the caller's threads, as the pipelined
 * analyzer does): the events, their order and the reader's figures are
 * those of a reader without it, on traces of one to many threads in small
 * chunks, and on a damaged one.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* How a read decompresses ahead. */
enum ahead_mode {
    AHEAD_NONE,
    AHEAD_THREAD,       /* iot_trace_ahead */
    AHEAD_STEP_HERE,    /* stepped by the reading thread, between events */
    AHEAD_STEP_BOTH,    /* stepped by a second thread all along, and the reading one */
    AHEAD_MODES
};

struct stepper {
    struct iot_trace *tr;
    _Atomic int stop;
    long done;          /* chunks it decompressed */
};

static void *stepper_main(void *arg)
{
    struct stepper *st = arg;
    int r;

    while (!atomic_load(&st->stop) && (r = iot_trace_ahead_step(st->tr)) >= 0)
        st->done += r;
    return NULL;
}

/* Read path whole, decompressing ahead as mode says: the events into
   ev[0..*n), the end's return value and the figures. *stepped: chunks the
   caller's threads decompressed ahead. */
static int read_all(const char *path, enum ahead_mode mode, struct iot_strtab *st,
                    struct iot_event *ev, size_t *n, struct iot_trace_stats *stats, long *stepped)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    struct stepper stepper = { 0 };
    pthread_t th;
    int r;

    CU_ASSERT_FATAL(tr != NULL);
    stepper.tr = tr;
    if (mode == AHEAD_THREAD)
        CU_ASSERT_EQUAL(iot_trace_ahead(tr), 0);
    if (mode >= AHEAD_STEP_HERE)
        CU_ASSERT_EQUAL(iot_trace_ahead_stepped(tr), 0);
    if (mode == AHEAD_STEP_BOTH)
        CU_ASSERT_FATAL(pthread_create(&th, NULL, stepper_main, &stepper) == 0);
    *n = 0;
    *stepped = 0;
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
        /* now and then, as a pipeline's threads do between batches */
        if (mode >= AHEAD_STEP_HERE && *n % 300 == 0 && iot_trace_ahead_step(tr) > 0)
            (*stepped)++;
    }
    if (mode == AHEAD_STEP_BOTH) {
        atomic_store(&stepper.stop, 1);
        pthread_join(th, NULL);
        *stepped += stepper.done;
    }
    /* every chunk was loaded: nothing is left to do ahead, or it was never stepped */
    CU_ASSERT_EQUAL(iot_trace_ahead_step(tr), -1);
    iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    return r;
}

static void compare(const char *path, size_t want_events)
{
    struct iot_strtab *st = iot_strtab_create();
    struct iot_event *a = malloc(CALLS * sizeof(*a)), *b = malloc(CALLS * sizeof(*b));
    struct iot_trace_stats sa, sb;
    size_t na, nb;
    long stepped;
    int ra, rb;

    CU_ASSERT_FATAL(st && a && b);
    ra = read_all(path, AHEAD_NONE, st, a, &na, &sa, &stepped);
    if (want_events)
        CU_ASSERT_EQUAL(na, want_events);
    for (int mode = AHEAD_THREAD; mode < AHEAD_MODES; mode++) {
        size_t wrong = 0;

        rb = read_all(path, (enum ahead_mode)mode, st, b, &nb, &sb, &stepped);
        CU_ASSERT_EQUAL(ra, rb);
        CU_ASSERT_EQUAL(na, nb);
        for (size_t i = 0; i < na && i < nb; i++)
            wrong += !same(&a[i], &b[i]);
        CU_ASSERT_EQUAL(wrong, 0);
        CU_ASSERT_EQUAL(sa.chunks, sb.chunks);
        CU_ASSERT_EQUAL(sa.chunks_damaged, sb.chunks_damaged);
        CU_ASSERT_EQUAL(sa.bytes_skipped, sb.bytes_skipped);
        CU_ASSERT_EQUAL(sa.raw_bytes, sb.raw_bytes);
        CU_ASSERT_EQUAL(sa.bytes_read, sb.bytes_read);
        CU_ASSERT_EQUAL(sa.events, sb.events);
        /* the steps did work: these traces have dozens of chunks */
        if (mode >= AHEAD_STEP_HERE)
            CU_ASSERT(stepped > 0);
    }
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
