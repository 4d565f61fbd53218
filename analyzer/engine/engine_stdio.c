/*
 * stdio streams (engine_int.h): each refers to a session like an fd does,
 * keeps its own position, and models its buffer: every stdio data call is
 * turned into the syscalls it would cause (the session's eff_ops and
 * eff_bytes), from the buffer's size and mode.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"

#define DEFAULT_STDIO_BUF 4096  /* when fopen did not say */

struct stdio_stream {
    struct ofd *o;              /* holds a reference; NULL: its fd names no file */
    int32_t fd;
    int64_t pos;                /* -1 unknown */
    int64_t bufsize;            /* 0 unbuffered */
    int64_t defsize;            /* the buffer glibc would allocate (fopen's size) */
    int bufmode;
    int append;
    int64_t pending;            /* bytes written into the buffer, not yet flushed */
    int64_t avail;              /* bytes read into the buffer, not yet consumed */
    int putting;                /* written since it was opened, read or sought: its
                                   buffer is set up for writing (glibc's write_end) */
    int readable;               /* opened "r" or "+": fseek reads back a block */
    int64_t wbase;              /* where in the buffer the pending bytes start */
    int64_t rlen, rptr;         /* the buffer's read data and the place read to
                                   (glibc's read_end and read_ptr); 0 none */
    int64_t rfile;              /* the file offset of the buffer's read data, -1 unknown */
    int64_t wfile;              /* the file offset the pending bytes go to, -1 unknown */
    int64_t fsize;              /* the file's size as the stream's writes made it, -1 unknown */
};

static struct stdio_stream *stdio_stream_get(struct engine_proc *p, const struct iot_event *ev)
{
    if (!(ev->has & IOT_HAS_STREAM))
        return NULL;
    return hmap_get(&p->streams, ev->stream);
}

static void stdio_stream_drop(struct engine *e, struct stdio_stream *s, int64_t t, int end)
{
    if (s->o)
        ofd_unref(e, s->o, t, end);
    free(s);
}

/*
 * The session a stream's calls go to now: the one its fd names. A FILE
 * writes to its fd number, whatever that names when it flushes: a shell
 * moves stdout from file to file with dup2 onto fd 1 (`echo x > f`), and
 * stdout may start on a pipe (no session) and be moved onto a file. NULL
 * when the fd names no file.
 */
static struct ofd *stdio_stream_ofd(struct engine *e, struct engine_proc *p,
                                    struct stdio_stream *s, int64_t t)
{
    struct ofd *cur;

    if (s->fd < 0)
        return s->o;
    cur = engine_fd_ofd(p, s->fd);
    if (cur == s->o)
        return cur;
    if (s->o)
        ofd_unref(e, s->o, t, RULE_END_CLOSE);
    s->o = cur;
    s->pending = s->avail = 0;
    s->putting = 0;
    if (cur) {
        cur->refs++;
        cur->s.layer = RULE_LAYER_STDIO;
        cur->s.stream_buffer = s->bufsize;
        cur->s.bufmode = s->bufmode;
    }
    return cur;
}

/* A syscall the stream makes: counted into the session's effective figures. */
static void stdio_stream_syscall(struct stdio_stream *s, int64_t bytes)
{
    s->o->s.eff_ops++;
    SADD(s->o->s.eff_bytes, bytes);
    s->o->s.eff_last_bytes = bytes;
}

/* A write(2) the stream makes: after it glibc's write area starts at the
   buffer's start again, and the file may have grown. */
static void stdio_stream_write(struct stdio_stream *s, int64_t bytes)
{
    stdio_stream_syscall(s, bytes);
    s->wbase = 0;
    if (s->wfile >= 0) {
        SADD(s->wfile, bytes);
        if (s->fsize >= 0 && s->wfile > s->fsize)
            s->fsize = s->wfile;
    }
}

/* The buffer no longer holds data read from the file. */
static void stdio_stream_unread(struct stdio_stream *s)
{
    s->avail = s->rlen = s->rptr = 0;
}

static void stdio_stream_flush(struct stdio_stream *s)
{
    if (s->pending > 0)
        stdio_stream_write(s, s->pending);
    s->pending = 0;
    stdio_stream_unread(s);
}

/*
 * What one stdio data call costs below the buffer: unbuffered streams make a
 * syscall per call; line-buffered writes are flushed per call (we do not see
 * the bytes, so a newline is assumed); fully buffered streams make one
 * syscall per buffer filled, and requests of at least a buffer go straight
 * through, as glibc does.
 */
