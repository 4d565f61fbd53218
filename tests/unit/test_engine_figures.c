/*
 * The figures the replay engine sums, event by event: the stdio buffer
 * model, main-thread figures and the continual gap, sums that saturate,
 * memory that does not grow with events, and the fast and slow paths of a
 * call counting alike.
 */
#include <CUnit/CUnit.h>
#include <malloc.h>
#include <string.h>

#include "engine_rig.h"
#include "unit.h"

static void stream_call(struct rig *r, unsigned op, int64_t ret, int64_t size)
{
    call(r, 40, 40, op, ret, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_SIZE, .fd = 3,
                            .stream = 0xabc, .size = size});
}

static void test_stdio_model(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 40, 1, "/bin/w");
    call(&r, 40, 40, IOT_OP_FOPEN, 0xabc, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_MODE | IOT_HAS_SIZE | IOT_HAS_STREAM,
                            .fd = 3, .path = S(&r, "/s"), .mode = S(&r, "w"), .size = 4096, .stream = 0xabc});
    for (int i = 0; i < 10; i++)
        stream_call(&r, IOT_OP_FWRITE, 1000, 1000);        /* 10000 bytes: 2 buffers filled */
    stream_call(&r, IOT_OP_FFLUSH, 0, 0);                  /* + the 1808 pending */
    /* bigger than the buffer: glibc fills the buffer and writes it (4096),
       writes the whole buffers of the rest directly (4096) and keeps 1808,
       written by the fclose. strace of the same calls: 4096, 4096, 1808,
       4096, 4096, 1808. */
    stream_call(&r, IOT_OP_FWRITE, 10000, 10000);
    stream_call(&r, IOT_OP_FCLOSE, 0, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].layer, RULE_LAYER_STDIO);
    CU_ASSERT_EQUAL(got[0].op, 11);
    CU_ASSERT_EQUAL(got[0].eff_ops, 6);
    CU_ASSERT_EQUAL(got[0].eff_bytes, 20000);
    CU_ASSERT_EQUAL(got[0].stream_buffer, 4096);
    rig_free(&r);

    /* setvbuf(_IONBF): every call is a syscall; reads through a full buffer */
    rig_init(&r);
    proc(&r, 40, 1, "/bin/w");
    call(&r, 40, 40, IOT_OP_FOPEN, 0xabc, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_SIZE | IOT_HAS_STREAM,
                            .fd = 3, .path = S(&r, "/u"), .size = 4096, .stream = 0xabc});
    call(&r, 40, 40, IOT_OP_SETVBUF, 0, 100,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_BUFMODE | IOT_HAS_SIZE,
                            .fd = 3, .stream = 0xabc, .bufmode = IOT_BUF_NONE, .size = 0});
    for (int i = 0; i < 7; i++)
        stream_call(&r, IOT_OP_FWRITE, 3, 3);
    stream_call(&r, IOT_OP_FCLOSE, 0, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].eff_ops, 7);
    CU_ASSERT_EQUAL(got[0].eff_bytes, 21);
    CU_ASSERT_EQUAL(got[0].stream_buffer, 0);
    CU_ASSERT_EQUAL(got[0].writes, 7);
    CU_ASSERT_EQUAL(got[0].random_writes, 0);
    rig_free(&r);

    /* setvbuf(_IONBF) then setvbuf(_IOFBF, NULL, 0): glibc's default buffer again */
    rig_init(&r);
    proc(&r, 40, 1, "/bin/w");
    call(&r, 40, 40, IOT_OP_FOPEN, 0xabc, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_SIZE | IOT_HAS_STREAM,
                            .fd = 3, .path = S(&r, "/d"), .size = 8192, .stream = 0xabc});
    call(&r, 40, 40, IOT_OP_SETVBUF, 0, 100,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_BUFMODE | IOT_HAS_SIZE,
                            .fd = 3, .stream = 0xabc, .bufmode = IOT_BUF_NONE, .size = 0});
    call(&r, 40, 40, IOT_OP_SETVBUF, 0, 100,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_BUFMODE | IOT_HAS_SIZE,
                            .fd = 3, .stream = 0xabc, .bufmode = IOT_BUF_FULL, .size = 0});
    for (int i = 0; i < 100; i++)
        stream_call(&r, IOT_OP_FWRITE, 100, 100);          /* 10000 bytes: 1 buffer filled */
    stream_call(&r, IOT_OP_FCLOSE, 0, 0);                  /* + the 1808 pending */
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].stream_buffer, 8192);
    CU_ASSERT_EQUAL(got[0].eff_ops, 2);
    rig_free(&r);

    rig_init(&r);
    proc(&r, 40, 1, "/bin/r");
    call(&r, 40, 40, IOT_OP_FOPEN, 0xabc, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_SIZE | IOT_HAS_STREAM,
                            .fd = 3, .path = S(&r, "/r"), .size = 4096, .stream = 0xabc});
    for (int i = 0; i < 100; i++)
        stream_call(&r, IOT_OP_FGETS, 80, 128);            /* 12800 requested: 4 buffer fills */
    stream_call(&r, IOT_OP_FCLOSE, 0, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].eff_ops, 4);
    CU_ASSERT_EQUAL(got[0].op_type, RULE_OP_READ);
    rig_free(&r);
}

