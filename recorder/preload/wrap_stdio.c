/*
 * wrap_stdio.c - the stdio layer's data calls (fread, fwrite, getc, putc,
 * fgets, getline, ... and the inline macros' __overflow/__uflow), the
 * standard streams' announcement and the inline-mark table; the calls that
 * open, close, flush, buffer and seek a stream are wrap_stdio_open.c's.
 * glibc's stdio never goes through the interposable read/write/open/close
 * symbols, so FILE * calls are recorded here, as the program issued them;
 * the analyzer models the buffering.
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

/* With optimisation glibc defines some of these as macros; we define them. */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef getc
#undef putc
#undef fgetc
#undef fputc
#undef getline
#undef getc_unlocked
#undef putc_unlocked
#undef getchar_unlocked
#undef putchar_unlocked
#undef fgetc_unlocked
#undef fputc_unlocked
#undef getchar
#undef putchar

struct stream_mark rec_stdio_marks[MARKS];

unsigned rec_std_unannounced = 7;

void rec_stdio_default_buffer(int fd, struct iot_event *ev)
{
    struct stat st;
    int saved = errno;
    long bad;

    if (fd < 0 || rec_filter_may_stand())
        return;
    bad = syscall(SYS_fstat, fd, &st);
    errno = saved;   /* the stream's call succeeded: its errno stands */
    if (bad)
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

void rec_stdio_mark_forget(FILE *f)
{
    if (f) {
        if (mark_of(f)->f == f)
            mark_of(f)->f = NULL;
        return;
    }
    memset(rec_stdio_marks, 0, sizeof(rec_stdio_marks));
    mark_stream(stdout);
    mark_stream(stderr);
}

void rec_std_announce(FILE *f, uint64_t s0)
{
    struct iot_event ev = { 0 };
    unsigned bit = f == stdin ? 1 : f == stdout ? 2 : f == stderr ? 4 : 0;
    int fd;

    if (!bit || !(__atomic_fetch_and(&rec_std_unannounced, ~bit,
                                     __ATOMIC_RELAXED) & bit))
        return;
    fd = fileno_unlocked(f);
    if (fd < 0)
        return;
    if (rec_fd_unseen(fd))
        rec_fd_name(fd, s0);    /* before the announcement, in time too */
    ev.op = IOT_OP_FDOPEN;
    ev.has = IOT_HAS_FD | IOT_HAS_MODE | IOT_HAS_STREAM;
    ev.fd = fd;
    ev.stream = stream_id(f);
    ev.ret = (int64_t)ev.stream;
    if (bit == 4) {
        ev.has |= IOT_HAS_SIZE | IOT_HAS_BUFMODE;
        ev.size = 0;
        ev.bufmode = IOT_BUF_NONE;
    } else {
        rec_stdio_default_buffer(fd, &ev);
    }
    rec_call(&ev, NULL, bit == 1 ? "r" : "w", NULL, s0, s0);
}

void rec_stdio(unsigned op, FILE *f, uint32_t more, int64_t size, int64_t ret,
               int err, uint64_t s0, uint64_t s1)
{
    stdio_rec(op, f, more, size, ret, err, s0, s1);
}

void rec_stdio_pre(FILE *f, uint64_t t)
{
    struct stream_mark *m;
    int64_t put, got;
    int have;

    /* a wide stream's byte buffer moves inside libc, not by inline code */
    if (!f || f->_mode > 0)
        return;
    m = mark_of(f);
    have = m->f == f;
    put = moved_since(f->_IO_write_base, f->_IO_write_ptr, m->w, have);
    got = moved_since(f->_IO_read_base, f->_IO_read_ptr, m->r, have);
    if (REC_LIKELY(!(put | got)) || stream_fd(f) < 0)
        return;
    if (put)
        rec_stdio(IOT_OP_INLINE_PUT, f, IOT_HAS_SIZE, put, put, 0, t, t);
    if (got)
        rec_stdio(IOT_OP_INLINE_GET, f, IOT_HAS_SIZE, got, got, 0, t, t);
}

/* ------------------------------------------------------- untimed repeats */

/*
 * A fread, fwrite, getc or putc that only copies to or from the stream's
 * buffer costs about as much natively as the two clock reads around a
 * recorded call. So when such a call repeats the thread's previous call
 * (same op, stream and size, every byte moved last time) it is recorded as
 * an untimed repeat (docs/trace-format.md 5.12): no stamps, two bytes,
 * published at once like any record, so its place among the thread's calls
 * stays exact and a kill loses it no more than a timed one. Its time is
 * the previous call's end and its duration 0. A call that reaches the file
 * (a flush or a refill) is always timed: the check before it makes sure
 * the buffer alone can serve it, and nothing else can move the buffer
 * until the call has (WRAP_UNTIMED).
 */

/* Of the ops that may be untimed repeats: those that take bytes out of the
   buffer (the others put them in). */
static inline int op_reads(unsigned op)
{
    return op == IOT_OP_FREAD || op == IOT_OP_FGETC;
}

/* The thread's previous call was op of `bytes` on f, and moved them all. */
static inline int repeats_prev(const struct iot_enc *e, unsigned op, FILE *f,
                               int64_t bytes)
{
    const struct iot_event *pv = &e->prev;

    return e->have_prev && pv->op == op && pv->stream == stream_id(f) &&
           pv->size == bytes && pv->ret == bytes &&
           (pv->has & ~IOT_HAS_STACK) == (IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_STREAM);
}

/* Where op moves f's buffer pointer. */
static inline char *buffer_at(FILE *f, unsigned op)
{
    return op_reads(op) ? f->_IO_read_ptr : f->_IO_write_ptr;
}

/*
 * Whether a call of op moving `bytes` on f, made by thread t with the guard
 * held, may be an untimed repeat: it repeats t's previous call, nothing
 * moved f's buffer since the recorder last saw it (no inline getc/putc to
 * record first), and the buffer alone can serve it (byte stream, fully
 * buffered, in the direction of op, with room or data enough). Returns f's
 * mark then, else NULL. The guard must be held: a signal handler's call
 * recorded between this check and the append would become the previous
 * call the repeat repeats.
 */
static inline struct stream_mark *untimed_ready(const struct rec_thread *t,
                                                FILE *f, unsigned op,
                                                size_t bytes)
{
    struct stream_mark *m;
    int fl;

    if (!f || bytes == 0 || bytes > INT32_MAX ||
        !repeats_prev(&t->enc, op, f, (int64_t)bytes))
        return NULL;
    m = mark_of(f);
    if (m->f != f || m->w != f->_IO_write_ptr || m->r != f->_IO_read_ptr ||
        f->_mode > 0)
        return NULL;
    fl = f->_flags;
    if (op_reads(op))
        return !(fl & LIBIO_CURRENTLY_PUTTING) &&
               f->_IO_read_end - f->_IO_read_ptr >= (ptrdiff_t)bytes ? m : NULL;
    return (fl & (LIBIO_UNBUFFERED | LIBIO_LINE_BUF |
                  LIBIO_CURRENTLY_PUTTING)) == LIBIO_CURRENTLY_PUTTING &&
           f->_IO_write_end - f->_IO_write_ptr >= (ptrdiff_t)bytes ? m : NULL;
}

/* The mark of a stream whose pointer for op now stands at `after`. */
static inline void mark_moved(struct stream_mark *m, unsigned op, char *after)
{
    if (op_reads(op))
        m->r = after;
    else
        m->w = after;
}

/*
 * The guard is held, and nothing but the call itself can move f's buffer
 * until it is made (a single thread, or f's lock held). If the call is an
 * untimed repeat (untimed_ready) that nothing would stop (`sure`: a _chk
 * form's bound passes) and no work is due on the way out, append it,
 * publish it and move f's mark to where the call will leave the pointer:
 * 1. Else nothing is appended: 0.
 */
static inline __attribute__((always_inline)) int
untimed_append(struct rec_thread *t, FILE *f, unsigned op,
               size_t bytes, int sure)
{
    struct stream_mark *m = untimed_ready(t, f, op, bytes);

    if (!m || !sure || rec_leave_due(t) ||
        iot_enc_repeat_untimed(&t->enc) != 0)
        return 0;
    rec_publish(t);
    mark_moved(m, op, buffer_at(f, op) + bytes);
    return 1;
}

/*
 * A wrapper whose calls may be untimed repeats. op moves `bytes` on f;
 * `sure` says the real call has no check of its own that could stop it (a
 * _chk form's bound); size, ret and err are what stdio_rec records of a
 * timed call; `solo` is the function an untimed repeat calls: the real
 * one, or its lock-free twin (real.h's REAL_SOLO_PAIRS).
 *
 * An untimed repeat is appended before the call: once the check has
 * passed, nothing but the call itself can move f's buffer, and a call the
 * buffer alone serves is a copy that moves the pointer by `bytes` and
 * succeeds (glibc's xsputn/xsgetn and the getc/putc macros). Nothing else
 * can move it in a single-threaded process (glibc's __libc_single_threaded,
 * which also lets stdio skip the stream locks), nor in an _unlocked form's
 * call (locks = 0: its caller keeps other threads off the stream). A
 * locking form in a process with threads holds f's lock (rec_stream_hold:
 * flockfile, recursive like stdio's own) from before the check until the
 * call is done, and calls the lock-free twin inside it, as glibc's
 * locking forms do; on a stream whose caller does the locking
 * (FSETLOCKING_BYCALLER) it takes no lock and is timed. The guard is taken
 * before the check and dropped before the real call.
 *
 * name: the path without a lock, which ends in a tail call of `solo`.
 * Every other way out is a tail call too, so that the path has no frame:
 * name_threaded (the path with f's lock), name_unready (the check failed
 * or work is due: leave the recorder, then the timed body) and
 * name_drained (a handler deferred a call as the guard dropped: append
 * it, then the real call).
 * name_timed: the timed body (STDIO_BODY), for every call that is not an
 * untimed repeat.
 */
#define WRAP_UNTIMED(rtype, fail, name, locks, solo, op, params, f, bytes,      \
                     sure, size, ret, err, ...)                                \
    static __attribute__((noinline)) rtype name##_timed params                 \
    {                                                                          \
        STDIO_BODY(locks, rtype, fail, name, f,                                \
                   stdio_rec(op, f, IOT_HAS_SIZE, (size), (ret), (err),        \
                             s0, s1),                                          \
                   __VA_ARGS__);                                               \
    }                                                                          \
    static __attribute__((noinline)) rtype name##_unready params               \
    {                                                                          \
        rec_leave();                                                           \
        return name##_timed(__VA_ARGS__);                                      \
    }                                                                          \
    static __attribute__((noinline)) rtype name##_drained params               \
    {                                                                          \
        rec_leave_slow(rec_self);                                              \
        return (solo)(__VA_ARGS__);                                            \
    }                                                                          \
    static __attribute__((noinline, unused)) rtype name##_threaded params      \
    {                                                                          \
        struct rec_thread *t = rec_self;                                       \
        rtype r;                                                               \
        if (REC_UNLIKELY(!rec_active) || !t || rec_guard || !(solo) ||         \
            !rec_stream_hold(1, f))                                            \
            return name##_timed(__VA_ARGS__);                                  \
        rec_hold(t);                                                           \
        if (!untimed_append(t, f, op, (bytes), (sure))) {                      \
            rec_stream_release(f, 1);   /* before any due work */              \
            rec_leave_as(t);                                                   \
            return name##_timed(__VA_ARGS__);                                  \
        }                                                                      \
        rec_leave_as(t);                                                       \
        r = (solo)(__VA_ARGS__);                                               \
        rec_stream_release(f, 1);                                              \
        return r;                                                              \
    }                                                                          \
    rtype name params                                                          \
    {                                                                          \
        struct rec_thread *t = rec_self;                                       \
        if (REC_UNLIKELY(!__libc_single_threaded) && (locks))                  \
            return name##_threaded(__VA_ARGS__);                               \
        if (REC_UNLIKELY(!rec_active) || !t || rec_guard)                      \
            return name##_timed(__VA_ARGS__);                                  \
        rec_hold(t);                                                           \
        if (!(solo) || !untimed_append(t, f, op, (bytes), (sure)))             \
            return name##_unready(__VA_ARGS__);                                \
        rec_guard_drop();                                                      \
        if (REC_UNLIKELY(rec_deferred_since(t)))                               \
            return name##_drained(__VA_ARGS__);                                \
        return (solo)(__VA_ARGS__);                                            \
    }

