/*
 * wrap_proc.c - processes and threads: exec (flush first, keep the preload
 * in the child's environment), posix_spawn, vfork, exit paths, waitpid (a
 * child killed by a signal cannot record its own end), thread names.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

extern char **environ;

/* ------------------------------------------------------------------ exec */

/* --------------------------------------------- programs we cannot enter */

/* file as execvp would find it: itself when it holds a '/', else along PATH */
static const char *exec_path(const char *file, char *buf, size_t cap)
{
    const char *p = getenv("PATH");

    if (!file || strchr(file, '/'))
        return file;
    for (p = p ? p : "/bin:/usr/bin"; *p;) {
        size_t l = strcspn(p, ":");

        if (l + strlen(file) + 2 <= cap) {
            memcpy(buf, p, l);
            buf[l] = '/';
            strcpy(buf + l + 1, file);
            if (syscall(SYS_faccessat, AT_FDCWD, buf, X_OK) == 0)
                return buf;
        }
        p += l;
        if (*p)
            p++;
    }
    return NULL;
}

/*
 * A vfork child cannot record (it would write into our buffers), so its
 * exec wrapper leaves what it found here, in the memory it shares with its
 * parent, and the parent records it when vfork returns there.
 */
static struct {
    const char *why;
    uint64_t stamp;     /* when the child found it: before the exec, so
                           before anything the kernel path says of the image */
    char path[PATH_MAX];
} vfork_note;

static void rec_unrecorded(const char *path, const char *why, uint64_t s)
{
    struct iot_event ev = rec_event(IOT_OP_UNRECORDED, 0, 0);

    ev.has |= IOT_HAS_PATH | IOT_HAS_MODE;
    rec_call(&ev, path, why, NULL, s, s);
}

/*
 * An exec or spawn of a program we cannot enter (enterable.c) is recorded
 * as unrecorded; returns why, or NULL. asan (REC_ASAN_NAME bytes): the ASan
 * runtime the program needs first in LD_PRELOAD, or "".
 */
static const char *note_unrecordable(const char *file, char *asan)
{
    char buf[PATH_MAX], copy[REC_PATH_COPY];
    const char *path, *why;
    int saved = errno;

    asan[0] = '\0';
    if (!rec_active || rec_guard == REC_GUARD_IN || !file)
        return NULL;
    if (rec_filter_may_stand()) {
        /* open, fstat, pread, faccessat: not the program's to make */
        rec_skipped(REC_SKIP_EXEC_CHECK);
        return NULL;
    }
    /* Read before the call, which may not return: a copy that cannot fault. */
    file = rec_path_arg(file, -1, copy, sizeof(copy));
    if (!file) {
        errno = saved;
        return NULL;
    }
    path = exec_path(file, buf, sizeof(buf));
    why = rec_unrecordable(path, asan);
    /* the kernel path sees what the preload cannot enter: followed before
       the exec, the image is judged by it at exec (spawned: as a child) */
    if (why && strcmp(why, "no_library") != 0)
        rec_kernel_ask();
    if (why && rec_guard == REC_GUARD_OFF) {
        size_t n = strlen(path);

        if (n < sizeof(vfork_note.path)) {
            memcpy(vfork_note.path, path, n + 1);
            vfork_note.stamp = rec_stamp();
            vfork_note.why = why;
        }
    } else if (why) {
        rec_unrecorded(path, why, rec_stamp());
    }
    errno = saved;
    return why;
}

/* Called by vfork in the parent once the child has exec'd or exited. */
void rec_vfork_parent(void) __attribute__((visibility("hidden"), used));
#if defined(__SANITIZE_ADDRESS__)
#define REC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REC_ASAN 1
#endif
#endif
#ifdef REC_ASAN
/* ASan's own vfork interceptor calls it; ours is assembly ASan cannot see. */
void __asan_handle_vfork(void *sp) __attribute__((weak));
#endif

void rec_vfork_parent(void)
{
    int saved = errno;

#ifdef REC_ASAN
    /* The child's frames left redzones below ours on the shared stack. */
    if (__asan_handle_vfork)
        __asan_handle_vfork(__builtin_frame_address(0));
#endif
    if (vfork_note.why) {
        rec_unrecorded(vfork_note.path, vfork_note.why, vfork_note.stamp);
        vfork_note.why = NULL;
    }
    errno = saved;
}

