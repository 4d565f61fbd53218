/*
 * reader.c - the streaming native trace reader.
 *
 * Pass 1 (open): map every input, walk its zstd frames, verify each frame
 * (decompression checks its checksum) and note each chunk's stream, sequence
 * number and start time. Damaged frames are skipped to the next frame magic;
 * an input that ends inside a frame is truncated. Of several versions of one
 * (stream, seq) - partial snapshots - the largest is kept.
 *
 * Pass 2 (next): a k-way merge over the streams by event time. Each stream
 * decodes one chunk at a time, so memory grows with the number of streams
 * that overlap in time, never with the number of events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "decode.h"
#include "records.h"
#include "varint.h"

struct input {
    char *name;
    const uint8_t *map;     /* pass 1 only */
    size_t size;
    int fd;                 /* pass 2 reads the frames (read_frame); -1: by name */
};

/*
 * Inputs whose file stays open for pass 2: at most 64, and a quarter of the
 * process's limit on open files; the others are opened for each frame (a
 * few microseconds per chunk of tens of KB), so that a directory of
 * thousands of traces does not run into that limit. Standard input,
 * spooled to an unlinked file, always stays open.
 */
static size_t open_inputs_max(void)
{
    struct rlimit rl;
    size_t n = 64;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
        n = (size_t)(rl.rlim_cur / 4);
    return n;
}

struct chunk_ref {
    uint64_t off;
    uint32_t csize;
    uint32_t seq;
    uint32_t nrec;
    uint32_t flags;
    int64_t base_t;
};

struct stream {
    uint32_t input;
    int32_t pid, tid;
    uint64_t stream_id;
    struct chunk_ref *chunks;
    size_t n, cap;
    size_t next;            /* next chunk to load */
    int loaded;             /* dec holds a chunk */
    struct iot_event *ring; /* a batch of decoded events (IOT_DEC_BATCH) */
    unsigned count;         /* how many */
    int last;               /* how the batch ended (iot_dec_batch's *last) */
    uint8_t *buf;
    size_t buf_cap;
    struct iot_dec dec;
};

/* Events one merge round hands out at most. */
#define OUT_MAX 256
/* Up to this many streams the merge scans a list instead of keeping a heap. */
#define SCAN_MAX 8

/*
 * Merge entries hold their key (merge_key) and the stream's batch, so that
 * handing out events never touches the big stream structs: each event
 * depends on the choice before it, so every load on that path is latency.
 */
struct heap_ent {
    int64_t key;            /* a heap's; a scan keeps its keys in tr->sorted */
    const struct iot_event *cur, *end;  /* the batch's next event, and its end */
    uint32_t idx;
};

struct iot_trace {
    struct input *inputs;
    size_t ninputs;
    struct stream *streams;
    size_t nstreams, streams_cap;
    struct heap_ent *heap;  /* min-heap of streams on (key, index) */
    size_t nheap;
    int scan;               /* few streams: heap is a list in index order (SCAN_MAX) */
    size_t top;             /* the smallest entry: 0 in a heap */
    size_t live;            /* entries whose stream has not ended */
    int64_t sorted[SCAN_MAX]; /* scan: the entries' keys, smallest first */
    int64_t key2[SCAN_MAX]; /* scan: each entry's key after cur's */
    ZSTD_DCtx *dctx;
    struct iot_strtab *st;
    int64_t origin;
    const char **argv;      /* the returned process event's argv */
    size_t argv_cap;
    int64_t limit;          /* heap_limit(), kept up to date */
    /* events merged in time order, handed out one by one (merge_round) */
    const struct iot_event **out;
    unsigned out_n, out_pos;
    struct iot_trace_stats stats;
    size_t inflated;        /* bytes of stream chunk buffers (IOT_MAX_INFLATED) */
    uint8_t *cbuf;          /* the compressed frame being decoded (read_frame) */
    size_t cbuf_cap;
};

static void set_err(char *errbuf, const char *fmt, const char *name, const char *what)
{
    if (errbuf)
        snprintf(errbuf, IOT_ERRBUF_SIZE, fmt, name, what);
}

int iot_is_native_trace(const void *buf, size_t len)
{
    const uint8_t *p = buf;

    return len >= 4 && (iot_get_le32(p) == ZSTD_MAGICNUMBER ||
                        iot_get_le32(p) == IOT_INDEX_FRAME_MAGIC);
}

/* ---------------------------------------------------------- inputs */

