/* Compressed inputs, gzip (zlib) and zstd, read as their bytes (decompress.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "decompress.h"

/* The compressed bytes read from the source at a time. */
#define DECOMP_IN_SIZE (64 * 1024)

struct decomp {
    enum decomp_kind kind;
    decomp_src_fn *src;
    void *ctx;
    z_stream z;
    int z_ready;
    ZSTD_DStream *zs;
    unsigned char *in;
    size_t in_len, in_pos;
    uint64_t in_total, out_total;  /* compressed bytes taken, decoded bytes given */
    int src_eof;
    int at_boundary;   /* a member or frame has just ended: the stream may end here */
    int out_full;      /* the last step filled its output: the decoder may hold more */
    int done;
    char damage[160];
};

enum decomp_kind decomp_detect(const void *buf, size_t n)
{
    const unsigned char *p = buf;

    if (n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)   /* gzip, deflate */
        return DECOMP_GZIP;
    if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
        return DECOMP_ZSTD;
    return DECOMP_NONE;
}

const char *decomp_name(enum decomp_kind kind)
{
    return kind == DECOMP_GZIP ? "gzip" : kind == DECOMP_ZSTD ? "zstd" : "plain";
}

/* One decoding step over the input held; the bytes it wrote, -1 on damage (said). */
static ssize_t step(struct decomp *d, void *out, size_t size)
{
    size_t before_in = d->in_pos, made;

    if (d->kind == DECOMP_GZIP) {
        int rc;

        d->z.next_in = d->in + d->in_pos;
        d->z.avail_in = (uInt)(d->in_len - d->in_pos);
        d->z.next_out = out;
        d->z.avail_out = (uInt)size;
        rc = inflate(&d->z, Z_NO_FLUSH);
        d->in_pos = d->in_len - d->z.avail_in;
        made = size - d->z.avail_out;
        if (rc == Z_STREAM_END) {
            /* concatenated members (gzip a; gzip b; cat, or pigz) go on */
            d->at_boundary = 1;
            inflateReset(&d->z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(d->damage, sizeof(d->damage), "damaged gzip data at byte %" PRIu64 ": %s",
                     d->in_total - (d->in_len - d->in_pos), d->z.msg ? d->z.msg : "corrupt stream");
            return -1;
        } else if (made || d->in_pos != before_in) {
            d->at_boundary = 0;
        }
    } else {
        ZSTD_inBuffer in = {d->in, d->in_len, d->in_pos};
        ZSTD_outBuffer o = {out, size, 0};
        size_t rc = ZSTD_decompressStream(d->zs, &o, &in);

        d->in_pos = in.pos;
        made = o.pos;
        if (ZSTD_isError(rc)) {
            snprintf(d->damage, sizeof(d->damage), "damaged zstd data at byte %" PRIu64 ": %s",
                     d->in_total - (d->in_len - d->in_pos), ZSTD_getErrorName(rc));
            return -1;
        }
        if (rc == 0)
            d->at_boundary = 1;
        else if (made || d->in_pos != before_in)
            d->at_boundary = 0;
    }
    d->out_full = made == size;
    return (ssize_t)made;
}

ssize_t decomp_read(struct decomp *d, void *out, size_t size)
{
    size_t got = 0;

    while (got == 0 && size && !d->done) {
        ssize_t made;

        if (d->in_pos == d->in_len && !d->out_full) {
            ssize_t n;

            if (d->src_eof) {
                if (!d->at_boundary)
                    snprintf(d->damage, sizeof(d->damage),
                             "the %s stream is cut short (it ends after %" PRIu64
                             " compressed bytes, %" PRIu64 " decoded)",
                             decomp_name(d->kind), d->in_total, d->out_total);
                d->done = 1;
                break;
            }
            d->in_len = d->in_pos = 0;
            n = d->src(d->ctx, d->in, DECOMP_IN_SIZE);
            if (n < 0)
                return -1;
            if (n == 0)
                d->src_eof = 1;
            d->in_len = (size_t)n;
            d->in_total += (uint64_t)n;
            continue;
        }
        made = step(d, (char *)out + got, size - got);
        if (made < 0) {
            d->done = 1;
            break;
        }
        got += (size_t)made;
    }
    d->out_total += got;
    return (ssize_t)got;
}

const char *decomp_damage(const struct decomp *d)
{
    return d->damage[0] ? d->damage : NULL;
}

struct decomp *decomp_create(enum decomp_kind kind, decomp_src_fn *src, void *ctx)
{
    struct decomp *d = calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->kind = kind;
    d->src = src;
    d->ctx = ctx;
    d->in = malloc(DECOMP_IN_SIZE);
    if (!d->in)
        goto fail;
    if (kind == DECOMP_GZIP) {
        /* 15 + 16: a gzip wrapper around deflate, the largest window */
        if (inflateInit2(&d->z, 15 + 16) != Z_OK)
            goto fail;
        d->z_ready = 1;
    } else if (kind == DECOMP_ZSTD) {
        d->zs = ZSTD_createDStream();
        if (!d->zs || ZSTD_isError(ZSTD_initDStream(d->zs)))
            goto fail;
    } else {
        goto fail;
    }
    return d;
fail:
    decomp_free(d);
    return NULL;
}

void decomp_free(struct decomp *d)
{
    if (!d)
        return;
    if (d->z_ready)
        inflateEnd(&d->z);
    ZSTD_freeDStream(d->zs);
    free(d->in);
    free(d);
}

/* decomp_peek's source: the peeked bytes once. */
struct peek_src {
    const unsigned char *p;
    size_t n;
};

static ssize_t peek_read(void *ctx, void *buf, size_t size)
{
    struct peek_src *s = ctx;
    size_t k = s->n < size ? s->n : size;

    memcpy(buf, s->p, k);
    s->p += k;
    s->n -= k;
    return (ssize_t)k;
}

ssize_t decomp_peek(enum decomp_kind kind, const void *raw, size_t nraw, void *out, size_t cap)
{
    struct peek_src s = {raw, nraw};
    struct decomp *d;
    size_t got = 0;
    ssize_t n;

    if (decomp_detect(raw, nraw) != kind || kind == DECOMP_NONE)
        return -1;
    d = decomp_create(kind, peek_read, &s);
    if (!d)
        return -1;
    while (got < cap && (n = decomp_read(d, (char *)out + got, cap - got)) > 0)
        got += (size_t)n;
    /* damage before a byte decoded: not a stream of this kind after all */
    n = !got && decomp_damage(d) ? -1 : (ssize_t)got;
    decomp_free(d);
    return n;
}
