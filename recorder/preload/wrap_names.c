/*
 * wrap_names.c - every descriptor has a name: the calls that make an
 * fd without an open() (the mkstemp family, memfd_create,
 * open_by_handle_at, posix_openpt, dirfd, and the fds that are not files:
 * eventfd, timerfd, signalfd, inotify, epoll), and the safety net for the
 * rest: the first data call on an fd the recorder never saw made records
 * the fd's /proc/self/fd target once (wrap.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

uint8_t rec_fd_state[REC_FD_SEEN];

/* fd's target ("/a/file", "pipe:[123]", ...) into buf, or 0 when fd is not open. */
static size_t fd_target(int fd, char *buf, size_t cap)
{
    char link[40];
    long n;
    int saved = errno;   /* the program's: this runs outside the bracket */

    if (rec_filter_may_stand())
        return 0;   /* readlink is not the program's to make */
    /* without stdio: this may run in a signal handler */
    rec_stpnum(stpcpy(link, "/proc/self/fd/"), (unsigned)fd);
    n = syscall(SYS_readlink, link, buf, cap - 1);
    errno = saved;
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n;
}

void rec_fd_name(int fd, uint64_t s0)
{
    struct iot_event ev;
    char path[PATH_MAX];
    long fl, off;
    int saved = errno;

    /* Inside the recorder (a handler that interrupted it) the next call
       names it; a vfork child's table is not ours. */
    if (!rec_active || rec_guard)
        return;
    if (rec_filter_may_stand()) {
        /* readlink, fcntl, lseek: not the program's. Seen from now on,
           so that it is counted once. */
        rec_fd_mark(fd);
        rec_skipped(REC_SKIP_FD_NAME);
        return;
    }
    if (!fd_target(fd, path, sizeof(path))) {
        errno = saved;
        return;     /* not open: the call itself fails with EBADF */
    }
    rec_fd_mark(fd);
    fl = syscall(SYS_fcntl, fd, F_GETFL);
    off = syscall(SYS_lseek, fd, 0L, SEEK_CUR);
    ev = rec_event(IOT_OP_FDPATH, fd, 0);
    ev.has |= IOT_HAS_FD | IOT_HAS_PATH | (fl >= 0 ? IOT_HAS_FLAGS : 0) |
              (off >= 0 ? IOT_HAS_OFFSET : 0);
    ev.fd = fd;
    ev.flags = fl >= 0 ? fl : 0;
    ev.offset = off >= 0 ? off : 0;
    rec_call(&ev, path, NULL, NULL, s0, s0);
    errno = saved;
}

void rec_fd_first_data(int fd)
{
    if (rec_fd_get(fd) == REC_FD_UNSEEN)
        rec_fd_name(fd, rec_stamp());
    /* Not named (a handler inside the recorder, not open): stays unseen. */
    if (rec_fd_get(fd) != REC_FD_UNSEEN)
        rec_fd_set(fd, REC_FD_BUSY);
}

void rec_fd_shared_all(void)
{
    for (int fd = 0; fd < REC_FD_SEEN; fd++)
        rec_fd_shared(fd);
}

/*
 * A call that made fd (r) with a name: `path` as the call knew it, or the
 * fd's target when path is NULL. Not the open() path: no stack (these are
 * rare, and a stack would cost an unwind per mkstemp).
 */
/* A new fd r (if the call made one) is marked seen and goes in ev. */
static void fd_made(struct iot_event *ev, int r)
{
    if (r >= 0) {
        rec_fd_mark(r);
        ev->has |= IOT_HAS_FD;
        ev->fd = r;
    }
}

static void rec_named(unsigned op, int r, int err, const char *path, int flags,
                      uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(op, r, err);
    char buf[PATH_MAX];

    if (rec_guard == REC_GUARD_OFF)
        return;
    fd_made(&ev, r);
    if (r >= 0 && !path && fd_target(r, buf, sizeof(buf)))
        path = buf;
    ev.has |= IOT_HAS_FLAGS;
    ev.flags = flags;
    if (path)
        ev.has |= IOT_HAS_PATH;
    rec_call(&ev, path, NULL, NULL, s0, s1);
}

/* ------------------------------------------------------------- mkstemp */

