/*
 * wrap_stdio_open.c - the stdio calls that open, close, flush, buffer and
 * seek a stream (the data calls are wrap_stdio.c's; the conventions are
 * the same, docs/recorder.md).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "stdio_stream.h"
#include "wrap.h"

/* ------------------------------------------------------ open and close */

/* fopen-like calls: ret is the stream id, or -1 with errno. */
static void rec_fopen(unsigned op, const char *path, const char *mode,
                      int fd_in, FILE *r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    char buf[PATH_MAX + 64], copy[REC_PATH_COPY];
    struct rec_thread *t;
    const char *stack, *abs;
    int fd;

    if (rec_guard == REC_GUARD_OFF)
        return;
    fd = r ? stream_fd(r) : fd_in;
    if (r) {
        rec_fd_mark(fd);
        mark_stream(r);     /* a new FILE at a freed one's address */
        if (r == stdin || r == stdout || r == stderr)  /* freopen: announced here */
            __atomic_fetch_and(&rec_std_unannounced,
                               r == stdin ? ~1u : r == stdout ? ~2u : ~4u,
                               __ATOMIC_RELAXED);
    }
    ev.op = (uint8_t)op;
    ev.has = (fd >= 0 ? IOT_HAS_FD : 0) | (r ? IOT_HAS_STREAM : 0) |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = r ? stream_id(r) : 0;
    ev.ret = r ? (int64_t)stream_id(r) : -1;
    ev.err = err;
    if (r)
        rec_stdio_default_buffer(fd, &ev);
    abs = path_from_dirfd(AT_FDCWD, rec_path_arg(path, err, copy, sizeof(copy)), buf,
                          sizeof(buf));
    t = rec_enter(s0);
    if (!t) {
        if (rec_deferring())
            rec_defer(&ev, abs, mode, s0, s1);
        return;
    }
    stack = rec_stacks ? rec_stack_capture() : NULL;
    rec_call_in(t, &ev, abs, mode, stack, s0, s1);
    rec_leave();
}

#define WRAP_FOPEN(name, op)                                                   \
    FILE *name(const char *path, const char *mode)                             \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        FILE *r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL(NULL, name, path, mode);                          \
        s0 = rec_stamp();                                                      \
        CALL_REAL_NEWFD(r, NULL, name, path, mode);                            \
        s1 = rec_stamp();                                                      \
        rec_fopen(op, path, mode, -1, r, r ? 0 : errno, s0, s1);               \
        return r;                                                              \
    }

WRAP_FOPEN(fopen, IOT_OP_FOPEN)
WRAP_FOPEN(fopen64, IOT_OP_FOPEN)

#define WRAP_FREOPEN(name)                                                     \
    FILE *name(const char *path, const char *mode, FILE *f)                    \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        FILE *r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL(NULL, name, path, mode, f);                       \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL(NULL, name, path, mode, f);                              \
        s1 = rec_stamp();                                                      \
        rec_fopen(IOT_OP_FREOPEN, path, mode, -1, r, r ? 0 : errno, s0, s1);   \
        return r;                                                              \
    }

WRAP_FREOPEN(freopen)
WRAP_FREOPEN(freopen64)

FILE *fdopen(int fd, const char *mode)
{
    uint64_t s0, s1;
    FILE *r;

    if (!rec_active)
        return CALL_REAL_FD(NULL, fd, fdopen, fd, mode);
    s0 = rec_stamp();
    r = CALL_REAL_FD(NULL, fd, fdopen, fd, mode);
    s1 = rec_stamp();
    rec_fopen(IOT_OP_FDOPEN, NULL, mode, fd, r, r ? 0 : errno, s0, s1);
    return r;
}

