/*
 * wrap_posix.c - the fd-level wrappers: open, read, write and their kin,
 * seeks, closes, syncs, dups, copies and maps.
 *
 * Every wrapper has the same shape: stamp, call the real function, stamp,
 * record (which saves nothing: errno is read before recording and the
 * recorder never changes it), return the real result untouched.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

/* read(2)-shaped calls: fd, count, return; sysno is CALL_DATA's nr. */
#define WRAP_IO(rtype, name, op, sysno, params, fd, size, ...)                 \
    rtype name params                                                          \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        rtype r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL_FD(-1, fd, name, __VA_ARGS__);                    \
        int own = rec_fd_check(fd);                                            \
        s0 = rec_stamp();                                                      \
        r = CALL_DATA(own, sysno, name, __VA_ARGS__);                          \
        s1 = rec_stamp();                                                      \
        rec_data_at(op, fd, 0, (int64_t)(size), r, ERR_OF(r), s0, s1,          \
                    __builtin_return_address(0));                              \
        return r;                                                              \
    }

WRAP_IO(ssize_t, read, IOT_OP_READ, SYS_read, (int fd, void *buf, size_t n), fd, n,
        fd, buf, n)
WRAP_IO(ssize_t, __read_chk, IOT_OP_READ, REC_VIA_LIBC,
        (int fd, void *buf, size_t n, size_t buflen), fd, n, fd, buf, n, buflen)
WRAP_IO(ssize_t, write, IOT_OP_WRITE, SYS_write, (int fd, const void *buf, size_t n), fd,
        n, fd, buf, n)

/* ------------------------------------------------- calls with an offset */

/* wrap.h: the bytes of an iovec array the call read. */
int64_t iov_sum(const struct iovec *iov, int n, int64_t r, int err)
{
    int64_t s = 0;

    if (!iov_read(r, err) || !rec_ptr_plausible(iov) || n <= 0 || n > 1024)
        return 0;
    for (int i = 0; i < n; i++)
        s += (int64_t)iov[i].iov_len;
    return s;
}

