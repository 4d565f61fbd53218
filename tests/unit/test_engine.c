/*
 * The replay engine, event by event: sessions across dup, fork and exec,
 * offsets, the stdio buffer model, how sessions end (close, exit, trace end,
 * signal), main-thread figures, and memory that does not grow with events.
 * A capture rule records every session the engine hands to rules.
 */
#include <CUnit/CUnit.h>
#include <malloc.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "issue.h"
#include "unit.h"

#define MAXS 64
static struct rule_session got[MAXS];
static size_t ngot;

static void capture(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    (void)state;
    (void)ctx;
    if (ngot < MAXS)
        got[ngot++] = *s;
}

static const struct rule capture_rule = {
    .abi = RULE_ABI_VERSION, .name = "capture", .type = 100, .on_session = capture,
};
static const struct rule *const capture_rules[] = {&capture_rule};

struct rig {
    struct config cfg;
    const struct rule *const *saved;
    size_t nsaved;
    struct issues *is;
    struct engine *e;
    struct iot_strtab *st;
    int64_t t;
};

static void rig_init(struct rig *r)
{
    memset(r, 0, sizeof(*r));
    ngot = 0;
    CU_ASSERT_EQUAL_FATAL(config_init(&r->cfg), 0);
    /* only the capture rule runs */
    r->saved = r->cfg.rules;
    r->nsaved = r->cfg.nrules;
    r->cfg.rules = capture_rules;
    r->cfg.nrules = 1;
    r->cfg.enabled[0] = 1;
    r->is = issues_create(&r->cfg);
    r->e = engine_create(&r->cfg, r->is, NULL);
    r->st = iot_strtab_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->e);
}

static void rig_free(struct rig *r)
{
    engine_free(r->e);
    issues_free(r->is);
    r->cfg.rules = r->saved;
    r->cfg.nrules = r->nsaved;
    config_release(&r->cfg);
    iot_strtab_free(r->st);
}

static const char *S(struct rig *r, const char *s)
{
    return iot_intern(r->st, s, strlen(s));
}

static void proc(struct rig *r, int pid, int ppid, const char *exe)
{
    struct iot_event ev = {.kind = IOT_EV_PROCESS, .pid = pid, .tid = pid, .ppid = ppid,
                           .t = r->t, .exe = S(r, exe), .start_unix_ns = 1000000000000};

    engine_event(r->e, &ev);
}

static void exit_ev(struct rig *r, int pid, int sig)
{
    struct iot_event ev = {.kind = IOT_EV_EXIT, .pid = pid, .t = r->t += 1000};

    if (sig) {
        ev.has = IOT_HAS_SIGNAL;
        ev.signal = sig;
        ev.status = 128 + sig;
    }
    engine_event(r->e, &ev);
}

/* Calls are marked plain as a reader would, unless this says not to. */
static int unmarked;

/* A call: t advances by 1 us before it; dur given. */
static void call(struct rig *r, int pid, int tid, unsigned op, int64_t ret, int64_t dur,
                 struct iot_event ev)
{
    ev.kind = IOT_EV_CALL;
    ev.op = (uint8_t)op;
    ev.pid = pid;
    ev.tid = tid;
    ev.ret = ret;
    ev.t = r->t += 1000;
    ev.dur = dur;
    ev.plain = !unmarked && iot_event_plain(&ev);
    r->t += dur;
    engine_event(r->e, &ev);
}

#define FD(n) .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = (n)

static void open_(struct rig *r, int pid, int fd, const char *path, int64_t flags)
{
    call(r, pid, pid, IOT_OP_OPEN, fd, 1000,
         (struct iot_event){.has = IOT_HAS_PATH | IOT_HAS_FLAGS, .path = S(r, path), .flags = flags});
}

