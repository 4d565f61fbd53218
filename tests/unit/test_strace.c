/*
 * strace logs as input: every line form of tests/fixtures/strace/ and the
 * real captures there, read through the strace source.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "infile.h"
#include "strace.h"
#include "strace_evs.h"
#include "unit.h"

static void test_detect(void)
{
    static const char *yes[] = {
        "4214  17:57:30.775915 execve(\"./t\", [\"./t\"], 0x7ff /* 37 vars */) = 0 <0.000288>\n",
        "1795370250.797903 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3\n",
        "execve(\"/bin/solo\", [\"solo\"], 0x7ff /* 2 vars */) = 0\n",
        "[pid  4215] read(3, \"\", 3) = 0\n",
        "4215  <... rseq resumed>) = 0 <0.000043>\n",
        "\n4216  +++ exited with 3 +++\n",
        "--- SIGCHLD {si_signo=SIGCHLD} ---\n",
        "strace: Process 123 attached\n",
        "     0.000123 read(3, \"\", 3) = 0\n",
    };
    static const char *no[] = {
        "{\"ev\":\"process\",\"pid\":1}\n",
        "[{\"tag\":\"io\"}]\n",
        "\x28\xb5\x2f\xfd\x00\x58",
        "",
        "hello world\n",
        "pid,path,opens\n",
    };

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        CU_ASSERT_EQUAL(strace_detect(yes[i], strlen(yes[i])), 1);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        CU_ASSERT_EQUAL(strace_detect(no[i], strlen(no[i])), 0);
}

