/*
 * test_recorder_procs.c - the recorder under threads, processes, signals
 * and a program that closes every fd: exact counts through the format
 * reader (rec_harness.h runs the programs).
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iotrace.h"
#include "rec_harness.h"
#include "unit.h"

/* Paths here are short temp paths; truncation would only fail a test. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* 8 threads x 100k reads: exactly 800k, 100k per named thread. */
static void test_threads(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32], prog[PATH_MAX + 64],
        iorec[PATH_MAX + 64];
    int32_t tids[8], pid;
    long counts[8] = { 0 }, unnamed[8] = { 0 }, total = 0;
    const char *names[8] = { 0 };
    int ntid = 0;
    long wrong = 0;
    struct evs e;

    if (!rt_setup())
        return;
    rt_fresh_dir("threads", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(prog, sizeof(prog), "%s/progs/rec_threads", rt_bindir);
    snprintf(iorec, sizeof(iorec), "%s/iorecord", rt_bindir);
    {
        char *argv[] = { iorec, "-o", trace, prog, NULL };

        CU_ASSERT_EQUAL_FATAL(rt_run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = rt_pid_of(&e, "rec_threads");
    for (size_t i = 0; i < e.n; i++) {
        const struct iot_event *ev = &e.v[i];
        int k;

        if (ev->pid != pid || ev->tid == pid)
            continue;
        for (k = 0; k < ntid && tids[k] != ev->tid; k++)
            ;
        if (k == ntid) {
            CU_ASSERT_FATAL(ntid < 8);
            tids[ntid++] = ev->tid;
        }
        if (ev->kind == IOT_EV_THREAD)
            names[k] = ev->name;
        if (ev->kind == IOT_EV_CALL) {
            if (ev->op != IOT_OP_READ || ev->size != 1 || ev->ret != 1)
                wrong++;
            if (!names[k] || strncmp(names[k], "worker-", 7) != 0)
                unnamed[k]++;
            counts[k]++;
            total++;
        }
    }
    CU_ASSERT_EQUAL(ntid, 8);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(total, 800000);
    for (int k = 0; k < ntid; k++) {
        CU_ASSERT_EQUAL(counts[k], 100000);
        CU_ASSERT(names[k] && !strncmp(names[k], "worker-", 7));
        /* A rename by another thread shows after the renamed one's next
         * call: worker-7 makes exactly 2 reads under its old name. */
        if (unnamed[k] > 2)
            printf("\n  thread %d: %ld reads before its new name\n", tids[k],
                   unnamed[k]);
        CU_ASSERT(unnamed[k] <= 2);
    }
    rt_unload(&e);
}

/* The pid that opened a path ending in name, or -1. */
static int32_t opener(const struct evs *e, const char *name)
{
    size_t nl = strlen(name);

    for (size_t i = 0; i < e->n; i++) {
        const struct iot_event *ev = &e->v[i];

        if (ev->kind == IOT_EV_CALL && ev->op == IOT_OP_OPEN && ev->path &&
            strlen(ev->path) >= nl &&
            !strcmp(ev->path + strlen(ev->path) - nl, name))
            return ev->pid;
    }
    return -1;
}

/* Exit status of pid (-1 when none recorded); *sig its signal or 0. */
static int exit_of(const struct evs *e, int32_t pid, int *sig)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_EXIT && e->v[i].pid == pid) {
            *sig = (e->v[i].has & IOT_HAS_SIGNAL) ? e->v[i].signal : 0;
            return e->v[i].status;
        }
    return -1;
}

/* Process records of pid; *ppid the parent of the last one. */
static int processes_of(const struct evs *e, int32_t pid, int32_t *ppid)
{
    int n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_PROCESS && e->v[i].pid == pid) {
            *ppid = e->v[i].ppid;
            n++;
        }
    return n;
}

/*
 * Record test program prog under the launcher, its one argument a fresh
 * directory DIR/run: the trace is DIR/trace.zst, DIR the fresh directory
 * `name` (rt_fresh_dir). Returns the wait status.
 */
static int record_in_dir(const char *name, const char *prog, char *trace,
                         size_t cap)
{
    char dir[PATH_MAX], run_dir[PATH_MAX + 8];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], progpath[PATH_MAX + 64];

    rt_fresh_dir(name, dir, sizeof(dir));
    snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
    mkdir(run_dir, 0755);
    snprintf(trace, cap, "%s/trace.zst", dir);
    rt_paths(prog, iorec, lib, progpath);
    {
        char *argv[] = { iorec, "-o", trace, progpath, run_dir, NULL };

        return rt_run(argv, NULL, NULL);
    }
}

