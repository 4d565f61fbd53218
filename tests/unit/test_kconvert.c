/*
 * test_kconvert.c - the kernel capture path's conversion (recorder/kernel/
 * kconvert.c) from records as the BPF side makes them to the trace, read
 * back through the format reader: needs no BPF, so it runs unprivileged.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
    int calls[IOT_OP_COUNT], processes, exits, status, labels;
    char exe[64], argv1[64], open_path[PATH_MAX], coverage[16], cwd[PATH_MAX];
    char names[128];    /* the thread records' names, each followed by ' ' */
    char memfd[64];
    int64_t open_flags, close_size, coverage_size, write_size;
    int32_t dup_fd, dup_newfd, pipe_fd, pipe_newfd, munmap_size;
};

/* The pid every record of the trace read back must have. */
static int32_t want_pid = PID;

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
        CU_ASSERT_EQUAL(ev.pid, want_pid);
        if (ev.kind == IOT_EV_PROCESS) {
            s->processes++;
            snprintf(s->exe, sizeof(s->exe), "%s", ev.exe);
            if (ev.argc > 1)
                snprintf(s->argv1, sizeof(s->argv1), "%s", ev.argv[1]);
        } else if (ev.kind == IOT_EV_THREAD) {
            size_t n = strlen(s->names);

            snprintf(s->names + n, sizeof(s->names) - n, "%s ", ev.name);
        } else if (ev.kind == IOT_EV_LABEL) {
            CU_ASSERT_STRING_EQUAL(ev.label_key, "suite");
            CU_ASSERT_STRING_EQUAL(ev.label_value, "unit");
            s->labels++;
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
            } else if (ev.op == IOT_OP_CWD) {
                snprintf(s->cwd, sizeof(s->cwd), "%s", ev.path);
            } else if (ev.op == IOT_OP_DUP) {
                s->dup_fd = ev.fd;
                s->dup_newfd = (ev.has & IOT_HAS_NEWFD) ? ev.newfd : -1;
            } else if (ev.op == IOT_OP_PIPE) {
                s->pipe_fd = ev.fd;
                s->pipe_newfd = ev.newfd;
            } else if (ev.op == IOT_OP_MEMFD) {
                snprintf(s->memfd, sizeof(s->memfd), "%s", ev.path);
            } else if (ev.op == IOT_OP_MUNMAP) {
                s->munmap_size = (int32_t)ev.size;
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

/* One syscall of the program: nr with its arguments and result (a path in path). */
static void call(struct kconv *k, int nr, int64_t t, int64_t ret, uint64_t a0, uint64_t a1,
                 uint64_t a2, uint64_t a3, const char *path)
{
    struct kev e = ev_of(KEV_SYSCALL, nr, t, ret);

    e.a0 = a0;
    e.a1 = a1;
    e.a2 = a2;
    e.a3 = a3;
    if (path) {
        e.npaths = 1;
        snprintf(e.path, sizeof(e.path), "%s", path);
    }
    kconv_event(k, &e, path ? KEV_PATH1_SIZE : KEV_BASE_SIZE);
}

/*
 * What the kernel path follows as the preload does: fd copies and fds
 * that are not files, the cwd a chdir moves to, thread names, labels, a
 * file mapping and its munmap (and not malloc's).
 */
static void test_followed(void)
{
    const char *path = unit_tmp_path("kconv_follow.zst");
    char cwd[PATH_MAX], made[PATH_MAX], sub[PATH_MAX], want[PATH_MAX + 16];
    struct seen s;
    struct kconv *k;
    struct kev e;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

    CU_ASSERT_FATAL(fd >= 0 && getcwd(cwd, sizeof(cwd)) != NULL);
    snprintf(made, sizeof(made), "%s.d", path);
    mkdir(made, 0755);
    CU_ASSERT_FATAL(realpath(made, sub) != NULL);
    setenv("IORECORD_LABELS", "suite=unit", 1);
    k = kconv_create(fd, NULL, NULL, NULL);
    unsetenv("IORECORD_LABELS");
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_expect_exec(k, PID);
    exec_of(k, 1000, "/bin/prog");
    call(k, 257 /* openat */, 1100, 3, (uint64_t)-100, 0, O_WRONLY | O_CREAT, 0, "./a.dat");
    call(k, 33 /* dup2 */, 1200, 9, 3, 9, 0, 0, NULL);
    e = ev_of(KEV_SYSCALL, 293 /* pipe2 */, 1300, 0);
    e.size = (int64_t)(4 | (uint64_t)5 << 32);
    kconv_event(k, &e, KEV_BASE_SIZE);
    call(k, 319 /* memfd_create */, 1350, 6, 0, 0, 0, 0, "kf");
    call(k, 72 /* fcntl */, 1360, 0, 9, 4 /* F_SETFL: not followed */, 0, 0, NULL);
    call(k, 80 /* chdir */, 1400, 0, 0, 0, 0, 0, sub);
    call(k, 257, 1500, 7, (uint64_t)-100, 0, O_RDONLY, 0, "b.dat");
    call(k, 157 /* prctl */, 1600, 0, 15 /* PR_SET_NAME */, 0, 0, 0, "kf-worker-with-a-long-name");
    /* a file mapped (capture.bpf.c puts the fd in size, the offset in a0), then
       unmapped; an anonymous map's munmap (malloc's) is not written */
    e = ev_of(KEV_SYSCALL, 9 /* mmap */, 1700, 0x7f0000000000);
    e.size = 7;
    e.a1 = 4096;
    e.a2 = 1;   /* PROT_READ */
    e.a3 = 1;   /* MAP_SHARED */
    kconv_event(k, &e, KEV_BASE_SIZE);
    call(k, 11 /* munmap */, 1800, 0, 0x7f0000000000, 4096, 0, 0, NULL);
    call(k, 11, 1900, 0, 0x7f1000000000, 8192, 0, 0, NULL);
    e = ev_of(KEV_EXIT, 0, 2000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    snprintf(want, sizeof(want), "%s/b.dat", sub);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_OPEN], 2);
    CU_ASSERT_STRING_EQUAL(s.open_path, want);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_DUP], 1);
    CU_ASSERT_EQUAL(s.dup_fd, 3);
    CU_ASSERT_EQUAL(s.dup_newfd, 9);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_PIPE], 1);
    CU_ASSERT_EQUAL(s.pipe_fd, 4);
    CU_ASSERT_EQUAL(s.pipe_newfd, 5);
    CU_ASSERT_STRING_EQUAL(s.memfd, "memfd:kf");
    CU_ASSERT_EQUAL(s.calls[IOT_OP_FCNTL], 0);
    /* the first at exec, the second after the chdir */
    CU_ASSERT_EQUAL(s.calls[IOT_OP_CWD], 2);
    CU_ASSERT_STRING_EQUAL(s.cwd, sub);
    /* the kernel keeps 15 bytes of a name */
    CU_ASSERT_STRING_EQUAL(s.names, "prog kf-worker-with- ");
    CU_ASSERT_EQUAL(s.labels, 1);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_MMAP], 1);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_MUNMAP], 1);
    CU_ASSERT_EQUAL(s.munmap_size, 4096);
    rmdir(sub);
}