/* ------------------------------------------------------------ data calls */

/* fread and fwrite: size = size x n, ret = items x size. */
#define WRAP_STDIO_DATA(name, locks, solo, op, params, sz, n, sure, f, ...)    \
    WRAP_UNTIMED(size_t, 0, name, locks, solo, op, params, f,                  \
                 (size_t)(sz) * (n), sure, (int64_t)((sz) * (n)),              \
                 (int64_t)(r * (sz)), rec_stream_err(f, r < (n)), __VA_ARGS__)

/* __fread_chk's own checks pass: sz x n neither overflows nor exceeds pl. */
#define FREAD_CHK_PASSES(pl, sz, n)                                            \
    ((sz) <= INT32_MAX && (n) <= INT32_MAX && (size_t)(sz) * (n) <= (pl))

WRAP_STDIO_DATA(fread, 1, solo_fread, IOT_OP_FREAD,
                (void *p, size_t sz, size_t n, FILE *f), sz, n, 1, f,
                p, sz, n, f)
WRAP_STDIO_DATA(fread_unlocked, 0, real_fread_unlocked, IOT_OP_FREAD,
                (void *p, size_t sz, size_t n, FILE *f), sz, n, 1, f,
                p, sz, n, f)
WRAP_STDIO_DATA(__fread_chk, 1, solo___fread_chk, IOT_OP_FREAD,
                (void *p, size_t pl, size_t sz, size_t n, FILE *f), sz, n,
                FREAD_CHK_PASSES(pl, sz, n), f, p, pl, sz, n, f)