static void stdio_stream_model(struct stdio_stream *s, int is_write, int64_t size)
{
    int64_t b = s->bufsize;

    if (size <= 0)
        return;
    if (b <= 0 || s->bufmode == IOT_BUF_NONE || (is_write && s->bufmode == IOT_BUF_LINE)) {
        s->pending = 0;
        stdio_stream_syscall(s, size);
        return;
    }
    if (is_write) {
        int64_t room = s->putting ? b - s->wbase - s->pending : 0, rest, direct;

        if (!s->putting) {
            /*
             * A stream not yet writing (just opened, read or sought) has
             * no room: glibc sets its write area up at the place read to
             * (the buffer's start when none was read, or all of it), and
             * the first flush writes nothing.
             */
            s->wbase = s->rptr < b ? s->rptr : 0;
            s->wfile = s->pos;
            s->pending = 0;
            s->putting = 1;
            stdio_stream_unread(s);
        }
        if (size < room || (size == room && room > 0)) {
            SADD(s->pending, size);
            return;
        }
        /*
         * glibc's fwrite: what fits fills the buffer, the full buffer is
         * written, then the whole buffers' worth of the rest go in one
         * write and the remainder waits in the buffer (a remainder larger
         * than the room left from where the write area starts fills it and
         * writes it first). So a buffer is written full, never emptied
         * early by a large request.
         */
        rest = size - room;
        if (s->pending + room > 0)
            stdio_stream_write(s, s->pending + room);
        direct = b >= 128 ? rest - rest % b : rest;
        if (direct > 0)
            stdio_stream_write(s, direct);
        rest -= direct;
        if (rest > b - s->wbase) {
            rest -= b - s->wbase;
            stdio_stream_write(s, b - s->wbase);
        }
        s->pending = rest;
    } else {
        int64_t need;

        /* a read after writes writes them first (glibc switches the
           buffer to reading) */
        if (s->putting && s->pending > 0)
            stdio_stream_write(s, s->pending);
        s->pending = 0;
        s->putting = 0;
        if (size <= s->avail) {
            s->avail -= size;
            s->rptr += size;
            return;
        }
        need = size - s->avail;
        if (need >= b) {
            stdio_stream_syscall(s, need);
            stdio_stream_unread(s);
            return;
        }
        stdio_stream_syscall(s, b);
        s->rfile = s->pos >= 0 ? s->pos + s->avail : -1;
        s->avail = b - need;
        s->rlen = b;
        s->rptr = need;
    }
}

/*
 * fseek on a stream its program may read (opened "r" or with "+"), as
 * glibc's _IO_new_file_seekoff does it: pending writes are written, then
 * a place inside the data the buffer holds (not after writing) is reached
 * without a syscall; else the stream seeks to the buffer-aligned offset
 * below it and reads up to it: just the bytes before it when the buffer
 * held nothing (nothing read, nothing pending), else a whole buffer. A
 * read that stops short of the place (the end of the file) is followed by
 * a seek to it, and the buffer is left empty. So BFD's ld, writing a small
 * header field at a time on its "w+" output, makes a read beside every
 * write. target is the new position, -1 when not known.
 */
static void stdio_stream_seek(struct stdio_stream *s, int64_t target)
{
    int64_t b = s->bufsize, new_at, delta, want, got;
    int exact = s->rlen == 0 && s->pending == 0, was_writing = s->putting;

    if (s->pending > 0)
        stdio_stream_write(s, s->pending);
    s->pending = 0;
    s->putting = 0;
    if (!s->readable || b <= 1 || s->bufmode == IOT_BUF_NONE || target < 0) {
        stdio_stream_unread(s);
        return;
    }
    if (!was_writing && s->rlen > 0 && s->rfile >= 0 && target >= s->rfile &&
        target < s->rfile + s->rlen) {
        s->rptr = target - s->rfile;
        s->avail = s->rlen - s->rptr;
        return;
    }
    new_at = target & ~(b - 1);
    delta = target - new_at;
    if (delta > b) {
        new_at = target;
        delta = 0;
    }
    stdio_stream_unread(s);
    s->rfile = new_at;
    if (delta == 0)
        return;
    want = exact ? delta : b;
    /* what the read got: the file's end, where the stream's writes show it */
    got = s->fsize >= 0 ? s->fsize - new_at : want;
    got = got < 0 ? 0 : got > want ? want : got;
    stdio_stream_syscall(s, got);
    s->o->s.eff_seek_reads++;
    if (got < delta)
        return;
    s->rlen = got;
    s->rptr = delta;
    s->avail = got - delta;
}

/* ------------------------------------------------------------ calls */