/* The metadata calls (issue 17 item 3): paths joined to their dirfd, fd forms, flags, names. */
static void test_meta_ops(void)
{
    struct evs e;
    const struct iot_event *v;
    static const struct { int i; unsigned op; const char *path; } rows[] = {
        { 1, IOT_OP_STAT, "/usr/bin/ls" },     { 2, IOT_OP_STAT, "/work/conf.ini" },
        { 6, IOT_OP_STAT, "/etc/hosts" },      { 7, IOT_OP_STAT, "/etc/link" },
        { 8, IOT_OP_STAT, "/work/a" },         { 9, IOT_OP_ACCESS, "/etc/ld.so.preload" },
        { 10, IOT_OP_ACCESS, "/work/b" },      { 11, IOT_OP_READLINK, "/work/d" },
        { 12, IOT_OP_READLINK, "/work/d" },    { 13, IOT_OP_UNLINK, "/work/c" },
        { 14, IOT_OP_RMDIR, "/work/x/y" },     { 15, IOT_OP_RMDIR, "/work/x" },
        { 16, IOT_OP_RENAME, "/work/a" },      { 17, IOT_OP_RENAME, "/work/b" },
        { 18, IOT_OP_LINK, "/work/e" },        { 19, IOT_OP_SYMLINK, "e" },
        { 20, IOT_OP_MKDIR, "/work/x" },       { 21, IOT_OP_MKDIR, "/work/x/y" },
        { 22, IOT_OP_CHMOD, "/work/e" },       { 24, IOT_OP_CHOWN, "/work/e" },
        { 26, IOT_OP_TRUNCATE, "/work/e" },    { 34, IOT_OP_CHOWN, "/work/e" },
    };

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "meta.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 36);
    /* the working directory, from the first AT_FDCWD annotation, once */
    CU_ASSERT_EQUAL(e.ncwd, 1);
    CU_ASSERT_EQUAL(e.cwd[0].pid, 400);
    CU_ASSERT_STRING_EQUAL(e.cwd[0].path, "/work");
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        v = &e.ev[rows[k].i];
        CU_ASSERT_EQUAL(v->op, rows[k].op);
        CU_ASSERT_FALSE(v->has & IOT_HAS_FD);
        STR_EQ(v->path, rows[k].path);
    }
    v = &e.ev[1];   /* a probe that failed */
    CU_ASSERT_EQUAL(v->ret, -1);
    CU_ASSERT_EQUAL(v->err, ENOENT);
    CU_ASSERT_EQUAL(v->dur, 44000);
    CU_ASSERT_EQUAL(e.ev[2].flags, AT_SYMLINK_NOFOLLOW);
    CU_ASSERT_EQUAL(e.ev[7].flags, AT_SYMLINK_NOFOLLOW);             /* lstat */
    CU_ASSERT_EQUAL(e.ev[8].flags, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT);  /* statx */
    CU_ASSERT_EQUAL(e.ev[34].flags, AT_SYMLINK_NOFOLLOW);            /* lchown */
    for (int i = 4; i <= 5; i++) {  /* fstat, and glibc's fstat: newfstatat(fd, "", AT_EMPTY_PATH) */
        CU_ASSERT_EQUAL(e.ev[i].op, IOT_OP_STAT);
        CU_ASSERT_EQUAL(e.ev[i].fd, 3);
        STR_EQ(e.ev[i].path, "/work/conf.ini");
    }
    CU_ASSERT_EQUAL(e.ev[9].flags, R_OK);
    CU_ASSERT_EQUAL(e.ev[10].flags, W_OK);
    CU_ASSERT_EQUAL(e.ev[11].size, 64);
    CU_ASSERT_EQUAL(e.ev[12].size, 10);
    STR_EQ(e.ev[16].newpath, "/work/b");
    CU_ASSERT_EQUAL(e.ev[16].flags, RENAME_NOREPLACE);
    STR_EQ(e.ev[17].newpath, "/work/e");
    STR_EQ(e.ev[18].newpath, "/work/c");
    STR_EQ(e.ev[19].newpath, "/work/d");                         /* the target stays as given */
    CU_ASSERT_EQUAL(e.ev[20].flags, 0777);
    CU_ASSERT_EQUAL(e.ev[21].err, EEXIST);
    CU_ASSERT_EQUAL(e.ev[22].flags, 0600);
    CU_ASSERT_EQUAL(e.ev[23].op, IOT_OP_CHMOD);                   /* fchmod */
    CU_ASSERT_EQUAL(e.ev[23].fd, 3);
    CU_ASSERT_EQUAL(e.ev[25].op, IOT_OP_UTIMES);                  /* utimensat(fd, NULL) */
    CU_ASSERT_EQUAL(e.ev[25].fd, 3);
    CU_ASSERT_EQUAL(e.ev[26].size, 5);
    CU_ASSERT_EQUAL(e.ev[27].op, IOT_OP_OPEN);                    /* opendir's openat */
    v = &e.ev[28];
    CU_ASSERT_EQUAL(v->op, IOT_OP_READDIR);
    CU_ASSERT_EQUAL(v->fd, 4);
    CU_ASSERT_EQUAL(v->size, 4);                                  /* entries, not bytes */
    CU_ASSERT_EQUAL(v->ret, 4);
    STR_EQ(v->path, "/work");
    CU_ASSERT_EQUAL(e.ev[29].size, 0);
    CU_ASSERT_EQUAL(e.ev[31].op, IOT_OP_SYNC);
    CU_ASSERT_FALSE(e.ev[31].has & IOT_HAS_FD);
    CU_ASSERT_EQUAL(e.ev[32].op, IOT_OP_SYNC);
    CU_ASSERT_EQUAL(e.ev[32].fd, 3);
    v = &e.ev[33];
    CU_ASSERT_EQUAL(v->op, IOT_OP_SYNC_FILE_RANGE);
    CU_ASSERT_EQUAL(v->offset, 0);
    CU_ASSERT_EQUAL(v->size, 4096);
    CU_ASSERT_EQUAL(e.ev[35].kind, IOT_EV_EXIT);
    evs_release(&e);
}

