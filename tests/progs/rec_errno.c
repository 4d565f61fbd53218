/*
 * rec_errno: every wrapped libc function the recorder has, driven through
 * a call that fails, each in a forked child of its own (so that each call
 * is the first of its site and the first stack walk of its process), made
 * twice: from ordinary code ("direct") and through a stub in anonymous
 * executable memory ("jit"), as a JIT's code calls libc; with "map" the
 * child first writes /tmp/perf-PID.map naming the stub (as node and
 * python -X perf do), without it the recorder's look for the map fails.
 *
 * Before each call errno is set to SENTINEL; one line per case:
 *   MODE TAG OP RET ERRNO
 * TAG names the wrapper (a suffix tells two cases of one apart), OP the
 * trace op it records. The unit test (tests/unit/test_recorder_errno.c)
 * compares the lines of a plain run with those of recorded runs, stacks
 * on and off: a recorder that changes errno shows as a differing line.
 *
 * Usage: rec_errno DIR [map]. Exits 3 where writable executable memory is
 * refused.
 */
#include <aio.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>
#include <wchar.h>

#include "rawsys.h"

#define SENTINEL 4321
#define BADFD    900            /* never open */

/*
 * The exported names the headers map elsewhere (scanf to __isoc99_scanf,
 * ...) or do not declare: reached by their own symbol.
 */
#define ALIASES(A)                                                             \
    A(int, plain_fscanf, "fscanf", (FILE *, const char *, ...))               \
    A(int, plain_scanf, "scanf", (const char *, ...))                         \
    A(int, plain_vfscanf, "vfscanf", (FILE *, const char *, va_list))         \
    A(int, plain_vscanf, "vscanf", (const char *, va_list))                   \
    A(int, plain_fwscanf, "fwscanf", (FILE *, const wchar_t *, ...))          \
    A(int, plain_wscanf, "wscanf", (const wchar_t *, ...))                    \
    A(int, plain_vfwscanf, "vfwscanf", (FILE *, const wchar_t *, va_list))    \
    A(int, plain_vwscanf, "vwscanf", (const wchar_t *, va_list))              \
    A(int, c99_fscanf, "__isoc99_fscanf", (FILE *, const char *, ...))        \
    A(int, c99_scanf, "__isoc99_scanf", (const char *, ...))                  \
    A(int, c99_vfscanf, "__isoc99_vfscanf", (FILE *, const char *, va_list))  \
    A(int, c99_vscanf, "__isoc99_vscanf", (const char *, va_list))            \
    A(int, c99_fwscanf, "__isoc99_fwscanf", (FILE *, const wchar_t *, ...))   \
    A(int, c99_wscanf, "__isoc99_wscanf", (const wchar_t *, ...))             \
    A(int, c99_vfwscanf, "__isoc99_vfwscanf", (FILE *, const wchar_t *, va_list)) \
    A(int, c99_vwscanf, "__isoc99_vwscanf", (const wchar_t *, va_list))       \
    A(int, io_getc, "_IO_getc", (FILE *))                                     \
    A(int, io_putc, "_IO_putc", (int, FILE *))                                \
    A(int, p_overflow, "__overflow", (FILE *, int))                           \
    A(int, p_uflow, "__uflow", (FILE *))                                      \
    A(int, p_underflow, "__underflow", (FILE *))                              \
    A(ssize_t, p_read_chk, "__read_chk", (int, void *, size_t, size_t))       \
    A(ssize_t, p_pread_chk, "__pread_chk", (int, void *, size_t, off_t, size_t)) \
    A(ssize_t, p_pread64_chk, "__pread64_chk", (int, void *, size_t, off_t, size_t)) \
    A(size_t, p_fread_chk, "__fread_chk", (void *, size_t, size_t, size_t, FILE *)) \
    A(size_t, p_fread_unlocked_chk, "__fread_unlocked_chk",                   \
      (void *, size_t, size_t, size_t, FILE *))                               \
    A(char *, p_fgets_chk, "__fgets_chk", (char *, size_t, int, FILE *))      \
    A(char *, p_fgets_unlocked_chk, "__fgets_unlocked_chk", (char *, size_t, int, FILE *)) \
    A(int, p_open_2, "__open_2", (const char *, int))                         \
    A(int, p_open64_2, "__open64_2", (const char *, int))                     \
    A(int, p_openat_2, "__openat_2", (int, const char *, int))                \
    A(int, p_openat64_2, "__openat64_2", (int, const char *, int))            \
    A(int, p_fprintf_chk, "__fprintf_chk", (FILE *, int, const char *, ...))  \
    A(int, p_printf_chk, "__printf_chk", (int, const char *, ...))            \
    A(int, p_vfprintf_chk, "__vfprintf_chk", (FILE *, int, const char *, va_list)) \
    A(int, p_vprintf_chk, "__vprintf_chk", (int, const char *, va_list))      \
    A(int, p_dprintf_chk, "__dprintf_chk", (int, int, const char *, ...))     \
    A(int, p_vdprintf_chk, "__vdprintf_chk", (int, int, const char *, va_list)) \
    A(int, p_fwprintf_chk, "__fwprintf_chk", (FILE *, int, const wchar_t *, ...)) \
    A(int, p_wprintf_chk, "__wprintf_chk", (int, const wchar_t *, ...))       \
    A(int, p_vfwprintf_chk, "__vfwprintf_chk", (FILE *, int, const wchar_t *, va_list)) \
    A(int, p_vwprintf_chk, "__vwprintf_chk", (int, const wchar_t *, va_list)) \
    A(ssize_t, p_getdelim, "__getdelim", (char **, size_t *, int, FILE *))    \
    A(int, p_xstat, "__xstat", (int, const char *, struct stat *))            \
    A(int, p_xstat64, "__xstat64", (int, const char *, struct stat *))        \
    A(int, p_lxstat, "__lxstat", (int, const char *, struct stat *))          \
    A(int, p_lxstat64, "__lxstat64", (int, const char *, struct stat *))      \
    A(int, p_fxstat, "__fxstat", (int, int, struct stat *))                   \
    A(int, p_fxstat64, "__fxstat64", (int, int, struct stat *))               \
    A(int, p_fxstatat, "__fxstatat", (int, int, const char *, struct stat *, int)) \
    A(int, p_fxstatat64, "__fxstatat64", (int, int, const char *, struct stat *, int))