/* Standard input cannot be mapped: copy it to an unlinked temporary file. */
static int spool_stdin(void)
{
    char tmpl[] = "/tmp/ioscope-stdin-XXXXXX";
    char buf[1 << 16];
    int fd = mkstemp(tmpl);
    ssize_t n;

    if (fd < 0)
        return -1;
    unlink(tmpl);
    while ((n = read(0, buf, sizeof(buf))) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));

            if (w < 0) {
                if (errno == EINTR)
                    continue;
                goto fail;
            }
            off += w;
        }
    }
    return fd;
fail:
    close(fd);
    return -1;
}

static int input_map(struct input *in, const char *path, int keep_open, char *errbuf)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? spool_stdin() : open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;

    in->fd = -1;
    in->name = strdup(is_stdin ? "<stdin>" : path);
    if (fd < 0 || !in->name) {
        set_err(errbuf, "cannot open trace '%s': %s", is_stdin ? "<stdin>" : path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        set_err(errbuf, "cannot read trace '%s': %s", in->name,
                S_ISDIR(sb.st_mode) ? "Is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    in->size = (size_t)sb.st_size;
    if (in->size) {
        void *m = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);

        if (m == MAP_FAILED) {
            set_err(errbuf, "cannot map trace '%s': %s", in->name, strerror(errno));
            close(fd);
            return -1;
        }
        in->map = m;
    }
    if (keep_open || is_stdin)
        in->fd = fd;
    else
        close(fd);
    return 0;
}

/* ---------------------------------------------------------- streams */

static struct stream *stream_get(struct iot_trace *tr, uint32_t input,
                                 const struct iot_chunk_hdr *h)
{
    /*
     * Linear search from the end: chunks of a stream cluster in the file, and
     * the number of streams is the number of threads, so this stays cheap.
     */
    for (size_t i = tr->nstreams; i-- > 0;) {
        struct stream *s = &tr->streams[i];

        if (s->input == input && s->stream_id == h->stream_id &&
            s->pid == h->pid && s->tid == h->tid)
            return s;
    }
    if (tr->nstreams == tr->streams_cap) {
        size_t ncap = tr->streams_cap ? tr->streams_cap * 2 : 16;
        struct stream *n = realloc(tr->streams, ncap * sizeof(*n));

        if (!n)
            return NULL;
        tr->streams = n;
        tr->streams_cap = ncap;
    }
    struct stream *s = &tr->streams[tr->nstreams++];
    memset(s, 0, sizeof(*s));
    s->input = input;
    s->pid = h->pid;
    s->tid = h->tid;
    s->stream_id = h->stream_id;
    return s;
}

static int stream_add(struct stream *s, const struct chunk_ref *c)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 8;
        struct chunk_ref *n = realloc(s->chunks, ncap * sizeof(*n));

        if (!n)
            return -1;
        s->chunks = n;
        s->cap = ncap;
    }
    s->chunks[s->n++] = *c;
    return 0;
}

static int chunk_cmp(const void *a, const void *b)
{
    const struct chunk_ref *x = a, *y = b;

    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->nrec != y->nrec)
        return x->nrec < y->nrec ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort by seq and keep, of each seq, the version with the most records. */
static void stream_settle(struct stream *s, uint64_t *superseded)
{
    size_t out = 0;

    qsort(s->chunks, s->n, sizeof(*s->chunks), chunk_cmp);
    for (size_t i = 0; i < s->n; i++) {
        if (i + 1 < s->n && s->chunks[i + 1].seq == s->chunks[i].seq) {
            (*superseded)++;
            continue;
        }
        s->chunks[out++] = s->chunks[i];
    }
    s->n = out;
}

/* ------------------------------------------------------------ pass 1 */

/* Offset of the next zstd frame magic at or after off, or size. */
static size_t find_magic(const struct input *in, size_t off)
{
    static const uint8_t m[4] = { 0x28, 0xb5, 0x2f, 0xfd };

    while (off + 4 <= in->size) {
        const uint8_t *p = memchr(in->map + off, m[0], in->size - off - 3);

        if (!p)
            break;
        if (memcmp(p, m, 4) == 0)
            return (size_t)(p - in->map);
        off = (size_t)(p - in->map) + 1;
    }
    return in->size;
}

/*
 * Decompress the frame src[0..csize) into *buf (grown as needed). Returns
 * the content size, or 0 when the frame is damaged.
 */
static size_t frame_decode(struct iot_trace *tr, const uint8_t *src, size_t csize,
                           uint8_t **buf, size_t *cap)
{
    unsigned long long content = ZSTD_getFrameContentSize(src, csize);
    size_t r;

    if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
        content < IOT_CHUNK_HDR_SIZE || content > IOT_MAX_CHUNK_BYTES)
        return 0;
    if (content > *cap) {
        /* *cap counts the content; the decoder's zero pad comes on top */
        uint8_t *n = realloc(*buf, content + IOT_DEC_PAD);

        if (!n)
            return 0;
        *buf = n;
        *cap = content;
    }
    r = ZSTD_decompressDCtx(tr->dctx, *buf, content, src, csize);
    if (ZSTD_isError(r) || r != content)
        return 0;
    memset(*buf + r, 0, IOT_DEC_PAD);
    return r;
}