WRAP_STDIO_DATA(__fread_unlocked_chk, 0, real___fread_unlocked_chk,
                IOT_OP_FREAD,
                (void *p, size_t pl, size_t sz, size_t n, FILE *f), sz, n,
                FREAD_CHK_PASSES(pl, sz, n), f, p, pl, sz, n, f)
WRAP_STDIO_DATA(fwrite, 1, solo_fwrite, IOT_OP_FWRITE,
                (const void *p, size_t sz, size_t n, FILE *f), sz, n, 1, f,
                p, sz, n, f)
WRAP_STDIO_DATA(fwrite_unlocked, 0, real_fwrite_unlocked, IOT_OP_FWRITE,
                (const void *p, size_t sz, size_t n, FILE *f), sz, n, 1, f,
                p, sz, n, f)

#define WRAP_FGETS(name, locks, params, f, n, ...)                             \
    char *name params                                                          \
    {                                                                          \
        STDIO_BODY(locks, char *, NULL, name, f,                               \
                  stdio_rec(IOT_OP_FGETS, f, IOT_HAS_SIZE, (int64_t)(n),       \
                            r ? (int64_t)strlen(r) : 0,                        \
                            rec_stream_err(f, !r), s0, s1),             \
                  __VA_ARGS__);                                                \
    }

