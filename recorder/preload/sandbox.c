/*
 * sandbox.c - learning what the process forbids (sandbox.h); degrading
 * to it around the program's prctl and seccomp calls is sandbox_calls.c's.
 *
 * How a process learns that a seccomp filter may stand:
 *   - it sees the program install one (prctl PR_SET_SECCOMP, seccomp(2)
 *     through syscall()), or set PR_SET_NO_NEW_PRIVS, which filters need
 *     and which is taken as a hint;
 *   - its environment says so: IORECORD_SANDBOX, which the exec wrapper
 *     puts back into every exec'd image's environment as it does the other
 *     IORECORD_* variables, and which the launcher sets from its own
 *     /proc/self/status (a filter the launcher runs under is its children's);
 *   - without IORECORD_SANDBOX (preloaded without the launcher), start-up
 *     reads "Seccomp:" in /proc/self/status. That read is openat, read and
 *     close with the flags the dynamic loader used moments before to load
 *     this very library, so a filter that stands from before the exec has
 *     let those through already: the read cannot be what kills the process.
 *     Strict mode never stands at start-up: it allows no execve.
 * A fork child has its parent's knowledge (its memory), and the filter too.
 *
 * Strict mode allows read, write, _exit and sigreturn only: everything
 * recorded so far is flushed before the program enters it, and recording
 * goes on with no syscall but write (enter_strict, sandbox_calls.c).
 * The TSC: the kernel disables it in strict mode and on PR_SET_TSC
 * PR_TSC_SIGSEGV; stamps then come from CLOCK_MONOTONIC_COARSE (clock.c).
 */
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sandbox.h"

unsigned rec_sandbox;

/* ------------------------------------------------------ what was skipped */

/* The `lost` reason of each rec_skip, in its order. */
static const char *const skip_why[REC_SKIP_N] = {
    [REC_SKIP_CWD] = "cwd_unknown",
    [REC_SKIP_DIRFD] = "dirfd_unknown",
    [REC_SKIP_FILE_SIZE] = "file_size_skipped",
    [REC_SKIP_FD_NAME] = "fd_name_skipped",
    [REC_SKIP_PATH] = "path_unread",
    [REC_SKIP_EXEC_CHECK] = "exec_check_skipped",
    [REC_SKIP_STACK] = "stack_skipped",
    [REC_SKIP_NO_MEMORY] = "no_memory",
    [REC_SKIP_BEAM] = "stack_no_beam_frames",
};

static uint64_t skip_count[REC_SKIP_N];

void rec_skipped(enum rec_skip what)
{
    __atomic_add_fetch(&skip_count[what], 1, __ATOMIC_RELAXED);
}

uint64_t rec_skipped_take(enum rec_skip what, const char **why)
{
    *why = skip_why[what];
    return __atomic_exchange_n(&skip_count[what], 0, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- start-up */

/* The value of "Seccomp:" in /proc/self/status: 0, 1, 2; -1 unknown. */
static int status_seccomp(void)
{
    char buf[4096];
    const char *p;
    long n, got = 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while (got < (long)sizeof(buf) - 1 &&
           (n = syscall(SYS_read, fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
        got += n;
    syscall(SYS_close, fd);
    buf[got > 0 ? got : 0] = '\0';
    p = strstr(buf, "\nSeccomp:");
    if (!p)
        return -1;
    p += 9;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p >= '0' && *p <= '9' ? *p - '0' : -1;
}

/*
 * Where libc's thread descriptor keeps the thread id the kernel writes at
 * clone (CLONE_CHILD_SETTID): found at start-up in the main thread, whose
 * id is the pid. 0: not found.
 */
static size_t tid_offset;

static void find_tid_offset(void)
{
    const char *self = (const char *)pthread_self();

    for (size_t off = 0; off + sizeof(int32_t) <= 2048; off += sizeof(int32_t)) {
        int32_t v;

        memcpy(&v, self + off, sizeof(v));
        if (v == rec_pid) {
            tid_offset = off;
            return;
        }
    }
}

int32_t rec_parent_pid;

/*
 * The child's pid without getpid where a filter may stand: the thread id
 * the kernel wrote into libc's thread descriptor at the fork (glibc's fork
 * asks for it with CLONE_CHILD_SETTID), the only thread's id, which is the
 * pid. getpid when it cannot be derived.
 */
static int32_t child_pid(int32_t parent)
{
    int32_t v = -1;

    if (tid_offset && rec_filter_may_stand())
        memcpy(&v, (const char *)pthread_self() + tid_offset, sizeof(v));
    return v > 0 && v != parent ? v : (int32_t)getpid();
}

int32_t rec_sandbox_tid(void)
{
    int32_t v = -1;

    if (tid_offset && rec_filter_may_stand())
        memcpy(&v, (const char *)pthread_self() + tid_offset, sizeof(v));
    return v > 0 ? v : rec_gettid();
}

void rec_sandbox_fork_child(int32_t parent)
{
    rec_pid = child_pid(parent);
    rec_parent_pid = parent;
    /* what the parent skipped is the parent's to report */
    for (int i = 0; i < REC_SKIP_N; i++)
        skip_count[i] = 0;
}

void rec_sandbox_init(void)
{
    const char *env = getenv("IORECORD_SANDBOX");
    int mode;

    if (env && *env)
        mode = strcmp(env, "filter") == 0 ? 2 : 0;
    else
        mode = status_seccomp();
    if (mode != 0)
        rec_sandbox |= REC_SANDBOX_FILTER;  /* unknown counts as standing */
    /* The constructor runs in the main thread, whose id is rec_pid. */
    find_tid_offset();
    /*
     * PR_GET_TSC is a syscall the loader did not make: asked only where
     * no filter stands. A disabled TSC is inherited across exec, but the
     * start of a dynamically linked program executes rdtsc already, so an
     * image started that way does not get this far anyway.
     */
    if (!(rec_sandbox & REC_SANDBOX_FILTER)) {
        int tsc = 0;

        if (syscall(SYS_prctl, PR_GET_TSC, &tsc, 0, 0, 0) == 0 && tsc == PR_TSC_SIGSEGV)
            rec_sandbox |= REC_SANDBOX_NOTSC;
    }
    if (rec_sandbox & REC_SANDBOX_NOTSC)
        rec_clock_id = CLOCK_MONOTONIC_COARSE;
}

const char *rec_sandbox_env(void)
{
    return rec_filter_may_stand() ? "IORECORD_SANDBOX=filter" : "IORECORD_SANDBOX=none";
}