/* fork + exec, vfork + exec, posix_spawn, a killed child: all recorded. */
static void test_forkexec(void)
{
    char trace[PATH_MAX + 32];
    int32_t parent, forked, vforked, spawned, ppid = 0;
    int sig = -1, killed = 0;
    struct evs e;

    if (!rt_setup())
        return;
    CU_ASSERT_EQUAL_FATAL(record_in_dir("forkexec", "rec_forkexec", trace,
                                        sizeof(trace)), 0);
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    parent = opener(&e, "/parent.dat");
    forked = opener(&e, "/forked.dat");
    vforked = opener(&e, "/vexec.dat");
    spawned = opener(&e, "/spawn.dat");
    CU_ASSERT(parent > 0 && forked > 0 && vforked > 0 && spawned > 0);
    CU_ASSERT_EQUAL(opener(&e, "/parent-end.dat"), parent);
    /* The forked child keeps recording, and so does the image it execs. */
    CU_ASSERT_EQUAL(opener(&e, "/exec.dat"), forked);
    CU_ASSERT_EQUAL(processes_of(&e, forked, &ppid), 2);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, forked, &sig), 3);
    CU_ASSERT_EQUAL(processes_of(&e, vforked, &ppid), 1);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, vforked, &sig), 4);
    CU_ASSERT_EQUAL(processes_of(&e, spawned, &ppid), 1);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, spawned, &sig), 5);
    CU_ASSERT_EQUAL(exit_of(&e, parent, &sig), 0);
    CU_ASSERT_EQUAL(sig, 0);
    /* The killed child cannot say so itself: its parent's waitpid does. */
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_EXIT && e.v[i].status == 128 + SIGKILL &&
            (e.v[i].has & IOT_HAS_SIGNAL) && e.v[i].signal == SIGKILL)
            killed++;
    CU_ASSERT_EQUAL(killed, 1);
    rt_unload(&e);
}

/* Calls of pid with op (and ret when ret_only is set). */
static long count_op(const struct evs *e, int32_t pid, unsigned op,
                     int ret_only, int64_t ret)
{
    long n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_CALL && e->v[i].pid == pid &&
            e->v[i].op == op && (!ret_only || e->v[i].ret == ret))
            n++;
    return n;
}

/*
 * Closing every fd and dup2 onto every high fd leaves the trace whole (the
 * trace fd is in the program's table, hidden from it): under the launcher,
 * and preloaded without it (preload != 0).
 */
static void closeall(int preload)
{
    char dir[PATH_MAX], run_dir[PATH_MAX + 8], trace[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    struct rlimit rl;
    int32_t pid;
    long lim;
    int sig;
    struct evs e;

    if (!rt_setup())
        return;
    rt_fresh_dir(preload ? "closeall-preload" : "closeall", dir, sizeof(dir));
    snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
    mkdir(run_dir, 0755);
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    rt_paths("rec_closeall", iorec, lib, prog);
    if (preload) {
        char env_pre[PATH_MAX + 80], env_out[PATH_MAX + 48];
        const char *env[] = { env_pre, env_out, NULL };
        char *argv[] = { prog, run_dir, NULL };

        snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s", lib);
        snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
        CU_ASSERT_EQUAL_FATAL(rt_run(argv, env, NULL), 0);
    } else {
        char *argv[] = { iorec, "-o", trace, prog, run_dir, NULL };

        CU_ASSERT_EQUAL_FATAL(rt_run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &rl), 0);
    lim = rl.rlim_cur > 4096 ? 4096 : (long)rl.rlim_cur;
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = rt_pid_of(&e, "rec_closeall");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE, 0, 0), (lim - 3) + 101);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE, 1, 0), 101);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE_RANGE, 0, 0), 3);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_DUP, 1, -1), 0);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_DUP, 0, 0), 100);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_WRITE, 1, 1), 1100);
    CU_ASSERT_EQUAL(exit_of(&e, pid, &sig), 0);
    rt_unload(&e);
}

/* A signal handler doing I/O in the middle of wrapped calls. */
static void test_signals(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32], out[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    long handler_writes, recorded;
    char *text;
    int32_t pid;
    struct evs e;

    if (!rt_setup())
        return;
    rt_fresh_dir("signals", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    rt_paths("rec_signals", iorec, lib, prog);
    {
        char *argv[] = { iorec, "-o", trace, prog, "300000", NULL };

        CU_ASSERT_EQUAL_FATAL(rt_run(argv, NULL, out), 0);
    }
    text = rt_slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    handler_writes = atol(text);
    free(text);
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = rt_pid_of(&e, "rec_signals");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_READ, 1, 1), 300000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FWRITE, 1, 16), 300000);
    /* Handlers that interrupted the recorder itself were deferred, not lost. */
    recorded = count_op(&e, pid, IOT_OP_WRITE, 1, 1);
    CU_ASSERT(handler_writes > 0);
    CU_ASSERT_EQUAL(recorded, handler_writes);
    rt_unload(&e);
}