/*
 * The mkstemp family fills the template in place: after the call it is the
 * file's name, made absolute against the cwd like open()'s paths. libc
 * (glibc, musl) turns exactly the six X's before the suffix (suffixlen
 * bytes, mkstemps) into random characters, so that after a success they
 * are the six bytes before the last suffixlen of the name: a template
 * record says so (docs/trace-format.md 5.17), and fingerprints fold them
 * back.
 */
/* A name made from a template (path absolute; its bytes [at, at + n) were
   the template's X's), in a template record at stamp s, after the call. */
static void rec_template_record(const char *path, size_t at, size_t n, uint64_t s)
{
    struct rec_thread *t;
    size_t len;
    int64_t now;

    if (!path || path[0] != '/' || !(t = rec_enter(s)))
        return;     /* relative (the cwd unknown), or a handler inside the recorder */
    len = strlen(path);
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), s);
    if (iot_enc_template(&t->enc, now, path, len, at, n) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_template(&t->enc, now, path, len, at, n);
    }
    rec_publish(t);
    rec_leave();
}

static void rec_made(const char *path, int suffixlen, uint64_t s1)
{
    size_t len = path ? strlen(path) : 0;
    int saved = errno;

    if (path && path[0] == '/' && suffixlen >= 0 && len >= (size_t)suffixlen + 6)
        rec_template_record(path, len - (size_t)suffixlen - 6, 6, s1);
    errno = saved;
}

static void rec_mkstemp(const char *tmpl, int flags, int suffixlen, int r, int err,
                        uint64_t s0, uint64_t s1)
{
    char buf[PATH_MAX + 64];
    const char *path = r >= 0 ? path_from_dirfd(AT_FDCWD, tmpl, buf, sizeof(buf)) : tmpl;

    rec_named(IOT_OP_MKSTEMP, r, err, path, O_RDWR | O_CREAT | O_EXCL | flags, s0, s1);
    if (r >= 0)
        rec_made(path, suffixlen, s1);
}

REAL_HERE(int, mkstemp, (char *));
REAL_HERE(int, mkstemp64, (char *));
REAL_HERE(int, mkostemp, (char *, int));
REAL_HERE(int, mkostemp64, (char *, int));
REAL_HERE(int, mkstemps, (char *, int));
REAL_HERE(int, mkstemps64, (char *, int));
REAL_HERE(int, mkostemps, (char *, int, int));
REAL_HERE(int, mkostemps64, (char *, int, int));
REAL_HERE(char *, mkdtemp, (char *));

#define WRAP_MKSTEMP(name, params, flags, suffixlen, ...)                      \
    int name params                                                            \
    {                                                                          \
        WRAP_BODY(int, -1, name,                                               \
                  rec_mkstemp(t, flags, suffixlen, r, ERR_OF(r), s0, s1),      \
                  __VA_ARGS__);                                                \
    }

WRAP_MKSTEMP(mkstemp, (char *t), 0, 0, t)
WRAP_MKSTEMP(mkstemp64, (char *t), 0, 0, t)
WRAP_MKSTEMP(mkostemp, (char *t, int fl), fl, 0, t, fl)
WRAP_MKSTEMP(mkostemp64, (char *t, int fl), fl, 0, t, fl)
WRAP_MKSTEMP(mkstemps, (char *t, int sl), 0, sl, t, sl)
WRAP_MKSTEMP(mkstemps64, (char *t, int sl), 0, sl, t, sl)
WRAP_MKSTEMP(mkostemps, (char *t, int sl, int fl), fl, sl, t, sl, fl)
WRAP_MKSTEMP(mkostemps64, (char *t, int sl, int fl), fl, sl, t, sl, fl)

/*
 * mkdtemp is a mkdir the program asked for with a random name (mode 0700,
 * as libc makes it): recorded as one, then its template record. libc's own
 * mkdir inside it reaches no wrapper.
 */
static void rec_mkdtemp(const char *tmpl, const char *r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_MKDIR, r ? 0 : -1, err);
    char buf[PATH_MAX + 64];
    const char *path = r ? path_from_dirfd(AT_FDCWD, tmpl, buf, sizeof(buf)) : tmpl;

    int saved = errno;

    if (rec_guard == REC_GUARD_OFF)
        return;
    ev.has |= IOT_HAS_FLAGS;
    ev.flags = 0700;
    rec_call(&ev, path, NULL, NULL, s0, s1);
    errno = saved;
    if (r)
        rec_made(path, 0, s1);
}