WRAP_FGETS(fgets, 1, (char *s, int n, FILE *f), f, n, s, n, f)
WRAP_FGETS(fgets_unlocked, 0, (char *s, int n, FILE *f), f, n, s, n, f)
WRAP_FGETS(__fgets_chk, 1, (char *s, size_t sl, int n, FILE *f), f, n,
           s, sl, n, f)
WRAP_FGETS(__fgets_unlocked_chk, 0, (char *s, size_t sl, int n, FILE *f), f,
           n, s, sl, n, f)

#define WRAP_GETC(name, locks)                                                 \
    WRAP_UNTIMED(int, EOF, name, locks, real_##name, IOT_OP_FGETC, (FILE *f),  \
                 f, 1, 1, 1, r == EOF ? 0 : 1, rec_stream_err(f, r == EOF), f)

WRAP_GETC(fgetc, 1)
WRAP_GETC(getc, 1)
WRAP_GETC(_IO_getc, 1)

#define WRAP_PUTC(name, locks)                                                 \
    WRAP_UNTIMED(int, EOF, name, locks, real_##name, IOT_OP_FPUTC,             \
                 (int c, FILE *f), f, 1, 1, 1, r == EOF ? -1 : 1,              \
                 r == EOF ? (errno ? errno : EIO) : 0, c, f)

