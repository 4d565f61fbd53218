/*
 * wrap_meta.c - metadata calls: the stat family, access,
 * readlink, unlink, rmdir, rename, mkdir, link, symlink, the chmod,
 * chown and utimes families, truncate, sync, syncfs and sync_file_range,
 * and the time calls that have glibc look the time zone file up.
 * They move no data, but a program can spend its time in them: a search
 * path probed for every import, a stat before every open, the same file
 * stat'ed again and again (the metadata_storm rule's material).
 *
 * Each records its path the way open() does (absolute: a relative name is
 * joined to the cwd or to its dirfd's directory), or its fd when it works
 * on one (fstat, fchmod, fstatat(fd, "", AT_EMPTY_PATH), ...); rename,
 * link and symlink also record the second name (newpath). glibc's own
 * internal stat calls (opendir, fopen, the loader) never reach a wrapper:
 * they bind inside libc; the time zone file's is recorded from the calls
 * that make it (the end of this file).
 *
 * Stacks. A metadata call is cheap (a stat is ~1 us) and some programs make
 * hundreds of thousands, so a stack at every call (+~110 ns for the walk)
 * would cost the most exactly where the storms are. Instead each call site
 * (the return address into the program) gets a stack at its 1st, 2nd, 4th,
 * ... 64th call, then at every 64th (site.h): a storm from one site
 * always carries some, and the sampling is a probe of the call-site table. The syncs on an fd
 * (syncfs, sync_file_range) are sampled as fsync is: also at the first
 * call of each site in the fd's session.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "internal.h"
#include "real.h"
#include "rec.h"
#include "wrap.h"

/* ------------------------------------------------------------ recording */

/* What one metadata call names. */
struct meta {
    unsigned op;
    int dirfd;              /* what path is relative to */
    const char *path;       /* NULL: the call works on fd */
    int fd;                 /* -1: none */
    int raw_path;           /* symlink: path is the link's content, kept as given */
    int ndirfd;             /* rename, link, symlink: the second name */
    const char *newpath;
    uint32_t more;          /* IOT_HAS_FLAGS, IOT_HAS_SIZE, IOT_HAS_OFFSET */
    int64_t flags, size, offset;
};

/*
 * The second name is a chunk-local string id like the path: define it in
 * the chunk the call will go in, switching first when the strings and the
 * record might not all fit (rec_call_in would otherwise switch after it).
 */
static void put_newpath(struct rec_thread *t, struct iot_event *ev, const char *np,
                        const char *path, const char *stack, uint64_t s0)
{
    size_t need = strlen(np) + (path ? strlen(path) : 0) + (stack ? strlen(stack) : 0) + 256;

    if (t->enc.cap - t->enc.len < need)
        rec_chunk_switch(t, rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), s0));
    if (iot_enc_str(&t->enc, np, strlen(np), &ev->newpath_id) == 0)
        ev->has |= IOT_HAS_NEWPATH;
}

static void rec_meta(const struct meta *m, int64_t r, int err, const void *ra, uint64_t s0,
                     uint64_t s1)
{
    struct iot_event ev = rec_event(m->op, r, err);
    char buf[PATH_MAX + 64], nbuf[PATH_MAX + 64];
    /* Copies of paths the call may not have read (rare): rec_path_arg. */
    char copy[REC_PATH_COPY], ncopy[REC_PATH_COPY];
    const char *path = NULL, *newpath = NULL, *stack;
    struct rec_thread *t;

    if (rec_guard == REC_GUARD_OFF)
        return;
    ev.has |= m->more;
    ev.flags = m->flags;
    ev.size = m->size;
    ev.offset = m->offset;
    if (m->fd >= 0) {
        ev.has |= IOT_HAS_FD;
        ev.fd = m->fd;
    }
    if (m->path) {
        path = rec_path_arg(m->path, err, copy, sizeof(copy));
        if (!m->raw_path)
            path = path_from_dirfd(m->dirfd, path, buf, sizeof(buf));
    }
    if (m->newpath)
        newpath = path_from_dirfd(m->ndirfd, rec_path_arg(m->newpath, err, ncopy, sizeof(ncopy)),
                                  nbuf, sizeof(nbuf));
    t = rec_enter(s0);
    if (!t) {
        if (rec_deferring())
            rec_defer(&ev, path, NULL, s0, s1);   /* a handler's: no stack, no newpath */
        return;
    }
    if (m->fd >= 0 && rec_site_class(m->op) == REC_SITE_SYNC)
        stack = rec_site_due(m->fd, REC_SITE_SYNC, ra) ? rec_stack_capture() : NULL;
    else
        stack = rec_site_sampled((uintptr_t)ra) ? rec_stack_capture() : NULL;
    if (newpath)
        put_newpath(t, &ev, newpath, path, stack, s0);
    rec_call_in(t, &ev, path, NULL, stack, s0, s1);
    rec_leave();
}