#define ALIAS_DECL_(ret, name, sym, params) extern ret name params __asm__(sym);
ALIASES(ALIAS_DECL_)
#undef ALIAS_DECL_

/* What the cases share, made by main before any child. */
static char dir[3000], badp[3100], badp2[3100];
static int fd_rd, fd_wr, nb_rd, pipe_rd, pipe_wr;
static FILE *f_rd, *f_wr, *f_pipe, *f_full;
static char buf[64];

/* Call v-functions through a variadic front. */
#define VFRONT(name, ret, vcall, first, ...)                                   \
    static ret name(first, ...)                                                \
    {                                                                          \
        va_list ap;                                                            \
        ret r;                                                                 \
        va_start(ap, fmt);                                                     \
        r = vcall;                                                             \
        va_end(ap);                                                            \
        return r;                                                              \
    }
VFRONT(v_vfprintf, int, vfprintf(f_rd, fmt, ap), const char *fmt)
VFRONT(v_vprintf, int, vprintf(fmt, ap), const char *fmt)
VFRONT(v_vdprintf, int, vdprintf(BADFD, fmt, ap), const char *fmt)
VFRONT(v_vfprintf_chk, int, p_vfprintf_chk(f_rd, 1, fmt, ap), const char *fmt)
VFRONT(v_vprintf_chk, int, p_vprintf_chk(1, fmt, ap), const char *fmt)
VFRONT(v_vdprintf_chk, int, p_vdprintf_chk(BADFD, 1, fmt, ap), const char *fmt)
VFRONT(v_vfwprintf, int, vfwprintf(f_rd, fmt, ap), const wchar_t *fmt)
VFRONT(v_vwprintf, int, vwprintf(fmt, ap), const wchar_t *fmt)
VFRONT(v_vfwprintf_chk, int, p_vfwprintf_chk(f_rd, 1, fmt, ap), const wchar_t *fmt)
VFRONT(v_vwprintf_chk, int, p_vwprintf_chk(1, fmt, ap), const wchar_t *fmt)
VFRONT(v_vfscanf, int, plain_vfscanf(f_wr, fmt, ap), const char *fmt)
VFRONT(v_vscanf, int, plain_vscanf(fmt, ap), const char *fmt)
VFRONT(v_c99_vfscanf, int, c99_vfscanf(f_wr, fmt, ap), const char *fmt)
VFRONT(v_c99_vscanf, int, c99_vscanf(fmt, ap), const char *fmt)
VFRONT(v_vfwscanf, int, plain_vfwscanf(f_wr, fmt, ap), const wchar_t *fmt)
VFRONT(v_vwscanf, int, plain_vwscanf(fmt, ap), const wchar_t *fmt)
VFRONT(v_c99_vfwscanf, int, c99_vfwscanf(f_wr, fmt, ap), const wchar_t *fmt)
VFRONT(v_c99_vwscanf, int, c99_vwscanf(fmt, ap), const wchar_t *fmt)

/* Cases that need more than an expression. */
static long fclose_closed(void)
{
    FILE *f = fdopen(dup(fd_wr), "w");

    if (!f)
        return -2;
    fputs("x", f);
    close(fileno(f));
    errno = SENTINEL;
    return fclose(f);
}

static long closedir_closed(int r64)
{
    DIR *d = opendir(dir);
    struct dirent *e, ent;

    if (!d)
        return -2;
    close(dirfd(d));
    errno = SENTINEL;
    switch (r64) {
    case 0: return closedir(d);
    case 1: return (long)(uintptr_t)readdir(d);
    case 2: return (long)(uintptr_t)readdir64(d);
    default:
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        return readdir_r(d, &ent, &e);
#pragma GCC diagnostic pop
    }
}

static long mkstemp_bad(int which)
{
    char t[] = "no_x_here";

    switch (which) {
    case 0: return mkstemp(t);
    case 1: return mkstemp64(t);
    case 2: return mkostemp(t, O_CLOEXEC);
    case 3: return mkostemp64(t, O_CLOEXEC);
    case 4: return mkstemps(t, 2);
    case 5: return mkstemps64(t, 2);
    case 6: return mkostemps(t, 2, 0);
    default: return mkostemps64(t, 2, 0);
    }
}