/* Flush before the image is replaced; not in a vfork child (guard set). */
static void before_exec(void)
{
    if (!rec_guard)
        rec_flush_all();
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    char asan[REC_ASAN_NAME];
    const char *why = note_unrecordable(path, asan);
    char **env = rec_env_child(envp, &why, asan);
    int r, saved;

    before_exec();
    if (why)
        rec_own_fds_inherit(0);
    r = REAL(execve) ? real_execve(path, argv, env) : (errno = ENOSYS, -1);
    saved = errno;
    if (why)
        rec_own_fds_inherit(1);
    rec_env_free(env, envp);
    errno = saved;
    return r;
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char asan[REC_ASAN_NAME];
    const char *why = note_unrecordable(file, asan);
    char **env = rec_env_child(envp, &why, asan);
    int r, saved;

    before_exec();
    if (why)
        rec_own_fds_inherit(0);
    r = REAL(execvpe) ? real_execvpe(file, argv, env) : (errno = ENOSYS, -1);
    saved = errno;
    if (why)
        rec_own_fds_inherit(1);
    rec_env_free(env, envp);
    errno = saved;
    return r;
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
    const char *why = NULL;
    char **env = rec_env_child(envp, &why, NULL);
    int r, saved;

    before_exec();
    r = REAL(fexecve) ? real_fexecve(fd, argv, env) : (errno = ENOSYS, -1);
    saved = errno;
    rec_env_free(env, envp);
    errno = saved;
    return r;
}

int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

/* The execl forms: collect the variadic arguments into an argv. */
#define COLLECT_ARGS(arg0, argv, ap, after)                                    \
    size_t argc_ = 1;                                                          \
    va_start(ap, arg0);                                                        \
    while (va_arg(ap, char *))                                                 \
        argc_++;                                                               \
    va_end(ap);                                                                \
    char *argv[argc_ + 1];                                                     \
    va_start(ap, arg0);                                                        \
    argv[0] = (char *)arg0;                                                    \
    for (size_t i_ = 1; i_ <= argc_; i_++)                                     \
        argv[i_] = va_arg(ap, char *);                                         \
    after;                                                                     \
    va_end(ap)

int execl(const char *path, const char *arg0, ...)
{
    va_list ap;

    COLLECT_ARGS(arg0, argv, ap, (void)0);
    return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;

    COLLECT_ARGS(arg0, argv, ap, (void)0);
    return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    char **envp;

    COLLECT_ARGS(arg0, argv, ap, envp = va_arg(ap, char **));
    return execve(path, argv, envp);
}

#define WRAP_SPAWN(name)                                                       \
    int name(pid_t *pid, const char *path,                                     \
             const posix_spawn_file_actions_t *fa,                             \
             const posix_spawnattr_t *attr, char *const argv[],                \
             char *const envp[])                                               \
    {                                                                          \
        char asan[REC_ASAN_NAME];                                              \
        const char *why = note_unrecordable(path, asan);                       \
        char **env = rec_env_child(envp, &why, asan);                          \
        int r;                                                                 \
        if (why)                                                               \
            rec_own_fds_inherit(0);                                            \
        r = REAL(name) ? real_##name(pid, path, fa, attr, argv, env)           \
                           : ENOSYS;                                           \
        int saved = errno;                                                     \
        if (why)                                                               \
            rec_own_fds_inherit(1);                                            \
        rec_env_free(env, envp);                                               \
        errno = saved;                                                         \
        return r;                                                              \
    }

WRAP_SPAWN(posix_spawn)
WRAP_SPAWN(posix_spawnp)

/*
 * vfork: the child shares our memory, so it must not touch the recorder's
 * buffers. The guard is set across the syscall and cleared in the parent
 * only; the child passes every call through until it execs or exits. The
 * parent then records what the child's exec left in vfork_note.
 * Written in assembly because a C wrapper's frame would be clobbered by the
 * child before the parent returns through it (the reason vfork is special).
 */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork,@function\n"
        "vfork:\n"
        "    movq rec_guard@gottpoff(%rip), %rcx\n"
        "    movl $2, %fs:(%rcx)\n"                /* REC_GUARD_OFF */
        "    popq %rdx\n"
        "    movl $58, %eax\n"                 /* SYS_vfork */
        "    syscall\n"
        "    pushq %rdx\n"
        "    testq %rax, %rax\n"
        "    jz 1f\n"
        "    movq rec_guard@gottpoff(%rip), %rcx\n"
        "    movl $0, %fs:(%rcx)\n"
        "    cmpq $-4095, %rax\n"
        "    jae 2f\n"
        "    pushq %rax\n"                    /* the child's pid, and the */
        "    call rec_vfork_parent\n"         /* stack 16-aligned for the call */
        "    popq %rax\n"
        "1:  ret\n"
        "2:  negl %eax\n"
        "    pushq %rax\n"
        "    call __errno_location@PLT\n"
        "    popq %rcx\n"
        "    movl %ecx, (%rax)\n"
        "    movq $-1, %rax\n"
        "    ret\n"
        ".size vfork, .-vfork\n");
#endif

/* ------------------------------------------------------------------ fork */

REAL_HERE(pid_t, fork, (void));

/*
 * fork is recorded in the parent, timed there: the child's fd table is the
 * parent's at this call, and the child's own process record (written by
 * the child once it runs) may come after the parent has already closed and
 * reopened fds. The child records nothing here (fork.c starts its chunk chain).
 */