/*
 * A wrapper: the real call between two stamps, then the record built from
 * the struct meta initializer that follows the arguments.
 */
#define WRAP_META(rtype, name, params, args, ...)                              \
    REAL_HERE(rtype, name, params);                                            \
    rtype name params                                                          \
    {                                                                          \
        int call_err = EFAULT;                                                 \
        WRAP_BODY_FD(rtype, -1, ((struct meta){ __VA_ARGS__ }).fd, name,      \
                  (call_err = ERR_OF(r),                                       \
                   rec_meta(&(struct meta){ __VA_ARGS__ }, (int64_t)r,         \
                            call_err, __builtin_return_address(0), s0, s1)),   \
                  UNPAREN args);                                               \
    }
#define UNPAREN(...) __VA_ARGS__

/* Shorthands for the struct meta of the common shapes. */
#define M_PATH(o, p)        .op = (o), .dirfd = AT_FDCWD, .path = (p), .fd = -1
#define M_AT(o, d, p)       .op = (o), .dirfd = (d), .path = (p), .fd = -1
#define M_FD(o, f)          .op = (o), .fd = (f)
#define M_FLAGS(x)          .more = IOT_HAS_FLAGS, .flags = (int64_t)(x)

/*
 * fstatat(fd, "", ..., AT_EMPTY_PATH) and utimensat(fd, NULL, ...) work on
 * fd: recorded as fstat and futimens are. The empty path is looked at only
 * when the kernel read it (err: the call's errno).
 */
static int on_fd(const char *path, int flags, int err)
{
    return !path ||
           ((flags & AT_EMPTY_PATH) && rec_path_readable(path, err) && path[0] == '\0');
}

/*
 * call_err is the call's errno once it has returned (0: it succeeded), and
 * EFAULT before: the struct is also built before the call, for the fd the
 * call works on, and then an empty path, which cannot be read yet, is not
 * looked at (only a NULL one makes it a call on d).
 */
#define M_ATFD(o, d, p, fl)                                                    \
    .op = (o), .dirfd = (d), .path = on_fd(p, fl, call_err) ? NULL : (p),      \
    .fd = on_fd(p, fl, call_err) ? (d) : -1

/* ------------------------------------------------------------ stat family */

/*
 * glibc 2.33+ exports stat, lstat, fstat, fstatat (and their 64 forms, the
 * same code) directly; binaries built against older glibc call the
 * versioned __xstat, __lxstat, __fxstat, __fxstatat instead. Both are here.
 */
WRAP_META(int, stat, (const char *p, struct stat *b), (p, b), M_PATH(IOT_OP_STAT, p), M_FLAGS(0))
WRAP_META(int, stat64, (const char *p, struct stat64 *b), (p, b), M_PATH(IOT_OP_STAT, p),
          M_FLAGS(0))
WRAP_META(int, lstat, (const char *p, struct stat *b), (p, b), M_PATH(IOT_OP_STAT, p),
          M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, lstat64, (const char *p, struct stat64 *b), (p, b), M_PATH(IOT_OP_STAT, p),
          M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, fstat, (int fd, struct stat *b), (fd, b), M_FD(IOT_OP_STAT, fd), M_FLAGS(0))
WRAP_META(int, fstat64, (int fd, struct stat64 *b), (fd, b), M_FD(IOT_OP_STAT, fd), M_FLAGS(0))
WRAP_META(int, fstatat, (int d, const char *p, struct stat *b, int fl), (d, p, b, fl),
          M_ATFD(IOT_OP_STAT, d, p, fl), M_FLAGS(fl))
