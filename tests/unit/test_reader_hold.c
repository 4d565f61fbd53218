/*
 * test_reader_hold.c - a held reader (iot_trace_hold, the pipelined
 * analyzer's): every event handed out keeps its value until the caller is
 * done with its batch, while the reader decodes on; the events are those
 * an unheld reader gives, in the same order.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"
#include "unit.h"

/* Batches the test holds before it says it is done with the oldest. */
#define HELD 5

/* A trace of `threads` threads of calls, runs of repeats (REPEAT records)
   among them, a process event with argv now and then, in small chunks. */
static void write_trace(const char *path, int threads, long calls)
{
    static const char *const argv[] = { "app", "--flag", "x" };
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, 2048, err);
    struct iot_event e;
    int64_t t = 1000000;

    CU_ASSERT_FATAL(w != NULL);
    for (long i = 0; i < calls; i++) {
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

static void test_held_events_stay(void)
{
    const char *path = unit_tmp_path("hold.zst");

    for (int threads = 1; threads <= 9; threads += 4) {
        char err[IOT_ERRBUF_SIZE];
        struct iot_strtab *st = iot_strtab_create();
        struct iot_trace *tr;
        struct iot_event *ref;
        const struct iot_event **held[HELD];
        size_t nheld[HELD] = {0}, nref = 0, cap = 1 << 16, got = 0, wrong = 0;
        const struct iot_event *const *evs;
        int r;

        write_trace(path, threads, 60000);
        ref = malloc(cap * sizeof(*ref));
        CU_ASSERT_FATAL(ref != NULL);
        tr = iot_trace_open(&path, 1, st, err);
        CU_ASSERT_FATAL(tr != NULL);
        while ((r = iot_trace_next(tr, &ref[nref], err)) > 0)
            CU_ASSERT_FATAL(++nref < cap);
        CU_ASSERT_EQUAL(r, 0);
        iot_trace_close(tr);
        CU_ASSERT_EQUAL(nref, 60000);

        tr = iot_trace_open(&path, 1, st, err);
        CU_ASSERT_FATAL(tr != NULL);
        iot_trace_hold(tr);
        for (int i = 0; i < HELD; i++)
            held[i] = malloc(2048 * sizeof(*held[i]));
        /* batch seq holds up to 1024 events; it is checked and given back
           HELD batches later, the reader having decoded on meanwhile */
        uint64_t seq = 0, first = 0;

        for (r = 1; r > 0; seq++) {
            const struct iot_event **b = held[seq % HELD];
            size_t *n = &nheld[seq % HELD];

            if (seq >= HELD) {
                for (size_t i = 0; i < *n && got < nref; i++, got++)
                    wrong += !same(b[i], &ref[got]);
                first = seq - HELD + 1;
                iot_trace_hold_done(tr, first);
            }
            *n = 0;
            iot_trace_hold_seq(tr, seq);
            while (*n < 1024 && (r = iot_trace_next_batch(tr, &evs, err)) > 0)
                for (int i = 0; i < r; i++)
                    b[(*n)++] = evs[i];
        }
        /* the batches still held, oldest first */
        for (uint64_t k = first; k < seq; k++)
            for (size_t i = 0; i < nheld[k % HELD] && got < nref; i++, got++)
                wrong += !same(held[k % HELD][i], &ref[got]);
        CU_ASSERT_EQUAL(wrong, 0);
        CU_ASSERT_EQUAL(r, 0);
        CU_ASSERT_EQUAL(got, nref);
        iot_trace_close(tr);
        for (int i = 0; i < HELD; i++)
            free(held[i]);
        free(ref);
        iot_strtab_free(st);
    }
}

void reader_hold_suite(void)
{
    CU_pSuite s = CU_add_suite("reader_hold", NULL, NULL);

    CU_add_test(s, "held events keep their values while the reader decodes on",
                test_held_events_stay);
}