static void test_main_thread_figures(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 50, 1, "/bin/m");
    open_(&r, 50, 3, "/m", 0);
    call(&r, 50, 51, IOT_OP_READ, 10, 20000000, (struct iot_event){FD(3), .size = 10});  /* worker */
    call(&r, 50, 50, IOT_OP_READ, 10, 2000000, (struct iot_event){FD(3), .size = 10});
    r.t += 7998000;                                        /* + 1 us: a 7.999 ms gap, continual */
    call(&r, 50, 50, IOT_OP_READ, 10, 3000000, (struct iot_event){FD(3), .size = 10});
    r.t += 7999000;                                        /* + 1 us: exactly 8 ms, breaks the run */
    call(&r, 50, 50, IOT_OP_READ, 10, 1000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 50, 50, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].op, 4);
    CU_ASSERT_EQUAL(got[0].main_ops, 3);
    CU_ASSERT_EQUAL(got[0].main_max_once_ns, 3000000);
    CU_ASSERT_EQUAL(got[0].main_max_continual_ns, 5000000);
    CU_ASSERT_EQUAL(got[0].max_once_ns, 20000000);
    CU_ASSERT_EQUAL(got[0].max_continual_ns, 25000000);  /* worker's 20 + 2 + 3, gaps 1 us */
    CU_ASSERT_EQUAL(got[0].main_tid, 50);
    rig_free(&r);
}

/*
 * The main-thread figures of sessions that one thread uses are made at the
 * end, and kept apart only once a second kind of thread comes: the same
 * figures either way.
 */
static void test_main_thread_switch(void)
{
    struct rig r;

    rig_init(&r);                                          /* main, then a worker, then main */
    proc(&r, 70, 1, "/bin/m");
    open_(&r, 70, 3, "/m", 0);
    call(&r, 70, 70, IOT_OP_READ, 10, 2000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 70, 70, IOT_OP_READ, 10, 3000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 70, 71, IOT_OP_READ, 10, 20000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 70, 70, IOT_OP_READ, 10, 1000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 70, 70, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].op, 4);
    CU_ASSERT_EQUAL(got[0].cost_ns, 26000000);
    CU_ASSERT_EQUAL(got[0].max_continual_ns, 26000000);
    CU_ASSERT_EQUAL(got[0].main_ops, 3);
    CU_ASSERT_EQUAL(got[0].main_cost_ns, 6000000);
    CU_ASSERT_EQUAL(got[0].main_max_once_ns, 3000000);
    CU_ASSERT_EQUAL(got[0].main_max_continual_ns, 5000000);  /* the worker's 20 ms broke it */
    CU_ASSERT_EQUAL(got[0].main_tid, 70);
    rig_free(&r);

    rig_init(&r);                                          /* main only */
    proc(&r, 80, 1, "/bin/m");
    open_(&r, 80, 3, "/m", 0);
    call(&r, 80, 80, IOT_OP_READ, 10, 2000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 80, 80, IOT_OP_WRITE, 10, 3000000, (struct iot_event){FD(3), .size = 10});
    r.t += 8000000;
    call(&r, 80, 80, IOT_OP_READ, 10, 1000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 80, 80, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].main_ops, 3);
    CU_ASSERT_EQUAL(got[0].main_cost_ns, 6000000);
    CU_ASSERT_EQUAL(got[0].main_max_once_ns, 3000000);
    CU_ASSERT_EQUAL(got[0].main_max_continual_ns, 5000000);
    CU_ASSERT_EQUAL(got[0].main_tid, 80);
    rig_free(&r);

    rig_init(&r);                                          /* workers only */
    proc(&r, 90, 1, "/bin/m");
    open_(&r, 90, 3, "/m", 0);
    call(&r, 90, 91, IOT_OP_READ, 10, 2000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 90, 92, IOT_OP_READ, 10, 3000000, (struct iot_event){FD(3), .size = 10});
    call(&r, 90, 91, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].op, 2);
    CU_ASSERT_EQUAL(got[0].main_ops, 0);
    CU_ASSERT_EQUAL(got[0].main_cost_ns, 0);
    CU_ASSERT_EQUAL(got[0].main_max_continual_ns, 0);
    CU_ASSERT_EQUAL(got[0].main_tid, 0);
    rig_free(&r);
}