/* wrap.h: a call on fd with a size (and an offset: more). */
void rec_fd_call(unsigned op, int fd, int64_t size, int64_t ret, int err, uint32_t more,
                 int64_t offset, const void *ra, uint64_t s0, uint64_t s1)
{
    /* Not zeroed: only what `has` names is read (see rec_stdio). */
    struct iot_event ev;

    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_FD | IOT_HAS_SIZE | more | (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.size = size;
    ev.ret = ret;
    ev.err = err;
    ev.offset = offset;
    if (ra && rec_site_due(fd, rec_site_class(op), ra))
        rec_call_stacked(&ev, s0, s1);
    else
        rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

#define WRAP_OFF(rtype, name, op, sysno, params, fd, size, off, ...)           \
    rtype name params                                                          \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        rtype r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL_FD(-1, fd, name, __VA_ARGS__);                    \
        int own = rec_fd_check(fd);                                            \
        s0 = rec_stamp();                                                      \
        r = CALL_DATA(own, sysno, name, __VA_ARGS__);                          \
        s1 = rec_stamp();                                                      \
        rec_fd_call(op, fd, (int64_t)(size), r, ERR_OF(r), IOT_HAS_OFFSET,     \
                    (int64_t)(off), __builtin_return_address(0), s0, s1);      \
        return r;                                                              \
    }

WRAP_OFF(ssize_t, pread, IOT_OP_PREAD, SYS_pread64,
         (int fd, void *buf, size_t n, off_t off), fd, n, off, fd, buf, n, off)
WRAP_OFF(ssize_t, pread64, IOT_OP_PREAD, SYS_pread64,
         (int fd, void *buf, size_t n, off64_t off), fd, n, off,
         fd, buf, n, off)
WRAP_OFF(ssize_t, __pread_chk, IOT_OP_PREAD, REC_VIA_LIBC,
         (int fd, void *buf, size_t n, off_t off, size_t bl), fd, n, off,
         fd, buf, n, off, bl)
WRAP_OFF(ssize_t, __pread64_chk, IOT_OP_PREAD, REC_VIA_LIBC,
         (int fd, void *buf, size_t n, off64_t off, size_t bl), fd, n, off,
         fd, buf, n, off, bl)
WRAP_OFF(ssize_t, pwrite, IOT_OP_PWRITE, SYS_pwrite64,
         (int fd, const void *buf, size_t n, off_t off), fd, n, off,
         fd, buf, n, off)
WRAP_OFF(ssize_t, pwrite64, IOT_OP_PWRITE, SYS_pwrite64,
         (int fd, const void *buf, size_t n, off64_t off), fd, n, off,
         fd, buf, n, off)
WRAP_OFF(ssize_t, preadv, IOT_OP_PREADV, REC_VIA_LIBC,
         (int fd, const struct iovec *iov, int c, off_t off), fd,
         iov_sum(iov, c, r, ERR_OF(r)), off, fd, iov, c, off)
WRAP_OFF(ssize_t, preadv64, IOT_OP_PREADV, REC_VIA_LIBC,
         (int fd, const struct iovec *iov, int c, off64_t off), fd,
         iov_sum(iov, c, r, ERR_OF(r)), off, fd, iov, c, off)
WRAP_OFF(ssize_t, pwritev, IOT_OP_PWRITEV, REC_VIA_LIBC,
         (int fd, const struct iovec *iov, int c, off_t off), fd,
         iov_sum(iov, c, r, ERR_OF(r)), off, fd, iov, c, off)
WRAP_OFF(ssize_t, pwritev64, IOT_OP_PWRITEV, REC_VIA_LIBC,
         (int fd, const struct iovec *iov, int c, off64_t off), fd,
         iov_sum(iov, c, r, ERR_OF(r)), off, fd, iov, c, off)

WRAP_IO(ssize_t, readv, IOT_OP_READV, REC_VIA_LIBC,
        (int fd, const struct iovec *iov, int c), fd, iov_sum(iov, c, r, ERR_OF(r)),
        fd, iov, c)
WRAP_IO(ssize_t, writev, IOT_OP_WRITEV, REC_VIA_LIBC,
        (int fd, const struct iovec *iov, int c), fd, iov_sum(iov, c, r, ERR_OF(r)),
        fd, iov, c)

/* The v2 calls use the file position when the offset is -1. */
#define WRAP_V2(rtype, name, op_pos, op_off, params, ...)                      \
    rtype name params                                                          \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        rtype r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL_FD(-1, fd, name, __VA_ARGS__);                    \
        int own = rec_fd_check(fd);                                            \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL_OWN(own, -1, name, __VA_ARGS__);                         \
        s1 = rec_stamp();                                                      \
        if (off == -1)                                                         \
            rec_data_at(op_pos, fd, 0, iov_sum(iov, c, r, ERR_OF(r)), r,       \
                        ERR_OF(r), s0, s1, __builtin_return_address(0));       \
        else                                                                   \
            rec_fd_call(op_off, fd, iov_sum(iov, c, r, ERR_OF(r)), r, ERR_OF(r),             \
                        IOT_HAS_OFFSET, (int64_t)off, __builtin_return_address(0), \
                        s0, s1);                                               \
        return r;                                                              \
    }

WRAP_V2(ssize_t, preadv2, IOT_OP_READV, IOT_OP_PREADV,
        (int fd, const struct iovec *iov, int c, off_t off, int fl),
        fd, iov, c, off, fl)
WRAP_V2(ssize_t, preadv64v2, IOT_OP_READV, IOT_OP_PREADV,
        (int fd, const struct iovec *iov, int c, off64_t off, int fl),
        fd, iov, c, off, fl)