/* Every syscall the source maps, with its fields. */
static void test_ops(void)
{
    struct evs e;
    const struct iot_event *v;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "ops.log"), 0);
    CU_ASSERT_EQUAL(e.info.lines, 37);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL(e.info.has_durations, 1);
    CU_ASSERT_EQUAL(e.info.has_paths, 1);
    CU_ASSERT_EQUAL_FATAL(e.n, 32);
    CU_ASSERT_EQUAL(e.info.events, 32 + e.ncwd);

    v = &e.ev[0];
    CU_ASSERT_EQUAL(v->kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(v->pid, 300);
    CU_ASSERT_EQUAL(v->ppid, 0);
    STR_EQ(v->exe, "/usr/bin/opsprog");
    CU_ASSERT_EQUAL_FATAL(v->argc, 3);
    STR_EQ(v->argv[2], "a b\"c");

    v = &e.ev[1];  /* openat, relative to the cwd annotation */
    CU_ASSERT_EQUAL(v->op, IOT_OP_OPEN);
    STR_EQ(v->path, "/work/data.bin");
    CU_ASSERT_EQUAL(v->flags, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC);
    CU_ASSERT_EQUAL(v->ret, 3);
    CU_ASSERT_EQUAL(v->fd, 3);
    CU_ASSERT_EQUAL(v->dur, 10000);
    CU_ASSERT_EQUAL(v->t, 1000000);
    CU_ASSERT(v->has & IOT_HAS_FLAGS);
    CU_ASSERT_FALSE(v->has & IOT_HAS_NO_DUR);
    CU_ASSERT_EQUAL(e.ev[2].flags, O_RDONLY);                       /* open */
    STR_EQ(e.ev[3].path, "/tmp/new.txt");                           /* creat */
    CU_ASSERT_EQUAL(e.ev[3].flags, O_CREAT | O_WRONLY | O_TRUNC);
    CU_ASSERT_EQUAL(e.ev[4].flags, O_RDONLY | O_NOFOLLOW);          /* openat2 */
    v = &e.ev[5];  /* failed open */
    CU_ASSERT_EQUAL(v->ret, -1);
    CU_ASSERT(v->has & IOT_HAS_ERRNO);
    CU_ASSERT_EQUAL(v->err, ENOENT);
    STR_EQ(v->path, "/missing");
    CU_ASSERT_FALSE(v->has & IOT_HAS_FD);

    v = &e.ev[6];
    CU_ASSERT_EQUAL(v->op, IOT_OP_PREAD);
    CU_ASSERT_EQUAL(v->size, 4);
    CU_ASSERT_EQUAL(v->offset, 100);
    STR_EQ(v->path, "/work/data.bin");
    CU_ASSERT_EQUAL(e.ev[7].op, IOT_OP_PWRITE);
    CU_ASSERT_EQUAL(e.ev[7].offset, 4096);
    CU_ASSERT_EQUAL(e.ev[8].op, IOT_OP_READV);
    CU_ASSERT_EQUAL(e.ev[8].size, 30);      /* "iov_len=99" inside a string is data */
    CU_ASSERT_EQUAL(e.ev[9].op, IOT_OP_WRITEV);
    CU_ASSERT_EQUAL(e.ev[9].size, 6);
    CU_ASSERT_EQUAL(e.ev[10].op, IOT_OP_PREADV);
    CU_ASSERT_EQUAL(e.ev[10].offset, 16);
    CU_ASSERT_EQUAL(e.ev[11].op, IOT_OP_PWRITEV);
    CU_ASSERT_EQUAL(e.ev[11].offset, 32);
    CU_ASSERT_EQUAL(e.ev[12].op, IOT_OP_READV);  /* preadv2 at offset -1 */
    CU_ASSERT_FALSE(e.ev[12].has & IOT_HAS_OFFSET);

    v = &e.ev[13];
    CU_ASSERT_EQUAL(v->op, IOT_OP_LSEEK);
    CU_ASSERT_EQUAL(v->offset, -10);
    CU_ASSERT_EQUAL(v->whence, SEEK_END);
    CU_ASSERT_EQUAL(v->ret, 4090);
    v = &e.ev[14];  /* _llseek: the result comes back through a pointer */
    CU_ASSERT_EQUAL(v->op, IOT_OP_LSEEK);
    CU_ASSERT_EQUAL(v->ret, 512);
    CU_ASSERT_EQUAL(v->whence, SEEK_SET);

    for (int i = 15; i <= 18; i++)
        CU_ASSERT_EQUAL(e.ev[i].op, IOT_OP_DUP);
    CU_ASSERT_EQUAL(e.ev[15].newfd, 7);
    CU_ASSERT_EQUAL(e.ev[16].fd, 4);
    CU_ASSERT_EQUAL(e.ev[16].newfd, 9);
    CU_ASSERT_EQUAL(e.ev[17].newfd, 10);
    CU_ASSERT_EQUAL(e.ev[18].newfd, 20);   /* F_DUPFD_CLOEXEC; F_GETFL is no event */

    CU_ASSERT_EQUAL(e.ev[19].op, IOT_OP_FSYNC);
    CU_ASSERT_EQUAL(e.ev[19].dur, 500000);
    CU_ASSERT_EQUAL(e.ev[20].op, IOT_OP_FDATASYNC);
    CU_ASSERT_EQUAL(e.ev[21].op, IOT_OP_FTRUNCATE);
    CU_ASSERT_EQUAL(e.ev[21].size, 8192);

    v = &e.ev[22];  /* file mmap; the anonymous one and its munmap are not file I/O */
    CU_ASSERT_EQUAL(v->op, IOT_OP_MMAP);
    CU_ASSERT_EQUAL(v->fd, 3);
    CU_ASSERT_EQUAL(v->size, 8192);
    CU_ASSERT_EQUAL(v->offset, 4096);
    CU_ASSERT_EQUAL(v->ret, 0x7f0000001000LL);
    CU_ASSERT_EQUAL(e.ev[23].op, IOT_OP_MUNMAP);
    CU_ASSERT_EQUAL(e.ev[23].size, 8192);

    v = &e.ev[24];
    CU_ASSERT_EQUAL(v->op, IOT_OP_SENDFILE);
    CU_ASSERT_EQUAL(v->fd, 5);
    CU_ASSERT_EQUAL(v->in_fd, 4);
    CU_ASSERT_EQUAL(v->size, 30);
    CU_ASSERT_EQUAL(v->offset, 0);
    v = &e.ev[25];
    CU_ASSERT_EQUAL(v->op, IOT_OP_COPY_FILE_RANGE);
    CU_ASSERT_EQUAL(v->fd, 5);
    CU_ASSERT_EQUAL(v->in_fd, 3);
    CU_ASSERT_EQUAL(v->size, 100);
    v = &e.ev[26];
    CU_ASSERT_EQUAL(v->op, IOT_OP_READ);
    CU_ASSERT_EQUAL(v->err, EBADF);
    CU_ASSERT_EQUAL(v->size, 4096);
    CU_ASSERT_EQUAL(e.ev[27].op, IOT_OP_CLOSE);
    CU_ASSERT_EQUAL(e.ev[27].fd, 7);
    v = &e.ev[28];
    CU_ASSERT_EQUAL(v->op, IOT_OP_CLOSE_RANGE);
    CU_ASSERT_EQUAL(v->fd, 9);
    CU_ASSERT_EQUAL(v->last_fd, INT32_MAX);
    v = &e.ev[29];
    CU_ASSERT_EQUAL(v->op, IOT_OP_FALLOCATE);
    CU_ASSERT_EQUAL(v->has, IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_SIZE | IOT_HAS_OFFSET);
    CU_ASSERT_EQUAL(v->fd, 3);
    STR_EQ(v->path, "/work/data.bin");
    CU_ASSERT_EQUAL(v->offset, 4096);
    CU_ASSERT_EQUAL(v->size, 1048576);
    CU_ASSERT_EQUAL(v->dur, 20000);
    v = &e.ev[30];
    CU_ASSERT_EQUAL(v->op, IOT_OP_FADVISE);
    CU_ASSERT_EQUAL(v->has, IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_SIZE | IOT_HAS_OFFSET);
    CU_ASSERT_EQUAL(v->offset, 0);
    CU_ASSERT_EQUAL(v->size, 0);
    CU_ASSERT_EQUAL(v->ret, 0);

    v = &e.ev[31];
    CU_ASSERT_EQUAL(v->kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(v->status, 0);
    CU_ASSERT_EQUAL(v->t, 34000000);
    evs_release(&e);
}

/* <unfinished ...> / <... resumed>, threads and children met before the
 * clone returns, a process killed in a call. */
static void test_unfinished(void)
{
    struct evs e;
    const struct iot_event *v;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "unfinished.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 1);  /* a resumption nothing started */
    CU_ASSERT_EQUAL_FATAL(e.n, 9);
    CU_ASSERT(evs_ordered(&e));

    v = &e.ev[2];
    CU_ASSERT_EQUAL(v->kind, IOT_EV_THREAD);
    CU_ASSERT_EQUAL(v->pid, 400);
    CU_ASSERT_EQUAL(v->tid, 401);
    v = &e.ev[3];  /* the thread's write, at its start, with the full duration */
    CU_ASSERT_EQUAL(v->kind, IOT_EV_CALL);
    CU_ASSERT_EQUAL(v->op, IOT_OP_WRITE);
    CU_ASSERT_EQUAL(v->pid, 400);
    CU_ASSERT_EQUAL(v->tid, 401);
    CU_ASSERT_EQUAL(v->t, 2500000);
    CU_ASSERT_EQUAL(v->dur, 1500000);
    CU_ASSERT_EQUAL(v->ret, 12);
    CU_ASSERT_EQUAL(v->size, 12);
    v = &e.ev[4];  /* ") = 1" inside the data is not the return value */
    CU_ASSERT_EQUAL(v->tid, 400);
    CU_ASSERT_EQUAL(v->ret, 10);

    v = &e.ev[5];
    CU_ASSERT_EQUAL(v->kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(v->pid, 402);
    CU_ASSERT_EQUAL(v->ppid, 400);
    STR_EQ(v->exe, "/bin/app");
    v = &e.ev[6];
    CU_ASSERT_EQUAL(v->op, IOT_OP_READ);
    CU_ASSERT_EQUAL(v->pid, 402);
    CU_ASSERT_EQUAL(v->t, 5500000);
    CU_ASSERT_EQUAL(v->dur, 1000000);
    STR_EQ(v->path, "/dev/null");
    v = &e.ev[7];  /* the read cut short by SIGKILL is no event */
    CU_ASSERT_EQUAL(v->kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(v->pid, 402);
    CU_ASSERT_EQUAL(v->status, 128 + 9);
    CU_ASSERT(v->has & IOT_HAS_SIGNAL);
    CU_ASSERT_EQUAL(v->signal, 9);
    v = &e.ev[8];  /* the thread's exit is not the process's */
    CU_ASSERT_EQUAL(v->kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(v->pid, 400);
    CU_ASSERT_EQUAL(v->status, 2);
    CU_ASSERT_FALSE(v->has & IOT_HAS_SIGNAL);
    evs_release(&e);
}

static void test_exits(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "exits.log"), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 6);
    CU_ASSERT_EQUAL(e.ev[0].kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(e.ev[0].start_unix_ns, 1700000000000000000LL);  /* -ttt is the epoch */
    CU_ASSERT_EQUAL(e.ev[1].kind, IOT_EV_PROCESS);  /* vfork child, seen first at its exec */
    CU_ASSERT_EQUAL(e.ev[1].pid, 501);
    CU_ASSERT_EQUAL(e.ev[1].ppid, 500);
    STR_EQ(e.ev[1].exe, "/bin/b");
    CU_ASSERT_EQUAL(e.ev[1].argc, 2);
    STR_EQ(e.ev[1].argv[1], "--flag");
    CU_ASSERT_EQUAL(e.ev[1].start_unix_ns, 1700000000150000000LL);
    CU_ASSERT_EQUAL(e.ev[2].kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(e.ev[2].status, 128 + 11);   /* SIGSEGV (core dumped) */
    CU_ASSERT_EQUAL(e.ev[2].signal, 11);
    CU_ASSERT_EQUAL(e.ev[3].kind, IOT_EV_PROCESS);  /* fork() child */
    CU_ASSERT_EQUAL(e.ev[3].pid, 502);
    CU_ASSERT_EQUAL(e.ev[3].ppid, 500);
    STR_EQ(e.ev[3].exe, "/bin/a");
    CU_ASSERT_EQUAL(e.ev[4].status, 128 + 15);
    CU_ASSERT_EQUAL(e.ev[5].pid, 500);
    CU_ASSERT_EQUAL(e.ev[5].status, 1);
    CU_ASSERT_EQUAL(e.ev[5].t, 450000000);
    evs_release(&e);
}

/* argv[0] cut short at strace's -s: the path it ran names the process where
   the stub is that path's start, and only there. */
static void test_cut_argv(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "cut_argv.log"), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 3);
    CU_ASSERT_EQUAL(e.ev[0].kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(e.ev[0].argc, 2);
    STR_EQ(e.ev[0].argv[0], "/work/main/build/bin/progs/rec_tz");
    STR_EQ(e.ev[0].argv[1], "3");
    CU_ASSERT_EQUAL(e.ev[1].kind, IOT_EV_PROCESS);
    STR_EQ(e.ev[1].exe, "/usr/bin/python3.11");
    STR_EQ(e.ev[1].argv[0], "a-long-argv0-that-is-not-the-pat");
    evs_release(&e);
}

/* Quoting, escapes and every kind of -y / -yy annotation. */
static void test_strings(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "strings.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 11);
    STR_EQ(e.ev[1].path, "/d/we\"ird) = 3, \"name\\");
    CU_ASSERT_EQUAL(e.ev[1].flags, O_WRONLY | O_CREAT);
    CU_ASSERT_EQUAL(e.ev[2].op, IOT_OP_WRITE);
    CU_ASSERT_EQUAL(e.ev[2].ret, 4000);
    CU_ASSERT_EQUAL(e.ev[2].dur, 10000);
    STR_EQ(e.ev[2].path, "/d/we\"ird) = 3, \"name\\");
    STR_EQ(e.ev[3].path, "/d/a>b");              /* relative: cwd annotation + name */
    STR_EQ(e.ev[4].path, "/dev/null");           /* -yy device suffix dropped */
    STR_EQ(e.ev[5].path, "/dev/null");
    CU_ASSERT_EQUAL(e.ev[6].fd, 6);              /* a TCP socket has no path */
    CU_ASSERT_FALSE(e.ev[6].has & IOT_HAS_PATH);
    CU_ASSERT_EQUAL(e.ev[6].size, 16);
    STR_EQ(e.ev[7].path, "/d/gone.txt");         /* " (deleted)" dropped */
    STR_EQ(e.ev[8].path, "/d/sub/\xc3\xa9t\xc3\xa9");
    CU_ASSERT_FALSE(e.ev[9].has & IOT_HAS_PATH); /* a pipe */
    evs_release(&e);
}

/* Without -y the fd table names files: dup2, close, fork inheritance. */
static void test_no_y(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "no_y.log"), 0);
    CU_ASSERT_EQUAL(e.info.has_paths, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 12);
    STR_EQ(e.ev[2].path, "rel/b.txt");   /* no cwd known: as given */
    CU_ASSERT_EQUAL(e.ev[3].op, IOT_OP_DUP);
    STR_EQ(e.ev[3].path, "/var/db/a.db");
    STR_EQ(e.ev[5].path, "/var/db/a.db");  /* write(8) after dup2(3, 8) */
    CU_ASSERT_EQUAL(e.ev[6].fd, 3);        /* write(3) after close(3) */
    CU_ASSERT_FALSE(e.ev[6].has & IOT_HAS_PATH);
    CU_ASSERT_EQUAL(e.ev[7].kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(e.ev[7].ppid, 700);
    CU_ASSERT_EQUAL(e.ev[8].pid, 701);
    STR_EQ(e.ev[8].path, "rel/b.txt");     /* inherited by the child */
    evs_release(&e);
}

static void test_no_T(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "no_T.log"), 0);
    CU_ASSERT_EQUAL(e.info.has_durations, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 6);
    for (size_t i = 0; i < e.n; i++)
        if (e.ev[i].kind == IOT_EV_CALL) {
            CU_ASSERT(e.ev[i].has & IOT_HAS_NO_DUR);
            CU_ASSERT_EQUAL(e.ev[i].dur, 0);
        }
    CU_ASSERT_EQUAL(e.ev[2].t, 100000);
    evs_release(&e);
}

