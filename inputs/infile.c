/* Input files under a bound on descriptors (infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decompress.h"
#include "grow.h"
#include "infile.h"
#include "iotrace.h"
#include "spool.h"

struct infile {
    struct infiles *pool;
    char *path;                 /* to reopen a parked file */
    struct stat sb;             /* as opened: a reopen must find the same dev:ino */
    int fd;                     /* -1: parked or done */
    FILE *f;                    /* over fd, made at the first read */
    off_t pos;                  /* where a parked file resumes (a compressed one: in
                                   its compressed bytes, counted as they are read) */
    int unseekable, is_stdin, done;
    char *head;                 /* an unseekable file's peeked bytes, given back first */
    size_t nhead, headpos;
    uint64_t nread;             /* an unseekable file's bytes read so far, peek included */
    struct decomp *dec;         /* a compressed file's decoder: f gives its decoded bytes
                                   and outlives a parking, only fd is closed */
    char *dtext;                /* decoded bytes: [dpos, dready) are given next, the
                                   rest of [0, dlen) waits for its line's end */
    size_t dlen, dcap, dready, dpos;
    int deof;
    struct infile *prev, *next; /* open regular files, most recently read first */
};

struct infiles {
    struct infile **all;
    size_t n, cap;
    struct infile *lru_first, *lru_last;
    size_t nopen, max_open;
};

struct infiles *infiles_create(void)
{
    struct infiles *p = calloc(1, sizeof(*p));
    size_t n = iot_trace_keep_open_max();

    /* as many as the native reader keeps, and one at least */
    if (p)
        p->max_open = n ? n : 1;
    return p;
}

static void lru_unlink(struct infiles *p, struct infile *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else
        p->lru_first = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        p->lru_last = f->prev;
    f->prev = f->next = NULL;
}

static void lru_push(struct infiles *p, struct infile *f)
{
    f->prev = NULL;
    f->next = p->lru_first;
    if (p->lru_first)
        p->lru_first->prev = f;
    else
        p->lru_last = f;
    p->lru_first = f;
}

/* Close f's descriptor; a regular file keeps its position to resume there. */
static void release(struct infile *f)
{
    if (f->fd < 0)
        return;
    if (!f->unseekable) {
        if (f->f && !f->dec) {
            off_t at = ftello(f->f);

            f->pos = at < 0 ? f->pos : at;
        }
        lru_unlink(f->pool, f);
        f->pool->nopen--;
    }
    if (f->f && !f->dec) {
        fclose(f->f);   /* closes fd too (standard input: a duplicate) */
        f->f = NULL;
    } else if (!f->is_stdin || f->fd != 0) {
        close(f->fd);
    }
    f->fd = -1;
}

/* Make room for one more open regular file. */
static void park_oldest(struct infiles *p)
{
    while (p->nopen >= p->max_open && p->lru_last)
        release(p->lru_last);
}

/* An unseekable file's FILE: its peeked bytes, then the rest of fd. */
static ssize_t unseekable_read(void *cookie, char *buf, size_t size)
{
    struct infile *f = cookie;
    ssize_t n;

    if (f->headpos < f->nhead) {
        size_t k = f->nhead - f->headpos;

        if (k > size)
            k = size;
        memcpy(buf, f->head + f->headpos, k);
        f->headpos += k;
        return (ssize_t)k;
    }
    do
        n = read(f->fd, buf, size);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        f->nread += (uint64_t)n;
    return n;
}

static int unseekable_close(void *cookie)
{
    struct infile *f = cookie;

    if (!f->is_stdin)
        close(f->fd);
    return 0;
}

/* Does peek hold a first line with something on it, or a trace's magic? */
static int peek_enough(const char *peek, size_t n)
{
    size_t i = 0;

    /* compressed (a native trace is zstd too): what it decodes to is
       detected, from as much of it as the peek holds */
    if (decomp_detect(peek, n) != DECOMP_NONE)
        return n >= INFILE_PEEK;
    while (i < n && strchr(" \t\r\n", peek[i]))
        i++;
    return iot_is_native_trace(peek, n) || memchr(peek + i, '\n', n - i) != NULL;
}

/*
 * The file's first bytes into peek: a file's with pread (its offset stays at
 * the start for the reader); an unseekable one's with read, only until detection has
 * enough, kept to be given back first.
 */