/* No fd can be made: the soft fd limit below every free number. */
static long no_fds(int which)
{
    struct rlimit rl;

    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = 0;
    setrlimit(RLIMIT_NOFILE, &rl);
    errno = SENTINEL;
    switch (which) {
    case 0: return (long)(uintptr_t)tmpfile();
    case 1: return (long)(uintptr_t)tmpfile64();
    default: return inotify_init();
    }
}

static long aio_bad(int which)
{
    static struct aiocb cb;
    static struct aiocb64 cb64;
    struct aiocb *list[1] = { &cb };

    memset(&cb, 0, sizeof(cb));
    memset(&cb64, 0, sizeof(cb64));
    cb.aio_fildes = cb64.aio_fildes = fd_rd;
    cb.aio_buf = cb64.aio_buf = buf;
    cb.aio_nbytes = cb64.aio_nbytes = 8;
    cb.aio_reqprio = cb64.aio_reqprio = -1;     /* EINVAL */
    errno = SENTINEL;
    switch (which) {
    case 0: return aio_read(&cb);
    case 1: return aio_write(&cb);
    case 2: return aio_read64(&cb64);
    case 3: return aio_write64(&cb64);
    case 4: return lio_listio(99, list, 1, NULL);
    default: return lio_listio64(99, (struct aiocb64 **)list, 1, NULL);
    }
}

static void *thread_fn(void *a) { return a; }

/* Bad pointers the compiler cannot see are bad. */
static int (*volatile null_fn)(void *);
static int *volatile bad_ptr = (int *)8;

static long thread_huge(void)
{
    pthread_attr_t at;
    pthread_t t;
    long r;

    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, (size_t)1 << 46);
    errno = SENTINEL;
    r = pthread_create(&t, &at, thread_fn, NULL);
    if (r == 0)
        pthread_join(t, NULL);
    return r;
}

static long spawn_bad(int p)
{
    pid_t pid;
    char *argv[] = { "x", NULL };

    return p ? posix_spawnp(&pid, "no-such-program-errno-test", NULL, NULL, argv, environ)
             : posix_spawn(&pid, badp, NULL, NULL, argv, environ);
}

static long exec_bad(int which)
{
    char *argv[] = { "x", NULL };

    switch (which) {
    case 0: return execve(badp, argv, environ);
    case 1: return execv(badp, argv);
    case 2: return execvp("no-such-program-errno-test", argv);
    case 3: return execvpe("no-such-program-errno-test", argv, environ);
    case 4: return execl(badp, "x", (char *)NULL);
    case 5: return execle(badp, "x", (char *)NULL, environ);
    case 6: return execlp("no-such-program-errno-test", "x", (char *)NULL);
    default: return fexecve(BADFD, argv, environ);
    }
}

#define P(x) ((long)(uintptr_t)(x))
#define IOV (&(struct iovec){ buf, 8 })

/*
 * X(TAG, OP, EXPR): the call, its result as a long. Every exported
 * wrapper with a failing form has a case; those without one are listed
 * in the unit test with the reason.
 */