/*
 * kill -9 once the program has made 3000 writes, each followed by a sleep of
 * at least 1 ms: by then 3 s have passed by its own clock, whatever the
 * machine's load. A thread's chunk goes out when full or 250 ms old, at its
 * next call, so every write older than 1 s at the kill (the first 2000) is
 * in the trace, spanning at least 2 s.
 */
static void test_kill9(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32], fifo[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    char env_pre[PATH_MAX + 80], env_out[PATH_MAX + 48];
    const char *env[3] = { env_pre, env_out, NULL };
    int64_t first = -1, last = -1;
    long writes = 0, made = 0;
    pid_t pid;
    int st;
    FILE *progress;
    char line[32];
    struct evs e;

    if (!rt_setup())
        return;
    rt_fresh_dir("kill9", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(fifo, sizeof(fifo), "%s/progress", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    rt_paths("rec_longrun", iorec, lib, prog);
    /* Preloaded directly, so the program itself gets the SIGKILL. */
    snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s", lib);
    snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
    {
        char *argv[] = { prog, NULL };

        pid = rt_start(argv, env, fifo);
    }
    progress = fopen(fifo, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(progress);
    while (made < 3000 && fgets(line, sizeof(line), progress))
        made = atol(line);
    kill(pid, SIGKILL);
    fclose(progress);
    st = rt_finish(pid);
    CU_ASSERT_EQUAL(made, 3000);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_CALL && e.v[i].op == IOT_OP_WRITE && e.v[i].size == 1) {
            if (first < 0)
                first = e.v[i].t;
            last = e.v[i].t;
            writes++;
        }
    printf("\n  kill -9 after 3000 writes: %ld writes over %.2f s recovered\n", writes,
           (double)(last - first) / 1e9);
    CU_ASSERT(writes >= 2000);
    CU_ASSERT(last - first >= 2000000000LL);
    rt_unload(&e);
}

/* 400 short-lived threads: every stream flushed at thread exit, no loss. */
static void test_churn(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    long threads = 0;
    int32_t pid;
    struct evs e;

    if (!rt_setup())
        return;
    rt_fresh_dir("churn", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    rt_paths("rec_churn", iorec, lib, prog);
    {
        char *argv[] = { iorec, "-o", trace, prog, NULL };

        CU_ASSERT_EQUAL_FATAL(rt_run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = rt_pid_of(&e, "rec_churn");
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_THREAD && e.v[i].pid == pid &&
            e.v[i].tid != pid)
            threads++;
    CU_ASSERT_EQUAL(threads, 400);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_READ, 1, 1), 800000);
    rt_unload(&e);
}

/* Bytes moved by pid's calls of op (their ret summed). */
static long bytes_of(const struct evs *e, int32_t pid, unsigned op)
{
    long n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_CALL && e->v[i].pid == pid &&
            e->v[i].op == op && e->v[i].ret > 0)
            n += (long)e->v[i].ret;
    return n;
}

/*
 * 4 threads writing one stream at once, then 4 reading it: every call
 * with its bytes, and none of them taken for bytes of inline getc/putc
 * (the recorder holds the stream's lock from its check to its record).
 */
static void test_stdshare(void)
{
    char trace[PATH_MAX + 32];
    const long size = 4L * (50000 * 64 + 5000 * 2);
    int32_t pid;
    struct evs e;

    if (!rt_setup())
        return;
    CU_ASSERT_EQUAL_FATAL(record_in_dir("stdshare", "rec_stdshare", trace,
                                        sizeof(trace)), 0);
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = rt_pid_of(&e, "rec_stdshare");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FWRITE, 1, 64), 4 * 50000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FPUTS, 1, 2), 4 * 5000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_INLINE_PUT, 0, 0), 0);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_INLINE_GET, 0, 0), 0);
    CU_ASSERT_EQUAL(bytes_of(&e, pid, IOT_OP_FWRITE) +
                        bytes_of(&e, pid, IOT_OP_FPUTS), size);
    CU_ASSERT_EQUAL(bytes_of(&e, pid, IOT_OP_FREAD), size);
    rt_unload(&e);
}

static void test_closeall(void) { closeall(0); }
static void test_closeall_preload(void) { closeall(1); }
void recorder_procs_suite(void)
{
    CU_pSuite s = CU_add_suite("recorder_procs", NULL, rt_clean);

    CU_add_test(s, "8 threads x 100k reads: exactly 800k events",
                test_threads);
    CU_add_test(s, "fork, exec, vfork, posix_spawn, killed child",
                test_forkexec);
    CU_add_test(s, "400 short-lived threads: no event lost", test_churn);
    CU_add_test(s, "4 threads on one stream: every call, no inline bytes",
                test_stdshare);
    CU_add_test(s, "close every fd, dup2 onto high fds", test_closeall);
    CU_add_test(s, "the same preloaded without the launcher", test_closeall_preload);
    CU_add_test(s, "signal handler I/O inside wrapped calls", test_signals);
    CU_add_test(s, "kill -9 after 3000 writes keeps the first 2000", test_kill9);
}