static int peek_start(struct infile *f, char *peek, size_t *npeek)
{
    size_t n = 0;

    while (n < INFILE_PEEK && !(f->unseekable && peek_enough(peek, n))) {
        ssize_t r = f->unseekable ? read(f->fd, peek + n, INFILE_PEEK - n)
                              : pread(f->fd, peek + n, INFILE_PEEK - n, (off_t)n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *npeek = n;
    if (!f->unseekable)
        return 0;
    f->head = malloc(n ? n : 1);
    if (!f->head)
        return -1;
    memcpy(f->head, peek, n);
    f->nhead = n;
    f->nread = n;
    return 0;
}

struct infile *infile_open(struct infiles *p, const char *path, char *peek, size_t *npeek)
{
    struct infile *f = calloc(1, sizeof(*f));
    int err;

    *npeek = 0;
    if (!f || iot_grow(&p->all, &p->cap, p->n + 1, sizeof(*p->all)) < 0 ||
        !(f->path = strdup(path))) {
        free(f);
        errno = ENOMEM;
        return NULL;
    }
    f->pool = p;
    f->is_stdin = strcmp(path, "-") == 0;
    if (!f->is_stdin)
        park_oldest(p);
    f->fd = f->is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 || fstat(f->fd, &f->sb) < 0)
        goto fail;
    /* standard input redirected from a file is read in place when it is at
       its start; elsewhere, as unseekable, from where it is */
    f->unseekable = !S_ISREG(f->sb.st_mode) ||
                    (f->is_stdin && lseek(0, 0, SEEK_CUR) != 0);
    if (f->is_stdin && !f->unseekable) {
        f->fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0)
            goto fail;
        f->is_stdin = 0;   /* its own descriptor now, closed like any file's */
    }
    if (peek_start(f, peek, npeek) < 0)
        goto fail;
    if (!f->unseekable) {
        lru_push(p, f);
        p->nopen++;
    }
    p->all[p->n++] = f;
    return f;
fail:
    err = errno;
    if (f->fd > 0 || (f->fd == 0 && !f->is_stdin))
        close(f->fd);
    free(f->head);
    free(f->path);
    free(f);
    errno = err;
    return NULL;
}

const struct stat *infile_stat(const struct infile *f)
{
    return &f->sb;
}

int infile_is_unseekable(const struct infile *f)
{
    return f->unseekable;
}

ssize_t infile_pread(struct infile *f, void *buf, size_t n, uint64_t off)
{
    if (f->unseekable || f->fd < 0 || f->dec) {
        errno = ESPIPE;
        return -1;
    }
    return pread(f->fd, buf, n, (off_t)off);
}

uint64_t infile_bytes(const struct infile *f)
{
    return f->unseekable ? f->nread : (uint64_t)f->sb.st_size;
}

uint64_t infile_pos(const struct infile *f)
{
    off_t at;

    if (f->unseekable)
        return f->nread;
    if (f->dec && !f->done)
        return (uint64_t)f->pos;   /* its compressed bytes, as its size is */
    if (f->done)
        return (uint64_t)f->sb.st_size;
    if (f->f && (at = ftello(f->f)) >= 0)
        return (uint64_t)at;
    return (uint64_t)f->pos;    /* parked, or not read yet (0) */
}

/* Reopen a parked file where it stopped. */
static int unpark(struct infile *f)
{
    struct stat sb;
    int fd;

    park_oldest(f->pool);
    fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) < 0 || sb.st_dev != f->sb.st_dev || sb.st_ino != f->sb.st_ino) {
        close(fd);
        errno = ESTALE;
        return -1;
    }
    if (lseek(fd, f->pos, SEEK_SET) < 0) {
        int err = errno;

        close(fd);
        errno = err;
        return -1;
    }
    f->fd = fd;
    lru_push(f->pool, f);
    f->pool->nopen++;
    return 0;
}

/* A compressed file's next compressed bytes (decomp_src_fn), its
   descriptor reopened where it stopped when it was parked. */
static ssize_t compressed_read(void *ctx, void *buf, size_t size)
{
    struct infile *f = ctx;
    ssize_t n;

    if (f->unseekable)
        return unseekable_read(f, buf, size);
    if (f->fd < 0 && unpark(f) < 0)
        return -1;
    if (f->pool->lru_first != f) {
        lru_unlink(f->pool, f);
        lru_push(f->pool, f);
    }
    do
        n = read(f->fd, buf, size);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        f->pos += n;
    return n;
}

/* A decoded line longer than this is given without waiting for its end. */
#define DECODED_LINE_MAX (1u << 20)
#define DECODED_STEP (64u * 1024)

/*
 * The decoded bytes, whole lines at a time: a stream cut short ends on the
 * last whole line, so its damage is said once (infile_damage) instead of
 * also as a malformed last line.
 */