/* No pid column, no timestamps: one process, file order. */
static void test_no_f(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "no_f.log"), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 5);
    CU_ASSERT(evs_ordered(&e));
    for (size_t i = 0; i < e.n; i++)
        CU_ASSERT_EQUAL(e.ev[i].pid, 1);
    STR_EQ(e.ev[0].exe, "/bin/solo");
    CU_ASSERT_EQUAL(e.ev[2].op, IOT_OP_READ);
    CU_ASSERT_EQUAL(e.ev[2].size, 4096);
    CU_ASSERT_EQUAL(e.ev[2].ret, 4);
    CU_ASSERT(e.ev[2].has & IOT_HAS_NO_DUR);
    CU_ASSERT_EQUAL(e.ev[4].kind, IOT_EV_EXIT);
    evs_release(&e);
}

static void test_midnight(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "midnight.log"), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 5);
    CU_ASSERT_EQUAL(e.ev[2].t, 99000000);
    CU_ASSERT_EQUAL(e.ev[3].t, 200000000);  /* 00:00:00.1 is after 23:59:59.9 */
    CU_ASSERT_EQUAL(e.ev[4].t, 300000000);
    evs_release(&e);
}

/* -r: each time is since the previous line; -t: whole seconds. */
static void test_relative_and_seconds(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_r_filtered.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 11);
    CU_ASSERT_EQUAL(e.ev[2].t, 149000);
    CU_ASSERT_EQUAL(e.ev[3].t, 181000);
    CU_ASSERT_EQUAL(e.ev[5].t, 1147000);
    STR_EQ(e.ev[5].path, "/tmp/st/relout");
    CU_ASSERT_EQUAL(e.ev[5].flags, O_WRONLY | O_CREAT | O_TRUNC);
    CU_ASSERT_EQUAL(e.ev[10].kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(e.ev[10].t, 1524000);
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "t_seconds.log"), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 4);
    CU_ASSERT_EQUAL(e.ev[1].t, 0);
    CU_ASSERT_EQUAL(e.ev[2].t, 2000000000LL);
    CU_ASSERT_EQUAL(e.ev[3].pid, 1300);
    evs_release(&e);
}