static void test_dup_fork_share_offset(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 10, 1, "/bin/parent");
    open_(&r, 10, 3, "/f", 01);
    call(&r, 10, 10, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    call(&r, 10, 10, IOT_OP_DUP, 4, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    call(&r, 10, 10, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(4), .size = 100});
    proc(&r, 11, 10, "/bin/child");                        /* fork */
    call(&r, 11, 11, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    call(&r, 10, 10, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL(ngot, 0);                              /* fd 4 and the child still hold it */
    call(&r, 10, 10, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(4), .size = 100});
    call(&r, 10, 10, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 4});
    CU_ASSERT_EQUAL(ngot, 0);
    exit_ev(&r, 11, 0);                                    /* the child's copy goes last */
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].writes, 4);
    CU_ASSERT_EQUAL(got[0].random_writes, 0);              /* one shared offset: all sequential */
    CU_ASSERT_EQUAL(got[0].op, 4);
    CU_ASSERT_EQUAL(got[0].end, RULE_END_EXIT);
    CU_ASSERT_EQUAL(got[0].leaked, 0);                     /* inherited: not the child's leak */
    CU_ASSERT_EQUAL(got[0].pid, 10);
    CU_ASSERT_STRING_EQUAL(got[0].process, "parent");
    rig_free(&r);
}

static void test_exec_and_ends(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 20, 1, "/bin/sh");
    open_(&r, 20, 3, "/keep", 0);
    open_(&r, 20, 4, "/cloexec", 02000000);
    r.t += 5000000;
    proc(&r, 20, 1, "/usr/bin/app");                        /* exec */
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_STRING_EQUAL(got[0].path, "/cloexec");
    CU_ASSERT_EQUAL(got[0].end, RULE_END_CLOSE);
    open_(&r, 20, 5, "/leaked", 0);
    exit_ev(&r, 20, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 3);
    /* both are the process's own: /keep from before the exec, /leaked after */
    CU_ASSERT(got[1].leaked && got[2].leaked);
    CU_ASSERT_EQUAL(got[1].end, RULE_END_EXIT);
    CU_ASSERT_STRING_EQUAL(got[2].process, "app");
    /* killed by a signal: not a leak; still running at the end: not a leak */
    proc(&r, 21, 1, "/bin/a");
    open_(&r, 21, 3, "/k", 0);
    exit_ev(&r, 21, 9);
    CU_ASSERT_EQUAL_FATAL(ngot, 4);
    CU_ASSERT_EQUAL(got[3].leaked, 0);
    CU_ASSERT_EQUAL(got[3].end, RULE_END_EXIT);
    proc(&r, 22, 1, "/bin/b");
    open_(&r, 22, 3, "/run", 0);
    engine_finish(r.e);
    CU_ASSERT_EQUAL_FATAL(ngot, 5);
    CU_ASSERT_EQUAL(got[4].end, RULE_END_TRACE);
    CU_ASSERT_EQUAL(got[4].leaked, 0);
    rig_free(&r);
}

