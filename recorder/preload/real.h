/*
 * real.h - the libc functions the recorder calls through to, each declared
 * once: in REAL_FUNCS below, or, when only its wrapper's file calls it, in
 * that file with REAL_HERE (below).
 *
 * X(return type, name, (parameter types)) gives a pointer `real_<name>` to the
 * next definition of <name> after this library (dlsym RTLD_NEXT).
 * The pointers are resolved together by rec_resolve(); a name the C library
 * lacks stays NULL and its wrapper fails (CALL_REAL: the wrapper's failure
 * value, errno ENOSYS) instead of crashing.
 */
#ifndef REC_REAL_H
#define REC_REAL_H

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define REAL_FUNCS(X)                                                          \
    /* open family */                                                          \
    X(int, open, (const char *, int, ...))                                     \
    X(int, open64, (const char *, int, ...))                                   \
    X(int, openat, (int, const char *, int, ...))                              \
    X(int, openat64, (int, const char *, int, ...))                            \
    X(int, __open_2, (const char *, int))                                      \
    X(int, __open64_2, (const char *, int))                                    \
    X(int, __openat_2, (int, const char *, int))                               \
    X(int, __openat64_2, (int, const char *, int))                             \
    X(int, creat, (const char *, mode_t))                                      \
    X(int, creat64, (const char *, mode_t))                                    \
    /* read family */                                                          \
    X(ssize_t, read, (int, void *, size_t))                                    \
    X(ssize_t, __read_chk, (int, void *, size_t, size_t))                      \
    X(ssize_t, pread, (int, void *, size_t, off_t))                            \
    X(ssize_t, pread64, (int, void *, size_t, off64_t))                        \
    X(ssize_t, __pread_chk, (int, void *, size_t, off_t, size_t))              \
    X(ssize_t, __pread64_chk, (int, void *, size_t, off64_t, size_t))          \
    X(ssize_t, readv, (int, const struct iovec *, int))                        \
    X(ssize_t, preadv, (int, const struct iovec *, int, off_t))                \
    X(ssize_t, preadv64, (int, const struct iovec *, int, off64_t))            \
    X(ssize_t, preadv2, (int, const struct iovec *, int, off_t, int))          \
    X(ssize_t, preadv64v2, (int, const struct iovec *, int, off64_t, int))     \
    /* write family */                                                         \
    X(ssize_t, write, (int, const void *, size_t))                             \
    X(ssize_t, pwrite, (int, const void *, size_t, off_t))                     \
    X(ssize_t, pwrite64, (int, const void *, size_t, off64_t))                 \
    X(ssize_t, writev, (int, const struct iovec *, int))                       \
    X(ssize_t, pwritev, (int, const struct iovec *, int, off_t))               \
    X(ssize_t, pwritev64, (int, const struct iovec *, int, off64_t))           \
    X(ssize_t, pwritev2, (int, const struct iovec *, int, off_t, int))         \
    X(ssize_t, pwritev64v2, (int, const struct iovec *, int, off64_t, int))    \
    /* seek, close, sync, fd tracking */                                       \
    X(off_t, lseek, (int, off_t, int))                                         \
    X(off64_t, lseek64, (int, off64_t, int))                                   \
    X(int, close, (int))                                                       \
    X(int, close_range, (unsigned, unsigned, int))                             \
    X(void, closefrom, (int))                                                  \
    X(int, fsync, (int))                                                       \
    X(int, fdatasync, (int))                                                   \
    X(int, ftruncate, (int, off_t))                                            \
    X(int, ftruncate64, (int, off64_t))                                        \
    X(int, dup, (int))                                                         \
    X(int, dup2, (int, int))                                                   \
    X(int, dup3, (int, int, int))                                              \
    X(int, fcntl, (int, int, ...))                                             \
    X(int, fcntl64, (int, int, ...))                                           \
    X(int, closedir, (DIR *))                                                  \
    /* fds that are not files: a reused number must end the file's session */  \
    X(int, pipe, (int[2]))                                                     \
    X(int, pipe2, (int[2], int))                                               \
    X(int, socketpair, (int, int, int, int[2]))                                \
    X(int, socket, (int, int, int))                                            \
    X(int, accept, (int, struct sockaddr *, socklen_t *))                      \
    X(int, accept4, (int, struct sockaddr *, socklen_t *, int))                \
    /* copies and maps */                                                      \
    X(ssize_t, sendfile, (int, int, off_t *, size_t))                          \
    X(ssize_t, sendfile64, (int, int, off64_t *, size_t))                      \
    X(ssize_t, copy_file_range, (int, off64_t *, int, off64_t *, size_t,       \
                                 unsigned))                                    \
    X(ssize_t, splice, (int, off64_t *, int, off64_t *, size_t, unsigned))     \
    X(void *, mmap, (void *, size_t, int, int, int, off_t))                    \
    X(void *, mmap64, (void *, size_t, int, int, int, off64_t))                \
    X(int, munmap, (void *, size_t))                                           \
    X(int, msync, (void *, size_t, int))                                       \
    /* stdio open, close, control */                                           \
    X(FILE *, fopen, (const char *, const char *))                             \
    X(FILE *, fopen64, (const char *, const char *))                           \
    X(FILE *, freopen, (const char *, const char *, FILE *))                   \
    X(FILE *, freopen64, (const char *, const char *, FILE *))                 \
    X(FILE *, fdopen, (int, const char *))                                     \
    X(FILE *, tmpfile, (void))                                                 \
    X(FILE *, tmpfile64, (void))                                               \
    X(int, fclose, (FILE *))                                                   \
    X(int, fcloseall, (void))                                                  \
    X(int, fflush, (FILE *))                                                   \
    X(int, setvbuf, (FILE *, char *, int, size_t))                             \
    X(void, setbuf, (FILE *, char *))                                          \
    X(int, fseek, (FILE *, long, int))                                         \
    X(int, fseeko, (FILE *, off_t, int))                                       \
    X(int, fseeko64, (FILE *, off64_t, int))                                   \
    X(long, ftell, (FILE *))                                                   \
    X(off_t, ftello, (FILE *))                                                 \
    X(off64_t, ftello64, (FILE *))                                             \
    X(void, rewind, (FILE *))                                                  \
    /* stdio data */                                                           \
    X(size_t, fread, (void *, size_t, size_t, FILE *))                         \
    X(size_t, __fread_chk, (void *, size_t, size_t, size_t, FILE *))           \
    X(size_t, fread_unlocked, (void *, size_t, size_t, FILE *))                \
    X(size_t, __fread_unlocked_chk, (void *, size_t, size_t, size_t, FILE *))  \
    X(size_t, fwrite, (const void *, size_t, size_t, FILE *))                  \
    X(size_t, fwrite_unlocked, (const void *, size_t, size_t, FILE *))         \
    X(char *, fgets, (char *, int, FILE *))                                    \
    X(char *, __fgets_chk, (char *, size_t, int, FILE *))                      \
    X(char *, fgets_unlocked, (char *, int, FILE *))                           \
    X(char *, __fgets_unlocked_chk, (char *, size_t, int, FILE *))             \
    X(int, fgetc, (FILE *))                                                    \
    X(int, getc, (FILE *))                                                     \
    X(int, _IO_getc, (FILE *))                                                 \
    X(int, fputc, (int, FILE *))                                               \
    X(int, putc, (int, FILE *))                                                \
    X(int, _IO_putc, (int, FILE *))                                            \
    X(int, fputs, (const char *, FILE *))                                      \
    X(int, puts, (const char *))                                               \
    X(ssize_t, getline, (char **, size_t *, FILE *))                           \
    X(ssize_t, getdelim, (char **, size_t *, int, FILE *))                     \
    X(ssize_t, __getdelim, (char **, size_t *, int, FILE *))                   \
    X(int, vfprintf, (FILE *, const char *, va_list))                          \
    X(int, __vfprintf_chk, (FILE *, int, const char *, va_list))               \
    X(int, vfscanf, (FILE *, const char *, va_list))                           \
    X(int, __isoc99_vfscanf, (FILE *, const char *, va_list))                  \
    /* process lifecycle */                                                    \
    X(int, execve, (const char *, char *const[], char *const[]))               \
    X(int, execvpe, (const char *, char *const[], char *const[]))              \
    X(int, fexecve, (int, char *const[], char *const[]))                       \
    X(int, posix_spawn, (pid_t *, const char *,                                \
                         const posix_spawn_file_actions_t *,                   \
                         const posix_spawnattr_t *, char *const[],             \
                         char *const[]))                                       \
    X(int, posix_spawnp, (pid_t *, const char *,                               \
                          const posix_spawn_file_actions_t *,                  \
                          const posix_spawnattr_t *, char *const[],            \
                          char *const[]))                                      \
    X(void, exit, (int))                                                       \
    X(void, _exit, (int))                                                      \
    X(void, _Exit, (int))                                                      \
    X(pid_t, waitpid, (pid_t, int *, int))                                     \
    X(pid_t, wait4, (pid_t, int *, int, struct rusage *))                      \
    X(pid_t, wait, (int *))                                                    \
    X(int, pthread_setname_np, (pthread_t, const char *))                      \
    X(int, prctl, (int, ...))                                                   \
    X(int, __libc_start_main, (int (*)(int, char **, char **), int, char **,   \
                               void (*)(void), void (*)(void),                 \
                               void (*)(void), void *))

