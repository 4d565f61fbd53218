/*
 * rec_badargs: every wrapped function called with arguments the kernel or
 * libc rejects (NULL and unmapped pointers, fds that are not open, sizes of
 * zero), printing each one's result and errno, one line per call. Run
 * natively, under iorecord and under a plain LD_PRELOAD, the output must
 * be the same: a wrapper never reads what the kernel would refuse.
 *
 * The pointers come through volatile variables so that the compiler
 * neither warns about them nor folds the calls away.
 *
 * Left out because they crash natively (glibc dereferences the argument
 * itself, so the recorder may crash there too, or not at all):
 *   fopen(path, NULL), fdopen(fd, NULL), fclose/fflush/fseek/ftell/rewind/
 *   setvbuf/setbuf/getc/fgetc/fputc/putc/fputs/fread/fwrite/fprintf/
 *   vfprintf/fscanf/getline with a NULL FILE* and a non-zero size,
 *   puts(NULL), fputs(NULL, f), opendir(NULL), readdir(NULL), dirfd(NULL),
 *   readdir_r(NULL, ...), mkstemp(NULL), execvp(NULL, ...),
 *   pthread_setname_np(t, NULL), aio_read(NULL), fputwc/fputws/fgetwc with
 *   a NULL FILE*, fwprintf(NULL, ...).
 * Usage: rec_badargs DIR (an empty directory; the program chdirs into it)
 */
#include <aio.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

/* printf(NULL) and its kin are the point here: glibc answers EINVAL. */
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

extern char **environ;

/* NULL, an address no process maps, and one in the kernel's half. */
static void *volatile null_ptr;
static void *volatile low_ptr = (void *)1;
static void *volatile high_ptr = (void *)-4096L;
static volatile int bad_fd = 9999;
static volatile int neg_fd = -1;
static volatile int neg_n = -1;

static void show(const char *what, long r, int err)
{
    char line[256];
    int n = snprintf(line, sizeof(line), "%-44s r=%ld errno=%d\n", what, r, r < 0 ? err : 0);

    fflush(stdout);
    if (write(1, line, (size_t)n) != n)
        exit(98);
}