char *mkdtemp(char *t)
{
    WRAP_BODY(char *, NULL, mkdtemp, rec_mkdtemp(t, r, r ? 0 : errno, s0, s1), t);
}

/* ------------------------------------------- fds made without a path */

REAL_HERE(int, memfd_create, (const char *, unsigned));
REAL_HERE(int, open_by_handle_at, (int, struct file_handle *, int));
REAL_HERE(int, posix_openpt, (int));

/* The name is read only when the kernel took it: the call succeeded. */
static void rec_memfd(const char *name, int r, int err, uint64_t s0, uint64_t s1)
{
    char path[NAME_MAX + 8];

    snprintf(path, sizeof(path), "memfd:%s", r >= 0 && name ? name : "");
    rec_named(IOT_OP_MEMFD, r, err, path, O_RDWR, s0, s1);
}

int memfd_create(const char *name, unsigned flags)
{
    WRAP_BODY_NEWFD(int, -1, memfd_create, rec_memfd(name, r, ERR_OF(r), s0, s1), name, flags);
}

/* An open by handle is an open: recorded as one, named by its target. */
int open_by_handle_at(int mount_fd, struct file_handle *h, int flags)
{
    WRAP_BODY_NEWFD(int, -1, open_by_handle_at,
              rec_named(IOT_OP_OPEN, r, ERR_OF(r), NULL, flags, s0, s1),
              mount_fd, h, flags);
}

int posix_openpt(int flags)
{
    WRAP_BODY_NEWFD(int, -1, posix_openpt,
              rec_named(IOT_OP_OPEN, r, ERR_OF(r), "/dev/ptmx", flags, s0, s1),
              flags);
}

/*
 * dirfd: the fd opendir() made inside libc, where no wrapper saw it. Named
 * the first time the program asks for it (closedir() closes it).
 */
REAL_HERE(int, dirfd, (DIR *));

int dirfd(DIR *d)
{
    int r = CALL_REAL(-1, dirfd, d);

    if (rec_active && r >= 0)
        rec_fd_check(r);
    return r;
}

/* --------------------------------------------------- fds that are not files */

static void rec_anon(int r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_ANONFD, r, err);

    if (rec_guard == REC_GUARD_OFF)
        return;
    fd_made(&ev, r);
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

REAL_HERE(int, eventfd, (unsigned, int));
REAL_HERE(int, timerfd_create, (int, int));
REAL_HERE(int, signalfd, (int, const sigset_t *, int));
REAL_HERE(int, inotify_init, (void));
REAL_HERE(int, inotify_init1, (int));
REAL_HERE(int, epoll_create, (int));
REAL_HERE(int, epoll_create1, (int));

#define WRAP_ANON(name, params, ...)                                           \
    int name params                                                            \
    {                                                                          \
        WRAP_BODY_NEWFD(int, -1, name, rec_anon(r, ERR_OF(r), s0, s1),       \
                        __VA_ARGS__);                                  \
    }

WRAP_ANON(eventfd, (unsigned v, int fl), v, fl)
WRAP_ANON(timerfd_create, (int c, int fl), c, fl)
WRAP_ANON(inotify_init1, (int fl), fl)
WRAP_ANON(epoll_create, (int n), n)
WRAP_ANON(epoll_create1, (int fl), fl)

int inotify_init(void)
{
    WRAP_BODY_NEWFD(int, -1, inotify_init, rec_anon(r, ERR_OF(r), s0, s1));
}

/* signalfd(-1, ...) makes an fd; with an fd it changes that one's mask. */
int signalfd(int fd, const sigset_t *mask, int flags)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active || fd != -1)
        return CALL_REAL(-1, signalfd, fd, mask, flags);
    s0 = rec_stamp();
    r = CALL_REAL(-1, signalfd, fd, mask, flags);
    s1 = rec_stamp();
    rec_anon(r, ERR_OF(r), s0, s1);
    return r;
}
