/*
 * rec_rawproc: processes and fds made and taken behind libc's back.
 * Usage: rec_rawproc MODE DIR N
 *   fork, clone, clone3  three children made by syscall(SYS_fork), by
 *                        syscall(SYS_clone) and by syscall(SYS_clone3), each
 *                        writing N times; then the parent writes N times
 *   libclone             the same with glibc's clone() on a stack of its own
 *   libclone_vm          one clone(CLONE_VM) child sharing the parent's
 *                        memory writes N times (it cannot be recorded), then
 *                        the parent writes N times
 *   close_range, dup3    syscall(SYS_close_range, 3, ~0U, 0), or
 *                        syscall(SYS_dup3) onto every fd 3..1023; then two
 *                        forked children and the parent write N times each
 *   inline_close, inline_dup3
 *                        the same two by a syscall instruction that no
 *                        wrapper sees
 * Every process appends "PID write COUNT" to DIR/counts (raw syscalls: not
 * recorded) for the test to compare with the trace; stdout is "ok".
 */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "expect.h"

static char counts_path[4096];
static char data_path[4096];

/* n writes of one byte each to the data file, counted. */
static void writes(int n)
{
    int fd = open(data_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

    CHECK(fd >= 0);
    for (int i = 0; i < n; i++)
        CHECK(write(fd, "x", 1) == 1);
    CHECK(close(fd) == 0);
    note_writes(counts_path, n);
}

static void reap(pid_t pid)
{
    int st;

    CHECK(pid > 0);
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A child made by how: libc's fork() when NULL, else the raw syscall named. */
static pid_t make_child(const char *how)
{
    if (!how)
        return fork();
    if (strcmp(how, "fork") == 0)
        return (pid_t)syscall(SYS_fork);
    if (strcmp(how, "clone") == 0)
        return (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
    {
        struct clone_args ca;

        memset(&ca, 0, sizeof(ca));
        ca.exit_signal = SIGCHLD;
        return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
    }
}

static int n_writes;

static int clone_child(void *arg)
{
    (void)arg;
    writes(n_writes);
    return 0;
}

/* nchildren children made by how (make_child), then the parent, write n times each. */
static void children_then_parent(int nchildren, const char *how, int n)
{
    for (int c = 0; c < nchildren; c++) {
        pid_t pid = make_child(how);

        CHECK(pid >= 0);
        if (pid == 0) {
            writes(n);
            _exit(0);
        }
        reap(pid);
    }
    writes(n);
}

int main(int argc, char **argv)
{
    const char *mode;
    int n;

    CHECK(argc == 4);
    mode = argv[1];
    n = atoi(argv[3]);
    n_writes = n;
    snprintf(counts_path, sizeof(counts_path), "%s/counts", argv[2]);
    snprintf(data_path, sizeof(data_path), "%s/data", argv[2]);
    if (!strcmp(mode, "fork") || !strcmp(mode, "clone") || !strcmp(mode, "clone3")) {
        children_then_parent(3, mode, n);
    } else if (!strcmp(mode, "libclone") || !strcmp(mode, "libclone_vm")) {
        int vm = !strcmp(mode, "libclone_vm");
        size_t size = 256 * 1024;
        char *stack = malloc(size);

        CHECK(stack != NULL);
        for (int c = 0; c < (vm ? 1 : 3); c++)
            reap(clone(clone_child, stack + size, (vm ? CLONE_VM : 0) | SIGCHLD, NULL));
        free(stack);
        writes(n);
    } else if (!strcmp(mode, "close_range")) {
        CHECK(syscall(SYS_close_range, 3L, (long)~0U, 0L) == 0);
        children_then_parent(2, NULL, n);
    } else if (!strcmp(mode, "dup3")) {
        int fd = open(data_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

        CHECK(fd >= 0);
        for (int i = 3; i < 1024; i++)
            if (i != fd)
                CHECK(syscall(SYS_dup3, (long)fd, (long)i, 0L) == i);
        for (int i = 3; i < 1024; i++)
            CHECK(syscall(SYS_close, (long)i) == 0);
        children_then_parent(2, NULL, n);
    } else if (!strcmp(mode, "inline_close")) {
        CHECK(raw_sys(SYS_close_range, 3, (long)~0U, 0, 0) == 0);
        children_then_parent(2, NULL, n);
    } else if (!strcmp(mode, "inline_dup3")) {
        int fd = open(data_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

        CHECK(fd >= 0);
        for (int i = 3; i < 1024; i++)
            if (i != fd)
                CHECK(raw_sys(SYS_dup3, fd, i, 0, 0) == i);
        for (int i = 3; i < 1024; i++)
            if (i != fd)
                CHECK(raw_sys(SYS_close, i, 0, 0, 0) == 0);
        CHECK(close(fd) == 0);
        children_then_parent(2, NULL, n);
    } else {
        CHECK(!"unknown mode");
    }
    puts("ok");
    return 0;
}