static void test_offsets(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 30, 1, "/bin/db");
    open_(&r, 30, 3, "/db", 01 | 01000);                    /* O_TRUNC: offset 0 */
    call(&r, 30, 30, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    /* short write: the next continues at 150, where it ended */
    call(&r, 30, 30, IOT_OP_WRITE, 50, 1000, (struct iot_event){FD(3), .size = 100});
    call(&r, 30, 30, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    /* lseek(SEEK_END) lands at 250: where we are, still sequential */
    call(&r, 30, 30, IOT_OP_LSEEK, 250, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE, .fd = 3, .whence = 2});
    call(&r, 30, 30, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    /* lseek(SEEK_SET, 0): random */
    call(&r, 30, 30, IOT_OP_LSEEK, 0, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE, .fd = 3, .offset = 0});
    call(&r, 30, 30, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    /* pwrite at 100 (the end of the previous write): sequential; offset unchanged */
    call(&r, 30, 30, IOT_OP_PWRITE, 100, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET, .fd = 3, .size = 100, .offset = 100});
    /* write() continues at 100 (its own offset), not 200: random */
    call(&r, 30, 30, IOT_OP_WRITE, 100, 1000, (struct iot_event){FD(3), .size = 100});
    /* a failed write is not counted */
    call(&r, 30, 30, IOT_OP_WRITE, -1, 1000, (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_ERRNO, .fd = 3, .size = 100, .err = 28});
    /* reads: EOF read counted with its requested size */
    call(&r, 30, 30, IOT_OP_READ, 0, 1000, (struct iot_event){FD(3), .size = 4096});
    call(&r, 30, 30, IOT_OP_CLOSE, 0, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_FILE_SIZE, .fd = 3, .file_size = 350});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].writes, 7);
    CU_ASSERT_EQUAL(got[0].random_writes, 2);
    CU_ASSERT_EQUAL(got[0].reads, 1);
    CU_ASSERT_EQUAL(got[0].op, 8);
    CU_ASSERT_EQUAL(got[0].op_size, 7 * 100 + 4096);
    CU_ASSERT_EQUAL(got[0].buffer, 4096);
    CU_ASSERT_EQUAL(got[0].op_type, RULE_OP_WRITE);
    CU_ASSERT_EQUAL(got[0].file_size, 350);
    CU_ASSERT_EQUAL(got[0].cost_ns, 8000);
    rig_free(&r);

    /* O_APPEND: wherever lseek goes, writes land at the end */
    rig_init(&r);
    proc(&r, 31, 1, "/bin/log");
    open_(&r, 31, 3, "/log", 01 | 02000);
    for (int i = 0; i < 5; i++) {
        call(&r, 31, 31, IOT_OP_LSEEK, 0, 1000,
             (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE, .fd = 3});
        call(&r, 31, 31, IOT_OP_WRITE, 10, 1000, (struct iot_event){FD(3), .size = 10});
    }
    call(&r, 31, 31, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].writes, 5);
    CU_ASSERT_EQUAL(got[0].random_writes, 0);
    rig_free(&r);
}

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
    CU_ASSERT_EQUAL(s2.op, s.op);
    CU_ASSERT_EQUAL(s2.reads, s.reads);
    CU_ASSERT_EQUAL(s2.random_reads, s.random_reads);
    CU_ASSERT_EQUAL(s2.writes, s.writes);
    CU_ASSERT_EQUAL(s2.random_writes, s.random_writes);
    CU_ASSERT_EQUAL(s2.op_size, s.op_size);
    CU_ASSERT_EQUAL(s2.buffer, s.buffer);
    CU_ASSERT_EQUAL(s2.timed, s.timed);
    CU_ASSERT_EQUAL(s2.max_once_ns, s.max_once_ns);
    CU_ASSERT_EQUAL(s2.max_continual_ns, s.max_continual_ns);
    CU_ASSERT_EQUAL(s2.cost_ns, s.cost_ns);
    CU_ASSERT_EQUAL(s2.op_type, s.op_type);
    CU_ASSERT_EQUAL(s2.file_size, s.file_size);
}

/*
 * Issue 17: the child's fd table is the parent's at the fork call, not at
 * the child's first record. The parent closes the pipe's read end (fd 3)
 * and opens a file that gets fd 3 before the forked child's process record
 * comes; the child's reads of fd 3 are of the pipe, not of the file.
 */
static void test_fork_table_at_fork(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 30, 1, "/bin/parent");
    call(&r, 30, 30, IOT_OP_PIPE, 0, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_NEWFD, .fd = 3, .newfd = 4});
    call(&r, 30, 30, IOT_OP_FORK, 31, 1000, (struct iot_event){0});
    call(&r, 30, 30, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    open_(&r, 30, 3, "/etc/hostname", 0);
    call(&r, 30, 30, IOT_OP_READ, 3, 1000, (struct iot_event){FD(3), .size = 4096});
    proc(&r, 31, 30, "/bin/parent");                       /* the child's own record, late */
    for (int i = 0; i < 102; i++)
        call(&r, 31, 31, IOT_OP_READ, 4096, 1000, (struct iot_event){FD(3), .size = 4096});
    call(&r, 30, 30, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_STRING_EQUAL(got[0].path, "/etc/hostname");
    CU_ASSERT_EQUAL(got[0].reads, 1);
    CU_ASSERT_EQUAL(got[0].op, 1);
    exit_ev(&r, 31, 0);
    exit_ev(&r, 30, 0);
    CU_ASSERT_EQUAL(ngot, 1);
    rig_free(&r);
}

/* close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) closes nothing until exec. */
static void test_close_range_cloexec(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 40, 1, "/bin/app");
    open_(&r, 40, 3, "/data", 0);
    call(&r, 40, 40, IOT_OP_CLOSE_RANGE, 0, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_LAST_FD | IOT_HAS_FLAGS, .fd = 3,
                            .last_fd = INT32_MAX, .flags = 02000000});
    CU_ASSERT_EQUAL(ngot, 0);
    call(&r, 40, 40, IOT_OP_READ, 100, 1000, (struct iot_event){FD(3), .size = 100});
    proc(&r, 40, 1, "/bin/other");                         /* exec closes it */
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_EQUAL(got[0].reads, 1);
    CU_ASSERT_EQUAL(got[0].op_size, 100);
    CU_ASSERT_EQUAL(got[0].end, RULE_END_CLOSE);
    rig_free(&r);
}