/*
 * Pass 1 walks the mapping once (pass 2 reads the frames, read_frame):
 * pages behind it are not needed again, so they leave the process's
 * resident set instead of making it grow with the trace (the kernel maps
 * pages around each fault, so without this the whole file would count).
 */
#define FAULT_AROUND ((uintptr_t)64 << 10)  /* Linux's default fault-around window */

static void release(const struct input *in, size_t off, size_t len)
{
    /*
     * Whole fault-around windows: a fault maps the pages around it too, and
     * pages walked earlier, mapped again that way, would stay. Pages not
     * walked yet just fault back in.
     */
    uintptr_t start = ((uintptr_t)in->map + off) & ~(FAULT_AROUND - 1);
    uintptr_t end = ((uintptr_t)in->map + off + len + FAULT_AROUND - 1) & ~(FAULT_AROUND - 1);
    uintptr_t map_end = ((uintptr_t)in->map + in->size + 4095) & ~(uintptr_t)4095;

    if (start < (uintptr_t)in->map)
        start = (uintptr_t)in->map;  /* the mapping is page-aligned */

    if (end > map_end)
        end = map_end;
    if (end > start)
        madvise((void *)start, end - start, MADV_DONTNEED);
}

static int index_input(struct iot_trace *tr, uint32_t idx, uint8_t **scratch,
                       size_t *scratch_cap, char *errbuf)
{
    static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    static const uint8_t index_magic[4] = { 0x5e, 0x2a, 0x4d, 0x18 };
    const struct input *in = &tr->inputs[idx];
    uint64_t good = 0, newer = 0, damaged = 0;
    uint32_t newest = 0;
    size_t off = 0;
    struct iot_chunk_hdr h;
    int have_hdr = 0;       /* h came from the index frame just before */
    int skip_next = 0;      /* the index frame announced a newer version */
    size_t released = 0;    /* pages before this offset were given back */

    while (off < in->size) {
        size_t left = in->size - off, csize, n;
        uint32_t m = left >= 4 ? iot_get_le32(in->map + off) : 0;

        if (off - released >= (4u << 20)) {
            release(in, released, off - released);
            released = off;
        }
        struct chunk_ref c;
        struct stream *s;
        int rc;

        if (left >= 8 && (m & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START) {
            uint64_t size = iot_get_le32(in->map + off + 4);

            if (m == IOT_INDEX_FRAME_MAGIC && size != IOT_CHUNK_HDR_SIZE) {
                /*
                 * Ours, with a damaged size: skipping that much would drop
                 * the frames after it unnoticed. The next data frame is
                 * read without its index instead.
                 */
                size_t next = find_magic(in, off + 1);

                damaged++;
                tr->stats.bytes_skipped += next - off;
                off = next;
                have_hdr = skip_next = 0;
                continue;
            }
            if (8 + size > left) {
                tr->stats.truncated = 1;
                tr->stats.bytes_skipped += left;
                break;
            }
            have_hdr = skip_next = 0;
            /* the chunk's index frame: its header, readable without decompressing */
            if (m == IOT_INDEX_FRAME_MAGIC) {
                rc = iot_chunk_hdr_get(in->map + off + 8, (size_t)size, &h);
                if (rc == 0) {
                    have_hdr = 1;
                } else if (rc == -2) {
                    newer++;
                    skip_next = 1;
                    if (h.version > newest)
                        newest = h.version;
                }
            }
            off += 8 + size;
            continue;
        }
        csize = m == ZSTD_MAGICNUMBER ? ZSTD_findFrameCompressedSize(in->map + off, left) : (size_t)-1;
        if (ZSTD_isError(csize) || csize == (size_t)-1) {
            size_t next = find_magic(in, off + 1);

            /* the last frame was cut off, perhaps inside its magic number */
            if (next == in->size && (memcmp(in->map + off, magic, left < 4 ? left : 4) == 0 ||
                                     memcmp(in->map + off, index_magic, left < 4 ? left : 4) == 0))
                tr->stats.truncated = 1;
            else
                damaged++;
            tr->stats.bytes_skipped += next - off;
            off = next;
            have_hdr = skip_next = 0;
            continue;
        }
        if (skip_next) {
            tr->stats.bytes_skipped += csize;
            off += csize;
            skip_next = 0;
            continue;
        }
        if (have_hdr) {
            /*
             * Trust the index frame as far as sizes agree; the data frame's
             * checksum is verified when pass 2 decompresses it.
             */
            unsigned long long content = ZSTD_getFrameContentSize(in->map + off, csize);
            n = content == (unsigned long long)IOT_CHUNK_HDR_SIZE + h.bytes &&
                content <= IOT_MAX_CHUNK_BYTES ? (size_t)content : 0;
            rc = n ? 0 : -1;
        } else {
            /* no index frame (damaged, or another writer): read the header inside */
            n = frame_decode(tr, in->map + off, csize, scratch, scratch_cap);
            rc = n ? iot_chunk_hdr_get(*scratch, n, &h) : -1;
            if (rc == -2) {
                newer++;
                if (h.version > newest)
                    newest = h.version;
            }
            if (rc == 0 && h.bytes != n - IOT_CHUNK_HDR_SIZE)
                rc = -1;
        }
        have_hdr = 0;
        if (rc < 0) {
            if (rc != -2)
                damaged++;
            tr->stats.bytes_skipped += csize;
            off += csize;
            continue;
        }
        c.off = off;
        c.csize = (uint32_t)csize;
        c.seq = h.seq;
        c.nrec = h.nrec;
        c.flags = h.flags;
        c.base_t = h.base_t;
        s = stream_get(tr, idx, &h);
        if (!s || stream_add(s, &c) < 0) {
            set_err(errbuf, "cannot read trace '%s': %s", in->name, "out of memory");
            return -1;
        }
        if (h.version > tr->stats.max_version)
            tr->stats.max_version = h.version;
        if (h.base_t < tr->origin)
            tr->origin = h.base_t;
        tr->stats.raw_bytes += n;
        good++;
        off += csize;
    }
    if (have_hdr || skip_next)
        tr->stats.truncated = 1;  /* an index frame whose chunk is missing */
    tr->stats.chunks += good;
    tr->stats.chunks_damaged += damaged;
    if (good)
        return 0;
    if (newer) {
        if (errbuf)
            snprintf(errbuf, IOT_ERRBUF_SIZE,
                     "cannot read trace '%s': format version %u is newer than this reader (%u); upgrade ioscope",
                     in->name, newest, IOT_FORMAT_VERSION);
    } else if (in->size == 0) {
        set_err(errbuf, "cannot read trace '%s': %s", in->name, "empty file");
    } else if (tr->stats.truncated && damaged == 0) {
        set_err(errbuf, "cannot read trace '%s': %s", in->name, "no complete chunk (truncated trace)");
    } else {
        set_err(errbuf, "cannot read trace '%s': %s", in->name, "not an ioscope trace (no readable chunk)");
    }
    return -1;
}

/* ------------------------------------------------------------ pass 2 */

/*
 * The merge orders streams by the time of their next event, or of their
 * next chunk's start when they have none decoded; at equal times a stream
 * without an event comes first (it may hold an event at that very time, and
 * nothing may overtake it), then the lower index. Time and that bit make one
 * key. Times beyond +-2^58 ns from the origin (9 years: hostile input only)
 * are clamped, which costs only their order among themselves.
 */
#define MERGE_T_MAX ((int64_t)1 << 58)
#define KEY_READY 8             /* the bit of a key that says the stream has an event */
#define KEY_SLOT 7              /* the bits of a scanned entry's position */
#define KEY_ENDED (INT64_MAX & ~(int64_t)KEY_SLOT)  /* a scanned entry whose stream ended */

/* Time and ready bit, shifted to leave KEY_SLOT clear: a scan puts the
   entry's position there, which makes its keys unique (the heap leaves it 0
   and compares indexes). */
static inline int64_t merge_key(int64_t t, int ready)
{
    int64_t t32;

    /* t * 32 overflows just where t is clamped: one test that never fails
       on real input, where two selects cost every event */
    if (__builtin_expect(__builtin_mul_overflow(t, 32, &t32), 0))
        t = t < 0 ? -MERGE_T_MAX : MERGE_T_MAX;
    return (int64_t)((uint64_t)(t * 2 + ready) << 3);
}

/* Whether a key's stream has an event decoded. */
static inline int key_ready(int64_t key)
{
    return (key & KEY_READY) != 0;
}

static inline int heap_less(const struct heap_ent *x, const struct heap_ent *y)
{
    return x->key < y->key || (x->key == y->key && x->idx < y->idx);
}

static void heap_down(struct iot_trace *tr, size_t i)
{
    struct heap_ent *h = tr->heap, e = h[i];
    size_t n = tr->nheap;

    for (;;) {
        size_t l = 2 * i + 1, m;

        if (l >= n)
            break;
        m = l + 1 < n && heap_less(&h[l + 1], &h[l]) ? l + 1 : l;
        if (!heap_less(&h[m], &e))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = e;
}

/*
 * The smallest key below the top. While the top stream's next event comes
 * strictly before it, the top stays on top: one comparison per event
 * instead of a sift, which is what a thread's run of calls costs.
 */
static int64_t heap_limit(const struct iot_trace *tr)
{
    const struct heap_ent *h = tr->heap;

    if (tr->nheap > 2)
        return h[1].key < h[2].key ? h[1].key : h[2].key;
    return tr->nheap == 2 ? h[1].key : INT64_MAX;
}

/*
 * Up to SCAN_MAX streams the entries are not a heap but a list in index
 * order, and their keys are kept sorted apart from it (tr->sorted). Threads
 * running at once interleave call by call, so the smallest changes about
 * every other event, at random: putting the chosen stream's next key in its
 * place among the others with selects (min and max down the list) then
 * costs less than a sift whose branches mispredict. Keys with their
 * position are unique, and the first says where it is.
 *
 * x into sorted[1..n) (sorted[0] is the key it replaces): sorted[0..n)
 * sorted again.
 */
static inline __attribute__((always_inline)) void sorted_insert(int64_t *sorted, size_t n,
                                                                int64_t x)
{
    for (size_t i = 1; i < n; i++) {
        int64_t y = sorted[i];

        sorted[i - 1] = x < y ? x : y;
        x = x < y ? y : x;
    }
    sorted[n - 1] = x;
}

/*
 * The top entry's stream has a new key (r = 1) or has ended (r = 0):
 * choose the next top.
 */
static void merge_settle(struct iot_trace *tr, int r, int64_t key)
{
    struct heap_ent *h = tr->heap;

    tr->live -= !r;
    if (tr->scan) {
        /* an ended stream keeps its place, behind every other key */
        sorted_insert(tr->sorted, tr->nheap, (r ? key : KEY_ENDED) | (int64_t)tr->top);
        tr->top = (size_t)(tr->sorted[0] & KEY_SLOT);
        return;
    }
    if (r) {
        h[0].key = key;
    } else {
        h[0] = h[--tr->nheap];
    }
    if (tr->nheap > 1)
        heap_down(tr, 0);
    tr->limit = heap_limit(tr);
}

static void stream_release(struct stream *s)
{
    free(s->buf);
    free(s->ring);
    s->buf = NULL;
    s->ring = NULL;
    s->buf_cap = 0;
    iot_dec_free(&s->dec);
}

#define RING_BYTES (IOT_DEC_BATCH * sizeof(struct iot_event))

/*
 * The compressed frame of chunk c, read into tr->cbuf: pass 2 reads each
 * frame once, so reading costs one copy where the mapping cost a fault per
 * window and giving the pages back (release); 4-7% of ioanalyze's time on
 * the bench trace was the kernel's. NULL when it cannot be read (counted
 * as a damaged chunk, as a mapping would have raised SIGBUS).
 */
static const uint8_t *read_frame(struct iot_trace *tr, const struct input *in,
                                 const struct chunk_ref *c)
{
    int fd = in->fd >= 0 ? in->fd : open(in->name, O_RDONLY | O_CLOEXEC);
    const uint8_t *ret = tr->cbuf;
    size_t got = 0;

    if (fd < 0)
        return NULL;
    if (c->csize > tr->cbuf_cap) {
        uint8_t *n = realloc(tr->cbuf, c->csize);

        if (!n) {
            ret = NULL;
            goto out;
        }
        tr->cbuf = n;
        ret = n;
        tr->cbuf_cap = c->csize;
    }
    while (got < c->csize) {
        ssize_t r = pread(fd, tr->cbuf + got, c->csize - got, (off_t)(c->off + got));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ret = NULL;
            break;
        }
        got += (size_t)r;
    }
out:
    if (fd != in->fd)
        close(fd);
    return ret;
}

/*
 * Decode s's next batch of events from its loaded chunk, loading the next
 * chunks as needed. Returns 1 (s->ring[0..s->count) set), 0 (the stream
 * ended), -1 error.
 */
static int stream_refill(struct iot_trace *tr, struct stream *s, char *errbuf)
{
    char why[IOT_ERRBUF_SIZE];  /* damage is counted (chunks_damaged), not told per chunk */

    for (;;) {
        if (s->loaded) {
            if (s->last > 0) {
                int n = iot_dec_batch(&s->dec, s->ring, IOT_DEC_BATCH, &s->last, why);

                if (n > 0) {
                    s->count = (unsigned)n;
                    return 1;
                }
            }
            /* the chunk is done: at its end, or at damage after the events given */
            s->loaded = 0;
            if (s->last < 0 && iot_strtab_full(tr->st)) {
                /* not damage: going on would only refuse every new string */
                if (errbuf)
                    snprintf(errbuf, IOT_ERRBUF_SIZE,
                             "cannot read trace '%s': more than %zu MiB of distinct strings "
                             "(paths, stacks, names); hostile input?",
                             tr->inputs[s->input].name, IOT_STRTAB_MAX_BYTES >> 20);
                return -1;
            }
            if (s->last < 0)
                tr->stats.chunks_damaged++;  /* events before the damage were kept */
        }
        if (s->next >= s->n) {
            tr->inflated -= s->buf_cap + (s->ring ? RING_BYTES : 0);
            stream_release(s);
            return 0;
        }
        const struct chunk_ref *c = &s->chunks[s->next++];
        const struct input *in = &tr->inputs[s->input];
        struct iot_chunk_hdr h;
        const uint8_t *src = read_frame(tr, in, c);
        unsigned long long want = src ? ZSTD_getFrameContentSize(src, c->csize) : 0;
        size_t had = s->buf_cap, n;

        size_t grow = (want <= IOT_MAX_CHUNK_BYTES && want > had ? (size_t)(want - had) : 0) +
                      (s->ring ? 0 : RING_BYTES);

        /* pass 1 bounded each chunk; this bounds all threads' chunks together */
        if (tr->inflated + grow > IOT_MAX_INFLATED) {
            if (errbuf)
                snprintf(errbuf, IOT_ERRBUF_SIZE,
                         "cannot read trace '%s': its threads' chunks would need more than %zu MiB "
                         "of memory at once (a decompression bomb?)", in->name, IOT_MAX_INFLATED >> 20);
            return -1;
        }
        if (!s->ring) {
            /* zeroed: the decoder takes a zero slot for an empty call */
            s->ring = calloc(IOT_DEC_BATCH, sizeof(*s->ring));
            if (!s->ring) {
                set_err(errbuf, "cannot read trace '%s': %s", in->name, "out of memory");
                return -1;
            }
            tr->inflated += RING_BYTES;
        }
        n = src ? frame_decode(tr, src, c->csize, &s->buf, &s->buf_cap) : 0;
        tr->inflated += s->buf_cap - had;

        if (!n || iot_chunk_hdr_get(s->buf, n, &h) < 0 || h.bytes != n - IOT_CHUNK_HDR_SIZE ||
            h.seq != c->seq || h.nrec != c->nrec || h.base_t != c->base_t || h.pid != s->pid ||
            h.tid != s->tid || h.stream_id != s->stream_id) {
            /* a checksum or structure error pass 1 could not see */
            tr->stats.chunks--;
            tr->stats.chunks_damaged++;
            tr->stats.bytes_skipped += c->csize;
            tr->stats.raw_bytes -= IOT_CHUNK_HDR_SIZE + (uint64_t)h.bytes;
            continue;
        }
        iot_dec_start(&s->dec, &h, s->buf + IOT_CHUNK_HDR_SIZE, tr->st, tr->origin);
        s->loaded = 1;
        s->last = 1;
    }
}

struct iot_trace *iot_trace_open(const char *const *paths, size_t n,
                                 struct iot_strtab *st, char *errbuf)
{
    struct iot_trace *tr = calloc(1, sizeof(*tr));
    uint8_t *scratch = NULL;
    size_t scratch_cap = 0, keep_open = open_inputs_max();

    if (!tr || !(tr->inputs = calloc(n ? n : 1, sizeof(*tr->inputs))) ||
        !(tr->dctx = ZSTD_createDCtx())) {
        set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
        goto fail;
    }
    tr->st = st;
    tr->origin = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        tr->ninputs++;
        if (input_map(&tr->inputs[i], paths[i], i < keep_open, errbuf) < 0 ||
            index_input(tr, (uint32_t)i, &scratch, &scratch_cap, errbuf) < 0)
            goto fail;
        tr->stats.file_bytes += tr->inputs[i].size;
    }
    free(scratch);
    scratch = NULL;
    /* pass 2 reads the frames instead */
    for (size_t i = 0; i < tr->ninputs; i++)
        if (tr->inputs[i].map) {
            munmap((void *)tr->inputs[i].map, tr->inputs[i].size);
            tr->inputs[i].map = NULL;
        }
    tr->heap = calloc(tr->nstreams ? tr->nstreams : 1, sizeof(*tr->heap));
    tr->out = malloc(OUT_MAX * sizeof(*tr->out));
    if (!tr->heap || !tr->out)
        goto fail;
    for (size_t i = 0; i < tr->nstreams; i++) {
        struct stream *s = &tr->streams[i];

        stream_settle(s, &tr->stats.chunks_superseded);
        /* nothing decoded yet: the first chunk's start */
        tr->heap[tr->nheap].key =
            merge_key(s->chunks[0].base_t - tr->origin, 0);
        tr->heap[tr->nheap++].idx = (uint32_t)i;
    }
    tr->live = tr->nheap;
    tr->scan = tr->nheap <= SCAN_MAX;
    if (tr->scan) {
        _Static_assert(SCAN_MAX - 1 <= KEY_SLOT, "a scanned entry's position fits its key");
        for (size_t i = 0; i < tr->nheap; i++) {
            /* an insertion sort: sorted[0..i) holds the keys before i's */
            int64_t key = tr->heap[i].key | (int64_t)i;
            size_t j = i;

            for (; j > 0 && tr->sorted[j - 1] > key; j--)
                tr->sorted[j] = tr->sorted[j - 1];
            tr->sorted[j] = key;
        }
        tr->top = (size_t)(tr->sorted[0] & KEY_SLOT);
    } else {
        for (size_t i = tr->nheap / 2 + 1; i-- > 0;)
            if (i < tr->nheap)
                heap_down(tr, i);
        tr->limit = heap_limit(tr);
    }
    tr->stats.chunks -= tr->stats.chunks_superseded;
    return tr;
fail:
    free(scratch);
    iot_trace_close(tr);
    return NULL;
}