WRAP_V2(ssize_t, pwritev2, IOT_OP_WRITEV, IOT_OP_PWRITEV,
        (int fd, const struct iovec *iov, int c, off_t off, int fl),
        fd, iov, c, off, fl)
WRAP_V2(ssize_t, pwritev64v2, IOT_OP_WRITEV, IOT_OP_PWRITEV,
        (int fd, const struct iovec *iov, int c, off64_t off, int fl),
        fd, iov, c, off, fl)

/* ----------------------------------------------------------------- open */

/* wrap.h: an open-like call (open, opendir) that made fd r, or failed. */
void rec_open_as(unsigned op, int dirfd, const char *path, int flags, int r, int err,
                 uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    char buf[PATH_MAX + 64], copy[REC_PATH_COPY];
    struct rec_thread *t;
    const char *stack, *abs;

    if (rec_guard == REC_GUARD_OFF)
        return;
    rec_fd_mark(r);
    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_FLAGS | (r >= 0 ? IOT_HAS_FD : 0) |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = r;
    ev.flags = flags;
    ev.ret = r;
    ev.err = err;
    path = rec_path_arg(path, err, copy, sizeof(copy));
    abs = path_from_dirfd(dirfd, path, buf, sizeof(buf));
    t = rec_enter(s0);
    if (!t) {
        if (rec_deferring())
            rec_defer(&ev, abs, NULL, s0, s1);   /* no stack in a handler */
        return;
    }
    stack = rec_stacks ? rec_stack_capture() : NULL;
    rec_call_in(t, &ev, abs, NULL, stack, s0, s1);
    rec_leave();
}

static inline void rec_open(int dirfd, const char *path, int flags, int r, int err,
                            uint64_t s0, uint64_t s1)
{
    rec_open_as(IOT_OP_OPEN, dirfd, path, flags, r, err, s0, s1);
}

static mode_t mode_arg(int flags, va_list ap)
{
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
        return (mode_t)va_arg(ap, int);
    return 0;
}

#define WRAP_OPEN(name, extra)                                                 \
    int name(const char *path, int flags, ...)                                 \
    {                                                                          \
        va_list ap;                                                            \
        mode_t mode;                                                           \
        va_start(ap, flags);                                                   \
        mode = mode_arg(flags, ap);                                            \
        va_end(ap);                                                            \
        WRAP_BODY_NEWFD(int, -1, name,                                         \
                  rec_open(AT_FDCWD, path, flags | (extra), r, ERR_OF(r), s0,  \
                           s1),                                                \
                  path, flags | (extra), mode);                                \
    }

#define WRAP_OPENAT(name)                                                      \
    int name(int dirfd, const char *path, int flags, ...)                      \
    {                                                                          \
        va_list ap;                                                            \
        mode_t mode;                                                           \
        va_start(ap, flags);                                                   \
        mode = mode_arg(flags, ap);                                            \
        va_end(ap);                                                            \
        WRAP_BODY_NEWFD(int, -1, name,                                         \
                  rec_open(dirfd, path, flags, r, ERR_OF(r), s0, s1),          \
                  dirfd, path, flags, mode);                                   \
    }

WRAP_OPEN(open, 0)
WRAP_OPEN(open64, 0)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

/* The fortified and creat forms take no mode or a fixed one. */
#define WRAP_OPEN_FIXED(name, params, dirfd, path, flags, ...)                 \
    int name params                                                            \
    {                                                                          \
        WRAP_BODY_NEWFD(int, -1, name,                                         \
                  rec_open(dirfd, path, flags, r, ERR_OF(r), s0, s1),          \
                  __VA_ARGS__);                                                \
    }

WRAP_OPEN_FIXED(__open_2, (const char *p, int fl), AT_FDCWD, p, fl, p, fl)
WRAP_OPEN_FIXED(__open64_2, (const char *p, int fl), AT_FDCWD, p, fl, p, fl)
WRAP_OPEN_FIXED(__openat_2, (int d, const char *p, int fl), d, p, fl, d, p, fl)
WRAP_OPEN_FIXED(__openat64_2, (int d, const char *p, int fl), d, p, fl,
                d, p, fl)