#define CASES(X)                                                               \
    X(open, open, open(badp, O_RDONLY))                                        \
    X(open64, open, open64(badp, O_RDONLY))                                    \
    X(openat, open, openat(AT_FDCWD, badp, O_RDONLY))                          \
    X(openat64, open, openat64(AT_FDCWD, badp, O_RDONLY))                      \
    X(__open_2, open, p_open_2(badp, O_RDONLY))                                \
    X(__open64_2, open, p_open64_2(badp, O_RDONLY))                            \
    X(__openat_2, open, p_openat_2(AT_FDCWD, badp, O_RDONLY))                  \
    X(__openat64_2, open, p_openat64_2(AT_FDCWD, badp, O_RDONLY))              \
    X(creat, open, creat(badp, 0644))                                          \
    X(creat64, open, creat64(badp, 0644))                                      \
    X(open_by_handle_at, open, open_by_handle_at(BADFD, NULL, 0))              \
    X(close, close, close(BADFD))                                              \
    X(close_range, close_range, close_range(5, 2, 0))                          \
    X(closedir, close, closedir_closed(0))                                     \
    X(read, read, read(fd_wr, buf, 8))                                         \
    X(read_eagain, read, read(nb_rd, buf, 8))                                  \
    X(__read_chk, read, p_read_chk(fd_wr, buf, 8, 8))                          \
    X(pread, pread, pread(pipe_rd, buf, 8, 0))                                 \
    X(pread64, pread, pread64(pipe_rd, buf, 8, 0))                             \
    X(__pread_chk, pread, p_pread_chk(pipe_rd, buf, 8, 0, 8))                  \
    X(__pread64_chk, pread, p_pread64_chk(pipe_rd, buf, 8, 0, 8))              \
    X(readv, readv, readv(fd_wr, IOV, 1))                                      \
    X(readv_eagain, readv, readv(nb_rd, IOV, 1))                               \
    X(preadv, preadv, preadv(pipe_rd, IOV, 1, 0))                              \
    X(preadv64, preadv, preadv64(pipe_rd, IOV, 1, 0))                          \
    X(preadv2, preadv, preadv2(pipe_rd, IOV, 1, 0, 0))                         \
    X(preadv64v2, preadv, preadv64v2(pipe_rd, IOV, 1, 0, 0))                   \
    X(write, write, write(fd_rd, buf, 8))                                      \
    X(pwrite, pwrite, pwrite(pipe_wr, buf, 8, 0))                              \
    X(pwrite64, pwrite, pwrite64(pipe_wr, buf, 8, 0))                          \
    X(writev, writev, writev(fd_rd, IOV, 1))                                   \
    X(pwritev, pwritev, pwritev(pipe_wr, IOV, 1, 0))                           \
    X(pwritev64, pwritev, pwritev64(pipe_wr, IOV, 1, 0))                       \
    X(pwritev2, pwritev, pwritev2(pipe_wr, IOV, 1, 0, 0))                      \
    X(pwritev64v2, pwritev, pwritev64v2(pipe_wr, IOV, 1, 0, 0))                \
    X(lseek, lseek, lseek(pipe_rd, 0, SEEK_SET))                               \
    X(lseek64, lseek, lseek64(pipe_rd, 0, SEEK_SET))                           \
    X(dup, dup, dup(BADFD))                                                    \
    X(dup2, dup, dup2(BADFD, 50))                                              \
    X(dup3, dup, dup3(fd_rd, fd_rd, 0))                                        \
    X(fcntl, fcntl, fcntl(BADFD, F_GETFL))                                     \
    X(fcntl_dupfd, dup, fcntl(fd_rd, F_DUPFD, -1))                             \
    X(fcntl64, fcntl, fcntl64(BADFD, F_GETFL))                                 \
    X(fsync, fsync, fsync(pipe_rd))                                            \
    X(fdatasync, fdatasync, fdatasync(pipe_rd))                                \
    X(syncfs, sync, syncfs(BADFD))                                             \
    X(ftruncate, ftruncate, ftruncate(fd_rd, 0))                               \
    X(ftruncate64, ftruncate, ftruncate64(fd_rd, 0))                           \
    X(mmap, mmap, P(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd_wr, 0)))        \
    X(mmap64, mmap, P(mmap64(NULL, 4096, PROT_READ, MAP_SHARED, fd_wr, 0)))    \
    X(munmap, munmap, munmap((void *)1, 4096))                                 \
    X(msync, msync, msync((void *)1, 4096, MS_SYNC))                           \
    X(sendfile, sendfile, sendfile(fd_rd, fd_rd, NULL, 8))                     \
    X(sendfile64, sendfile, sendfile64(fd_rd, fd_rd, NULL, 8))                 \
    X(copy_file_range, copy_file_range, copy_file_range(fd_wr, NULL, fd_rd, NULL, 8, 0)) \
    X(splice, splice, splice(fd_rd, NULL, fd_wr, NULL, 8, 0))                  \
    X(fallocate, fallocate, fallocate(fd_rd, 0, 0, 10))                        \
    X(fallocate64, fallocate, fallocate64(fd_rd, 0, 0, 10))                    \
    X(posix_fallocate, fallocate, posix_fallocate(fd_rd, 0, 10))               \
    X(posix_fallocate64, fallocate, posix_fallocate64(fd_rd, 0, 10))           \
    X(posix_fadvise, fadvise, posix_fadvise(BADFD, 0, 0, POSIX_FADV_NORMAL))   \
    X(posix_fadvise64, fadvise, posix_fadvise64(BADFD, 0, 0, POSIX_FADV_NORMAL)) \
    X(sync_file_range, sync_file_range, sync_file_range(BADFD, 0, 0, 0))       \
    X(pipe, pipe, pipe(bad_ptr))                                              \
    X(pipe2, pipe, pipe2((int[2]){ 0, 0 }, -1))                                \
    X(socket, socket, socket(-1, SOCK_STREAM, 0))                              \
    X(socketpair, socket, socketpair(-1, SOCK_STREAM, 0, (int[2]){ 0, 0 }))    \
    X(accept, socket, accept(fd_rd, NULL, NULL))                               \
    X(accept4, socket, accept4(fd_rd, NULL, NULL, 0))                          \
    X(epoll_create, anonfd, epoll_create(0))                                   \
    X(epoll_create1, anonfd, epoll_create1(-1))                                \
    X(eventfd, anonfd, eventfd(0, -1))                                         \
    X(inotify_init1, anonfd, inotify_init1(-1))                                \
    X(inotify_init, anonfd, no_fds(2))                                         \
    X(signalfd, anonfd, signalfd(BADFD, &(sigset_t){ { 0 } }, 0))              \
    X(timerfd_create, anonfd, timerfd_create(-1, 0))                           \
    X(posix_openpt, anonfd, posix_openpt(-1))                                  \
    X(memfd_create, memfd, memfd_create("x", ~0u))                             \
    X(mkstemp, mkstemp, mkstemp_bad(0))                                        \
    X(mkstemp64, mkstemp, mkstemp_bad(1))                                      \
    X(mkostemp, mkstemp, mkstemp_bad(2))                                       \
    X(mkostemp64, mkstemp, mkstemp_bad(3))                                     \
    X(mkstemps, mkstemp, mkstemp_bad(4))                                       \
    X(mkstemps64, mkstemp, mkstemp_bad(5))                                     \
    X(mkostemps, mkstemp, mkstemp_bad(6))                                      \
    X(mkostemps64, mkstemp, mkstemp_bad(7))                                    \
    X(fopen, fopen, P(fopen(badp, "r")))                                       \
    X(fopen64, fopen, P(fopen64(badp, "r")))                                   \
    X(fdopen, fdopen, P(fdopen(BADFD, "r")))                                   \
    X(freopen, freopen, P(freopen(badp, "r", fdopen(dup(fd_rd), "r"))))        \
    X(freopen64, freopen, P(freopen64(badp, "r", fdopen(dup(fd_rd), "r"))))    \
    X(tmpfile, tmpfile, no_fds(0))                                             \
    X(tmpfile64, tmpfile, no_fds(1))                                           \
    X(fclose, fclose, fclose_closed())                                         \
    X(fflush, fflush, (fputs("x", f_full), fflush(f_full)))                    \
    X(fseek, fseek, fseek(f_pipe, 0, SEEK_SET))                                \
    X(fseeko, fseek, fseeko(f_pipe, 0, SEEK_SET))                              \
    X(fseeko64, fseek, fseeko64(f_pipe, 0, SEEK_SET))                          \
    X(rewind, fseek, (rewind(f_pipe), 0))                                      \
    X(ftell, ftell, ftell(f_pipe))                                             \
    X(ftello, ftell, ftello(f_pipe))                                           \
    X(ftello64, ftell, ftello64(f_pipe))                                       \
    X(setvbuf, setvbuf, setvbuf(f_rd, NULL, 99, 0))                            \
    X(fread, fread, fread(buf, 1, 8, f_wr))                                    \
    X(fread_unlocked, fread, fread_unlocked(buf, 1, 8, f_wr))                  \
    X(__fread_chk, fread, p_fread_chk(buf, 8, 1, 8, f_wr))                     \
    X(__fread_unlocked_chk, fread, p_fread_unlocked_chk(buf, 8, 1, 8, f_wr))   \
    X(fwrite, fwrite, fwrite(buf, 1, 8, f_rd))                                 \
    X(fwrite_unlocked, fwrite, fwrite_unlocked(buf, 1, 8, f_rd))               \
    X(fgets, fgets, P(fgets(buf, 8, f_wr)))                                    \
    X(fgets_unlocked, fgets, P(fgets_unlocked(buf, 8, f_wr)))                  \
    X(__fgets_chk, fgets, P(p_fgets_chk(buf, 8, 8, f_wr)))                     \
    X(__fgets_unlocked_chk, fgets, P(p_fgets_unlocked_chk(buf, 8, 8, f_wr)))   \
    X(fgetws, fgets, P(fgetws((wchar_t *)buf, 4, f_wr)))                       \
    X(fgetws_unlocked, fgets, P(fgetws_unlocked((wchar_t *)buf, 4, f_wr)))     \
    X(fputs, fputs, fputs("x", f_rd))                                          \
    X(fputs_unlocked, fputs, fputs_unlocked("x", f_rd))                        \
    X(puts, fputs, puts("x"))                                                  \
    X(fputws, fputs, fputws(L"x", f_rd))                                       \
    X(fputws_unlocked, fputs, fputws_unlocked(L"x", f_rd))                     \
    X(fgetc, fgetc, fgetc(f_wr))                                               \
    X(getc, fgetc, getc(f_wr))                                                 \
    X(_IO_getc, fgetc, io_getc(f_wr))                                          \
    X(fgetc_unlocked, fgetc, fgetc_unlocked(f_wr))                             \
    X(getc_unlocked, fgetc, (getc_unlocked)(f_wr))                             \
    X(getchar, fgetc, getchar())                                               \
    X(getchar_unlocked, fgetc, (getchar_unlocked)())                           \
    X(fgetwc, fgetc, (long)fgetwc(f_wr))                                       \
    X(getwc, fgetc, (long)getwc(f_wr))                                         \
    X(fgetwc_unlocked, fgetc, (long)fgetwc_unlocked(f_wr))                     \
    X(getwc_unlocked, fgetc, (long)getwc_unlocked(f_wr))                       \
    X(getwchar, fgetc, (long)getwchar())                                       \
    X(getwchar_unlocked, fgetc, (long)getwchar_unlocked())                     \
    X(__uflow, fgetc, p_uflow(f_wr))                                           \
    X(__underflow, fgetc, p_underflow(f_wr))                                   \
    X(fputc, fputc, fputc('x', f_rd))                                          \
    X(putc, fputc, putc('x', f_rd))                                            \
    X(_IO_putc, fputc, io_putc('x', f_rd))                                     \
    X(fputc_unlocked, fputc, fputc_unlocked('x', f_rd))                        \
    X(putc_unlocked, fputc, (putc_unlocked)('x', f_rd))                        \
    X(putchar, fputc, putchar('x'))                                            \
    X(putchar_unlocked, fputc, (putchar_unlocked)('x'))                        \
    X(fputwc, fputc, (long)fputwc(L'x', f_rd))                                 \
    X(putwc, fputc, (long)putwc(L'x', f_rd))                                   \
    X(fputwc_unlocked, fputc, (long)fputwc_unlocked(L'x', f_rd))               \
    X(putwc_unlocked, fputc, (long)putwc_unlocked(L'x', f_rd))                 \
    X(putwchar, fputc, (long)putwchar(L'x'))                                   \
    X(putwchar_unlocked, fputc, (long)putwchar_unlocked(L'x'))                 \
    X(__overflow, fputc, p_overflow(f_rd, 'x'))                                \
    X(getline, getdelim, getline(&(char *){ NULL }, &(size_t){ 0 }, f_wr))     \
    X(getdelim, getdelim, getdelim(&(char *){ NULL }, &(size_t){ 0 }, ',', f_wr)) \
    X(__getdelim, getdelim, p_getdelim(&(char *){ NULL }, &(size_t){ 0 }, ',', f_wr)) \
    X(fprintf, fprintf, fprintf(f_rd, "x"))                                    \
    X(printf, fprintf, printf("x"))                                            \
    X(vfprintf, fprintf, v_vfprintf("x"))                                      \
    X(vprintf, fprintf, v_vprintf("x"))                                        \
    X(dprintf, fprintf, dprintf(BADFD, "x"))                                   \
    X(vdprintf, fprintf, v_vdprintf("x"))                                      \
    X(__fprintf_chk, fprintf, p_fprintf_chk(f_rd, 1, "x"))                     \
    X(__printf_chk, fprintf, p_printf_chk(1, "x"))                             \
    X(__vfprintf_chk, fprintf, v_vfprintf_chk("x"))                            \
    X(__vprintf_chk, fprintf, v_vprintf_chk("x"))                              \
    X(__dprintf_chk, fprintf, p_dprintf_chk(BADFD, 1, "x"))                    \
    X(__vdprintf_chk, fprintf, v_vdprintf_chk("x"))                            \
    X(fwprintf, fprintf, fwprintf(f_rd, L"x"))                                 \
    X(wprintf, fprintf, wprintf(L"x"))                                         \
    X(vfwprintf, fprintf, v_vfwprintf(L"x"))                                   \
    X(vwprintf, fprintf, v_vwprintf(L"x"))                                     \
    X(__fwprintf_chk, fprintf, p_fwprintf_chk(f_rd, 1, L"x"))                  \
    X(__wprintf_chk, fprintf, p_wprintf_chk(1, L"x"))                          \
    X(__vfwprintf_chk, fprintf, v_vfwprintf_chk(L"x"))                         \
    X(__vwprintf_chk, fprintf, v_vwprintf_chk(L"x"))                           \
    X(fscanf, fscanf, plain_fscanf(f_wr, "%d", &(int){ 0 }))                   \
    X(scanf, fscanf, plain_scanf("%d", &(int){ 0 }))                           \
    X(vfscanf, fscanf, v_vfscanf("%d", &(int){ 0 }))                           \
    X(vscanf, fscanf, v_vscanf("%d", &(int){ 0 }))                             \
    X(__isoc99_fscanf, fscanf, c99_fscanf(f_wr, "%d", &(int){ 0 }))            \
    X(__isoc99_scanf, fscanf, c99_scanf("%d", &(int){ 0 }))                    \
    X(__isoc99_vfscanf, fscanf, v_c99_vfscanf("%d", &(int){ 0 }))              \
    X(__isoc99_vscanf, fscanf, v_c99_vscanf("%d", &(int){ 0 }))                \
    X(fwscanf, fscanf, plain_fwscanf(f_wr, L"%d", &(int){ 0 }))                \
    X(wscanf, fscanf, plain_wscanf(L"%d", &(int){ 0 }))                        \
    X(vfwscanf, fscanf, v_vfwscanf(L"%d", &(int){ 0 }))                        \
    X(vwscanf, fscanf, v_vwscanf(L"%d", &(int){ 0 }))                          \
    X(__isoc99_fwscanf, fscanf, c99_fwscanf(f_wr, L"%d", &(int){ 0 }))         \
    X(__isoc99_wscanf, fscanf, c99_wscanf(L"%d", &(int){ 0 }))                 \
    X(__isoc99_vfwscanf, fscanf, v_c99_vfwscanf(L"%d", &(int){ 0 }))           \
    X(__isoc99_vwscanf, fscanf, v_c99_vwscanf(L"%d", &(int){ 0 }))             \
    X(stat, stat, stat(badp, &(struct stat){ 0 }))                             \
    X(stat64, stat, stat64(badp, &(struct stat64){ 0 }))                       \
    X(lstat, stat, lstat(badp, &(struct stat){ 0 }))                           \
    X(lstat64, stat, lstat64(badp, &(struct stat64){ 0 }))                     \
    X(fstat, stat, fstat(BADFD, &(struct stat){ 0 }))                          \
    X(fstat64, stat, fstat64(BADFD, &(struct stat64){ 0 }))                    \
    X(fstatat, stat, fstatat(AT_FDCWD, badp, &(struct stat){ 0 }, 0))         \
    X(fstatat64, stat, fstatat64(AT_FDCWD, badp, &(struct stat64){ 0 }, 0))   \
    X(statx, stat, statx(AT_FDCWD, badp, 0, STATX_BASIC_STATS, &(struct statx){ 0 })) \
    X(__xstat, stat, p_xstat(1, badp, &(struct stat){ 0 }))                    \
    X(__xstat64, stat, p_xstat64(1, badp, &(struct stat){ 0 }))                \
    X(__lxstat, stat, p_lxstat(1, badp, &(struct stat){ 0 }))                  \
    X(__lxstat64, stat, p_lxstat64(1, badp, &(struct stat){ 0 }))              \
    X(__fxstat, stat, p_fxstat(1, BADFD, &(struct stat){ 0 }))                 \
    X(__fxstat64, stat, p_fxstat64(1, BADFD, &(struct stat){ 0 }))             \
    X(__fxstatat, stat, p_fxstatat(1, AT_FDCWD, badp, &(struct stat){ 0 }, 0)) \
    X(__fxstatat64, stat, p_fxstatat64(1, AT_FDCWD, badp, &(struct stat){ 0 }, 0)) \
    X(access, access, access(badp, R_OK))                                      \
    X(faccessat, access, faccessat(AT_FDCWD, badp, R_OK, 0))                   \
    X(eaccess, access, eaccess(badp, R_OK))                                    \
    X(euidaccess, access, euidaccess(badp, R_OK))                              \
    X(readlink, readlink, readlink(badp, buf, sizeof(buf)))                    \
    X(readlinkat, readlink, readlinkat(AT_FDCWD, badp, buf, sizeof(buf)))      \
    X(unlink, unlink, unlink(badp))                                            \
    X(unlinkat, unlink, unlinkat(AT_FDCWD, badp, 0))                           \
    X(rmdir, rmdir, rmdir(badp))                                               \
    X(rename, rename, rename(badp, badp2))                                     \
    X(renameat, rename, renameat(AT_FDCWD, badp, AT_FDCWD, badp2))             \
    X(renameat2, rename, renameat2(AT_FDCWD, badp, AT_FDCWD, badp2, 0))        \
    X(mkdir, mkdir, mkdir(badp, 0755))                                         \
    X(mkdirat, mkdir, mkdirat(AT_FDCWD, badp, 0755))                           \
    X(link, link, link(badp, badp2))                                           \
    X(linkat, link, linkat(AT_FDCWD, badp, AT_FDCWD, badp2, 0))                \
    X(symlink, symlink, symlink("x", badp))                                    \
    X(symlinkat, symlink, symlinkat("x", AT_FDCWD, badp))                      \
    X(chmod, chmod, chmod(badp, 0644))                                         \
    X(fchmod, chmod, fchmod(BADFD, 0644))                                      \
    X(fchmodat, chmod, fchmodat(AT_FDCWD, badp, 0644, 0))                      \
    X(chown, chown, chown(badp, 0, 0))                                         \
    X(fchown, chown, fchown(BADFD, 0, 0))                                      \
    X(lchown, chown, lchown(badp, 0, 0))                                       \
    X(fchownat, chown, fchownat(AT_FDCWD, badp, 0, 0, 0))                      \
    X(utimes, utimes, utimes(badp, NULL))                                      \
    X(utime, utimes, utime(badp, NULL))                                        \
    X(lutimes, utimes, lutimes(badp, NULL))                                    \
    X(futimes, utimes, futimes(BADFD, NULL))                                   \
    X(futimens, utimes, futimens(BADFD, NULL))                                 \
    X(utimensat, utimes, utimensat(AT_FDCWD, badp, NULL, 0))                   \
    X(truncate, truncate, truncate(badp, 0))                                   \
    X(truncate64, truncate, truncate64(badp, 0))                               \
    X(opendir, opendir, P(opendir(badp)))                                      \
    X(fdopendir, opendir, P(fdopendir(BADFD)))                                 \
    X(readdir, readdir, closedir_closed(1))                                    \
    X(readdir64, readdir, closedir_closed(2))                                  \
    X(readdir_r, readdir, closedir_closed(3))                                  \
    X(chdir, cwd, chdir(badp))                                                 \
    X(fchdir, cwd, fchdir(BADFD))                                              \
    X(aio_read, async, aio_bad(0))                                             \
    X(aio_write, async, aio_bad(1))                                            \
    X(aio_read64, async, aio_bad(2))                                           \
    X(aio_write64, async, aio_bad(3))                                          \
    X(lio_listio, async, aio_bad(4))                                           \
    X(lio_listio64, async, aio_bad(5))                                         \
    X(syscall_read, read, syscall(SYS_read, fd_wr, buf, 8))                    \
    X(syscall_openat, open, syscall(SYS_openat, AT_FDCWD, badp, O_RDONLY))     \
    X(syscall_close, close, syscall(SYS_close, BADFD))                         \
    X(clone, fork, clone(null_fn, NULL, 0, NULL))                                 \
    X(posix_spawn, fork, spawn_bad(0))                                         \
    X(posix_spawnp, fork, spawn_bad(1))                                        \
    X(execve, unrecorded, exec_bad(0))                                         \
    X(execv, unrecorded, exec_bad(1))                                          \
    X(execvp, unrecorded, exec_bad(2))                                         \
    X(execvpe, unrecorded, exec_bad(3))                                        \
    X(execl, unrecorded, exec_bad(4))                                          \
    X(execle, unrecorded, exec_bad(5))                                         \
    X(execlp, unrecorded, exec_bad(6))                                         \
    X(fexecve, unrecorded, exec_bad(7))                                        \
    X(wait, fork, wait(NULL))                                                  \
    X(waitpid, fork, waitpid(-1, NULL, 0))                                     \
    X(wait4, fork, wait4(-1, NULL, 0, NULL))                                   \
    X(pthread_create, pthread_create, thread_huge())                           \
    X(pthread_setname_np, pthread_create,                                      \
      pthread_setname_np(pthread_self(), "a name far longer than sixteen"))   \
    X(prctl, pthread_create, prctl(-1, 0, 0, 0, 0))                            \
    X(setuid, none, setuid((uid_t)-1))                                         \
    X(seteuid, none, seteuid((uid_t)-1))                                       \
    X(setgid, none, setgid((gid_t)-1))                                         \
    X(setegid, none, setegid((gid_t)-1))                                       \
    X(setgroups, none, setgroups((size_t)-1, NULL))

