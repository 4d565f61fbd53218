/*
 * test_kconvert.c - the kernel capture path's conversion (recorder/kernel/
 * kconvert.c) from records as the BPF side makes them to the trace, read
 * back through the format reader: needs no BPF, so it runs unprivileged.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iotrace.h"
#include "kconvert.h"
#include "kevent.h"
#include "unit.h"

/* Above any pid_max: /proc has nothing of it, as of a process gone. */
#define PID 2000000001
#define NR_write 1
#define NR_close 3
#define NR_openat 257

static struct kev ev_of(int kind, int nr, int64_t t, int64_t ret)
{
    struct kev e;

    memset(&e, 0, sizeof(e));
    e.kind = (__u8)kind;
    e.nr = (__u16)nr;
    e.t = (__u64)t;
    e.dur = 100;
    e.ret = ret;
    e.pid = PID;
    e.tid = PID;
    return e;
}

static void exec_of(struct kconv *k, int64_t t, const char *exe)
{
    struct kev e = ev_of(KEV_EXEC, 0, t, 0);
    static const char args[] = "prog\0a.dat";

    e.npaths = 2;
    strcpy(e.path, exe);
    memcpy(e.path2, args, sizeof(args));
    e.a2 = sizeof(args);
    kconv_event(k, &e, sizeof(e));
}

/* The calls, processes and exits of the trace at path, in order. */
struct seen {
    int calls[IOT_OP_COUNT], processes, exits, status;
    char exe[64], argv1[64], open_path[PATH_MAX], coverage[16];
    int64_t open_flags, close_size, coverage_size, write_size;
};

static void read_back(const char *path, struct seen *s)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    struct iot_event ev;

    memset(s, 0, sizeof(*s));
    s->close_size = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
    while (iot_trace_next(tr, &ev, err) == 1) {
        CU_ASSERT_EQUAL(ev.pid, PID);
        if (ev.kind == IOT_EV_PROCESS) {
            s->processes++;
            snprintf(s->exe, sizeof(s->exe), "%s", ev.exe);
            if (ev.argc > 1)
                snprintf(s->argv1, sizeof(s->argv1), "%s", ev.argv[1]);
        } else if (ev.kind == IOT_EV_EXIT) {
            s->exits++;
            s->status = ev.status;
        } else if (ev.kind == IOT_EV_CALL && ev.op < IOT_OP_COUNT) {
            s->calls[ev.op]++;
            if (ev.op == IOT_OP_OPEN) {
                snprintf(s->open_path, sizeof(s->open_path), "%s", ev.path);
                s->open_flags = ev.flags;
            } else if (ev.op == IOT_OP_CLOSE && (ev.has & IOT_HAS_FILE_SIZE)) {
                s->close_size = ev.file_size;
            } else if (ev.op == IOT_OP_WRITE) {
                s->write_size += ev.size;
            } else if (ev.op == IOT_OP_COVERAGE) {
                snprintf(s->coverage, sizeof(s->coverage), "%s", ev.mode);
                s->coverage_size = ev.size;
            }
        }
    }
    iot_trace_close(tr);
    iot_strtab_free(st);
}