/* A relative path is joined as the preload joins it: no "./" left in it. */
static void test_relative_path(void)
{
    const char *path = unit_tmp_path("kconv_relative.zst");
    char cwd[PATH_MAX], want[PATH_MAX + 16];
    struct seen s;
    struct kconv *k;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

    CU_ASSERT_FATAL(fd >= 0 && getcwd(cwd, sizeof(cwd)) != NULL);
    k = kconv_create(fd, NULL, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_expect_exec(k, PID);
    exec_of(k, 1000, "/bin/prog");
    call(k, 257, 1100, 3, (uint64_t)-100, 0, O_RDONLY, 0, "./a.dat");
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);
    read_back(path, &s);
    snprintf(want, sizeof(want), "%s/a.dat", cwd);
    CU_ASSERT_STRING_EQUAL(s.open_path, want);
}

static int32_t named_tid;
static int named_gate[2];

static void *named_thread(void *arg)
{
    char c;

    (void)arg;
    named_tid = (int32_t)syscall(SYS_gettid);
    /* alive until the test has converted the rename */
    if (read(named_gate[0], &c, 1) != 1)
        return NULL;
    return NULL;
}

/*
 * pthread_setname_np of another thread writes its /proc comm file: the
 * write renames that thread (its name read from /proc while it lives).
 * A live thread of this process stands for the program's.
 */
