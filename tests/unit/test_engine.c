/*
 * The replay engine's tables, event by event: sessions across dup, fork and
 * exec, offsets, how sessions end (close, exit, trace end, signal), the fd
 * table a child inherits, close_range, who a session belongs to, fd paths,
 * lookups that only look, and static programs said unrecorded. The figures the engine sums are
 * test_engine_figures.c's.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine_rig.h"
#include "unit.h"

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
 * The kernel path's coverage record comes at a process's end, after its
 * exit: a note on that process, which neither makes its pid live again
 * (one process, not two) nor leaves its io_uring calls, whose requests the
 * kernel path recorded, counted as async I/O not analysed. Another
 * process's io_uring calls, not covered, stay counted.
 */
static void test_coverage_after_exit(void)
{
    struct rig r;
    struct engine_stats es;
    struct iot_event setup = {.has = IOT_HAS_FD | IOT_HAS_MODE, .fd = 7};
    struct iot_event covered = {.has = IOT_HAS_MODE | IOT_HAS_SIZE, .size = 1000};

    rig_init(&r);
    setup.mode = S(&r, "io_uring_setup");
    covered.mode = S(&r, "preload");
    proc(&r, 50, 1, "/bin/ring");
    call(&r, 50, 50, IOT_OP_ASYNC, 7, 1000, setup);
    setup.mode = S(&r, "io_uring_enter");
    for (int i = 0; i < 3; i++)
        call(&r, 50, 50, IOT_OP_ASYNC, 1, 1000, setup);
    proc(&r, 51, 1, "/bin/other");
    call(&r, 51, 51, IOT_OP_ASYNC, 1, 1000, setup);
    engine_stats(r.e, &es);
    CU_ASSERT_EQUAL(es.async_calls, 5);
    CU_ASSERT_EQUAL(es.async_fds, 2);
    exit_ev(&r, 50, 0);
    call(&r, 50, 50, IOT_OP_COVERAGE, 0, 0, covered);
    engine_stats(r.e, &es);
    CU_ASSERT_EQUAL(es.processes, 2);
    CU_ASSERT_EQUAL(es.async_calls, 1);
    CU_ASSERT_EQUAL(es.async_fds, 1);
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

/*
 * A static program the preload then records in its place (valgrind's tool
 * running its guest in the same pid; ld.so run as a command, spawned by a
 * shell that said it unrecorded) is not said unrecorded; a static program
 * with no image after it, or whose spawned child runs another program, is.
 */
static void test_static_loader_entered(void)
{
    struct engine_stats es;
    struct rig r;

    rig_init(&r);
#define UNREC(who, exe) \
    call(&r, who, who, IOT_OP_UNRECORDED, 0, 0, (struct iot_event){ \
         .has = IOT_HAS_PATH | IOT_HAS_MODE, .path = S(&r, exe), .mode = S(&r, "static")})
    proc(&r, 90, 1, "/usr/bin/valgrind.bin");
    UNREC(90, "/usr/libexec/valgrind/memcheck-amd64-linux");
    proc(&r, 90, 1, "/tmp/guest");                      /* the guest, preloaded */
    proc(&r, 91, 1, "/bin/sh");
    UNREC(91, "/sbin/ldconfig");                        /* exec'd, nothing after */
    exit_ev(&r, 91, 0);
    proc(&r, 92, 1, "/bin/sh");
    UNREC(92, "/lib64/ld-linux-x86-64.so.2");           /* spawned */
    proc(&r, 93, 92, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
    proc(&r, 94, 1, "/bin/sh");
    UNREC(94, "/sbin/ldconfig");                        /* spawned ... */
    proc(&r, 95, 94, "/bin/cat");                       /* ... and another child */
#undef UNREC
    engine_finish(r.e);
    engine_stats(r.e, &es);
    CU_ASSERT_EQUAL(es.unrecorded, 2);
    CU_ASSERT_STRING_EQUAL(es.unrecorded_path[0], "/sbin/ldconfig");
    CU_ASSERT_STRING_EQUAL(es.unrecorded_path[1], "/sbin/ldconfig");
    CU_ASSERT_STRING_EQUAL(es.unrecorded_why[0], "static");
    rig_free(&r);
}

void engine_suite(void)
{
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);

    CU_add_test(s, "dup and fork share one open file description", test_dup_fork_share_offset);
    CU_add_test(s, "exec, exit, signal and trace end", test_exec_and_ends);
    CU_add_test(s, "offset reconstruction", test_offsets);
    CU_add_test(s, "a forked child gets the table as it was at the fork", test_fork_table_at_fork);
    CU_add_test(s, "close_range with CLOSE_RANGE_CLOEXEC closes at exec", test_close_range_cloexec);
    CU_add_test(s, "a session is judged as the process that used it", test_session_user);
    CU_add_test(s, "fdpath names fds first seen at a data call", test_fdpath);
    CU_add_test(s, "a report's lookups make and revive no process", test_queries_only_look);
    CU_add_test(s, "a coverage record after the exit: one process, its ring covered",
                test_coverage_after_exit);
    CU_add_test(s, "fdpath of an inherited fd replaced unseen (vfork child's dup2)",
                test_fdpath_replaced);
    CU_add_test(s, "a static loader the preload was entered after is not unrecorded",
                test_static_loader_entered);
}