static int copy_argv(struct iot_trace *tr, struct iot_event *ev)
{
    size_t need = (size_t)ev->argc + 1;

    if (need > tr->argv_cap) {
        const char **n = realloc(tr->argv, need * sizeof(*n));

        if (!n)
            return -1;
        tr->argv = n;
        tr->argv_cap = need;
    }
    memcpy(tr->argv, ev->argv, need * sizeof(*tr->argv));
    ev->argv = tr->argv;
    return 0;
}

/* A stream's key once cur is handed out: cur[1]'s, or the batch's end's. */
static inline int64_t next_key(const struct iot_event *cur, const struct iot_event *end)
{
    int more = cur + 1 < end;

    return merge_key(cur[more].t, more);
}

/*
 * The merge hands out events while the top stream has them decoded. When a
 * stream's batch runs out its next key is unknown until it decodes again,
 * which overwrites its ring, so the round ends there, keeping it on top
 * (clearing the key's bit only makes it smaller), and so it does when the
 * new top is a stream still to decode. Returns the number of events put in
 * tr->out. One loop per way of finding the top, so each stays tight.
 *
 * Each choice depends on the one before, so the path from one choice to the
 * next is what the merge costs per event, and it is kept short:
 *  - the chosen stream's next key was worked out at its previous turn
 *    (key2, in an array indexed by position: no address arithmetic);
 *  - it goes into its place among the other keys, kept sorted in registers
 *    for the round, with selects only (a ?: on a load, or an ||, became
 *    branches that mispredict as the threads alternate); the first min
 *    down the list is already the next choice;
 *  - keys are unique (their position is in their low bits), so no index is
 *    carried along: the smallest key says where it is.
 */
