/*
 * rec_sandbox: a program that forbids things, then does I/O.
 *   tsc     prctl(PR_SET_TSC, PR_TSC_SIGSEGV): rdtsc faults from then on
 *   strict  seccomp strict mode: read, write, _exit and sigreturn only
 *   kill    a seccomp filter that allows the syscalls this program makes
 *           and kills it on any other
 *   eperm   a seccomp filter that fails getcwd, fcntl, fstat and readlink
 *           with EPERM and allows the rest
 * After that (strict: before, on fds opened before): a relative open and
 * a write, an open of a missing file (its errno shown), a read back, an
 * open in a subdirectory after chdir into it, and a fork whose child
 * writes 100 times to child.dat. Each result goes to
 * stdout as a line; the output, the exit status and every errno must be
 * the same natively and recorded.
 * Usage: rec_sandbox MODE DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_WRITES 100

static void say(const char *what, long r, int err)
{
    char line[128];
    int n = snprintf(line, sizeof(line), "%s r=%ld errno=%d\n", what, r, r < 0 ? err : 0);

    if (write(1, line, (size_t)n) != n)
        syscall(SYS_exit, 98);
}

/* The syscalls this program makes after the filter, natively. */
static const int allowed[] = {
    SYS_read, SYS_write, SYS_openat, SYS_close, SYS_clone, SYS_set_robust_list,
    SYS_wait4, SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_chdir,
};

/* The syscalls the eperm filter refuses: those a recorder might make of its own. */
static const int refused[] = {
    SYS_getcwd, SYS_fcntl, SYS_fstat, SYS_newfstatat, SYS_readlink, SYS_readlinkat,
};

/*
 * A filter: for each of the n numbers, `match` (its action), else `other`.
 * Built by hand: the architecture check, then one compare per number.
 */
static int install_filter(const int *nr, int n, unsigned match, unsigned other)
{
    struct sock_filter f[64];
    struct sock_fprog prog;
    int k = 0;

    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, arch));
    f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, nr));
    for (int i = 0; i < n; i++) {
        f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr[i], 0, 1);
        f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, match);
    }
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, other);
    prog.len = (unsigned short)k;
    prog.filter = f;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* The I/O every mode but strict does once its restriction stands. */
static void file_io(void)
{
    char buf[32];
    int fd, status = -1;
    pid_t pid;
    long r;

    fd = open("rel.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    say("open rel.dat", fd, errno);
    say("write", write(fd, "0123456789", 10), errno);
    say("close", close(fd), errno);
    errno = 0;
    r = open("missing.dat", O_RDONLY);
    say("open missing.dat", r, errno);
    fd = openat(AT_FDCWD, "rel.dat", O_RDONLY);
    say("openat rel.dat", fd, errno);
    say("read", read(fd, buf, sizeof(buf)), errno);
    say("close", close(fd), errno);
    say("chdir sub", chdir("sub"), errno);
    fd = open("in-sub.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    say("open in-sub.dat", fd, errno);
    say("close", close(fd), errno);
    say("chdir ..", chdir(".."), errno);
    pid = fork();
    if (pid == 0) {
        int cfd = open("child.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int ok = cfd >= 0;

        for (int i = 0; i < CHILD_WRITES; i++)
            ok &= write(cfd, "c", 1) == 1;
        ok &= close(cfd) == 0;
        _exit(ok ? 0 : 1);
    }
    say("fork", pid > 0 ? 1 : pid, errno);
    r = waitpid(pid, &status, 0);
    say("waitpid", r == pid ? 1 : r, errno);
    say("child status", status, 0);
}

static void strict_io(void)
{
    char buf[32];
    int out = open("strict.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/zero", O_RDONLY);
    long r;

    say("before strict", out >= 0 && in >= 0, 0);
    r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
    say("strict", r, errno);
    for (int i = 0; i < 5; i++)
        say("strict write", write(out, "s", 1), errno);
    say("strict read", read(in, buf, sizeof(buf)), errno);
    /* exit_group is not allowed in strict mode: exit is */
    syscall(SYS_exit, 0);
}

static int64_t ns_of(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Late in a tick of the coarse clock: it has just ticked and then three
 * quarters of a tick went by, so that it now lags the fine clock by that
 * much. A recorder that took the coarse clock as it is after the TSC goes
 * off would stamp the calls that follow before the ones that preceded.
 */
static void late_in_tick(void)
{
    struct timespec res;
    int64_t tick, t0;

    clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    tick = (int64_t)res.tv_sec * 1000000000LL + res.tv_nsec;
    t0 = ns_of(CLOCK_MONOTONIC_COARSE);
    while (ns_of(CLOCK_MONOTONIC_COARSE) == t0)
        ;
    t0 = ns_of(CLOCK_MONOTONIC_COARSE);
    while (ns_of(CLOCK_MONOTONIC) - t0 < tick * 3 / 4)
        ;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : "";

    if (argc < 3 || chdir(argv[2]) != 0 || mkdir("sub", 0755) != 0)
        return 2;
    if (strcmp(mode, "tsc") == 0) {
        int fd;

        late_in_tick();
        fd = open("before.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        say("open before.dat", fd, errno);
        say("set tsc", prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0), errno);
        say("close", close(fd), errno);
    } else if (strcmp(mode, "strict") == 0) {
        strict_io();
    } else if (strcmp(mode, "kill") == 0) {
        say("filter", install_filter(allowed, sizeof(allowed) / sizeof(allowed[0]),
                                     SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_PROCESS), errno);
    } else if (strcmp(mode, "eperm") == 0) {
        say("filter", install_filter(refused, sizeof(refused) / sizeof(refused[0]),
                                     SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_ALLOW), errno);
    } else {
        return 2;
    }
    file_io();
    return 0;
}
