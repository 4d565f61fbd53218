/*
 * wrap_stdio.c - the stdio layer. glibc's stdio never goes through the
 * interposable read/write/open/close symbols, so FILE * calls are recorded
 * here, as the program issued them; the analyzer models the buffering.
 *
 * Conventions (docs/recorder.md): `stream` is an id of the FILE * stable
 * while it is open; `fd` is its descriptor; data calls carry the requested
 * bytes in `size` and the bytes moved in `ret`, with `errno` when the stream
 * reports an error. Streams without a descriptor (fmemopen,
 * open_memstream, fopencookie) are not file I/O and are not recorded.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"

/* With optimisation glibc defines some of these as macros; we define them. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef getc
#undef putc
#undef fgetc
#undef fputc
#undef getline

static inline uint64_t stream_id(FILE *f)
{
    return (uint64_t)(uintptr_t)f >> 4;   /* FILE objects are 16-aligned */
}

static inline int stream_fd(FILE *f)
{
    return f ? fileno_unlocked(f) : -1;
}

/* Record a stdio call on f. err: errno to store, 0 for none. */
static void rec_stdio(unsigned op, FILE *f, uint32_t more, int64_t size,
                      int64_t ret, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev;
    int fd = stream_fd(f);

    if (f && fd < 0)
        return;
    /*
     * Only the members `has` names are read (and op, has, ret, err); not
     * zeroing the other ~150 bytes matters on a 20 ns fwrite.
     */
    ev.op = (uint8_t)op;
    ev.has = more | (f ? IOT_HAS_FD | IOT_HAS_STREAM : 0) |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = f ? stream_id(f) : 0;
    ev.size = size;
    ev.ret = ret;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

/* The errno of a stream call that came up short: only when it failed. */
static inline int stream_err(FILE *f, int shortfall, int saved)
{
    return shortfall && f && ferror_unlocked(f) ? (saved ? saved : EIO) : 0;
}

/* ------------------------------------------------------------ data calls */

#define WRAP_FREAD(name, params, p, sz, n, f, ...)                             \
    size_t name params                                                         \
    {                                                                          \
        WRAP_BODY(size_t, 0, name,                                             \
                  rec_stdio(IOT_OP_FREAD, f, IOT_HAS_SIZE,                     \
                            (int64_t)((sz) * (n)), (int64_t)(r * (sz)),        \
                            stream_err(f, r < (n), errno), s0, s1),            \
                  __VA_ARGS__);                                                \
    }

WRAP_FREAD(fread, (void *p, size_t sz, size_t n, FILE *f), p, sz, n, f,
           p, sz, n, f)
WRAP_FREAD(fread_unlocked, (void *p, size_t sz, size_t n, FILE *f), p, sz, n,
           f, p, sz, n, f)
WRAP_FREAD(__fread_chk, (void *p, size_t pl, size_t sz, size_t n, FILE *f),
           p, sz, n, f, p, pl, sz, n, f)
WRAP_FREAD(__fread_unlocked_chk,
           (void *p, size_t pl, size_t sz, size_t n, FILE *f), p, sz, n, f,
           p, pl, sz, n, f)

#define WRAP_FWRITE(name)                                                      \
    size_t name(const void *p, size_t sz, size_t n, FILE *f)                   \
    {                                                                          \
        WRAP_BODY(size_t, 0, name,                                             \
                  rec_stdio(IOT_OP_FWRITE, f, IOT_HAS_SIZE, (int64_t)(sz * n), \
                            (int64_t)(r * sz), stream_err(f, r < n, errno),    \
                            s0, s1),                                           \
                  p, sz, n, f);                                                \
    }

WRAP_FWRITE(fwrite)
WRAP_FWRITE(fwrite_unlocked)

#define WRAP_FGETS(name, params, f, n, ...)                                    \
    char *name params                                                          \
    {                                                                          \
        WRAP_BODY(char *, NULL, name,                                          \
                  rec_stdio(IOT_OP_FGETS, f, IOT_HAS_SIZE, (int64_t)(n),       \
                            r ? (int64_t)strlen(r) : 0,                        \
                            stream_err(f, !r, errno), s0, s1),                 \
                  __VA_ARGS__);                                                \
    }

WRAP_FGETS(fgets, (char *s, int n, FILE *f), f, n, s, n, f)
WRAP_FGETS(fgets_unlocked, (char *s, int n, FILE *f), f, n, s, n, f)
WRAP_FGETS(__fgets_chk, (char *s, size_t sl, int n, FILE *f), f, n,
           s, sl, n, f)
WRAP_FGETS(__fgets_unlocked_chk, (char *s, size_t sl, int n, FILE *f), f, n,
           s, sl, n, f)

#define WRAP_GETC(name)                                                        \
    int name(FILE *f)                                                          \
    {                                                                          \
        WRAP_BODY(int, EOF, name,                                              \
                  rec_stdio(IOT_OP_FGETC, f, IOT_HAS_SIZE, 1,                  \
                            r == EOF ? 0 : 1, stream_err(f, r == EOF, errno),  \
                            s0, s1),                                           \
                  f);                                                          \
    }

WRAP_GETC(fgetc)
WRAP_GETC(getc)
WRAP_GETC(_IO_getc)

#define WRAP_PUTC(name)                                                        \
    int name(int c, FILE *f)                                                   \
    {                                                                          \
        WRAP_BODY(int, EOF, name,                                              \
                  rec_stdio(IOT_OP_FPUTC, f, IOT_HAS_SIZE, 1,                  \
                            r == EOF ? -1 : 1,                                 \
                            r == EOF ? (errno ? errno : EIO) : 0, s0, s1),     \
                  c, f);                                                       \
    }

WRAP_PUTC(fputc)
WRAP_PUTC(putc)
WRAP_PUTC(_IO_putc)

int fputs(const char *s, FILE *f)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active)
        return CALL_REAL(EOF, fputs, s, f);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, fputs, s, f);
    s1 = rec_stamp();
    rec_stdio(IOT_OP_FPUTS, f, IOT_HAS_SIZE, (int64_t)strlen(s),
              r == EOF ? -1 : (int64_t)strlen(s),
              r == EOF ? (errno ? errno : EIO) : 0, s0, s1);
    return r;
}