WRAP_OPEN_FIXED(creat, (const char *p, mode_t m), AT_FDCWD, p,
                O_CREAT | O_WRONLY | O_TRUNC, p, m)
WRAP_OPEN_FIXED(creat64, (const char *p, mode_t m), AT_FDCWD, p,
                O_CREAT | O_WRONLY | O_TRUNC, p, m)

/* ---------------------------------------------------------------- seeks */

#define WRAP_SEEK(rtype, name, otype)                                          \
    rtype name(int fd, otype off, int whence)                                  \
    {                                                                          \
        struct iot_event ev = { 0 };                                           \
        uint64_t s0, s1;                                                       \
        rtype r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL_FD(-1, fd, name, fd, off, whence);                \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL_FD(-1, fd, name, fd, off, whence);                       \
        s1 = rec_stamp();                                                      \
        ev.op = IOT_OP_LSEEK;                                                  \
        ev.err = ERR_OF(r);                                                    \
        ev.has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE |                \
                 (ev.err ? IOT_HAS_ERRNO : 0);                                 \
        ev.fd = fd;                                                            \
        ev.offset = (int64_t)off;                                              \
        ev.whence = whence;                                                    \
        ev.ret = (int64_t)r;                                                   \
        rec_call(&ev, NULL, NULL, NULL, s0, s1);                               \
        return r;                                                              \
    }

WRAP_SEEK(off_t, lseek, off_t)
WRAP_SEEK(off64_t, lseek64, off64_t)

/* ---------------------------------------------------- sync and truncate */