WRAP_META(int, fstatat64, (int d, const char *p, struct stat64 *b, int fl), (d, p, b, fl),
          M_ATFD(IOT_OP_STAT, d, p, fl), M_FLAGS(fl))
WRAP_META(int, statx, (int d, const char *p, int fl, unsigned mask, struct statx *b),
          (d, p, fl, mask, b), M_ATFD(IOT_OP_STAT, d, p, fl), M_FLAGS(fl))
WRAP_META(int, __xstat, (int v, const char *p, struct stat *b), (v, p, b),
          M_PATH(IOT_OP_STAT, p), M_FLAGS(0))
WRAP_META(int, __xstat64, (int v, const char *p, struct stat64 *b), (v, p, b),
          M_PATH(IOT_OP_STAT, p), M_FLAGS(0))
WRAP_META(int, __lxstat, (int v, const char *p, struct stat *b), (v, p, b),
          M_PATH(IOT_OP_STAT, p), M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, __lxstat64, (int v, const char *p, struct stat64 *b), (v, p, b),
          M_PATH(IOT_OP_STAT, p), M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, __fxstat, (int v, int fd, struct stat *b), (v, fd, b), M_FD(IOT_OP_STAT, fd),
          M_FLAGS(0))
WRAP_META(int, __fxstat64, (int v, int fd, struct stat64 *b), (v, fd, b),
          M_FD(IOT_OP_STAT, fd), M_FLAGS(0))
WRAP_META(int, __fxstatat, (int v, int d, const char *p, struct stat *b, int fl),
          (v, d, p, b, fl), M_ATFD(IOT_OP_STAT, d, p, fl), M_FLAGS(fl))
WRAP_META(int, __fxstatat64, (int v, int d, const char *p, struct stat64 *b, int fl),
          (v, d, p, b, fl), M_ATFD(IOT_OP_STAT, d, p, fl), M_FLAGS(fl))

/* ----------------------------------------------------------------- access */

/* flags: the access mode asked (R_OK, W_OK, X_OK; F_OK is 0) */
WRAP_META(int, access, (const char *p, int mode), (p, mode), M_PATH(IOT_OP_ACCESS, p),
          M_FLAGS(mode))
WRAP_META(int, faccessat, (int d, const char *p, int mode, int fl), (d, p, mode, fl),
          M_ATFD(IOT_OP_ACCESS, d, p, fl), M_FLAGS(mode))
WRAP_META(int, euidaccess, (const char *p, int mode), (p, mode), M_PATH(IOT_OP_ACCESS, p),
          M_FLAGS(mode))
WRAP_META(int, eaccess, (const char *p, int mode), (p, mode), M_PATH(IOT_OP_ACCESS, p),
          M_FLAGS(mode))

/* --------------------------------------------------------------- readlink */

/* size: the buffer; ret: the bytes of the target */
WRAP_META(ssize_t, readlink, (const char *p, char *b, size_t n), (p, b, n),
          M_PATH(IOT_OP_READLINK, p), .more = IOT_HAS_SIZE, .size = (int64_t)n)
WRAP_META(ssize_t, readlinkat, (int d, const char *p, char *b, size_t n), (d, p, b, n),
          M_ATFD(IOT_OP_READLINK, d, p, AT_EMPTY_PATH), .more = IOT_HAS_SIZE,
          .size = (int64_t)n)

/* ------------------------------------------------- names made and removed */

WRAP_META(int, unlink, (const char *p), (p), M_PATH(IOT_OP_UNLINK, p))
/* unlinkat(..., AT_REMOVEDIR) is an rmdir */
WRAP_META(int, unlinkat, (int d, const char *p, int fl), (d, p, fl),
          M_AT((fl & AT_REMOVEDIR) ? IOT_OP_RMDIR : IOT_OP_UNLINK, d, p))
WRAP_META(int, rmdir, (const char *p), (p), M_PATH(IOT_OP_RMDIR, p))
WRAP_META(int, mkdir, (const char *p, mode_t mode), (p, mode), M_PATH(IOT_OP_MKDIR, p),
          M_FLAGS(mode))
WRAP_META(int, mkdirat, (int d, const char *p, mode_t mode), (d, p, mode),
          M_AT(IOT_OP_MKDIR, d, p), M_FLAGS(mode))