int puts(const char *s)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active)
        return CALL_REAL(EOF, puts, s);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, puts, s);
    s1 = rec_stamp();
    /* puts adds the newline. */
    rec_stdio(IOT_OP_FPUTS, stdout, IOT_HAS_SIZE, (int64_t)strlen(s) + 1,
              r == EOF ? -1 : (int64_t)strlen(s) + 1,
              r == EOF ? (errno ? errno : EIO) : 0, s0, s1);
    return r;
}

#define WRAP_GETDELIM(name, params, f, ...)                                    \
    ssize_t name params                                                        \
    {                                                                          \
        /* The bytes wanted are not known in advance: size = bytes read. */    \
        WRAP_BODY(ssize_t, -1, name,                                           \
                  rec_stdio(IOT_OP_GETDELIM, f, IOT_HAS_SIZE, r > 0 ? r : 0,   \
                            r > 0 ? r : 0, stream_err(f, r < 0, errno),        \
                            s0, s1),                                           \
                  __VA_ARGS__);                                                \
    }

WRAP_GETDELIM(getline, (char **l, size_t *n, FILE *f), f, l, n, f)
WRAP_GETDELIM(getdelim, (char **l, size_t *n, int d, FILE *f), f, l, n, d, f)
WRAP_GETDELIM(__getdelim, (char **l, size_t *n, int d, FILE *f), f, l, n, d, f)

static void rec_printf(FILE *f, int r, uint64_t s0, uint64_t s1)
{
    rec_stdio(IOT_OP_FPRINTF, f, IOT_HAS_SIZE, r > 0 ? r : 0, r,
              r < 0 ? (errno ? errno : EIO) : 0, s0, s1);
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active)
        return CALL_REAL(-1, vfprintf, f, fmt, ap);
    s0 = rec_stamp();
    r = CALL_REAL(-1, vfprintf, f, fmt, ap);
    s1 = rec_stamp();
    rec_printf(f, r, s0, s1);
    return r;
}

int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    uint64_t s0, s1;
    int r;

    va_start(ap, fmt);
    s0 = rec_stamp();
    r = CALL_REAL(-1, vfprintf, f, fmt, ap);
    s1 = rec_stamp();
    va_end(ap);
    rec_printf(f, r, s0, s1);
    return r;
}

int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    uint64_t s0, s1;
    int r;

    s0 = rec_stamp();
    r = CALL_REAL(-1, __vfprintf_chk, f, flag, fmt, ap);
    s1 = rec_stamp();
    rec_printf(f, r, s0, s1);
    return r;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap;
    uint64_t s0, s1;
    int r;

    va_start(ap, fmt);
    s0 = rec_stamp();
    r = CALL_REAL(-1, __vfprintf_chk, f, flag, fmt, ap);
    s1 = rec_stamp();
    va_end(ap);
    rec_printf(f, r, s0, s1);
    return r;
}