/*
 * A session's sums saturate at INT64_MAX and never come back down: 9,000
 * writes of 2^50 bytes (the most one event may carry) add up past it.
 */
static void test_sums_saturate(void)
{
    const int64_t big = (int64_t)1 << 50;
    struct rig r;

    rig_init(&r);
    proc(&r, 70, 1, "/bin/huge");
    open_(&r, 70, 3, "/data/huge", 01);
    for (int i = 0; i < 9000; i++)
        call(&r, 70, 70, IOT_OP_WRITE, big, 1000, (struct iot_event){FD(3), .size = big});
    call(&r, 70, 70, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].writes, 9000);
    CU_ASSERT_EQUAL(got[0].write_bytes, INT64_MAX);
    rig_free(&r);
}

static void test_memory_flat(void)
{
    struct rig r;
    size_t before = 0, after;

    rig_init(&r);
    proc(&r, 60, 1, "/bin/loop");
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 20000; i++) {
            open_(&r, 60, 3, "/data/x", 0);
            call(&r, 60, 60, IOT_OP_READ, 10, 1000, (struct iot_event){FD(3), .size = 10});
            call(&r, 60, 60, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
        }
        if (round == 0)
            before = mallinfo2().uordblks;
    }
    after = mallinfo2().uordblks;
    /* 20000 more sessions must not have grown the heap (allow allocator slack) */
    CU_ASSERT(after <= before + 4096);
    rig_free(&r);
}

/*
 * engine_event takes plain calls (iot_event_plain, as the reader marks
 * them) in a fast path and sends the rest (failed, untimed, out-of-bounds,
 * unknown op or process, or not marked) the long way: both must count the
 * same figures and statistics. The same calls, unmarked, all go the long
 * way and must come to the same.
 */
static void fast_and_slow(int unmarked_calls, struct rule_session *s, struct engine_stats *st)
{
    struct rig r;
    struct iot_event thr = {.kind = IOT_EV_THREAD, .pid = 70, .tid = 71};

    unmarked = unmarked_calls;
    rig_init(&r);
    proc(&r, 70, 1, "/bin/f");                                                 /* event 1 */
    open_(&r, 70, 3, "/f", 0);                                                 /* 2: slow */
    call(&r, 70, 70, IOT_OP_READ, 100, 1000, (struct iot_event){FD(3), .size = 100});  /* fast */
    call(&r, 70, 70, IOT_OP_READ, -1, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_ERRNO, .fd = 3, .size = 7});
    call(&r, 70, 70, IOT_OP_READ, 10, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_NO_DUR, .fd = 3, .size = 10});
    call(&r, 70, 70, IOT_OP_READ, 50, 2000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    call(&r, 70, 70, IOT_OP_READ, 10, (int64_t)1 << 55,                        /* dur clamped */
         (struct iot_event){FD(3), .size = 10});
    call(&r, 70, 70, IOT_OP_LSEEK, 0, 100,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_OFFSET, .fd = 3});      /* fast */
    call(&r, 70, 70, IOT_OP_PREAD, 10, 3000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET, .fd = 3, .size = 10,
                            .offset = 0});                                     /* fast: random */
    call(&r, 70, 70, IOT_OP_WRITE, 20, 500,
         (struct iot_event){FD(3), .size = (int64_t)1 << 60});                 /* size clamped */
    call(&r, 70, 70, 200, 0, 100, (struct iot_event){FD(3)});                  /* unknown op */
    call(&r, 72, 72, IOT_OP_READ, 10, 100, (struct iot_event){FD(3), .size = 10});  /* new pid */
    thr.t = r.t;
    engine_event(r.e, &thr);
    call(&r, 70, 70, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    engine_finish(r.e);
    engine_stats(r.e, st);
    CU_ASSERT_EQUAL(ngot, 1);
    *s = got[0];
    unmarked = 0;
    rig_free(&r);
}