/* rename and link: path the old name, newpath the new one */
WRAP_META(int, rename, (const char *o, const char *n), (o, n), M_PATH(IOT_OP_RENAME, o),
          .ndirfd = AT_FDCWD, .newpath = n, M_FLAGS(0))
WRAP_META(int, renameat, (int od, const char *o, int nd, const char *n), (od, o, nd, n),
          M_AT(IOT_OP_RENAME, od, o), .ndirfd = nd, .newpath = n, M_FLAGS(0))
WRAP_META(int, renameat2, (int od, const char *o, int nd, const char *n, unsigned fl),
          (od, o, nd, n, fl), M_AT(IOT_OP_RENAME, od, o), .ndirfd = nd, .newpath = n,
          M_FLAGS(fl))
WRAP_META(int, link, (const char *o, const char *n), (o, n), M_PATH(IOT_OP_LINK, o),
          .ndirfd = AT_FDCWD, .newpath = n)
WRAP_META(int, linkat, (int od, const char *o, int nd, const char *n, int fl),
          (od, o, nd, n, fl), M_AT(IOT_OP_LINK, od, o), .ndirfd = nd, .newpath = n)
/* symlink: path is the target as given (the link's content), newpath the link */
WRAP_META(int, symlink, (const char *target, const char *n), (target, n),
          M_PATH(IOT_OP_SYMLINK, target), .raw_path = 1, .ndirfd = AT_FDCWD, .newpath = n)
WRAP_META(int, symlinkat, (const char *target, int nd, const char *n), (target, nd, n),
          M_PATH(IOT_OP_SYMLINK, target), .raw_path = 1, .ndirfd = nd, .newpath = n)

/* ------------------------------------------------- permissions and times */

/* flags: the permission bits (chmod), the AT_* flags (chown, utimes) */
WRAP_META(int, chmod, (const char *p, mode_t mode), (p, mode), M_PATH(IOT_OP_CHMOD, p),
          M_FLAGS(mode))
WRAP_META(int, fchmod, (int fd, mode_t mode), (fd, mode), M_FD(IOT_OP_CHMOD, fd),
          M_FLAGS(mode))
WRAP_META(int, fchmodat, (int d, const char *p, mode_t mode, int fl), (d, p, mode, fl),
          M_AT(IOT_OP_CHMOD, d, p), M_FLAGS(mode))
WRAP_META(int, chown, (const char *p, uid_t u, gid_t g), (p, u, g), M_PATH(IOT_OP_CHOWN, p),
          M_FLAGS(0))
WRAP_META(int, lchown, (const char *p, uid_t u, gid_t g), (p, u, g), M_PATH(IOT_OP_CHOWN, p),
          M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g), M_FD(IOT_OP_CHOWN, fd),
          M_FLAGS(0))
WRAP_META(int, fchownat, (int d, const char *p, uid_t u, gid_t g, int fl), (d, p, u, g, fl),
          M_ATFD(IOT_OP_CHOWN, d, p, fl), M_FLAGS(fl))
WRAP_META(int, utimensat, (int d, const char *p, const struct timespec ts[2], int fl),
          (d, p, ts, fl), M_ATFD(IOT_OP_UTIMES, d, p, fl), M_FLAGS(fl))
WRAP_META(int, futimens, (int fd, const struct timespec ts[2]), (fd, ts),
          M_FD(IOT_OP_UTIMES, fd), M_FLAGS(0))
WRAP_META(int, utimes, (const char *p, const struct timeval tv[2]), (p, tv),
          M_PATH(IOT_OP_UTIMES, p), M_FLAGS(0))
WRAP_META(int, lutimes, (const char *p, const struct timeval tv[2]), (p, tv),
          M_PATH(IOT_OP_UTIMES, p), M_FLAGS(AT_SYMLINK_NOFOLLOW))
WRAP_META(int, futimes, (int fd, const struct timeval tv[2]), (fd, tv),
          M_FD(IOT_OP_UTIMES, fd), M_FLAGS(0))
WRAP_META(int, utime, (const char *p, const struct utimbuf *tb), (p, tb),
          M_PATH(IOT_OP_UTIMES, p), M_FLAGS(0))

/* ------------------------------------------------------ truncate and sync */

WRAP_META(int, truncate, (const char *p, off_t len), (p, len), M_PATH(IOT_OP_TRUNCATE, p),
          .more = IOT_HAS_SIZE, .size = (int64_t)len)