/* -k: the frames after an open become its stack, in the recorder's form. */
static void test_k_stacks(void)
{
    struct evs e;
    size_t opens = 0;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "real_k_stacks.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT(evs_ordered(&e));
    for (size_t i = 0; i < e.n; i++) {
        const struct iot_event *v = &e.ev[i];
        if (v->kind != IOT_EV_CALL)
            continue;
        if (v->op == IOT_OP_OPEN) {
            opens++;
            CU_ASSERT(v->has & IOT_HAS_STACK);
        } else {
            CU_ASSERT_FALSE(v->has & IOT_HAS_STACK);  /* only opens carry stacks */
        }
    }
    CU_ASSERT_EQUAL(opens, 6);
    /* the two leaking opens of leaked.txt: libc's own frame dropped */
    const struct iot_event *a = NULL, *b = NULL;
    for (size_t i = 0; i < e.n; i++)
        if (e.ev[i].kind == IOT_EV_CALL && e.ev[i].op == IOT_OP_OPEN && e.ev[i].flags == O_RDONLY &&
            e.ev[i].path && strcmp(e.ev[i].path, "/tmp/fpx/d/leaked.txt") == 0)
            (a ? &b : &a)[0] = &e.ev[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    STR_EQ(a->stack, "open_for_config+0x1a (tp)\nmain+0x139 (tp)\n"
                     "__libc_init_first+0x8a (libc.so.6)\n__libc_start_main+0x85 (libc.so.6)\n"
                     "_start+0x21 (tp)");
    CU_ASSERT(strncmp(b->stack, "open_for_plugins+0x1a (tp)\n", 27) == 0);
    evs_release(&e);

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "k_frames.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 5);
    /* leading libc frames dropped, a frame without a symbol as the module's
     * path+offset (for ioanalyze to symbolize), an unwinding error skipped */
    STR_EQ(e.ev[1].stack, "/usr/bin/app+0x1a2b\nplug_load+0x44 (libplug.so)");
    CU_ASSERT_EQUAL(e.ev[2].op, IOT_OP_READ);
    CU_ASSERT_FALSE(e.ev[2].has & IOT_HAS_STACK);
    CU_ASSERT_EQUAL(e.ev[3].op, IOT_OP_OPEN);   /* no frames: no stack */
    CU_ASSERT_FALSE(e.ev[3].has & IOT_HAS_STACK);
    CU_ASSERT_EQUAL(e.ev[4].kind, IOT_EV_EXIT);
    evs_release(&e);
}

static void test_unknown(void)
{
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "unknown.log"), 0);
    CU_ASSERT_EQUAL(e.info.lines, 7);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 4);
    CU_ASSERT_EQUAL(evs_count_op(&e, IOT_OP_READ), 1);
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_EXIT), 1);
    evs_release(&e);
}