WRAP_PUTC(fputc, 1)
WRAP_PUTC(putc, 1)
WRAP_PUTC(_IO_putc, 1)

int fputs(const char *s, FILE *f)
{
    STDIO_BODY(1, int, EOF, fputs, f,
               stdio_rec(IOT_OP_FPUTS, f, IOT_HAS_SIZE, (int64_t)strlen(s),
                         r == EOF ? -1 : (int64_t)strlen(s),
                         r == EOF ? (errno ? errno : EIO) : 0, s0, s1),
               s, f);
}

int puts(const char *s)
{
    /* puts adds the newline. */
    STDIO_BODY(1, int, EOF, puts, stdout,
               stdio_rec(IOT_OP_FPUTS, stdout, IOT_HAS_SIZE,
                         (int64_t)strlen(s) + 1,
                         r == EOF ? -1 : (int64_t)strlen(s) + 1,
                         r == EOF ? (errno ? errno : EIO) : 0, s0, s1),
               s);
}

#define WRAP_GETDELIM(name, params, f, ...)                                    \
    ssize_t name params                                                        \
    {                                                                          \
        /* The bytes wanted are not known in advance: size = bytes read. */    \
        STDIO_BODY(1, ssize_t, -1, name, f,                                    \
                  stdio_rec(IOT_OP_GETDELIM, f, IOT_HAS_SIZE, r > 0 ? r : 0,   \
                            r > 0 ? r : 0, rec_stream_err(f, r < 0),    \
                            s0, s1),                                           \
                  __VA_ARGS__);                                                \
    }

WRAP_GETDELIM(getline, (char **l, size_t *n, FILE *f), f, l, n, f)
WRAP_GETDELIM(getdelim, (char **l, size_t *n, int d, FILE *f), f, l, n, d, f)
WRAP_GETDELIM(__getdelim, (char **l, size_t *n, int d, FILE *f), f, l, n, d, f)

/* The *_unlocked and implicit-stream forms, which glibc exports too. */
REAL_HERE(int, getc_unlocked, (FILE *));
REAL_HERE(int, fgetc_unlocked, (FILE *));
REAL_HERE(int, getchar, (void));
REAL_HERE(int, getchar_unlocked, (void));
REAL_HERE(int, putc_unlocked, (int, FILE *));
REAL_HERE(int, fputc_unlocked, (int, FILE *));
REAL_HERE(int, putchar, (int));
REAL_HERE(int, putchar_unlocked, (int));
REAL_HERE(int, fputs_unlocked, (const char *, FILE *));
REAL_HERE(int, fflush_unlocked, (FILE *));

WRAP_GETC(getc_unlocked, 0)
WRAP_GETC(fgetc_unlocked, 0)
WRAP_PUTC(putc_unlocked, 0)
WRAP_PUTC(fputc_unlocked, 0)

#define WRAP_GETCHAR(name, locks)                                              \
    int name(void)                                                             \
    {                                                                          \
        STDIO_BODY(locks, int, EOF, name, stdin,                               \
                   stdio_rec(IOT_OP_FGETC, stdin, IOT_HAS_SIZE, 1,             \
                             r == EOF ? 0 : 1,                                 \
                             rec_stream_err(stdin, r == EOF), s0, s1),  \
                   );                                                          \
    }

#define WRAP_PUTCHAR(name, locks)                                              \
    int name(int c)                                                            \
    {                                                                          \
        STDIO_BODY(locks, int, EOF, name, stdout,                              \
                   stdio_rec(IOT_OP_FPUTC, stdout, IOT_HAS_SIZE, 1,            \
                             r == EOF ? -1 : 1,                                \
                             r == EOF ? (errno ? errno : EIO) : 0, s0, s1),    \
                   c);                                                         \
    }