#define WRAP_TMPFILE(name)                                                     \
    FILE *name(void)                                                           \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        FILE *r;                                                               \
        if (!rec_active)                                                       \
            return CALL_REAL(NULL, name);                                      \
        s0 = rec_stamp();                                                      \
        CALL_REAL_NEWFD(r, NULL, name, );                                      \
        s1 = rec_stamp();                                                      \
        rec_fopen(IOT_OP_TMPFILE, NULL, "w+b", -1, r, r ? 0 : errno, s0, s1);  \
        return r;                                                              \
    }

WRAP_TMPFILE(tmpfile)
WRAP_TMPFILE(tmpfile64)

/*
 * The file's size once fclose has written what f still buffers: st_size,
 * or the end of the buffered bytes where they reach past it (at the end
 * in append mode, else at the fd's offset, where a write stream's buffer
 * goes). Taken before the close, when the fd can still be asked.
 */
static int64_t size_after_flush(FILE *f, int fd, int64_t st_size)
{
    int64_t pending = f->_IO_write_base ? f->_IO_write_ptr - f->_IO_write_base : 0;
    long fl, off;

    if (pending <= 0)
        return st_size;
    fl = syscall(SYS_fcntl, fd, F_GETFL);
    if (fl >= 0 && (fl & O_APPEND))
        return st_size + pending;
    off = syscall(SYS_lseek, fd, 0L, SEEK_CUR);
    return off >= 0 && off + pending > st_size ? off + pending : st_size;
}

int fclose(FILE *f)
{
    struct iot_event ev = { 0 };
    struct stat st;
    uint64_t s0, s1;
    int fd, r, held;

    if (!rec_active || rec_guard == REC_GUARD_OFF || !f ||
        (fd = stream_fd(f)) < 0)
        return CALL_REAL(EOF, fclose, f);
    /* Held until just before the real fclose, which frees f (no thread
       may use f once fclose has begun). */
    held = rec_stream_hold(1, f);
    /* inline bytes still in the buffer reach the file now */
    rec_stdio_pre(f, rec_stamp());
    if (rec_filter_may_stand()) {
        rec_skipped(REC_SKIP_FILE_SIZE);   /* fstat, fcntl, lseek: not the program's */
    } else {
        int saved = errno;   /* fclose may succeed and leave errno as it was */

        if (syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode)) {
            ev.has |= IOT_HAS_FILE_SIZE;
            ev.file_size = size_after_flush(f, fd, (int64_t)st.st_size);
        }
        errno = saved;
    }
    ev.stream = stream_id(f);
    rec_stream_release(f, held);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, fclose, f);
    s1 = rec_stamp();
    rec_stdio_mark_forget(f);
    rec_fd_unmark(fd);      /* closed even when fclose fails */
    ev.op = IOT_OP_FCLOSE;
    ev.err = r == EOF ? (errno ? errno : EIO) : 0;
    ev.has |= IOT_HAS_FD | IOT_HAS_STREAM | (ev.err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.ret = r;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
    return r;
}

/* fcloseall is passed through unrecorded: it names no stream (docs). */
int fcloseall(void)
{
    return CALL_REAL(EOF, fcloseall);
}

/* What inline code left in f's buffer (rec_stdio_pre), f's lock held. */
static void stdio_pre_held(FILE *f, uint64_t t)
{
    int held = rec_stream_hold(1, f);

    rec_stdio_pre(f, t);
    rec_stream_release(f, held);
}

int fflush(FILE *f)
{
    uint64_t s0, s1;
    int r, held;

    if (!rec_active)
        return CALL_REAL(EOF, fflush, f);
    if (f) {
        s0 = rec_stdio_enter(1, f, &held);
    } else {
        /* every stream: the buffers the recorder can name safely */
        s0 = rec_stamp();
        stdio_pre_held(stdout, s0);
        stdio_pre_held(stderr, s0);
        held = 0;
    }
    r = CALL_REAL(EOF, fflush, f);
    s1 = rec_stamp();
    if (!f)
        rec_stdio_mark_forget(NULL);  /* every buffer was emptied: the marks are stale */
    stdio_rec(IOT_OP_FFLUSH, f, 0, 0, r, r == EOF ? (errno ? errno : EIO) : 0,
              s0, s1);
    rec_stream_release(f, held);
    return r;
}

