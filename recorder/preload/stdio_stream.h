/*
 * stdio_stream.h - what the stdio wrapper files (wrap_stdio.c, the data
 * calls; wrap_stdio_open.c, the calls that open, close, flush, buffer and
 * seek a stream) share about a stream: its id and fd, the marks that find
 * what inline getc/putc moved, the announcement of the standard streams,
 * and the inline record builder of their hot path.
 */
#ifndef REC_STDIO_STREAM_H
#define REC_STDIO_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "rec.h"
#include "wrap.h"

#pragma GCC visibility push(hidden)

static inline uint64_t stream_id(FILE *f)
{
    return (uint64_t)(uintptr_t)f >> 4;   /* FILE objects are 16-aligned */
}

static inline int stream_fd(FILE *f)
{
    return f ? fileno_unlocked(f) : -1;
}

/*
 * Inline getc/putc. With optimisation, glibc's getc_unlocked,
 * putc_unlocked and their kin are inline code in the program that moves
 * bytes in and out of the stream's buffer and calls __uflow/__overflow only
 * when the buffer runs empty or full. So after every call the recorder sees
 * on a stream, it keeps where the stream's buffer pointers stood; the next
 * time it sees the stream, bytes beyond that mark were moved inline, and
 * are recorded (inline_put, inline_get) before the call. A small direct-
 * mapped table shared by all threads: a stream whose mark another stream
 * took (the same slot) or tore (two threads at once) counts nothing the
 * next time, which can miss inline bytes but never invents them. A new
 * stream needs no mark: inline code finds its buffer unallocated and calls
 * __overflow/__uflow first.
 */
#define MARKS 256

struct stream_mark {
    FILE *f;
    char *w;        /* _IO_write_ptr after the last call seen */
    char *r;        /* _IO_read_ptr */
};

extern struct stream_mark rec_stdio_marks[MARKS];

static inline struct stream_mark *mark_of(FILE *f)
{
    uintptr_t a = (uintptr_t)f >> 4;

    return &rec_stdio_marks[(a ^ (a >> 8)) & (MARKS - 1)];
}

static inline void mark_stream(FILE *f)
{
    struct stream_mark *m = mark_of(f);

    m->f = f;
    m->w = f->_IO_write_ptr;
    m->r = f->_IO_read_ptr;
}

/*
 * f is gone (fclose), or NULL: fflush(NULL) emptied every buffer, so every
 * mark is stale; those of stdout and stderr are made again.
 */
void rec_stdio_mark_forget(FILE *f);

/* Bytes between the mark and cur, when f's mark is whole and in [base, cur]. */
static inline int64_t moved_since(const char *base, const char *cur,
                                  const char *mark, int have)
{
    return have && base && mark >= base && mark < cur ? cur - mark : 0;
}

/* stdin, stdout and stderr not yet announced (bits 1, 2, 4; fork keeps them) */
extern unsigned rec_std_unannounced;

/* The buffer a new stream will get: st_blksize, line-buffered on a tty. */
void rec_stdio_default_buffer(int fd, struct iot_event *ev);

/*
 * The standard streams are not opened by the program: the first call the
 * recorder sees on one announces it as an fdopen of its inherited fd, with
 * the buffer glibc gives it (stderr: none), so it gets a session.
 */
void rec_std_announce(FILE *f, uint64_t s0);

/*
 * Record a stdio call on f. err: errno to store, 0 for none. Inlined into
 * the stdio wrappers (a call less on a 20 ns fwrite); rec_stdio is the
 * same for the other wrapper files.
 */
static inline __attribute__((always_inline)) void
stdio_rec_at(unsigned op, FILE *f, uint32_t more, int64_t size, int64_t ret,
             int err, uint64_t s0, uint64_t s1, const void *ra)
{
    struct iot_event ev;
    int fd = stream_fd(f);

    if (f && fd < 0)
        return;
    /* the pointers compared before any call: most streams are none of them */
    if (REC_UNLIKELY(__atomic_load_n(&rec_std_unannounced, __ATOMIC_RELAXED)) &&
        (f == stdout || f == stderr || f == stdin))
        rec_std_announce(f, s0);
    if (REC_LIKELY(f && more == IOT_HAS_SIZE)) {
        /* fread, fwrite and their kin: the inline path */
        rec_data_at(op, fd, stream_id(f), size, ret, err, s0, s1, ra);
        mark_stream(f);
        return;
    }
    /*
     * Only the members `has` names are read (and op, has, ret, err): not
     * zeroing the other ~150 bytes.
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
    if (f)
        mark_stream(f);
}

/* stdio_rec_at from a wrapper: its caller's site (site.h) decides the stack. */
#define stdio_rec(...) stdio_rec_at(__VA_ARGS__, __builtin_return_address(0))

#pragma GCC visibility pop

#endif