/* fscanf: ret is what fscanf returns (items assigned, or EOF). */
#define WRAP_FSCANF(name, sym, vname)                                          \
    int name(FILE *f, const char *fmt, ...) __asm__(sym);                      \
    int name(FILE *f, const char *fmt, ...)                                    \
    {                                                                          \
        va_list ap;                                                            \
        uint64_t s0, s1;                                                       \
        int r;                                                                 \
        va_start(ap, fmt);                                                     \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL(EOF, vname, f, fmt, ap);                                 \
        s1 = rec_stamp();                                                      \
        va_end(ap);                                                            \
        rec_stdio(IOT_OP_FSCANF, f, 0, 0, r,                                   \
                  stream_err(f, r == EOF, errno), s0, s1);                     \
        return r;                                                              \
    }

#define WRAP_VFSCANF(name, sym, real)                                          \
    int name(FILE *f, const char *fmt, va_list ap) __asm__(sym);               \
    int name(FILE *f, const char *fmt, va_list ap)                             \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int r;                                                                 \
        s0 = rec_stamp();                                                      \
        r = CALL_REAL(EOF, real, f, fmt, ap);                                  \
        s1 = rec_stamp();                                                      \
        rec_stdio(IOT_OP_FSCANF, f, 0, 0, r,                                   \
                  stream_err(f, r == EOF, errno), s0, s1);                     \
        return r;                                                              \
    }

/*
 * stdio.h renames fscanf to __isoc99_fscanf: name the symbols explicitly.
 * The v-forms are wrapped too: sanitizer runtimes implement fscanf with them.
 */
WRAP_VFSCANF(rec_vfscanf_old, "vfscanf", vfscanf)
WRAP_VFSCANF(rec_vfscanf_c99, "__isoc99_vfscanf", __isoc99_vfscanf)
WRAP_FSCANF(rec_fscanf_old, "fscanf", vfscanf)
WRAP_FSCANF(rec_fscanf_c99, "__isoc99_fscanf", __isoc99_vfscanf)

/* ------------------------------------------------------ open and close */

/* The buffer a new stream will get: st_blksize, line-buffered on a tty. */
static void default_buffer(int fd, struct iot_event *ev)
{
    struct stat st;

    if (fd < 0 || syscall(SYS_fstat, fd, &st) != 0)
        return;
    ev->has |= IOT_HAS_SIZE | IOT_HAS_BUFMODE;
    ev->size = st.st_blksize > 0 ? st.st_blksize : BUFSIZ;
    ev->bufmode = IOT_BUF_FULL;
    if (S_ISCHR(st.st_mode)) {
        unsigned maj = major(st.st_rdev);

        if (maj == 4 || maj == 5 || (maj >= 136 && maj <= 143))
            ev->bufmode = IOT_BUF_LINE;
    }
}

/*
 * fopen's path made absolute against the cwd, so sessions of one file match
 * whatever directory the program was in: the cwd from a raw syscall (no
 * wrapper runs), joined by iot_path_join. path itself when it is absolute
 * or empty, or when the cwd is unknown; without its leading "./" when the
 * result would not fit.
 */
static const char *path_from_cwd(const char *path, char *buf, size_t cap)
{
    size_t n;

    if (!path || path[0] == '/' || path[0] == '\0')
        return path;
    if (syscall(SYS_getcwd, buf, cap) <= 0)
        return path;
    n = strlen(buf);
    return iot_path_join(buf, cap, n, path) ? buf : path;
}

/* fopen-like calls: ret is the stream id, or -1 with errno. */
static void rec_fopen(unsigned op, const char *path, const char *mode,
                      int fd_in, FILE *r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    char buf[PATH_MAX + 64];
    struct rec_thread *t;
    const char *stack, *abs;
    int fd;

    if (rec_guard == REC_GUARD_OFF)
        return;
    fd = r ? stream_fd(r) : fd_in;
    ev.op = (uint8_t)op;
    ev.has = (fd >= 0 ? IOT_HAS_FD : 0) | (r ? IOT_HAS_STREAM : 0) |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = r ? stream_id(r) : 0;
    ev.ret = r ? (int64_t)stream_id(r) : -1;
    ev.err = err;
    if (r)
        default_buffer(fd, &ev);
    abs = path_from_cwd(path, buf, sizeof(buf));
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
        r = CALL_REAL(NULL, name, path, mode);                                 \
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
        return CALL_REAL(NULL, fdopen, fd, mode);
    s0 = rec_stamp();
    r = CALL_REAL(NULL, fdopen, fd, mode);
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
        r = CALL_REAL(NULL, name);                                             \
        s1 = rec_stamp();                                                      \
        rec_fopen(IOT_OP_TMPFILE, NULL, "w+b", -1, r, r ? 0 : errno, s0, s1);  \
        return r;                                                              \
    }