static void test_comm_file(void)
{
    const char *path = unit_tmp_path("kconv_comm.zst");
    int32_t pid = (int32_t)getpid();
    char comm[64];
    struct seen s;
    struct kconv *k;
    struct kev e;
    pthread_t th;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

    CU_ASSERT_FATAL(fd >= 0 && pipe(named_gate) == 0);
    named_tid = 0;
    CU_ASSERT_FATAL(pthread_create(&th, NULL, named_thread, NULL) == 0);
    while (!__atomic_load_n(&named_tid, __ATOMIC_ACQUIRE))
        usleep(1000);
    CU_ASSERT_FATAL(pthread_setname_np(th, "kf-named") == 0);
    k = kconv_create(fd, NULL, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_expect_exec(k, pid);
    e = ev_of(KEV_EXEC, 0, 1000, 0);
    e.pid = e.tid = (uint32_t)pid;
    e.npaths = 1;
    strcpy(e.path, "/bin/prog");
    kconv_event(k, &e, sizeof(e));
    snprintf(comm, sizeof(comm), "/proc/self/task/%d/comm", named_tid);
    e = ev_of(KEV_SYSCALL, 257, 1100, 5);
    e.pid = e.tid = (uint32_t)pid;
    e.a0 = (uint64_t)-100;
    e.a2 = O_RDWR;
    e.npaths = 1;
    strcpy(e.path, comm);
    kconv_event(k, &e, KEV_PATH1_SIZE);
    e = ev_of(KEV_SYSCALL, 1 /* write */, 1200, 8);
    e.pid = e.tid = (uint32_t)pid;
    e.a0 = 5;
    e.a2 = 8;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_SYSCALL, 3 /* close */, 1300, 0);
    e.pid = e.tid = (uint32_t)pid;
    e.a0 = 5;
    e.size = -1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);
    CU_ASSERT(write(named_gate[1], "g", 1) == 1);
    pthread_join(th, NULL);
    close(named_gate[0]);
    close(named_gate[1]);

    want_pid = pid;
    read_back(path, &s);
    want_pid = PID;
    /* the main thread's at its exec, then the other's rename */
    CU_ASSERT_STRING_EQUAL(s.names, "prog kf-named ");
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
    kconv_adopt(k, PID, 0);
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

/*
 * A preloaded process let go at its credential change (kconv_adopt with
 * let_go, then KEV_LET_GO): its calls from the C library are written from
 * then on, and after it execs a program the judge gives to the preload
 * too (the preload took itself out of its children's environment), with a
 * process record and a coverage record of the kernel path's.
 */