/* Each case a function, called directly or by the stub. */
static long result_r;
static int result_e;
#define CASE_FN_(tag, op, expr)                                                \
    static __attribute__((noinline)) void case_##tag(void)                     \
    {                                                                          \
        long r;                                                                \
        errno = SENTINEL;                                                      \
        r = (long)(expr);                                                      \
        result_e = errno;                                                      \
        result_r = r;                                                          \
        __asm__ volatile("" ::: "memory");   /* a frame of its own */          \
    }
CASES(CASE_FN_)
#undef CASE_FN_

static const struct {
    const char *tag, *op;
    void (*fn)(void);
} cases[] = {
#define CASE_ROW_(tag, op, expr) { #tag, #op, case_##tag },
    CASES(CASE_ROW_)
#undef CASE_ROW_
};

/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char stub_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
static unsigned char *stub;

static void out(const char *s)
{
    raw_sys(SYS_write, 1, (long)s, (long)strlen(s), 0);
}

/* The perf map of this process, naming the stub (raw calls: not the case's). */
static void write_map(char *path, size_t cap)
{
    char line[128];
    long fd;

    snprintf(path, cap, "/tmp/perf-%d.map", (int)getpid());
    snprintf(line, sizeof(line), "%lx %zx JIT:errno_stub\n", (unsigned long)stub,
             sizeof(stub_code));
    fd = raw_sys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        raw_sys(SYS_write, fd, (long)line, (long)strlen(line), 0);
        raw_sys(SYS_close, fd, 0, 0, 0);
    }
}