static inline __attribute__((always_inline)) unsigned
emit_scan_n(struct iot_trace *tr, size_t k)
{
    struct heap_ent *h = tr->heap;
    int64_t *key2 = tr->key2;
    const struct iot_event **out = tr->out;
    unsigned n = 0;
    int64_t sk[SCAN_MAX];

#pragma GCC unroll 8
    for (size_t i = 0; i < k; i++)
        sk[i] = tr->sorted[i];
    for (;;) {
        size_t t = (size_t)(sk[0] & KEY_SLOT);
        struct heap_ent *e = &h[t];
        const struct iot_event *c = e->cur, *end = e->end;
        int64_t key = key2[t];

        out[n++] = c;
        e->cur = c + 1;
        if (c + 1 == end) {
            /* the batch's end (no ready bit): t stays first */
            sk[0] = key;
            break;
        }
        key2[t] = next_key(c + 1, end) | (int64_t)t;
        sorted_insert(sk, k, key);
        /* no count to check: a round hands out at most one batch per stream */
        _Static_assert(SCAN_MAX * IOT_DEC_BATCH <= OUT_MAX, "a round fits tr->out");
        if (!key_ready(sk[0]))
            break;
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < k; i++)
        tr->sorted[i] = sk[i];
    tr->top = (size_t)(sk[0] & KEY_SLOT);
    return n;
}