static ssize_t decoded_read(void *cookie, char *buf, size_t size)
{
    struct infile *f = cookie;

    for (;;) {
        ssize_t n;
        char *nl;

        if (f->dpos < f->dready) {
            size_t k = f->dready - f->dpos < size ? f->dready - f->dpos : size;

            memcpy(buf, f->dtext + f->dpos, k);
            f->dpos += k;
            if (f->dpos == f->dready) {
                memmove(f->dtext, f->dtext + f->dready, f->dlen - f->dready);
                f->dlen -= f->dready;
                f->dready = f->dpos = 0;
            }
            return (ssize_t)k;
        }
        if (f->deof) {
            /* an intact stream's unterminated last line is a line */
            if (!f->dlen || decomp_damage(f->dec))
                return 0;
            f->dready = f->dlen;
            continue;
        }
        if (iot_grow(&f->dtext, &f->dcap, f->dlen + DECODED_STEP, 1) < 0) {
            errno = ENOMEM;
            return -1;
        }
        n = decomp_read(f->dec, f->dtext + f->dlen, DECODED_STEP);
        if (n < 0)
            return -1;
        if (n == 0) {
            f->deof = 1;
            continue;
        }
        nl = memrchr(f->dtext + f->dlen, '\n', (size_t)n);
        f->dlen += (size_t)n;
        if (nl)
            f->dready = (size_t)(nl - f->dtext) + 1;
        else if (f->dlen > DECODED_LINE_MAX)
            f->dready = f->dlen;
    }
}

/* The descriptor is the infile's to close (release): the FILE holds none. */
static int decoded_close(void *cookie)
{
    (void)cookie;
    return 0;
}

int infile_decompress(struct infile *f, enum decomp_kind kind)
{
    cookie_io_functions_t io = {.read = decoded_read, .close = decoded_close};

    if (f->f || f->dec || f->done) {
        errno = EINVAL;
        return -1;
    }
    f->dec = decomp_create(kind, compressed_read, f);
    if (!f->dec || !(f->f = fopencookie(f, "r", io))) {
        decomp_free(f->dec);
        f->dec = NULL;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

const char *infile_damage(const struct infile *f)
{
    return f->dec ? decomp_damage(f->dec) : NULL;
}

FILE *infile_file(struct infile *f)
{
    if (f->done) {
        errno = EBADF;
        return NULL;
    }
    if (f->f) {
        if (!f->unseekable && f->fd >= 0 && f->pool->lru_first != f) {
            lru_unlink(f->pool, f);
            lru_push(f->pool, f);
        }
        return f->f;
    }
    if (f->unseekable) {
        cookie_io_functions_t io = {.read = unseekable_read, .close = unseekable_close};

        f->f = fopencookie(f, "r", io);
        return f->f;
    }
    if (f->fd < 0 && unpark(f) < 0)
        return NULL;
    f->f = fdopen(f->fd, "r");
    if (!f->f)
        return NULL;
    if (f->pool->lru_first != f) {
        lru_unlink(f->pool, f);
        lru_push(f->pool, f);
    }
    return f->f;
}

void infile_done(struct infile *f)
{
    release(f);
    if (f->dec) {
        if (f->f)
            fclose(f->f);
        f->f = NULL;
        free(f->dtext);
        f->dtext = NULL;
        /* its damage is asked after the reading: keep the message */
        if (!decomp_damage(f->dec)) {
            decomp_free(f->dec);
            f->dec = NULL;
        }
    }
    free(f->head);
    f->head = NULL;
    f->done = 1;
}

int infile_take_fd(struct infile *f, uint64_t cap)
{
    int fd = -1, err = 0;

    if (f->done) {
        err = EBADF;
    } else if (f->unseekable) {
        /* what was peeked has left the pipe: it goes first */
        struct stat sb;

        fd = iot_spool(f->fd, f->head + f->headpos, f->nhead - f->headpos, cap);
        err = errno;
        if (fd >= 0 && fstat(fd, &sb) == 0)
            f->nread = (uint64_t)sb.st_size;
    } else if (f->fd >= 0 && !f->f) {
        fd = f->fd;        /* pread left its offset at the start */
        lru_unlink(f->pool, f);
        f->pool->nopen--;
        f->fd = -1;
    }
    infile_done(f);
    errno = fd < 0 ? err : 0;
    return fd;
}

void infiles_free(struct infiles *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        infile_done(p->all[i]);
        decomp_free(p->all[i]->dec);
        free(p->all[i]->path);
        free(p->all[i]);
    }
    free(p->all);
    free(p);
}