static void run_case(size_t i, int jit, int map)
{
    char line[256], mpath[64] = "";
    pid_t pid;
    int st;

    pid = fork();
    if (pid == 0) {
        if (jit && map)
            write_map(mpath, sizeof(mpath));
        stdout = f_rd;    /* puts, printf, putchar ... fail on it */
        stdin = f_wr;     /* getchar, scanf ... fail on it */
        if (jit)
            ((void (*)(void (*)(void)))(void *)stub)(cases[i].fn);
        else
            cases[i].fn();
        if (mpath[0])
            raw_sys(SYS_unlinkat, AT_FDCWD, (long)mpath, 0, 0);
        snprintf(line, sizeof(line), "%s %s %s %ld %d\n", jit ? "jit" : "direct",
                 cases[i].tag, cases[i].op, result_r, result_e);
        out(line);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
        snprintf(line, sizeof(line), "%s %s %s child-failed\n", jit ? "jit" : "direct",
                 cases[i].tag, cases[i].op);
        out(line);
    }
}

int main(int argc, char **argv)
{
    char path[3100];
    int p[2];

    if (argc < 2 || strlen(argv[1]) >= sizeof(dir) - 16) {
        fprintf(stderr, "usage: rec_errno DIR [map]\n");
        return 2;
    }
    strcpy(dir, argv[1]);
    snprintf(path, sizeof(path), "%s/f", dir);
    snprintf(badp, sizeof(badp), "%s/f/x", dir);     /* ENOTDIR, not ENOENT */
    snprintf(badp2, sizeof(badp2), "%s/f/y", dir);
    fd_wr = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    fd_rd = open(path, O_RDONLY);
    f_rd = fopen(path, "r");
    snprintf(path, sizeof(path), "%s/g", dir);
    f_wr = fopen(path, "w");
    f_full = fopen("/dev/full", "w");
    if (pipe2(p, O_NONBLOCK) != 0)
        return 1;
    nb_rd = p[0];
    if (pipe(p) != 0)
        return 1;
    pipe_rd = p[0];
    pipe_wr = p[1];
    f_pipe = fdopen(dup(pipe_rd), "r");
    if (fd_wr < 0 || fd_rd < 0 || !f_rd || !f_wr || !f_full || !f_pipe)
        return 1;
    stub = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0);
    if (stub == MAP_FAILED)
        return 3;
    memcpy(stub, stub_code, sizeof(stub_code));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        run_case(i, 0, 0);
        run_case(i, 1, argc > 2 && !strcmp(argv[2], "map"));
    }
    return 0;
}