/* The scan unrolled for each number of streams: its loop is most of the merge. */
static unsigned emit_scan(struct iot_trace *tr)
{
    _Static_assert(SCAN_MAX == 8, "one case per number of streams");
    switch (tr->nheap) {
    case 1: return emit_scan_n(tr, 1);
    case 2: return emit_scan_n(tr, 2);
    case 3: return emit_scan_n(tr, 3);
    case 4: return emit_scan_n(tr, 4);
    case 5: return emit_scan_n(tr, 5);
    case 6: return emit_scan_n(tr, 6);
    case 7: return emit_scan_n(tr, 7);
    default: return emit_scan_n(tr, 8);
    }
}

static unsigned emit_heap(struct iot_trace *tr)
{
    struct heap_ent *h = tr->heap;
    const struct iot_event **out = tr->out;
    unsigned n = 0;

    for (;;) {
        out[n++] = h[0].cur++;
        if (h[0].cur == h[0].end) {
            h[0].key &= ~(int64_t)KEY_READY;
            break;
        }
        h[0].key = merge_key(h[0].cur->t, 1);
        if (h[0].key >= tr->limit) {
            /* no longer strictly first: sift */
            heap_down(tr, 0);
            tr->limit = heap_limit(tr);
        }
        if (n == OUT_MAX || !key_ready(h[0].key))
            break;
    }
    return n;
}