WRAP_TMPFILE(tmpfile)
WRAP_TMPFILE(tmpfile64)

int fclose(FILE *f)
{
    struct iot_event ev = { 0 };
    struct stat st;
    uint64_t s0, s1;
    int fd, r;

    if (!rec_active || rec_guard == REC_GUARD_OFF || !f ||
        (fd = stream_fd(f)) < 0)
        return CALL_REAL(EOF, fclose, f);
    if (syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode)) {
        ev.has |= IOT_HAS_FILE_SIZE;
        ev.file_size = (int64_t)st.st_size;
    }
    ev.stream = stream_id(f);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, fclose, f);
    s1 = rec_stamp();
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

int fflush(FILE *f)
{
    uint64_t s0, s1;
    int r;

    if (!rec_active)
        return CALL_REAL(EOF, fflush, f);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, fflush, f);
    s1 = rec_stamp();
    rec_stdio(IOT_OP_FFLUSH, f, 0, 0, r, r == EOF ? (errno ? errno : EIO) : 0,
              s0, s1);
    return r;
}

static void rec_setvbuf(FILE *f, int mode, size_t size, int r, int err,
                        uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    int fd = stream_fd(f);

    if (fd < 0)
        return;
    ev.op = IOT_OP_SETVBUF;
    ev.has = IOT_HAS_FD | IOT_HAS_STREAM | IOT_HAS_SIZE | IOT_HAS_BUFMODE |
             (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.stream = stream_id(f);
    ev.bufmode = mode == _IONBF ? IOT_BUF_NONE
                 : mode == _IOLBF ? IOT_BUF_LINE : IOT_BUF_FULL;
    ev.size = mode == _IONBF ? 0 : (int64_t)size;
    ev.ret = r;
    ev.err = err;
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
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
    rec_setvbuf(f, mode, size, r, r ? (errno ? errno : EINVAL) : 0, s0, s1);
    return r;
}

void setbuf(FILE *f, char *buf)
{
    uint64_t s0 = rec_stamp(), s1;

    if (REAL(setbuf))
        real_setbuf(f, buf);
    s1 = rec_stamp();
    if (rec_active)
        rec_setvbuf(f, buf ? _IOFBF : _IONBF, BUFSIZ, 0, 0, s0, s1);
}

/* ---------------------------------------------------------------- seeks */

static void rec_fseek(FILE *f, int64_t off, int whence, int r, int err,
                      uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };
    int fd = stream_fd(f);

    if (fd < 0)
        return;
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
}

#define WRAP_FSEEK(name, otype)                                                \
    int name(FILE *f, otype off, int whence)                                   \
    {                                                                          \
        WRAP_BODY(int, -1, name,                                               \
                  rec_fseek(f, (int64_t)off, whence, r, r ? errno : 0, s0,     \
                            s1),                                               \
                  f, off, whence);                                             \
    }

WRAP_FSEEK(fseek, long)
WRAP_FSEEK(fseeko, off_t)
WRAP_FSEEK(fseeko64, off64_t)

void rewind(FILE *f)
{
    uint64_t s0 = rec_stamp(), s1;

    if (REAL(rewind))
        real_rewind(f);
    s1 = rec_stamp();
    if (rec_active)
        rec_fseek(f, 0, SEEK_SET, 0, 0, s0, s1);
}

#define WRAP_FTELL(rtype, name)                                                \
    rtype name(FILE *f)                                                        \
    {                                                                          \
        WRAP_BODY(rtype, -1, name,                                             \
                  rec_stdio(IOT_OP_FTELL, f, 0, 0, (int64_t)r,                 \
                            r < 0 ? errno : 0, s0, s1),                        \
                  f);                                                          \
    }

WRAP_FTELL(long, ftell)
WRAP_FTELL(off_t, ftello)
WRAP_FTELL(off64_t, ftello64)