/*
 * `sh -c './wr > wr.out'`: the shell opens wr.out, moves it to fd 1 and
 * execs wr, which makes every call. The session is judged as wr's, on its
 * main thread, with the shell kept as the opener; the same through a fork.
 */
static void test_session_user(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 50, 1, "/bin/dash");
    call(&r, 50, 50, IOT_OP_OPEN, 3, 1000,
         (struct iot_event){.has = IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_STACK,
                            .path = S(&r, "/wr.out"), .flags = 01101, .stack = S(&r, "sh+0x12631")});
    call(&r, 50, 50, IOT_OP_DUP, 1, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_NEWFD, .fd = 3, .newfd = 1});
    call(&r, 50, 50, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    proc(&r, 50, 1, "/tmp/wr");                            /* exec */
    for (int i = 0; i < 30; i++)
        call(&r, 50, 50, IOT_OP_WRITE, 11, 1000, (struct iot_event){FD(1), .size = 11});
    /* the same file from a forked child's fd 1 */
    call(&r, 50, 50, IOT_OP_FORK, 51, 1000, (struct iot_event){0});
    proc(&r, 51, 50, "/tmp/wr");
    exit_ev(&r, 50, 0);
    CU_ASSERT_EQUAL(ngot, 0);                              /* the child still holds it */
    for (int i = 0; i < 5; i++)
        call(&r, 51, 51, IOT_OP_WRITE, 11, 1000, (struct iot_event){FD(1), .size = 11});
    exit_ev(&r, 51, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    /* used by two processes: the opener's still */
    CU_ASSERT_STRING_EQUAL(got[0].process, "dash");
    CU_ASSERT_PTR_NULL(got[0].opener_process);
    CU_ASSERT_EQUAL(got[0].writes, 35);

    ngot = 0;
    proc(&r, 60, 1, "/bin/dash");
    call(&r, 60, 60, IOT_OP_OPEN, 3, 1000,
         (struct iot_event){.has = IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_STACK,
                            .path = S(&r, "/wr2.out"), .flags = 01101, .stack = S(&r, "sh+0x12631")});
    call(&r, 60, 60, IOT_OP_FORK, 61, 1000, (struct iot_event){0});
    proc(&r, 61, 60, "/bin/dash");
    call(&r, 61, 61, IOT_OP_DUP, 1, 1000,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_NEWFD, .fd = 3, .newfd = 1});
    proc(&r, 61, 60, "/tmp/wr");                           /* the child execs */
    call(&r, 60, 60, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    for (int i = 0; i < 30; i++)
        call(&r, 61, 61, IOT_OP_WRITE, 11, 1000, (struct iot_event){FD(1), .size = 11});
    exit_ev(&r, 61, 0);
    exit_ev(&r, 60, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_STRING_EQUAL(got[0].process, "wr");
    CU_ASSERT_EQUAL(got[0].pid, 61);
    CU_ASSERT_EQUAL(got[0].tid, 61);
    CU_ASSERT_STRING_EQUAL(got[0].thread, "wr");
    CU_ASSERT_STRING_EQUAL(got[0].stack, "sh+0x12631");    /* the opener's stack */
    CU_ASSERT_STRING_EQUAL(got[0].opener_process, "dash");
    CU_ASSERT_EQUAL(got[0].opener_pid, 60);
    CU_ASSERT_EQUAL(got[0].writes, 30);
    CU_ASSERT_EQUAL(got[0].op_size, 330);
    rig_free(&r);
}

/* fdpath names an fd first seen at a data call, unless it is known. */
static void test_fdpath(void)
{
    struct rig r;

    rig_init(&r);
    proc(&r, 70, 1, "/bin/app");
    call(&r, 70, 70, IOT_OP_FDPATH, 1, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_OFFSET,
                            .fd = 1, .path = S(&r, "/out"), .flags = 02001, .offset = 500});
    call(&r, 70, 70, IOT_OP_FDPATH, 0, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH, .fd = 0,
                            .path = S(&r, "pipe:[123]")});
    call(&r, 70, 70, IOT_OP_READ, 10, 1000, (struct iot_event){FD(0), .size = 10});
    call(&r, 70, 70, IOT_OP_WRITE, 10, 1000, (struct iot_event){FD(1), .size = 10});
    /* named again (another image after exec would): the session goes on */
    call(&r, 70, 70, IOT_OP_FDPATH, 1, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH, .fd = 1, .path = S(&r, "/out")});
    call(&r, 70, 70, IOT_OP_WRITE, 10, 1000, (struct iot_event){FD(1), .size = 10});
    exit_ev(&r, 70, 0);
    CU_ASSERT_EQUAL_FATAL(ngot, 1);                        /* no session for the pipe */
    CU_ASSERT_STRING_EQUAL(got[0].path, "/out");
    CU_ASSERT_EQUAL(got[0].writes, 2);
    CU_ASSERT_EQUAL(got[0].leaked, 0);                     /* fd 1: the process's output */
    rig_free(&r);
}