/* expr is evaluated with errno cleared; its value (a long) and errno shown. */
#define CASE(expr)                                                             \
    do {                                                                       \
        long r_;                                                               \
        errno = 0;                                                             \
        r_ = (long)(expr);                                                     \
        show(#expr, r_, errno);                                                \
    } while (0)

/* A call that returns a pointer: shown as 1 (not NULL) or -1 (NULL). */
#define PCASE(expr)                                                            \
    do {                                                                       \
        long r_;                                                               \
        errno = 0;                                                             \
        r_ = (expr) ? 1 : -1;                                                  \
        show(#expr, r_, errno);                                                \
    } while (0)

/* A call whose errno is its result (the posix_ ones). */
#define ECASE(expr)                                                            \
    do {                                                                       \
        long r_;                                                               \
        errno = 0;                                                             \
        r_ = (long)(expr);                                                     \
        show(#expr, r_ ? -1 : 0, (int)r_);                                     \
    } while (0)

static void fd_calls(void)
{
    const char *np = null_ptr, *lp = low_ptr, *hp = high_ptr;
    struct iovec *niov = null_ptr, *liov = low_ptr;
    off_t *noff = low_ptr;
    off64_t *loff = low_ptr;
    int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        exit(97);
    CASE(open(np, O_RDONLY));
    CASE(open(lp, O_RDONLY));
    CASE(open(hp, O_RDONLY));
    CASE(open(lp, O_RDONLY | O_CREAT, 0644));
    CASE(open64(np, O_RDONLY));
    CASE(openat(AT_FDCWD, np, O_RDONLY));
    CASE(openat(bad_fd, "relative", O_RDONLY));
    CASE(openat(neg_fd, lp, O_RDONLY));
    CASE(openat64(AT_FDCWD, lp, O_RDONLY));
    CASE(creat(np, 0644));
    CASE(creat64(lp, 0644));
    CASE(read(neg_fd, null_ptr, 10));
    CASE(read(bad_fd, low_ptr, 10));
    CASE(read(fd, low_ptr, 10));
    CASE(write(neg_fd, null_ptr, 10));
    CASE(write(fd, low_ptr, 10));
    CASE(write(fd, null_ptr, 0));
    CASE(pread(bad_fd, null_ptr, 10, 0));
    CASE(pread64(fd, low_ptr, 10, -1));
    CASE(pwrite(fd, low_ptr, 10, 0));
    CASE(pwrite64(neg_fd, null_ptr, 10, 0));
    CASE(readv(fd, niov, 1));
    CASE(readv(fd, liov, 1));
    CASE(readv(fd, liov, neg_n));
    CASE(writev(fd, niov, 1));
    CASE(writev(fd, liov, 3));
    CASE(writev(bad_fd, liov, 3));
    CASE(preadv(fd, liov, 2, 0));
    CASE(preadv64(fd, niov, 2, 0));
    CASE(pwritev(fd, liov, 2, 0));
    CASE(pwritev64(fd, niov, 2, 0));
    CASE(preadv2(fd, liov, 2, -1, 0));
    CASE(preadv64v2(fd, liov, 2, 0, 0));
    CASE(pwritev2(fd, liov, 2, -1, 0));
    CASE(pwritev64v2(fd, niov, 2, 0, 0));
    CASE(lseek(bad_fd, 0, SEEK_SET));
    CASE(lseek64(fd, -5, SEEK_SET));
    CASE(fsync(bad_fd));
    CASE(fdatasync(neg_fd));
    CASE(ftruncate(bad_fd, 0));
    CASE(ftruncate64(fd, -1));
    CASE(fallocate(bad_fd, 0, 0, 10));
    CASE(fallocate64(fd, 0, 0, -1));
    ECASE(posix_fallocate(bad_fd, 0, 10));
    ECASE(posix_fallocate64(fd, -1, 10));
    ECASE(posix_fadvise(bad_fd, 0, 0, 0));
    ECASE(posix_fadvise64(fd, 0, 0, 12345));
    CASE(dup(bad_fd));
    CASE(dup2(neg_fd, 50));
    CASE(dup3(fd, fd, 0));
    CASE(dup3(bad_fd, 50, O_CLOEXEC));
    CASE(fcntl(bad_fd, F_GETFL));
    CASE(fcntl(bad_fd, F_DUPFD, 0));
    CASE(fcntl(neg_fd, F_SETFD, FD_CLOEXEC));
    CASE(fcntl(fd, F_GETLK, low_ptr));
    CASE(fcntl64(fd, F_SETLK, null_ptr));
    CASE(pipe(null_ptr));
    CASE(pipe(low_ptr));
    CASE(pipe2(low_ptr, O_CLOEXEC));
    CASE(pipe2(null_ptr, -1));
    CASE(socketpair(AF_UNIX, SOCK_STREAM, 0, low_ptr));
    CASE(socket(-1, SOCK_STREAM, 0));
    CASE(accept(bad_fd, low_ptr, low_ptr));
    CASE(accept4(neg_fd, null_ptr, null_ptr, 0));
    CASE(sendfile(bad_fd, neg_fd, noff, 10));
    CASE(sendfile(fd, fd, null_ptr, 10));
    CASE(sendfile64(fd, bad_fd, low_ptr, 10));
    CASE(copy_file_range(fd, loff, fd, loff, 10, 0));
    CASE(copy_file_range(bad_fd, null_ptr, fd, null_ptr, 10, 0));
    CASE(splice(fd, loff, bad_fd, loff, 10, 0));
    CASE((long)mmap(null_ptr, 4096, PROT_READ, MAP_PRIVATE, bad_fd, 0));
    CASE((long)mmap64(low_ptr, 0, PROT_READ, MAP_SHARED, fd, 0));
    CASE(munmap(low_ptr, 4096));
    CASE(msync(low_ptr, 4096, MS_SYNC));
    CASE(close(bad_fd));
    CASE(close(neg_fd));
    CASE(close_range(10, 5, 0));
    CASE(close_range(5000, 6000, -1));
    CASE(epoll_create(0));
    CASE(epoll_create1(-1));
    CASE(eventfd(0, -1));
    CASE(inotify_init1(-1));
    CASE(signalfd(bad_fd, low_ptr, 0));
    CASE(signalfd(-1, null_ptr, 0));
    CASE(timerfd_create(-1, 0));
    CASE(memfd_create(np, 0));
    CASE(memfd_create(lp, 0));
    CASE(posix_openpt(-1));
    CASE(open_by_handle_at(bad_fd, null_ptr, 0));
    CASE(close(fd));
}

static void meta_calls(void)
{
    const char *np = null_ptr, *lp = low_ptr, *hp = high_ptr;
    struct stat *nst = null_ptr;
    struct stat64 *lst = low_ptr;
    char buf[64];

    CASE(stat(np, nst));
    CASE(stat(lp, nst));
    CASE(stat(".", nst));
    CASE(stat64(hp, lst));
    CASE(lstat(np, nst));
    CASE(lstat64(lp, lst));
    CASE(fstat(bad_fd, nst));
    CASE(fstat(0, nst));
    CASE(fstat64(neg_fd, lst));
    CASE(fstatat(AT_FDCWD, np, nst, 0));
    CASE(fstatat(bad_fd, "", nst, AT_EMPTY_PATH));
    CASE(fstatat64(AT_FDCWD, lp, lst, AT_SYMLINK_NOFOLLOW));
    CASE(fstatat(AT_FDCWD, lp, nst, AT_EMPTY_PATH));
    CASE(statx(0, np, 0, STATX_ALL, null_ptr));
    CASE(statx(AT_FDCWD, lp, AT_EMPTY_PATH, STATX_ALL, null_ptr));
    CASE(statx(bad_fd, np, AT_EMPTY_PATH, STATX_ALL, low_ptr));
    CASE(access(np, R_OK));
    CASE(access(lp, F_OK));
    CASE(faccessat(AT_FDCWD, np, R_OK, 0));
    CASE(faccessat(bad_fd, lp, R_OK, AT_EMPTY_PATH));
    CASE(euidaccess(np, R_OK));
    CASE(eaccess(lp, W_OK));
    CASE(readlink(np, buf, sizeof(buf)));
    CASE(readlink(lp, buf, sizeof(buf)));
    CASE(readlink(".", null_ptr, 10));
    CASE(readlinkat(AT_FDCWD, np, buf, sizeof(buf)));
    CASE(readlinkat(bad_fd, lp, buf, sizeof(buf)));
    CASE(unlink(np));
    CASE(unlink(lp));
    CASE(unlinkat(AT_FDCWD, np, 0));
    CASE(unlinkat(bad_fd, lp, AT_REMOVEDIR));
    CASE(rmdir(np));
    CASE(rmdir(hp));
    CASE(mkdir(np, 0755));
    CASE(mkdir(lp, 0755));
    CASE(mkdirat(AT_FDCWD, lp, 0755));
    CASE(mkdirat(bad_fd, "relative", 0755));
    CASE(rename(np, np));
    CASE(rename("missing", lp));
    CASE(rename(lp, "missing"));
    CASE(renameat(AT_FDCWD, np, AT_FDCWD, lp));
    CASE(renameat(bad_fd, "a", neg_fd, "b"));
    CASE(renameat2(AT_FDCWD, lp, AT_FDCWD, np, 0));
    CASE(link(np, np));
    CASE(link("missing", lp));
    CASE(linkat(AT_FDCWD, lp, AT_FDCWD, np, 0));
    CASE(symlink(np, np));
    CASE(symlink("target", lp));
    CASE(symlink(lp, "link"));
    CASE(symlinkat(lp, bad_fd, np));
    CASE(chmod(np, 0644));
    CASE(chmod(lp, 0644));
    CASE(fchmod(bad_fd, 0644));
    CASE(fchmodat(AT_FDCWD, lp, 0644, 0));
    CASE(chown(np, 0, 0));
    CASE(lchown(lp, 0, 0));
    CASE(fchown(neg_fd, 0, 0));
    CASE(fchownat(AT_FDCWD, np, 0, 0, 0));
    CASE(fchownat(bad_fd, "", 0, 0, AT_EMPTY_PATH));
    CASE(utimensat(AT_FDCWD, lp, null_ptr, 0));
    CASE(utimensat(bad_fd, np, null_ptr, 0));
    CASE(utimensat(AT_FDCWD, "missing", low_ptr, 0));
    CASE(futimens(bad_fd, null_ptr));
    CASE(utimes(np, null_ptr));
    CASE(utimes(lp, null_ptr));
    CASE(lutimes(lp, null_ptr));
    CASE(utime(np, null_ptr));
    CASE(utime(lp, null_ptr));
    CASE(truncate(np, 0));
    CASE(truncate(lp, 0));
    CASE(truncate64(hp, 0));
    CASE(syncfs(bad_fd));
    CASE(sync_file_range(bad_fd, 0, 0, 0));
    CASE(mkstemp(strcpy(buf, "no-x")));
    CASE(mkostemp(strcpy(buf, "no-x"), 0));
    CASE(mkstemps(strcpy(buf, "no-x.c"), 2));
    CASE(mkostemps(strcpy(buf, "no-x.c"), 9, 0));
}

static void stdio_calls(void)
{
    FILE *nf = null_ptr;
    const char *np = null_ptr, *lp = low_ptr;
    char *line = NULL;
    size_t cap = 0;
    char buf[16];
    FILE *f;

    PCASE(fopen(np, "r"));
    PCASE(fopen(lp, "r"));
    PCASE(fopen("missing", "r"));
    PCASE(fopen("file2", "q"));
    PCASE(fopen64(np, "w"));
    PCASE(fdopen(bad_fd, "r"));
    PCASE(fdopen(neg_fd, "w"));
    PCASE(freopen(lp, "r", fopen("file", "r")));
    CASE(fflush(nf));
    CASE(fwrite(buf, 0, 5, nf));
    CASE(fwrite(null_ptr, 1, 0, stdout));
    CASE(fwrite_unlocked(buf, 5, 0, nf));
    CASE(fread(buf, 0, 5, nf));
    CASE(fread_unlocked(null_ptr, 5, 0, nf));
    CASE(fgets(buf, 0, nf));
    CASE(fgets_unlocked(buf, neg_n, nf));
    CASE(getline(null_ptr, &cap, nf));
    CASE(getline(&line, null_ptr, stdin));
    CASE(getdelim(null_ptr, null_ptr, '\n', nf));
    CASE(__getdelim(null_ptr, null_ptr, '\n', nf));
    CASE(printf(np));
    CASE(fprintf(stdout, np));
    CASE(dprintf(bad_fd, "x"));
    CASE(dprintf(1, np));
    CASE(scanf(np));
    CASE(fscanf(stdin, np));
    CASE(wprintf(null_ptr));
    CASE(fgetws(null_ptr, 0, null_ptr));
    f = fopen("file", "r");
    CASE(fread(null_ptr, 1, 0, f));
    CASE(fgets(null_ptr, 0, f));
    CASE(fclose(f));
    PCASE(fdopendir(bad_fd));
    CASE(closedir(null_ptr));
    CASE(lio_listio(LIO_NOWAIT, null_ptr, 0, null_ptr));
    CASE(lio_listio(12345, low_ptr, 1, null_ptr));
    free(line);
}

static void proc_calls(void)
{
    const char *np = null_ptr, *lp = low_ptr;
    char *argv[] = { (char *)"x", NULL };
    char *const *nargv = null_ptr;
    pid_t pid;

    CASE(execve(np, argv, environ));
    CASE(execve(lp, nargv, null_ptr));
    CASE(execve("/nonexistent", null_ptr, null_ptr));
    CASE(execve("/nonexistent", low_ptr, low_ptr));
    CASE(execv(np, argv));
    CASE(execvpe("/nonexistent", argv, null_ptr));
    CASE(execl(np, "x", (char *)NULL));
    CASE(execle("/nonexistent", "x", (char *)NULL, low_ptr));
    CASE(fexecve(bad_fd, argv, environ));
    CASE(fexecve(neg_fd, nargv, null_ptr));
    ECASE(posix_spawn(&pid, np, NULL, NULL, argv, environ));
    ECASE(posix_spawnp(null_ptr, "/nonexistent", NULL, NULL, argv, null_ptr));
    CASE(waitpid(-1, low_ptr, WNOHANG));
    CASE(wait4(-1, low_ptr, WNOHANG, low_ptr));
    CASE(wait(low_ptr));
    CASE(prctl(PR_SET_NAME, null_ptr));
    CASE(prctl(PR_SET_NAME, low_ptr));
    CASE(prctl(PR_GET_NAME, low_ptr));
    CASE(prctl(12345, 0, 0, 0, 0));
    CASE(prctl(PR_SET_SECCOMP, 12345, low_ptr));
    CASE(prctl(PR_SET_SECCOMP, 2, null_ptr));
    CASE(prctl(PR_SET_TSC, 12345));
    CASE(syscall(SYS_seccomp, 1, 0, null_ptr));
    CASE(syscall(SYS_read, neg_fd, low_ptr, 10));
    CASE(syscall(SYS_write, bad_fd, null_ptr, 10));
    CASE(syscall(SYS_readv, 0, low_ptr, 1));
    CASE(syscall(SYS_writev, 1, null_ptr, 4));
    CASE(syscall(SYS_pread64, bad_fd, low_ptr, 10, 0));
    CASE(syscall(SYS_open, np, O_RDONLY));
    CASE(syscall(SYS_openat, AT_FDCWD, lp, O_RDONLY));
    CASE(syscall(SYS_close, bad_fd));
    CASE(syscall(SYS_io_submit, 0, 1, low_ptr));
    CASE(syscall(SYS_io_uring_enter, bad_fd, 0, 0, 0, null_ptr, 0));
}

int main(int argc, char **argv)
{
    if (argc < 2 || chdir(argv[1]) != 0)
        return 2;
    fd_calls();
    meta_calls();
    stdio_calls();
    proc_calls();
    fflush(stdout);
    return 0;
}