static void rec_setvbuf(FILE *f, const char *buf, int mode, size_t size, int r, int err,
                        uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    int fd = stream_fd(f);

    if (fd < 0)
        return;
    if (REC_UNLIKELY(__atomic_load_n(&rec_std_unannounced, __ATOMIC_RELAXED)))
        rec_std_announce(f, s0);
    ev.op = IOT_OP_SETVBUF;
    ev.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_SIZE | IOT_HAS_BUFMODE |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = stream_id(f);
    ev.bufmode = mode == _IONBF || (buf && !size) ? IOT_BUF_NONE /* glibc: 0-byte buf */
                 : mode == _IOLBF ? IOT_BUF_LINE : IOT_BUF_FULL;
    ev.size = ev.bufmode == IOT_BUF_NONE || !buf ? 0 : (int64_t)size; /* NULL: glibc's own */
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
    mark_stream(f);
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active)
        return CALL_REAL(EOF, setvbuf, f, buf, mode, size);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, setvbuf, f, buf, mode, size);
    s1 = rec_stamp();
    rec_setvbuf(f, buf, mode, size, r, r ? (errno ? errno : EINVAL) : 0, s0, s1);
    return r;
}

void setbuf(FILE *f, char *buf)
{
    uint64_t s0 = rec_stamp(), s1;

    if (REAL(setbuf))
        real_setbuf(f, buf);
    s1 = rec_stamp();
    if (rec_active)
        rec_setvbuf(f, buf, buf ? _IOFBF : _IONBF, BUFSIZ, 0, 0, s0, s1);
}

/* ---------------------------------------------------------------- seeks */

static void rec_fseek(FILE *f, int64_t off, int whence, int r, int err,
                      uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    int fd = stream_fd(f);

    if (fd < 0)
        return;
    if (REC_UNLIKELY(__atomic_load_n(&rec_std_unannounced, __ATOMIC_RELAXED)))
        rec_std_announce(f, s0);
    ev.op = IOT_OP_FSEEK;
    ev.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_OFFSET | IOT_HAS_WHENCE |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = stream_id(f);
    ev.offset = off;
    ev.whence = whence;
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
    mark_stream(f);
}

#define WRAP_FSEEK(name, otype)                                                \
    int name(FILE *f, otype off, int whence)                                   \
    {                                                                          \
        STDIO_BODY(1, int, -1, name, f,                                        \
                  rec_fseek(f, (int64_t)off, whence, r, r ? errno : 0, s0,     \
                            s1),                                               \
                  f, off, whence);                                             \
    }

WRAP_FSEEK(fseek, long)
WRAP_FSEEK(fseeko, off_t)
WRAP_FSEEK(fseeko64, off64_t)

void rewind(FILE *f)
{
    uint64_t s0, s1;
    int held = 0;

    s0 = rec_active ? rec_stdio_enter(1, f, &held) : rec_stamp();
    if (REAL(rewind))
        real_rewind(f);
    s1 = rec_stamp();
    if (rec_active)
        rec_fseek(f, 0, SEEK_SET, 0, 0, s0, s1);
    rec_stream_release(f, held);
}

#define WRAP_FTELL(rtype, name)                                                \
    rtype name(FILE *f)                                                        \
    {                                                                          \
        STDIO_BODY(1, rtype, -1, name, f,                                      \
                  stdio_rec(IOT_OP_FTELL, f, 0, 0, (int64_t)r,                 \
                            r < 0 ? errno : 0, s0, s1),                        \
                  f);                                                          \
    }

WRAP_FTELL(long, ftell)
WRAP_FTELL(off_t, ftello)
WRAP_FTELL(off64_t, ftello64)