/* A program the launcher started: its calls from its exec on, once each. */
static void test_static_program(void)
{
    const char *path = unit_tmp_path("kconv_static.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, NULL, NULL, NULL);
    char cwd[PATH_MAX], want[PATH_MAX + 16];
    struct seen s;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof(cwd)));
    kconv_expect_exec(k, PID);
    /* the launcher's own call before the exec: not the program's */
    e = ev_of(KEV_SYSCALL, NR_close, 1000, 0);
    kconv_event(k, &e, KEV_BASE_SIZE);
    exec_of(k, 2000, "/bin/prog");
    e = ev_of(KEV_SYSCALL, NR_openat, 3000, 3);
    e.a0 = (__u64)-100;     /* AT_FDCWD */
    e.a2 = O_WRONLY | O_CREAT;
    e.npaths = 1;
    strcpy(e.path, "a.dat");
    kconv_event(k, &e, KEV_PATH1_SIZE);
    for (int i = 0; i < 3; i++) {
        e = ev_of(KEV_SYSCALL, NR_write, 4000 + i * 200, 1);
        e.a0 = 3;
        e.a2 = 1;
        kconv_event(k, &e, KEV_BASE_SIZE);
    }
    e = ev_of(KEV_SYSCALL, NR_close, 5000, 0);
    e.a0 = 3;
    e.size = 3;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_EXIT, 0, 6000, 0);
    e.a0 = 7 << 8;
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    snprintf(want, sizeof(want), "%s/a.dat", cwd);
    CU_ASSERT_EQUAL(s.processes, 1);
    CU_ASSERT_STRING_EQUAL(s.exe, "/bin/prog");
    CU_ASSERT_STRING_EQUAL(s.argv1, "a.dat");
    CU_ASSERT_EQUAL(s.calls[IOT_OP_OPEN], 1);
    CU_ASSERT_STRING_EQUAL(s.open_path, want);
    CU_ASSERT_EQUAL(s.open_flags, O_WRONLY | O_CREAT);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_WRITE], 3);
    CU_ASSERT_EQUAL(s.write_size, 3);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_CLOSE], 1);
    CU_ASSERT_EQUAL(s.close_size, 3);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_CWD], 1);
    CU_ASSERT_STRING_EQUAL(s.coverage, "kernel");
    CU_ASSERT_EQUAL(s.coverage_size, 5);
    CU_ASSERT_EQUAL(s.exits, 1);
    CU_ASSERT_EQUAL(s.status, 7);
}

static int judge_preload(const char *path)
{
    (void)path;
    return 1;
}

static int judged_pid;

static void on_judged(void *ctx, pid_t pid, int preload)
{
    (void)ctx;
    if (preload)
        judged_pid = pid;
}

/*
 * A process the preload is in: its calls from the C library are the
 * preload's and are not written; a raw one and an io_uring write are.
 */
static void test_preloaded_program(void)
{
    const char *path = unit_tmp_path("kconv_preload.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, judge_preload, on_judged, NULL);
    struct seen s;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_expect_exec(k, PID);
    exec_of(k, 2000, "/bin/prog");
    CU_ASSERT_EQUAL(judged_pid, PID);
    e = ev_of(KEV_SYSCALL, NR_write, 3000, 1);
    e.a0 = 1;
    e.a2 = 1;
    e.flags = KEV_F_LIBC;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e.flags = 0;
    e.t = 3500;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_URING, 23 /* IORING_OP_WRITE */, 4000, 1);
    e.a0 = 5;
    e.a1 = 1;
    e.a2 = 4096;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_EXIT, 0, 6000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    /* the preload writes its process and exit records */
    CU_ASSERT_EQUAL(s.processes, 0);
    CU_ASSERT_EQUAL(s.exits, 0);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_WRITE], 1);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_PWRITE], 1);
    CU_ASSERT_STRING_EQUAL(s.coverage, "preload");
    CU_ASSERT_EQUAL(s.coverage_size, 2);
}

/*
 * A preloaded process that asked for the kernel path (kconv_adopt) and
 * made only C library calls: none is written, and its coverage record says
 * the kernel path followed it (so its `unrecorded` record is covered).
 */
static void test_adopted_process(void)
{
    const char *path = unit_tmp_path("kconv_adopt.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, judge_preload, NULL, NULL);
    struct seen s;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_adopt(k, PID);
    e = ev_of(KEV_SYSCALL, NR_write, 3000, 1);
    e.a0 = 1;
    e.a2 = 1;
    e.flags = KEV_F_LIBC;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_EXIT, 0, 6000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    CU_ASSERT_EQUAL(s.processes, 0);
    CU_ASSERT_EQUAL(s.exits, 0);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_WRITE], 0);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_COVERAGE], 1);
    CU_ASSERT_STRING_EQUAL(s.coverage, "preload");
    CU_ASSERT_EQUAL(s.coverage_size, 0);
}

void kconvert_suite(void)
{
    CU_pSuite s = CU_add_suite("kconvert", NULL, NULL);

    CU_add_test(s, "a static program's calls, once each", test_static_program);
    CU_add_test(s, "a preloaded program's raw calls only", test_preloaded_program);
    CU_add_test(s, "a process that asked is covered without calls", test_adopted_process);
}