void stdio_on_open(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct stdio_stream *s;
    struct ofd *o = NULL;
    int32_t fd = (ev->has & IOT_HAS_FD) ? ev->fd : -1;
    uint64_t id = (uint64_t)ev->ret;

    if (ev->ret == 0 || (ev->has & IOT_HAS_ERRNO))
        return;
    if (ev->op == IOT_OP_FDOPEN) {
        /* a stream over an fd we do not follow (a pipe) has no session
           until its fd names a file */
        o = engine_fd_ofd(p, fd);
        if (o) {
            o->refs++;
            o->s.layer = RULE_LAYER_STDIO;
        }
    } else {
        const char *path = (ev->has & IOT_HAS_PATH) && ev->path ? ev->path : NULL;
        struct ofd *cur = engine_fd_ofd(p, fd);

        if (!path && ev->op == IOT_OP_TMPFILE)
            path = "(tmpfile)";
        if (!path)
            return;
        if (cur && cur->s.path == path && cur->dir.calls[0] + cur->dir.calls[1] == 0) {
            /* the open() beneath fopen was seen too: one session */
            o = cur;
            o->s.layer = RULE_LAYER_STDIO;
            o->refs++;
        } else {
            o = ofd_new(e, ev, p, path, RULE_LAYER_STDIO);
            if (!o)
                return;
            o->refs = 1;
            if (fd >= 0) {
                o->refs++;
                engine_fd_install(e, p, fd, o, 0, ev);
            }
        }
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        if (o)
            ofd_unref(e, o, ev->t, RULE_END_CLOSE);
        return;
    }
    s->o = o;
    s->fd = fd;
    s->bufsize = (ev->has & IOT_HAS_SIZE) && ev->size > 0 ? ev->size : DEFAULT_STDIO_BUF;
    s->defsize = s->bufsize;
    /* the mode the recorder saw: stderr is announced unbuffered (glibc
       makes every fprintf(stderr) its own write), a tty's stdout line-buffered */
    s->bufmode = (ev->has & IOT_HAS_BUFMODE) ? ev->bufmode : IOT_BUF_FULL;
    if (s->bufmode == IOT_BUF_NONE)
        s->bufsize = 0;
    s->append = ev->mode && strchr(ev->mode, 'a');
    s->readable = ev->mode && (strchr(ev->mode, 'r') || strchr(ev->mode, '+'));
    s->pos = s->append ? -1 : 0;
    s->rfile = s->wfile = -1;
    /* "w" and "w+" truncate: the file is what the stream writes */
    s->fsize = ev->mode && ev->mode[0] == 'w' ? 0 : -1;
    /* glibc opens "a" streams O_APPEND (fdopen sets it with fcntl): the
       program's own writes on the fd land at the end too */
    if (o && s->append)
        o->h.append = 1;
    if (o) {
        o->s.stream_buffer = s->bufsize;
        o->s.bufmode = s->bufmode;
    }
    {
        struct stdio_stream *old = hmap_get(&p->streams, id);

        if (old)
            stdio_stream_drop(e, old, ev->t, RULE_END_CLOSE);
    }
    if (hmap_put(&p->streams, id, s) < 0)
        stdio_stream_drop(e, s, ev->t, RULE_END_CLOSE);
}

void stdio_on_close(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct stdio_stream *s = stdio_stream_get(p, ev);
    struct ofd *o;
    int32_t fd;

    if (!s)
        return;
    hmap_del(&p->streams, ev->stream);
    fd = s->fd;
    if (s->o && fd >= 0 && engine_fd_ofd(p, fd) != s->o && engine_fd_close_freed(p, fd, ev->t)) {
        /* its close freed the fd for the file there now: its own file is
           the one it closes, and the fd is not its any more */
        o = s->o;
        fd = -1;
    } else {
        o = stdio_stream_ofd(e, p, s, ev->t);
    }
    if (!o) {
        free(s);
        return;
    }
    /* the only syscall of a short stream, or a full buffer (glibc writes
       a buffer when the next write finds it full, or at the close) */
    if (s->pending > 0)
        stdio_stream_flush(s);
    if (ev->has & IOT_HAS_FILE_SIZE)
        o->s.file_size = ev->file_size;
    /* fclose closes the fd beneath, if it still is this stream's */
    if (fd >= 0 && engine_fd_ofd(p, fd) == o) {
        p->fds[fd].o = NULL;
        o->refs--;
    }
    stdio_stream_drop(e, s, engine_call_end(ev), RULE_END_CLOSE);
}

/* One more stdio data call of op on o: data_op is the op of most of them. */
static void stdio_data_op(struct ofd *o, unsigned op)
{
    size_t i;

    for (i = 0; i < OFD_DATA_OPS && o->data_ops[i].calls && o->data_ops[i].op != op; i++)
        ;
    if (i == OFD_DATA_OPS)
        return;             /* an op beyond the first few is not counted */
    o->data_ops[i].op = op;
    if (++o->data_ops[i].calls > o->s.data_op_calls) {
        o->s.data_op_calls = o->data_ops[i].calls;
        o->s.data_op = iot_ops[op].name;
    }
}