/*
 * Fills tr->out with the next events in time order: first the top stream
 * decodes its next batch (or chunk) for as long as it has none, then events
 * are handed out. Returns 1 (tr->out holds events), 0 (no more), -1 error.
 */
static __attribute__((noinline)) int merge_round(struct iot_trace *tr, char *errbuf)
{
    tr->out_n = tr->out_pos = 0;
    /* the top's key: a scan's first sorted one, a heap's root */
    while (tr->live && !key_ready(tr->scan ? tr->sorted[0] : tr->heap[0].key)) {
        struct heap_ent *top = &tr->heap[tr->top];
        struct stream *s = &tr->streams[top->idx];
        int r = stream_refill(tr, s, errbuf);

        if (r < 0)
            return -1;
        if (r > 0) {
            top->cur = s->ring;
            top->end = s->ring + s->count;
            if (tr->scan)
                tr->key2[tr->top] = next_key(s->ring, top->end) | (int64_t)tr->top;
        }
        merge_settle(tr, r, r > 0 ? merge_key(s->ring[0].t, 1) : 0);
    }
    if (!tr->live)
        return 0;
    tr->out_n = tr->scan ? emit_scan(tr) : emit_heap(tr);
    return 1;
}

int iot_trace_next_ref(struct iot_trace *tr, const struct iot_event **ev, char *errbuf)
{
    if (tr->out_pos == tr->out_n) {
        int r = merge_round(tr, errbuf);

        if (r <= 0)
            return r;
    }
    *ev = tr->out[tr->out_pos++];
    tr->stats.events++;
    return 1;
}