/* fds that are not files: pipe2/socketpair/pipe give two fds, socket and
 * accept4 one, parsed also from -y annotations. */
static void test_pipes(void)
{
    static const int32_t want[][3] = {
        /* op, fd, newfd */
        { IOT_OP_PIPE, 3, 4 }, { IOT_OP_PIPE, 5, 6 }, { IOT_OP_SOCKET, 7, -1 },
        { IOT_OP_SOCKET, 8, -1 }, { IOT_OP_PIPE, 9, 10 },
    };
    struct evs e;
    size_t k = 0;

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "pipes.log"), 0);
    for (size_t i = 0; i < e.n; i++) {
        const struct iot_event *ev = &e.ev[i];

        if (ev->kind != IOT_EV_CALL || (ev->op != IOT_OP_PIPE && ev->op != IOT_OP_SOCKET))
            continue;
        CU_ASSERT_FATAL(k < sizeof(want) / sizeof(want[0]));
        CU_ASSERT_EQUAL(ev->op, want[k][0]);
        CU_ASSERT(ev->has & IOT_HAS_FD);
        CU_ASSERT_EQUAL(ev->fd, want[k][1]);
        if (want[k][2] >= 0) {
            CU_ASSERT(ev->has & IOT_HAS_NEWFD);
            CU_ASSERT_EQUAL(ev->newfd, want[k][2]);
        } else {
            CU_ASSERT_EQUAL(ev->ret, want[k][1]);
        }
        k++;
    }
    CU_ASSERT_EQUAL(k, 5);
    CU_ASSERT_EQUAL(evs_count_op(&e, IOT_OP_READ), 1);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    evs_release(&e);
}