/* b's figures are a's (their strings are another rig's) */
static void same_figures(const struct rule_session *a, const struct rule_session *b)
{
    CU_ASSERT_EQUAL(b->op, a->op);
    CU_ASSERT_EQUAL(b->reads, a->reads);
    CU_ASSERT_EQUAL(b->random_reads, a->random_reads);
    CU_ASSERT_EQUAL(b->writes, a->writes);
    CU_ASSERT_EQUAL(b->random_writes, a->random_writes);
    CU_ASSERT_EQUAL(b->op_size, a->op_size);
    CU_ASSERT_EQUAL(b->buffer, a->buffer);
    CU_ASSERT_EQUAL(b->timed, a->timed);
    CU_ASSERT_EQUAL(b->max_once_ns, a->max_once_ns);
    CU_ASSERT_EQUAL(b->max_continual_ns, a->max_continual_ns);
    CU_ASSERT_EQUAL(b->cost_ns, a->cost_ns);
    CU_ASSERT_EQUAL(b->op_type, a->op_type);
    CU_ASSERT_EQUAL(b->file_size, a->file_size);
    CU_ASSERT_EQUAL(b->reread, a->reread);
    CU_ASSERT_EQUAL(b->read_skips, a->read_skips);
    CU_ASSERT_EQUAL(b->read_from, a->read_from);
    CU_ASSERT_EQUAL(b->last_bytes, a->last_bytes);
    CU_ASSERT_EQUAL(b->main_ops, a->main_ops);
}

static void test_fast_and_slow_paths(void)
{
    struct rule_session s, s2;
    struct engine_stats st, st2;

    fast_and_slow(0, &s, &st);
    CU_ASSERT_EQUAL(st.events, 14);
    CU_ASSERT_EQUAL(st.calls, 12);
    CU_ASSERT_EQUAL(st.calls_no_dur, 1);
    CU_ASSERT_EQUAL(st.per_op[IOT_OP_READ], 6);
    CU_ASSERT_EQUAL(st.per_op[IOT_OP_LSEEK], 1);
    CU_ASSERT_EQUAL(st.per_op[IOT_OP_PREAD], 1);
    CU_ASSERT_EQUAL(st.per_op[IOT_OP_WRITE], 1);
    CU_ASSERT_EQUAL(st.processes, 2);
    CU_ASSERT_EQUAL(s.op, 6);
    CU_ASSERT_EQUAL(s.reads, 5);
    CU_ASSERT_EQUAL(s.random_reads, 1);
    CU_ASSERT_EQUAL(s.writes, 1);
    CU_ASSERT_EQUAL(s.op_size, 100 + 10 + 50 + 10 + 10 + ((int64_t)1 << 50));
    CU_ASSERT_EQUAL(s.buffer, (int64_t)1 << 50);
    CU_ASSERT_EQUAL(s.timed, 0);
    CU_ASSERT_EQUAL(s.max_once_ns, (int64_t)1 << 50);
    CU_ASSERT_EQUAL(s.cost_ns, 1000 + 2000 + ((int64_t)1 << 50) + 3000 + 500);
    CU_ASSERT_EQUAL(s.op_type, RULE_OP_READ);

    fast_and_slow(1, &s2, &st2);
    CU_ASSERT_EQUAL(memcmp(&st, &st2, sizeof(st)), 0);
    same_figures(&s, &s2);

    /* the same calls, those a struct engine_call holds as records
       (engine_calls, as -j2's engine thread takes them): the plain reads,
       lseek and pread, the unknown op, the new pid's read and the close,
       the last three of which the straight path leaves to the slow one */
    as_records = 1;
    nrecords = 0;
    fast_and_slow(0, &s2, &st2);
    as_records = 0;
    CU_ASSERT_EQUAL(nrecords, 7);
    CU_ASSERT_EQUAL(memcmp(&st, &st2, sizeof(st)), 0);
    same_figures(&s, &s2);
}

void engine_figures_suite(void)
{
    CU_pSuite s = CU_add_suite("engine_figures", NULL, NULL);

    CU_add_test(s, "stdio buffer model", test_stdio_model);
    CU_add_test(s, "main-thread figures and the continual gap", test_main_thread_figures);
    CU_add_test(s, "main-thread figures of one-thread and shared sessions", test_main_thread_switch);
    CU_add_test(s, "memory does not grow with events", test_memory_flat);
    CU_add_test(s, "a session's sums saturate at the top", test_sums_saturate);
    CU_add_test(s, "fast and slow paths count alike", test_fast_and_slow_paths);
}