/*
 * A pid reused after its process exited, with the reports asking about it
 * in between: the questions (name, exe, cwd, time, a call's path) make no
 * process and revive none. The pid's next process is a new one, forked from
 * its parent with the parent's fds, not an exec of the exited one; an
 * unknown pid stays unknown.
 */
static void test_queries_only_look(void)
{
    struct rig r;
    struct engine_stats es;
    struct iot_event q = {.kind = IOT_EV_CALL, .op = IOT_OP_WRITE, .pid = 41, .tid = 41,
                          FD(3), .size = 1};
    int64_t ms = 0;

    rig_init(&r);
    proc(&r, 40, 1, "/bin/parent");
    open_(&r, 40, 3, "/log", 01);
    proc(&r, 41, 40, "/bin/first");
    exit_ev(&r, 41, 0);
    CU_ASSERT_STRING_EQUAL(engine_proc_name_of(r.e, 41), "first");
    CU_ASSERT_STRING_EQUAL(engine_proc_exe_of(r.e, 41), "/bin/first");
    CU_ASSERT_PTR_NULL(engine_proc_cwd_of(r.e, 41));
    CU_ASSERT_EQUAL(engine_unix_ms(r.e, 41, r.t, &ms), 1);
    CU_ASSERT_PTR_NULL(engine_call_path(r.e, &q));      /* its fds went with it */
    CU_ASSERT_PTR_NULL(engine_proc_name_of(r.e, 77));
    CU_ASSERT_PTR_NULL(engine_proc_exe_of(r.e, 77));
    CU_ASSERT_EQUAL(engine_unix_ms(r.e, 77, r.t, &ms), 0);
    engine_stats(r.e, &es);
    CU_ASSERT_EQUAL(es.processes, 2);
    proc(&r, 41, 40, "/bin/second");                       /* the pid again: a new process */
    for (int i = 0; i < 5; i++)
        call(&r, 41, 41, IOT_OP_WRITE, 1, 1000, (struct iot_event){FD(3), .size = 1});
    exit_ev(&r, 41, 0);
    CU_ASSERT_EQUAL(ngot, 0);                              /* the parent still holds /log */
    call(&r, 40, 40, IOT_OP_CLOSE, 0, 1000, (struct iot_event){.has = IOT_HAS_FD, .fd = 3});
    CU_ASSERT_EQUAL_FATAL(ngot, 1);
    CU_ASSERT_STRING_EQUAL(got[0].path, "/log");
    CU_ASSERT_EQUAL(got[0].writes, 5);                     /* the second process's, through the fd it inherited */
    engine_stats(r.e, &es);
    CU_ASSERT_EQUAL(es.processes, 3);  /* the second process of pid 41 */
    rig_free(&r);
}