int iot_trace_next_batch(struct iot_trace *tr, const struct iot_event *const **evs, char *errbuf)
{
    int n;

    if (tr->out_pos == tr->out_n) {
        int r = merge_round(tr, errbuf);

        if (r <= 0)
            return r;
    }
    *evs = tr->out + tr->out_pos;
    n = (int)(tr->out_n - tr->out_pos);
    tr->out_pos = tr->out_n;
    tr->stats.events += (uint64_t)n;
    return n;
}

int iot_trace_next(struct iot_trace *tr, struct iot_event *ev, char *errbuf)
{
    const struct iot_event *ref;
    int r = iot_trace_next_ref(tr, &ref, errbuf);

    if (r != 1)
        return r;
    *ev = *ref;
    /* the stream's decoder reuses its argv array for the next event */
    if (ev->kind == IOT_EV_PROCESS && copy_argv(tr, ev) < 0) {
        set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
        return -1;
    }
    return 1;
}

int64_t iot_trace_origin(const struct iot_trace *tr)
{
    return tr->origin;
}

void iot_trace_stats(const struct iot_trace *tr, struct iot_trace_stats *out)
{
    *out = tr->stats;
}

void iot_trace_close(struct iot_trace *tr)
{
    if (!tr)
        return;
    for (size_t i = 0; i < tr->nstreams; i++) {
        stream_release(&tr->streams[i]);
        free(tr->streams[i].chunks);
    }
    for (size_t i = 0; i < tr->ninputs; i++) {
        if (tr->inputs[i].map)
            munmap((void *)tr->inputs[i].map, tr->inputs[i].size);
        if (tr->inputs[i].fd >= 0)
            close(tr->inputs[i].fd);
        free(tr->inputs[i].name);
    }
    ZSTD_freeDCtx(tr->dctx);
    free(tr->inputs);
    free(tr->streams);
    free(tr->heap);
    free(tr->out);
    free(tr->argv);
    free(tr->cbuf);
    free(tr);
}