/*
 * Stdio calls that lock the stdio stream and their lock-free twins, with the
 * same parameters: S(return type, name, twin, (parameter types)). In a
 * single-threaded process, where no other thread can hold or want the
 * lock, wrap_stdio.c's untimed repeats call solo_<name>: the twin when
 * libc defines both names and no object before libc defines either (so no
 * other interposer is skipped), else the locking form itself.
 */
#define REAL_SOLO_PAIRS(S)                                                     \
    S(size_t, fread, fread_unlocked, (void *, size_t, size_t, FILE *))        \
    S(size_t, __fread_chk, __fread_unlocked_chk,                               \
      (void *, size_t, size_t, size_t, FILE *))                                \
    S(size_t, fwrite, fwrite_unlocked, (const void *, size_t, size_t, FILE *))

#pragma GCC visibility push(hidden)
#define REAL_DECL_(ret, name, params) extern ret(*real_##name) params;
REAL_FUNCS(REAL_DECL_)
#undef REAL_DECL_
#define SOLO_DECL_(ret, name, twin, params) extern ret(*solo_##name) params;
REAL_SOLO_PAIRS(SOLO_DECL_)
#undef SOLO_DECL_

/* Resolve every real_* pointer (idempotent, safe from any thread). */
void rec_resolve(void);
#pragma GCC visibility pop