pid_t fork(void)
{
    uint64_t s0, s1;
    pid_t r;

    if (!rec_active)
        return CALL_REAL(-1, fork);
    rec_collect_fds_check();
    rec_fd_shared_all();
    s0 = rec_stamp();
    r = CALL_REAL(-1, fork);
    if (r == 0)
        return r;
    s1 = rec_stamp();
    {
        struct iot_event ev = rec_event(IOT_OP_FORK, r, ERR_OF(r));

        rec_call(&ev, NULL, NULL, NULL, s0, s1);
    }
    return r;
}

/* ---------------------------------------------------------------- threads */

/*
 * A thread is otherwise seen at its first recorded call: one that does no
 * file I/O would leave a process looking single-threaded, which matters to
 * main_thread (it judges processes that run several threads).
 */
REAL_HERE(int, pthread_create, (pthread_t *, const pthread_attr_t *,
                                void *(*)(void *), void *));

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start)(void *), void *arg)
{
    uint64_t s0 = rec_stamp(), s1;
    int r = REAL(pthread_create) ? real_pthread_create(thread, attr, start, arg) : ENOSYS;

    s1 = rec_stamp();
    {
        struct iot_event ev = rec_event(IOT_OP_PTHREAD_CREATE, r ? -1 : 0, r);

        rec_call(&ev, NULL, NULL, NULL, s0, s1);
    }
    return r;
}

/*
 * A thread that cancels itself in a single-threaded process makes glibc's
 * cancellation points check from then on, without clearing the
 * __libc_single_threaded a program may hold a copy of (a copy relocation):
 * the wrappers stop making read and write themselves (CALL_DATA) before
 * any cancellation, for the process's life.
 */
REAL_HERE(int, pthread_cancel, (pthread_t));

int pthread_cancel(pthread_t thread)
{
    /* resolved first: resolving is what turns the path on */
    int (*cancel)(pthread_t) = REAL(pthread_cancel);

    __atomic_store_n(&rec_direct_rw, 0, __ATOMIC_RELAXED);
    return cancel ? cancel(thread) : ENOSYS;
}

/* ------------------------------------------------------------------ exit */

void exit(int status)
{
    rec_note_status(status);
    if (REAL(exit))
        real_exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

void _exit(int status)
{
    if (!rec_guard)
        rec_finish(status & 0xff, 0);
    if (REAL(_exit))
        real__exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

void _Exit(int status)
{
    if (!rec_guard)
        rec_finish(status & 0xff, 0);
    if (REAL(_Exit))
        real__Exit(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

static void reaped(pid_t r, int st)
{
    if (r > 0 && WIFSIGNALED(st) && !rec_guard)
        rec_child_killed(r, WTERMSIG(st));
}

pid_t waitpid(pid_t pid, int *status, int options)
{
    int st = 0;
    pid_t r = REAL(waitpid) ? real_waitpid(pid, &st, options)
                            : (errno = ENOSYS, -1);

    if (status && r > 0)
        *status = st;
    reaped(r, st);
    return r;
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
    int st = 0;
    pid_t r = REAL(wait4) ? real_wait4(pid, &st, options, ru)
                          : (errno = ENOSYS, -1);

    if (status && r > 0)
        *status = st;
    reaped(r, st);
    return r;
}

pid_t wait(int *status)
{
    int st = 0;
    pid_t r = REAL(wait) ? real_wait(&st) : (errno = ENOSYS, -1);

    if (status && r > 0)
        *status = st;
    reaped(r, st);
    return r;
}

/* --------------------------------------------------------- thread names */

int pthread_setname_np(pthread_t thread, const char *name)
{
    int r = REAL(pthread_setname_np) ? real_pthread_setname_np(thread, name)
                                     : ENOSYS;

    if (r == 0 && rec_active) {
        int saved = errno;

        rec_thread_renamed(thread, name);
        errno = saved;
    }
    return r;
}

int prctl(int option, ...)
{
    unsigned long a2, a3, a4, a5;
    unsigned token;
    va_list ap;
    int r;

    va_start(ap, option);
    a2 = va_arg(ap, unsigned long);
    a3 = va_arg(ap, unsigned long);
    a4 = va_arg(ap, unsigned long);
    a5 = va_arg(ap, unsigned long);
    va_end(ap);
    token = rec_sandbox_before(0, option, a2);
    r = REAL(prctl) ? real_prctl(option, a2, a3, a4, a5) : (errno = ENOSYS, -1);
    if (token) {
        int saved = errno;

        rec_sandbox_after(token, r);
        errno = saved;
    }
    if (r == 0 && option == PR_SET_NAME && rec_active) {
        int saved = errno;
        char name[17];

        /* The kernel keeps 15 bytes (and read them: a2 is readable). */
        snprintf(name, sizeof(name), "%.15s", (const char *)a2);
        rec_thread_renamed(pthread_self(), name);
        errno = saved;
    }
    return r;
}