static void test_let_go(void)
{
    const char *path = unit_tmp_path("kconv_let_go.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, judge_preload, NULL, NULL);
    struct seen s;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_adopt(k, PID, 1);
    e = ev_of(KEV_SYSCALL, NR_write, 2000, 1);   /* before the change: the preload's */
    e.a0 = 1;
    e.a2 = 1;
    e.flags = KEV_F_LIBC;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_LET_GO, 0, 2500, 0);
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_SYSCALL, NR_write, 3000, 1);
    e.a0 = 1;
    e.a2 = 1;
    e.flags = KEV_F_LIBC;
    kconv_event(k, &e, KEV_BASE_SIZE);
    exec_of(k, 4000, "/usr/bin/prog");
    e = ev_of(KEV_SYSCALL, NR_write, 5000, 2);
    e.a0 = 1;
    e.a2 = 2;
    e.flags = KEV_F_LIBC;
    kconv_event(k, &e, KEV_BASE_SIZE);
    e = ev_of(KEV_EXIT, 0, 6000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    CU_ASSERT_EQUAL(s.processes, 1);
    CU_ASSERT_STRING_EQUAL(s.exe, "/usr/bin/prog");
    CU_ASSERT_EQUAL(s.calls[IOT_OP_WRITE], 2);
    CU_ASSERT_EQUAL(s.write_size, 3);
    CU_ASSERT_EQUAL(s.exits, 1);
    CU_ASSERT_STRING_EQUAL(s.coverage, "kernel");
}

/*
 * A process that asked to be let go but whose credential change the BPF
 * side never reported (no KEV_LET_GO): no coverage record, so that its
 * `unrecorded` record is not taken as covered.
 */
static void test_let_go_unseen(void)
{
    const char *path = unit_tmp_path("kconv_let_go_unseen.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, judge_preload, NULL, NULL);
    struct stat st;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    kconv_adopt(k, PID, 1);
    e = ev_of(KEV_EXIT, 0, 6000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    /* nothing at all: no coverage, no call */
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 0);
}

/*
 * A thread's batch (KEV_BATCH): its plain calls, each written as alone;
 * a record in it that is not a plain call is not, and a count larger
 * than the record holds is read only as far as it goes.
 */
static void test_batch(void)
{
    const char *path = unit_tmp_path("kconv_batch.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, NULL, NULL, NULL);
    _Alignas(struct kev) unsigned char rec[6 * KEV_BASE_SIZE];
    struct seen s;
    struct kev e;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    exec_of(k, 1000, "/bin/prog");
    memset(rec, 0, sizeof(rec));
    e = ev_of(KEV_BATCH, 0, 0, 0);
    e.a0 = 5;                   /* the record below holds 4 */
    memcpy(rec, &e, KEV_BASE_SIZE);
    for (int i = 1; i <= 4; i++) {
        e = ev_of(i == 3 ? KEV_EXIT : KEV_SYSCALL, NR_write, 2000 + i * 100, i);
        e.a0 = 3;
        e.a2 = (__u64)i;
        memcpy(rec + i * KEV_BASE_SIZE, &e, KEV_BASE_SIZE);
    }
    kconv_event(k, (const struct kev *)rec, 5 * KEV_BASE_SIZE);
    e = ev_of(KEV_EXIT, 0, 3000, 0);
    e.a1 = 1;
    kconv_event(k, &e, KEV_BASE_SIZE);
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);

    read_back(path, &s);
    CU_ASSERT_EQUAL(s.calls[IOT_OP_WRITE], 3);
    CU_ASSERT_EQUAL(s.write_size, 1 + 2 + 4);
    CU_ASSERT_EQUAL(s.exits, 1);
}

void kconvert_suite(void)
{
    CU_pSuite s = CU_add_suite("kconvert", NULL, NULL);

    CU_add_test(s, "a static program's calls, once each", test_static_program);
    CU_add_test(s, "a preloaded program's raw calls only", test_preloaded_program);
    CU_add_test(s, "fds, the cwd, names, labels and maps followed", test_followed);
    CU_add_test(s, "a relative path joined as the preload joins it", test_relative_path);
    CU_add_test(s, "a thread renamed through its /proc comm file", test_comm_file);
    CU_add_test(s, "a process that asked is covered without calls", test_adopted_process);
    CU_add_test(s, "a process let go is recorded on, through its execs", test_let_go);
    CU_add_test(s, "a let-go never seen leaves the process uncovered", test_let_go_unseen);
    CU_add_test(s, "a thread's batch of calls, each as alone", test_batch);
}