/*
 * A real function only its wrapper's file calls can be declared there
 * instead of in REAL_FUNCS: REAL_HERE(ret, name, (parameter types)) at file
 * scope defines a static real_<name> and files it in the "rec_real" section,
 * whose entries rec_resolve() resolves with the table's. So adding such a
 * wrapper touches only its wrapper file (docs/recorder.md, "Adding a
 * wrapped function").
 */
struct rec_real {
    const char *name;
    void **ptr;        /* the real_<name> pointer, as a data pointer for dlsym */
};
/*
 * All real_* pointers live in one section, side by side, so that resolving
 * them at every process start touches (and faults in) few pages, not pages
 * of the .bss spread among the recorder's big tables.
 */
#define REAL_PTR __attribute__((section("rec_real_ptr")))
#define REAL_HERE(ret, name, params)                                           \
    static ret(*real_##name) params REAL_PTR;                                  \
    static const struct rec_real rec_real_entry_##name                         \
        __attribute__((used, section("rec_real"))) = { #name, (void **)&real_##name }

/* Call the real function, or fail like a missing syscall if libc lacks it. */
#define CALL_REAL(fail, name, ...)                                             \
    (REAL(name) ? real_##name(__VA_ARGS__) : (errno = ENOSYS, (fail)))

/* The errno of a call that returned r (0 when it succeeded). */
#define ERR_OF(r) ((r) < 0 ? errno : 0)

/*
 * The body most wrappers share (rec_active and rec_stamp are rec.h's): the
 * real call, between two stamps when recording, then `record`, a statement
 * that sees r, s0 and s1. The call's result is returned untouched.
 */
#define WRAP_BODY(rtype, fail, name, record, ...)                              \
    uint64_t s0, s1;                                                           \
    rtype r;                                                                   \
    if (!rec_active)                                                           \
        return CALL_REAL(fail, name, __VA_ARGS__);                             \
    s0 = rec_stamp();                                                          \
    r = CALL_REAL(fail, name, __VA_ARGS__);                                    \
    s1 = rec_stamp();                                                          \
    record;                                                                    \
    return r

/* The real function, resolving the table on first use. */
#define REAL(name)                                                             \
    (__builtin_expect(real_##name == NULL, 0) ? (rec_resolve(), real_##name)  \
                                              : real_##name)

#endif