/*
 * An inherited fd that the child's image names another file was replaced
 * where no wrapper saw it (a vfork child's dup2 before its exec): its
 * writes are that file's, and the parent's fd stays its own. Named as the
 * same file (deleted since), the inherited session goes on.
 */
static void test_fdpath_replaced(void)
{
    struct rig r;
    int out = -1, null = -1;

    rig_init(&r);
    proc(&r, 80, 1, "/bin/app");
    call(&r, 80, 80, IOT_OP_FDPATH, 1, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS, .fd = 1,
                            .path = S(&r, "/out.txt"), .flags = 01});
    call(&r, 80, 80, IOT_OP_WRITE, 9, 1000, (struct iot_event){FD(1), .size = 9});
    call(&r, 80, 80, IOT_OP_FORK, 81, 1000, (struct iot_event){0});
    proc(&r, 81, 80, "/bin/ls");                           /* after its unseen dup2 */
    call(&r, 81, 81, IOT_OP_FDPATH, 1, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS, .fd = 1,
                            .path = S(&r, "/dev/null"), .flags = 01});
    for (int i = 0; i < 40; i++)
        call(&r, 81, 81, IOT_OP_WRITE, 12, 1000, (struct iot_event){FD(1), .size = 12});
    exit_ev(&r, 81, 0);
    call(&r, 80, 80, IOT_OP_WRITE, 11, 1000, (struct iot_event){FD(1), .size = 11});
    /* a second child keeps the parent's file, deleted meanwhile */
    call(&r, 80, 80, IOT_OP_FORK, 82, 1000, (struct iot_event){0});
    proc(&r, 82, 80, "/bin/cat");
    call(&r, 82, 82, IOT_OP_FDPATH, 1, 0,
         (struct iot_event){.has = IOT_HAS_FD | IOT_HAS_PATH, .fd = 1,
                            .path = S(&r, "/out.txt (deleted)")});
    call(&r, 82, 82, IOT_OP_WRITE, 5, 1000, (struct iot_event){FD(1), .size = 5});
    exit_ev(&r, 82, 0);
    exit_ev(&r, 80, 0);
    for (size_t i = 0; i < ngot; i++) {
        if (!strcmp(got[i].path, "/out.txt"))
            out = (int)i;
        else if (!strcmp(got[i].path, "/dev/null"))
            null = (int)i;
    }
    CU_ASSERT_FATAL(out >= 0);
    CU_ASSERT_EQUAL(got[out].writes, 3);                   /* the parent's two, cat's one */
    CU_ASSERT_EQUAL(got[out].op_size, 25);
    if (null >= 0) {   /* reported unless /dev/null is ignored */
        CU_ASSERT_EQUAL(got[null].writes, 40);
        CU_ASSERT_EQUAL(got[null].pid, 81);
    }
    rig_free(&r);
}

void engine_suite(void)
{
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);

    CU_add_test(s, "dup and fork share one open file description", test_dup_fork_share_offset);
    CU_add_test(s, "exec, exit, signal and trace end", test_exec_and_ends);
    CU_add_test(s, "offset reconstruction", test_offsets);
    CU_add_test(s, "stdio buffer model", test_stdio_model);
    CU_add_test(s, "main-thread figures and the continual gap", test_main_thread_figures);
    CU_add_test(s, "main-thread figures of one-thread and shared sessions", test_main_thread_switch);
    CU_add_test(s, "memory does not grow with events", test_memory_flat);
    CU_add_test(s, "a session's sums saturate at the top", test_sums_saturate);
    CU_add_test(s, "fast and slow paths count alike", test_fast_and_slow_paths);
    CU_add_test(s, "a forked child gets the table as it was at the fork", test_fork_table_at_fork);
    CU_add_test(s, "close_range with CLOSE_RANGE_CLOEXEC closes at exec", test_close_range_cloexec);
    CU_add_test(s, "a session is judged as the process that used it", test_session_user);
    CU_add_test(s, "fdpath names fds first seen at a data call", test_fdpath);
    CU_add_test(s, "a report's lookups make and revive no process", test_queries_only_look);
    CU_add_test(s, "fdpath of an inherited fd replaced unseen (vfork child's dup2)",
                test_fdpath_replaced);
}