void stdio_on_data(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                   int is_write)
{
    struct stdio_stream *s = stdio_stream_get(p, ev);
    struct ofd *o;
    int64_t size, moved;
    uint64_t scattered;
    int main_thread;

    if (!s || (ev->has & IOT_HAS_ERRNO) || !(o = stdio_stream_ofd(e, p, s, ev->t)))
        return;
    moved = ev->ret > 0 ? ev->ret : 0;
    size = (ev->has & IOT_HAS_SIZE) ? ev->size : moved;
    if (ev->op == IOT_OP_FGETC || ev->op == IOT_OP_FPUTC)
        size = 1;
    main_thread = call_on_main(e, ev->pid, ev->tid);
    stdio_data_op(o, ev->op);
    scattered = ofd_scattered(o, (unsigned)is_write);
    o->h.last_seq = p->calls;
    count_call(o, ev->tid, main_thread, calls_on_key(main_thread, ev->tid), (unsigned)is_write,
               size, ev->t, (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur,
               !(ev->has & IOT_HAS_NO_DUR), &e->gap);
    count_thread(o, ev->tid);
    stdio_stream_model(s, is_write, size);
    count_position(o, is_write, is_write && s->append ? o->dir.prev_end[1] : s->pos, moved);
    ofd_site_seen(o, ev, ofd_scattered(o, (unsigned)is_write) != scattered);
    if (s->pos >= 0)
        SADD(s->pos, moved);
}

void stdio_on_other(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    struct stdio_stream *s = stdio_stream_get(p, ev);

    if (!s || !stdio_stream_ofd(e, p, s, ev->t))
        return;
    switch (ev->op) {
    case IOT_OP_FFLUSH:
        stdio_stream_flush(s);
        break;
    case IOT_OP_FSEEK:
        s->o->h.seeks++;
        if (ev->ret != 0) {
            stdio_stream_flush(s);
            s->putting = 0;        /* glibc sets the write area empty */
            break;
        }
        if ((ev->has & IOT_HAS_WHENCE) && ev->whence == 0 && (ev->has & IOT_HAS_OFFSET))
            s->pos = ev->offset;
        else if ((ev->has & IOT_HAS_WHENCE) && ev->whence == 1 && (ev->has & IOT_HAS_OFFSET) &&
                 s->pos >= 0)
            SADD(s->pos, ev->offset);
        else if ((ev->has & IOT_HAS_WHENCE) && ev->whence == 2 && (ev->has & IOT_HAS_OFFSET) &&
                 s->fsize >= 0)
            /* the end once the pending bytes are written */
            s->pos = (s->wfile >= 0 && s->wfile + s->pending > s->fsize ? s->wfile + s->pending
                                                                         : s->fsize) +
                     ev->offset;
        else
            s->pos = -1;
        stdio_stream_seek(s, s->pos);
        break;
    case IOT_OP_SETVBUF:
        if (ev->ret != 0)
            break;
        s->bufmode = ev->bufmode;
        s->putting = 0;        /* before the first call: a new buffer */
        if (s->bufmode == IOT_BUF_NONE)
            s->bufsize = 0;
        else if ((ev->has & IOT_HAS_SIZE) && ev->size > 0)
            s->bufsize = ev->size;
        else if (s->bufsize <= 0)
            /* a buffered mode without a size: glibc allocates its default */
            s->bufsize = s->defsize;
        s->o->s.stream_buffer = s->bufsize;
        s->o->s.bufmode = s->bufmode;
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ processes */

void stdio_drop_all(struct engine *e, struct engine_proc *p, int64_t t, int end, int leaks)
{
    for (size_t i = 0; i < p->streams.cap; i++) {
        struct stdio_stream *s;

        if (!p->streams.used[i])
            continue;
        s = p->streams.vals[i];
        if (leaks && s->o)
            ofd_mark_leak(s->o, p->pid, s->fd, t);
        stdio_stream_drop(e, s, t, end);
    }
    hmap_release(&p->streams);
}

void stdio_fork(struct engine_proc *parent, struct engine_proc *child)
{
    for (size_t i = 0; i < parent->streams.cap; i++) {
        struct stdio_stream *s, *c;

        if (!parent->streams.used[i])
            continue;
        s = parent->streams.vals[i];
        c = malloc(sizeof(*c));
        if (!c)
            continue;
        *c = *s;
        if (c->o)
            c->o->refs++;
        hmap_put(&child->streams, parent->streams.keys[i], c);
    }
}

void stdio_free_all(struct engine_proc *p)
{
    for (size_t i = 0; i < p->streams.cap; i++) {
        struct stdio_stream *s;

        if (!p->streams.used[i])
            continue;
        s = p->streams.vals[i];
        if (s->o && --s->o->refs == 0)
            free(s->o);
        free(s);
    }
    hmap_release(&p->streams);
}