/* -ff: one file per task, merged by time; the clone in the parent's file
 * makes 1001 a thread and 1002 a child process. */
static void test_ff(void)
{
    static const char *names[] = { "ff/trace.1002", "ff/trace.1000", "ff/trace.1001" };
    struct evs e;

    CU_ASSERT_EQUAL_FATAL(evs_load(&e, names, 3), 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 9);
    CU_ASSERT(evs_ordered(&e));
    CU_ASSERT_EQUAL(e.ev[2].kind, IOT_EV_THREAD);
    CU_ASSERT_EQUAL(e.ev[2].tid, 1001);
    CU_ASSERT_EQUAL(e.ev[3].pid, 1000);
    CU_ASSERT_EQUAL(e.ev[3].tid, 1001);
    STR_EQ(e.ev[3].path, "/data/in");
    CU_ASSERT_EQUAL(e.ev[4].kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(e.ev[4].pid, 1002);
    CU_ASSERT_EQUAL(e.ev[4].ppid, 1000);
    STR_EQ(e.ev[5].path, "/data/in");
    CU_ASSERT_EQUAL(e.ev[7].kind, IOT_EV_EXIT);
    CU_ASSERT_EQUAL(e.ev[7].pid, 1002);
    CU_ASSERT_EQUAL(e.ev[8].pid, 1000);
    CU_ASSERT_EQUAL(evs_count_kind(&e, IOT_EV_PROCESS), 2);
    /* each file's share, in the order given */
    struct strace_info fi;
    strace_file_info(e.src, 0, &fi);
    CU_ASSERT_EQUAL(fi.lines, 4);
    CU_ASSERT_EQUAL(fi.events, 4);   /* 1002: process, read, open, exit */
    strace_file_info(e.src, 1, &fi);
    CU_ASSERT_EQUAL(fi.lines, 6);
    strace_file_info(e.src, 2, &fi);
    CU_ASSERT_EQUAL(fi.lines, 3);
    CU_ASSERT_EQUAL(fi.events, 1);   /* 1001: its read */
    CU_ASSERT_EQUAL(fi.has_durations, 1);
    evs_release(&e);
}

/*
 * A relative path on a line that names no directory (access, stat, open,
 * rename, symlink's name) is joined to the cwd the last AT_FDCWD
 * annotation named, as the recorder joins it: sqlite3's access("db.sqlite")
 * is a lookup of the same file as its openat's. Before any annotation, and
 * after a chdir until the next one, the cwd is unknown: kept as given.
 */
static void test_cwd_relative(void)
{
    struct evs e;
    static const struct { int i; unsigned op; const char *path; } rows[] = {
        { 1, IOT_OP_ACCESS, "early" },          { 4, IOT_OP_ACCESS, "/srv/work/db" },
        { 5, IOT_OP_STAT, "/srv/work/sub/x" },  { 6, IOT_OP_OPEN, "/srv/work/conf" },
        { 7, IOT_OP_RENAME, "/srv/work/a" },    { 8, IOT_OP_SYMLINK, "target" },
        { 9, IOT_OP_ACCESS, "db" },             { 10, IOT_OP_OPEN, "/srv/work/sub/y" },
        { 11, IOT_OP_ACCESS, "/srv/work/sub/db" },
    };

    CU_ASSERT_EQUAL_FATAL(evs_load1(&e, "cwd_rel.log"), 0);
    CU_ASSERT_EQUAL(e.info.unknown_lines, 0);
    CU_ASSERT_EQUAL_FATAL(e.n, 13);   /* chdir is no event of its own */
    CU_ASSERT_EQUAL(e.ncwd, 2);
    STR_EQ(e.cwd[0].path, "/srv/work");
    STR_EQ(e.cwd[1].path, "/srv/work/sub");
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        CU_ASSERT_EQUAL(e.ev[rows[k].i].op, rows[k].op);
        STR_EQ(e.ev[rows[k].i].path, rows[k].path);
    }
    STR_EQ(e.ev[7].newpath, "/srv/work/b");
    STR_EQ(e.ev[8].newpath, "/srv/work/lnk");
    evs_release(&e);
}

void strace_suite(void)
{
    CU_pSuite s = CU_add_suite("strace", NULL, NULL);

    CU_add_test(s, "detect", test_detect);
    CU_add_test(s, "ops", test_ops);
    CU_add_test(s, "metadata calls", test_meta_ops);
    CU_add_test(s, "relative paths and the cwd", test_cwd_relative);
    CU_add_test(s, "unfinished_resumed", test_unfinished);
    CU_add_test(s, "exits_signals", test_exits);
    CU_add_test(s, "strings_annotations", test_strings);
    CU_add_test(s, "cut_argv", test_cut_argv);
    CU_add_test(s, "no_y_fd_table", test_no_y);
    CU_add_test(s, "no_T", test_no_T);
    CU_add_test(s, "no_f", test_no_f);
    CU_add_test(s, "midnight", test_midnight);
    CU_add_test(s, "relative_and_seconds", test_relative_and_seconds);
    CU_add_test(s, "k_stacks", test_k_stacks);
    CU_add_test(s, "unknown_lines", test_unknown);
    CU_add_test(s, "ff_merge", test_ff);
    CU_add_test(s, "pipes_and_sockets", test_pipes);
    strace_hostile_tests(s);
}