WRAP_GETCHAR(getchar, 1)
WRAP_GETCHAR(getchar_unlocked, 0)
WRAP_PUTCHAR(putchar, 1)
WRAP_PUTCHAR(putchar_unlocked, 0)

int fputs_unlocked(const char *s, FILE *f)
{
    STDIO_BODY(0, int, EOF, fputs_unlocked, f,
               stdio_rec(IOT_OP_FPUTS, f, IOT_HAS_SIZE, (int64_t)strlen(s),
                         r == EOF ? -1 : (int64_t)strlen(s),
                         r == EOF ? (errno ? errno : EIO) : 0, s0, s1),
               s, f);
}

/* --------------------------------------------- the inline macros' calls */

REAL_HERE(int, __overflow, (FILE *, int));
REAL_HERE(int, __uflow, (FILE *));
REAL_HERE(int, __underflow, (FILE *));

/* Settle stdout and stderr at exit: what inline code left in their buffers
   reaches the file when exit flushes them, after our wrappers are done. */
static void inline_at_exit(void)
{
    if (rec_active) {
        rec_stdio_pre(stdout, rec_stamp());
        rec_stdio_pre(stderr, rec_stamp());
    }
}

/* Inline code is at work in this process: settle stdout/stderr at exit. */
static void inline_seen(void)
{
    static int registered;

    if (REC_UNLIKELY(!__atomic_load_n(&registered, __ATOMIC_RELAXED)) &&
        !__atomic_exchange_n(&registered, 1, __ATOMIC_RELAXED))
        atexit(inline_at_exit);
}

/*
 * The program's inline putc found the buffer full (or unbuffered, or not
 * yet allocated): the bytes it put there since the recorder last looked,
 * and ch, are one inline_put (glibc's own calls of __overflow are internal
 * and never come here).
 */
int __overflow(FILE *f, int ch)
{
    struct stream_mark *m;
    uint64_t s0, s1;
    int64_t put;
    int r;

    if (!rec_active || !f)
        return CALL_REAL(EOF, __overflow, f, ch);
    inline_seen();
    m = mark_of(f);
    put = moved_since(f->_IO_write_base, f->_IO_write_ptr, m->w, m->f == f);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, __overflow, f, ch);
    s1 = rec_stamp();
    if (r == EOF && ch != EOF)
        stdio_rec(IOT_OP_INLINE_PUT, f, IOT_HAS_SIZE, put + 1, -1,
                  errno ? errno : EIO, s0, s1);
    else if (put + (ch != EOF) > 0)
        stdio_rec(IOT_OP_INLINE_PUT, f, IOT_HAS_SIZE, put + (ch != EOF),
                  put + (ch != EOF), 0, s0, s1);
    else
        mark_stream(f);
    return r;
}

/* The program's inline getc found the buffer empty: the bytes it took
   since the recorder last looked, and the one __uflow returns. */
int __uflow(FILE *f)
{
    struct stream_mark *m;
    uint64_t s0, s1;
    int64_t got;
    int r;

    if (!rec_active || !f)
        return CALL_REAL(EOF, __uflow, f);
    inline_seen();
    m = mark_of(f);
    got = moved_since(f->_IO_read_base, f->_IO_read_ptr, m->r, m->f == f);
    s0 = rec_stamp();
    r = CALL_REAL(EOF, __uflow, f);
    s1 = rec_stamp();
    got += r != EOF;
    stdio_rec(IOT_OP_INLINE_GET, f, IOT_HAS_SIZE, got, got,
              rec_stream_err(f, r == EOF), s0, s1);
    return r;
}

/* A peek: what inline code took before it, none itself. */
int __underflow(FILE *f)
{
    int r;

    if (!rec_active || !f)
        return CALL_REAL(EOF, __underflow, f);
    rec_stdio_pre(f, rec_stamp());
    r = CALL_REAL(EOF, __underflow, f);
    mark_stream(f);
    return r;
}