WRAP_META(int, truncate64, (const char *p, off64_t len), (p, len),
          M_PATH(IOT_OP_TRUNCATE, p), .more = IOT_HAS_SIZE, .size = (int64_t)len)
WRAP_META(int, syncfs, (int fd), (fd), M_FD(IOT_OP_SYNC, fd))
WRAP_META(int, sync_file_range, (int fd, off64_t off, off64_t n, unsigned fl),
          (fd, off, n, fl), M_FD(IOT_OP_SYNC_FILE_RANGE, fd),
          .more = IOT_HAS_OFFSET | IOT_HAS_SIZE, .offset = (int64_t)off, .size = (int64_t)n)

/* sync() returns nothing and cannot fail: ret 0, no fd */
REAL_HERE(void, sync, (void));

void sync(void)
{
    uint64_t s0, s1;

    if (!rec_active) {
        if (REAL(sync))
            real_sync();
        return;
    }
    s0 = rec_stamp();
    if (REAL(sync))
        real_sync();
    s1 = rec_stamp();
    rec_meta(&(struct meta){ M_FD(IOT_OP_SYNC, -1) }, 0, 0, __builtin_return_address(0), s0,
             s1);
}

/* ------------------------------------------------------ the time zone file */

/*
 * While TZ is unset, glibc checks the time zone file again at every
 * tzset(), localtime(), mktime() (timelocal) and ctime(): a stat of
 * /etc/localtime (its TZDEFAULT) made inside libc, which no wrapper sees.
 * A program that converts times often makes thousands (BEAM calls tzset
 * for every local time it gives, and a file's info is in local time by
 * default). With TZ set, glibc reads the file once for each value TZ takes.
 *
 * Each such call is recorded as that lookup (op tzset), timed as the whole
 * call, when glibc has read the file before, which is when it stats it:
 * tzname[0] then points neither at glibc's initial name (kept at start)
 * nor at the empty one it sets when the file could not be read. Before a
 * first read the call opens and reads the file instead, and after a failed
 * one it tries to open it again; neither is recorded, as none of libc's
 * own opens are. localtime_r and the others that take no new look at TZ
 * check nothing after the first read, and are not wrapped.
 */
#define TZ_DEFAULT_FILE "/etc/localtime"

static const char *tz_initial_name;

void rec_tz_init(void)
{
    tz_initial_name = tzname[0];
}

/* Whether the time zone call about to be made has glibc stat the file. */
static int tz_checks_file(void)
{
    const char *name = tzname[0];

    return getenv("TZ") == NULL && name && name != tz_initial_name && name[0] != '\0';
}

static void tz_record(const void *ra, uint64_t s0, uint64_t s1)
{
    rec_meta(&(struct meta){ M_PATH(IOT_OP_TZSET, TZ_DEFAULT_FILE) }, 0, 0, ra, s0, s1);
}

/* The real call between two stamps (WRAP_BODY); the lookup recorded when
   glibc was to make it, which is known only before the call. */
#define WRAP_TZ(rtype, fail, name, params, ...)                                \
    REAL_HERE(rtype, name, params);                                            \
    rtype name params                                                          \
    {                                                                          \
        int checks = rec_active && tz_checks_file();                           \
        WRAP_BODY(rtype, fail, name,                                           \
                  if (checks) tz_record(__builtin_return_address(0), s0, s1),  \
                  __VA_ARGS__);                                                \
    }

WRAP_TZ(struct tm *, NULL, localtime, (const time_t *t), t)
WRAP_TZ(time_t, (time_t)-1, mktime, (struct tm *tm), tm)
WRAP_TZ(time_t, (time_t)-1, timelocal, (struct tm *tm), tm)
WRAP_TZ(char *, NULL, ctime, (const time_t *t), t)

REAL_HERE(void, tzset, (void));

void tzset(void)
{
    uint64_t s0, s1;
    int checks;

    if (!rec_active) {
        if (REAL(tzset))
            real_tzset();
        return;
    }
    checks = tz_checks_file();
    s0 = rec_stamp();
    if (REAL(tzset))
        real_tzset();
    s1 = rec_stamp();
    if (checks)
        tz_record(__builtin_return_address(0), s0, s1);
}
