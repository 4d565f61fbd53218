/*
 * wrap_dir.c - directory streams: opendir, fdopendir, readdir (and its 64
 * and _r forms), closedir.
 *
 * opendir makes an fd inside libc, where no wrapper sees it: it is recorded
 * as an `opendir` (an open of the directory: path, the fd as ret, the
 * flags glibc opens it with, a stack as open has), and closedir as the
 * `close` of that fd, so the fd's number is known to be free again.
 * fdopendir makes no fd (the program opened it: its open is recorded).
 *
 * readdir is called once per entry and costs ~20 ns from libc's buffer: a
 * record per call would make `ls -R` of a big tree mostly readdir records
 * and double the cost of each. So a stream's readdir calls are counted per
 * pass over the directory instead: one `readdir` record when the stream
 * reaches its end (readdir returns NULL), or at closedir for a pass left
 * unfinished, with size = ret = the entries returned, t = the start of the
 * pass's last call (so the record is in time order with the thread's
 * others, which a pass may interleave with: `ls -l` stats between its
 * readdirs) and dur = the calls' summed time; an error ends the pass with
 * ret -1 and its errno. The counts live in a table indexed by the stream's fd
 * (below REC_FD_SEEN; a stream on a higher fd is not counted); a stream
 * read by two threads at once (which POSIX leaves undefined) may be
 * miscounted.
 */
#include <dirent.h>
#include <fcntl.h>

#include "real.h"
#include "rec.h"
#include "wrap.h"

REAL_HERE(DIR *, opendir, (const char *));
REAL_HERE(DIR *, fdopendir, (int));
REAL_HERE(struct dirent *, readdir, (DIR *));
REAL_HERE(struct dirent64 *, readdir64, (DIR *));
REAL_HERE(int, readdir_r, (DIR *, struct dirent *, struct dirent **));
REAL_HERE(int, readdir64_r, (DIR *, struct dirent64 *, struct dirent64 **));
REAL_HERE(int, dirfd, (DIR *));

/* The pass in progress on each fd's stream. */
struct dir_pass {
    uint64_t s0;        /* stamp of the start of the pass's last call */
    uint64_t ticks;     /* the calls' summed stamps */
    uint32_t calls, entries;
};

static struct dir_pass dir_pass[REC_FD_SEEN];

/* glibc's dirfd() answers NULL with EINVAL; a stream's fd, or -1. */
static int stream_fd(void *d)
{
    return d && REAL(dirfd) ? real_dirfd(d) : -1;
}

/* Record fd's pass, if it made any call, and start the next. */
static void pass_end(int fd, int64_t ret, int err)
{
    struct dir_pass *p = &dir_pass[fd];
    struct iot_event ev;

    if (p->calls == 0)
        return;
    ev = rec_event(IOT_OP_READDIR, err ? -1 : ret, err);
    ev.has |= IOT_HAS_FD | IOT_HAS_SIZE;
    ev.fd = fd;
    ev.size = p->entries;
    rec_call(&ev, NULL, NULL, NULL, p->s0, p->s0 + p->ticks);
    p->calls = 0;
    p->entries = 0;
    p->ticks = 0;
}

/*
 * One readdir call on fd's stream, returning an entry (got) or not. An
 * error is told from the end of the directory by errno, which the wrapper
 * cleared before the call and put back after (so the program sees what it
 * would have: readdir leaves errno alone at the end).
 */
static void pass_step(int fd, int got, int err, uint64_t s0, uint64_t s1)
{
    struct dir_pass *p;

    if ((unsigned)fd >= REC_FD_SEEN || rec_guard == REC_GUARD_OFF)
        return;
    p = &dir_pass[fd];
    p->calls++;
    p->s0 = s0;
    p->ticks += s1 - s0;
    if (got)
        p->entries++;
    else
        pass_end(fd, p->entries, err);
}

#define WRAP_READDIR(type, name)                                               \
    type *name(DIR *d)                                                         \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int saved, err;                                                        \
        type *r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL(NULL, name, d);                                   \
        saved = errno;                                                         \
        errno = 0;                                                             \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL(NULL, name, d);                                          \
        s1 = rec_stamp();                                                      \
        err = r ? 0 : errno;                                                   \
        if (errno == 0)                                                        \
            errno = saved;                                                     \
        pass_step(stream_fd(d), r != NULL, err, s0, s1);                       \
        return r;                                                              \
    }

WRAP_READDIR(struct dirent, readdir)
WRAP_READDIR(struct dirent64, readdir64)

/* The _r forms return an error number; *res NULL at the end. */
#define WRAP_READDIR_R(type, name)                                             \
    int name(DIR *d, type *entry, type **res)                                  \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int r;                                                                 \
        if (!rec_active)                                                       \
            return CALL_REAL(ENOSYS, name, d, entry, res);                     \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL(ENOSYS, name, d, entry, res);                            \
        s1 = rec_stamp();                                                      \
        pass_step(stream_fd(d), r == 0 && *res != NULL, r, s0, s1);            \
        return r;                                                              \
    }

WRAP_READDIR_R(struct dirent, readdir_r)
WRAP_READDIR_R(struct dirent64, readdir64_r)

/* ----------------------------------------------------------- open, close */

static void pass_reset(int fd)
{
    if ((unsigned)fd < REC_FD_SEEN && rec_guard != REC_GUARD_OFF) {
        dir_pass[fd].calls = 0;
        dir_pass[fd].entries = 0;
        dir_pass[fd].ticks = 0;
    }
}

/* glibc's opendir opens with these */
#define OPENDIR_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY)

static void rec_opendir(const char *path, int fd, int err, uint64_t s0, uint64_t s1)
{
    if (rec_guard == REC_GUARD_OFF)
        return;
    pass_reset(fd);
    rec_open_as(IOT_OP_OPENDIR, AT_FDCWD, path, OPENDIR_FLAGS, fd, err, s0, s1);
}

DIR *opendir(const char *path)
{
    uint64_t s0, s1;
    DIR *r;

    if (!rec_active)
        return CALL_REAL(NULL, opendir, path);
    s0 = rec_stamp();
    CALL_REAL_NEWFD(r, NULL, opendir, path);
    s1 = rec_stamp();
    rec_opendir(path, r ? stream_fd(r) : -1, r ? 0 : errno, s0, s1);
    return r;
}

/* No new fd: only a new stream on it, whose passes start afresh. */
DIR *fdopendir(int fd)
{
    DIR *r = CALL_REAL(NULL, fdopendir, fd);

    if (rec_active && r)
        pass_reset(fd);
    return r;
}

/* closedir() closes its fd inside libc, where no wrapper sees it. */
int closedir(DIR *d)
{
    struct iot_event ev = { 0 };
    uint64_t s0, s1;
    int fd, r;

    fd = stream_fd(d);
    if (!rec_active || fd < 0)
        return CALL_REAL(-1, closedir, d);
    if ((unsigned)fd < REC_FD_SEEN && rec_guard != REC_GUARD_OFF)
        pass_end(fd, dir_pass[fd].entries, 0);   /* a pass left unfinished */
    s0 = rec_stamp();
    r = CALL_REAL(-1, closedir, d);
    s1 = rec_stamp();
    rec_fd_unmark(fd);
    ev.op = IOT_OP_CLOSE;
    ev.err = ERR_OF(r);
    ev.has = IOT_HAS_FD | (ev.err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.ret = r;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
    return r;
}