/* ra: the call's return address (NULL: ftruncate, whose site is not followed) */
static void rec_simple(unsigned op, int fd, uint32_t more, int64_t size,
                       int64_t ret, int err, const void *ra, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(op, ret, err);

    ev.has |= IOT_HAS_FD | more;
    ev.fd = fd;
    ev.size = size;
    if (ra && rec_site_due(fd, REC_SITE_SYNC, ra))
        rec_call_stacked(&ev, s0, s1);     /* a sync: its own call site */
    else
        rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

#define WRAP_SYNC(name, op)                                                    \
    int name(int fd)                                                           \
    {                                                                          \
        WRAP_BODY_FD(int, -1, fd, name,                                        \
                  rec_simple(op, fd, 0, 0, r, ERR_OF(r),                       \
                             __builtin_return_address(0), s0, s1), fd);        \
    }

WRAP_SYNC(fsync, IOT_OP_FSYNC)
WRAP_SYNC(fdatasync, IOT_OP_FDATASYNC)

#define WRAP_TRUNC(name, otype)                                                \
    int name(int fd, otype len)                                                \
    {                                                                          \
        if (rec_active)                                                        \
            rec_fd_check(fd);  /* the size it sets is worth its close's fstat */\
        WRAP_BODY_FD(int, -1, fd, name,                                        \
                  rec_simple(IOT_OP_FTRUNCATE, fd, IOT_HAS_SIZE, (int64_t)len, \
                             r, ERR_OF(r), NULL, s0, s1),                      \
                  fd, len);                                                    \
    }

WRAP_TRUNC(ftruncate, off_t)
WRAP_TRUNC(ftruncate64, off64_t)

/*
 * A range of a file: allocated (fallocate, posix_fallocate) or advised
 * (posix_fadvise). The posix_ ones return an error number and leave errno
 * alone; they are recorded as ret -1 with that errno, like the others.
 */
static void rec_range(unsigned op, int fd, int64_t off, int64_t len, int err, uint64_t s0,
                      uint64_t s1)
{
    struct iot_event ev = rec_event(op, err ? -1 : 0, err);

    ev.has |= IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_SIZE;
    ev.fd = fd;
    ev.offset = off;
    ev.size = len;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

#define WRAP_FALLOCATE(name, otype)                                            \
    REAL_HERE(int, name, (int, int, otype, otype));                            \
    int name(int fd, int mode, otype off, otype len)                           \
    {                                                                          \
        if (rec_active)                                                        \
            rec_fd_check(fd);                                                  \
        WRAP_BODY_FD(int, -1, fd, name,                                        \
                  rec_range(IOT_OP_FALLOCATE, fd, (int64_t)off, (int64_t)len,  \
                            ERR_OF(r), s0, s1),                                \
                  fd, mode, off, len);                                         \
    }

WRAP_FALLOCATE(fallocate, off_t)
WRAP_FALLOCATE(fallocate64, off64_t)

/* The error-number-returning ones: a libc without them gives ENOSYS too. */
#define WRAP_POSIX_ALLOC(name, otype)                                          \
    REAL_HERE(int, name, (int, otype, otype));                                 \
    int name(int fd, otype off, otype len)                                     \
    {                                                                          \
        if (rec_active)                                                        \
            rec_fd_check(fd);                                                  \
        WRAP_BODY(int, ENOSYS, name,                                           \
                  rec_range(IOT_OP_FALLOCATE, fd, (int64_t)off, (int64_t)len,  \
                            r, s0, s1),                                        \
                  fd, off, len);                                               \
    }

#define WRAP_FADVISE(name, otype)                                              \
    REAL_HERE(int, name, (int, otype, otype, int));                            \
    int name(int fd, otype off, otype len, int advice)                         \
    {                                                                          \
        WRAP_BODY(int, ENOSYS, name,                                           \
                  rec_range(IOT_OP_FADVISE, fd, (int64_t)off, (int64_t)len,    \
                            r, s0, s1),                                        \
                  fd, off, len, advice);                                       \
    }

WRAP_POSIX_ALLOC(posix_fallocate, off_t)
WRAP_POSIX_ALLOC(posix_fallocate64, off64_t)
WRAP_FADVISE(posix_fadvise, off_t)
WRAP_FADVISE(posix_fadvise64, off64_t)

/* ---------------------------------------------------------------- close */

/* st_size of a regular file, -1 otherwise. */
static int64_t fd_size(int fd)
{
    struct stat st;
    int saved = errno, bad;

    if (fd < 0)
        return -1;
    if (rec_filter_may_stand()) {
        rec_skipped(REC_SKIP_FILE_SIZE);   /* fstat is not the program's */
        return -1;
    }
    bad = syscall(SYS_fstat, fd, &st) != 0;
    errno = saved;   /* before the close: its errno only if it fails */
    if (bad || !S_ISREG(st.st_mode))
        return -1;
    return (int64_t)st.st_size;
}

int close(int fd)
{
    struct iot_event ev = { 0 };
    uint64_t s0, s1;
    int r;

    if (!rec_own_fd(fd) && (!rec_active || rec_guard == REC_GUARD_OFF))
        return CALL_REAL(-1, close, fd);
    if (rec_own_fd(fd)) {
        /* The program never opened our fd: to it, it is not open, and its
           close is recorded as that of any fd not open. */
        ev.file_size = -1;
        s0 = rec_stamp();
        errno = EBADF;
        r = -1;
    } else {
        ev.file_size = rec_fd_wants_size(fd) ? fd_size(fd) : -1;
        s0 = rec_stamp();
        r = CALL_REAL(-1, close, fd);
    }
    s1 = rec_stamp();
    rec_fd_unmark(fd);      /* even a failed close() releases the fd */
    ev.op = IOT_OP_CLOSE;
    ev.err = ERR_OF(r);
    ev.has = IOT_HAS_FD | (ev.file_size >= 0 ? IOT_HAS_FILE_SIZE : 0) |
             (ev.err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.ret = r;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
    return r;
}

/*
 * CLOSE_RANGE_CLOEXEC closes nothing: it marks the range close-on-exec,
 * recorded as O_CLOEXEC in flags (so exec can be modelled and the fds'
 * later calls still land on their files).
 */
static void rec_close_range(unsigned first, unsigned last, int flags, int r,
                            int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };

    ev.op = IOT_OP_CLOSE_RANGE;
    ev.has = IOT_HAS_FD | IOT_HAS_LAST_FD | (err ? IOT_HAS_ERRNO : 0);
    ev.fd = first > INT32_MAX ? INT32_MAX : (int32_t)first;
    ev.last_fd = last > INT32_MAX ? INT32_MAX : (int32_t)last;
    if (flags & CLOSE_RANGE_CLOEXEC) {
        ev.has |= IOT_HAS_FLAGS;
        ev.flags = O_CLOEXEC;
    } else if (r == 0) {
        for (unsigned fd = first; fd <= last && fd < REC_FD_SEEN; fd++)
            rec_fd_unmark((int)fd);
    }
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

int close_range(unsigned first, unsigned last, int flags)
{
    uint64_t s0 = rec_stamp(), s1;
    int r = rec_close_range_around(first, last, flags);

    s1 = rec_stamp();
    rec_close_range(first, last, flags, r, ERR_OF(r), s0, s1);
    return r;
}

void closefrom(int low)
{
    uint64_t s0 = rec_stamp(), s1;
    int saved = errno;

    if (low < 0)
        low = 0;
    rec_close_range_around((unsigned)low, ~0u, 0);
    s1 = rec_stamp();
    errno = saved;
    rec_close_range((unsigned)low, ~0u, 0, 0, 0, s0, s1);
}

/* ------------------------------------------------------------------ dup */

/* cloexec: the new fd is close-on-exec (dup3 O_CLOEXEC, F_DUPFD_CLOEXEC),
   recorded as O_CLOEXEC in flags so exec can be modelled */
static void rec_dup(int oldfd, int r, int err, int cloexec, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_DUP, r, err);

    if (r >= 0) {
        rec_fd_shared(oldfd);
        rec_fd_set(r, REC_FD_BUSY);
    }
    ev.has |= IOT_HAS_FD | (r >= 0 ? IOT_HAS_NEWFD : 0) |
              (cloexec ? IOT_HAS_FLAGS : 0);
    ev.flags = cloexec ? O_CLOEXEC : 0;
    ev.fd = oldfd;
    ev.newfd = r;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

int dup(int oldfd)
{
    uint64_t s0 = rec_stamp(), s1;
    int r;

    if (rec_own_fd(oldfd)) {
        errno = EBADF;
        r = -1;
    } else {
        CALL_REAL_NEWFD(r, -1, dup, oldfd);
    }
    s1 = rec_stamp();
    rec_dup(oldfd, r, ERR_OF(r), 0, s0, s1);
    return r;
}

/*
 * dup2 and dup3: the same but for dup3's flags (and dup3 refusing
 * oldfd == newfd), so each calls its own real function.
 */
static int dup_onto(int oldfd, int newfd, int flags, int three)
{
    uint64_t s0 = rec_stamp(), s1;
    int r;

    if (rec_own_fd(oldfd)) {
        errno = EBADF;
        r = -1;
    } else {
        /* The program wants this number: give way. Not in a vfork child
         * (guard set): it shares our memory but not our fd table. */
        if (rec_own_fd(newfd) && !rec_guard)
            rec_own_fd_move(newfd);
        r = three ? CALL_REAL(-1, dup3, oldfd, newfd, flags)
                  : CALL_REAL(-1, dup2, oldfd, newfd);
    }
    s1 = rec_stamp();
    rec_dup(oldfd, r, ERR_OF(r), (flags & O_CLOEXEC) != 0, s0, s1);
    return r;
}

int dup2(int oldfd, int newfd)
{
    return dup_onto(oldfd, newfd, 0, 0);
}

int dup3(int oldfd, int newfd, int flags)
{
    return dup_onto(oldfd, newfd, flags, 1);
}

/* fcntl(F_SETFD): whether the fd survives exec (shells mark their script fd).
   inline: without it gcc calls it out of line from both fcntl wrappers. */
static inline void rec_setfd(int fd, int fdflags, int r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_FCNTL, r, err);

    ev.has |= IOT_HAS_FD | IOT_HAS_FLAGS;
    ev.fd = fd;
    ev.flags = (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

/*
 * fcntl's third argument is an int or a pointer depending on cmd; like libc,
 * pass it on as a pointer-sized value.
 */
#define WRAP_FCNTL(name)                                                       \
    int name(int fd, int cmd, ...)                                             \
    {                                                                          \
        va_list ap;                                                            \
        void *arg;                                                             \
        uint64_t s0, s1;                                                       \
        int r;                                                                 \
        va_start(ap, cmd);                                                     \
        arg = va_arg(ap, void *);                                              \
        va_end(ap);                                                            \
        if (cmd == F_SETFD && rec_active && !rec_own_fd(fd)) {                 \
            s0 = rec_stamp();                                                  \
            r = CALL_REAL(-1, name, fd, cmd, arg);                             \
            s1 = rec_stamp();                                                  \
            rec_setfd(fd, (int)(intptr_t)arg, r, ERR_OF(r), s0, s1);           \
            return r;                                                          \
        }                                                                      \
        if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) {                        \
            if (rec_own_fd(fd)) {                                              \
                errno = EBADF;                                                 \
                return -1;                                                     \
            }                                                                  \
            return CALL_REAL(-1, name, fd, cmd, arg);                          \
        }                                                                      \
        s0 = rec_stamp();                                                      \
        if (rec_own_fd(fd)) {                                                  \
            errno = EBADF;                                                     \
            r = -1;                                                            \
        } else {                                                               \
            r = CALL_REAL(-1, name, fd, cmd, arg);                             \
        }                                                                      \
        s1 = rec_stamp();                                                      \
        rec_dup(fd, r, ERR_OF(r), cmd == F_DUPFD_CLOEXEC, s0, s1);             \
        return r;                                                              \
    }

WRAP_FCNTL(fcntl)
WRAP_FCNTL(fcntl64)

/* ------------------------------------------------------ copies and maps */

static void rec_copy(unsigned op, int out, int in, int64_t size,
                     const int64_t *off, int64_t r, int err,
                     uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };

    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_FD | IOT_HAS_IN_FD | IOT_HAS_SIZE |
             (off ? IOT_HAS_OFFSET : 0) | (err ? IOT_HAS_ERRNO : 0);
    ev.fd = out;
    ev.in_fd = in;
    ev.size = size;
    ev.offset = off ? *off : 0;
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

/*
 * The offset a copy started at: the kernel moved *off on by the bytes it
 * copied, and read and wrote it only when the call succeeded (or the
 * pointer could be bad: it is never read before the call).
 */
static const int64_t *start_offset(int64_t off_after, ssize_t r, int64_t *o)
{
    *o = off_after - (int64_t)r;
    return o;
}

#define WRAP_SENDFILE(name, otype)                                             \
    ssize_t name(int out, int in, otype *off, size_t n)                        \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int64_t o;                                                             \
        int own = rec_fd_check(out) | rec_fd_check(in);                        \
        s0 = rec_stamp();                                                      \
        ssize_t r = CALL_REAL_OWN(own, -1, name, out, in, off, n);             \
        s1 = rec_stamp();                                                      \
        rec_copy(IOT_OP_SENDFILE, out, in, (int64_t)n,                         \
                 off && r >= 0 ? start_offset((int64_t)*off, r, &o) : NULL, r, \
                 ERR_OF(r), s0, s1);                                           \
        return r;                                                              \
    }

WRAP_SENDFILE(sendfile, off_t)
WRAP_SENDFILE(sendfile64, off64_t)

#define WRAP_COPY(name, op)                                                    \
    ssize_t name(int in, off64_t *offin, int out, off64_t *offout, size_t n,   \
                 unsigned fl)                                                  \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int64_t o;                                                             \
        int own = rec_fd_check(out) | rec_fd_check(in);                        \
        s0 = rec_stamp();                                                      \
        ssize_t r = CALL_REAL_OWN(own, -1, name, in, offin, out, offout, n, fl); \
        s1 = rec_stamp();                                                      \
        rec_copy(op, out, in, (int64_t)n,                                      \
                 offin && r >= 0 ? start_offset((int64_t)*offin, r, &o) : NULL, \
                 r, ERR_OF(r), s0, s1);                                        \
        return r;                                                              \
    }

WRAP_COPY(copy_file_range, IOT_OP_COPY_FILE_RANGE)
WRAP_COPY(splice, IOT_OP_SPLICE)

#define WRAP_MMAP(name, otype)                                                 \
    void *name(void *addr, size_t len, int prot, int flags, int fd,            \
               otype off)                                                      \
    {                                                                          \
        struct iot_event ev = { 0 };                                           \
        uint64_t s0, s1;                                                       \
        void *r;                                                               \
        /* Anonymous maps are memory, not file I/O. */                         \
        if (!rec_active || fd < 0 || (flags & MAP_ANONYMOUS))                  \
            return CALL_REAL(MAP_FAILED, name, addr, len, prot, flags, fd,     \
                             off);                                             \
        int own = rec_fd_check(fd);                                            \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL_OWN(own, MAP_FAILED, name, addr, len, prot, flags, fd, off); \
        s1 = rec_stamp();                                                      \
        ev.op = IOT_OP_MMAP;                                                   \
        ev.err = r == MAP_FAILED ? errno : 0;                                  \
        ev.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_FLAGS |  \
                 (ev.err ? IOT_HAS_ERRNO : 0);                                 \
        ev.fd = fd;                                                            \
        ev.flags = ((prot & PROT_WRITE) ? IOT_MAP_WRITE : 0) |                 \
                   ((flags & MAP_TYPE) == MAP_SHARED ||                        \
                    (flags & MAP_TYPE) == MAP_SHARED_VALIDATE ? IOT_MAP_SHARED : 0); \
        ev.size = (int64_t)len;                                                \
        ev.offset = (int64_t)off;                                              \
        ev.ret = r == MAP_FAILED ? -1 : (int64_t)(intptr_t)r;                  \
        rec_call(&ev, NULL, NULL, NULL, s0, s1);                               \
        return r;                                                              \
    }

WRAP_MMAP(mmap, off_t)
WRAP_MMAP(mmap64, off64_t)

static void rec_mem(unsigned op, void *addr, size_t len, int r, int err,
                    uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };

    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_SIZE | IOT_HAS_OFFSET | (err ? IOT_HAS_ERRNO : 0);
    ev.size = (int64_t)len;
    ev.offset = (int64_t)(intptr_t)addr;  /* the mapping's address */
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

int munmap(void *addr, size_t len)
{
    uint64_t s0 = rec_stamp(), s1;
    int r = CALL_REAL(-1, munmap, addr, len);

    s1 = rec_stamp();
    rec_mem(IOT_OP_MUNMAP, addr, len, r, ERR_OF(r), s0, s1);
    return r;
}

int msync(void *addr, size_t len, int flags)
{
    uint64_t s0 = rec_stamp(), s1;
    int r = CALL_REAL(-1, msync, addr, len, flags);

    s1 = rec_stamp();
    rec_mem(IOT_OP_MSYNC, addr, len, r, ERR_OF(r), s0, s1);
    return r;
}
