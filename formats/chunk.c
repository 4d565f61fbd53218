/*
 * chunk.c - the chunk header and one zstd frame per chunk.
 */
#include <stdlib.h>
#include <string.h>
/* ZSTD_initStaticCCtx and the size estimates: stable in libzstd since 1.4 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "hash.h"
#include "iotrace.h"
#include "records.h"
#include "varint.h"

/*
 * FNV-1a of the header's first 44 bytes. The copy in the index frame has no
 * zstd checksum of its own; this keeps a flipped bit there from misplacing a
 * chunk.
 */
static uint32_t hdr_check(const uint8_t *p)
{
    return iot_fnv32(p, IOT_CHUNK_HDR_SIZE - 4);
}

void iot_chunk_hdr_put(uint8_t *out, const struct iot_chunk_hdr *h)
{
    memcpy(out, IOT_CHUNK_MAGIC, 4);
    out[4] = (uint8_t)h->version;
    out[5] = (uint8_t)(h->version >> 8);
    out[6] = (uint8_t)h->flags;
    out[7] = (uint8_t)(h->flags >> 8);
    iot_put_le32(out + 8, (uint32_t)h->pid);
    iot_put_le32(out + 12, (uint32_t)h->tid);
    iot_put_le64(out + 16, h->chain_id);
    iot_put_le32(out + 24, h->seq);
    iot_put_le32(out + 28, h->nrec);
    iot_put_le64(out + 32, (uint64_t)h->base_t);
    iot_put_le32(out + 40, h->bytes);
    iot_put_le32(out + 44, hdr_check(out));
}

int iot_chunk_hdr_get(const uint8_t *in, size_t len, struct iot_chunk_hdr *h)
{
    if (len < IOT_CHUNK_HDR_SIZE || memcmp(in, IOT_CHUNK_MAGIC, 4) != 0 ||
        iot_get_le32(in + 44) != hdr_check(in))
        return -1;
    h->version = (uint32_t)in[4] | (uint32_t)in[5] << 8;
    h->flags = (uint32_t)in[6] | (uint32_t)in[7] << 8;
    h->pid = (int32_t)iot_get_le32(in + 8);
    h->tid = (int32_t)iot_get_le32(in + 12);
    h->chain_id = iot_get_le64(in + 16);
    h->seq = iot_get_le32(in + 24);
    h->nrec = iot_get_le32(in + 28);
    h->base_t = (int64_t)iot_get_le64(in + 32);
    h->bytes = iot_get_le32(in + 40);
    if (h->version > IOT_FORMAT_VERSION)
        return -2;
    if (h->version == 0 || h->base_t > IOT_MAX_TIME || h->base_t < -IOT_MAX_TIME)
        return -1;
    return 0;
}

struct iot_chunker {
    ZSTD_CCtx *cctx;
};

/*
 * The checksum lets a reader tell a damaged chunk from a good one; the
 * content size in the frame header lets it size its buffer up front.
 */
static void chunker_params(ZSTD_CCtx *cctx, int level)
{
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
}

struct iot_chunker *iot_chunker_create(int level)
{
    struct iot_chunker *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->cctx = ZSTD_createCCtx();
    if (!c->cctx) {
        free(c);
        return NULL;
    }
    chunker_params(c->cctx, level);
    return c;
}

/* Room for the chunker struct, aligned for the zstd workspace after it. */
#define STATIC_HEAD ((sizeof(struct iot_chunker) + 63) & ~(size_t)63)

size_t iot_chunker_static_size(int level, size_t max_bytes)
{
    ZSTD_compressionParameters cp =
        ZSTD_getCParams(level, IOT_CHUNK_HDR_SIZE + max_bytes, 0);

    return STATIC_HEAD + ZSTD_estimateCStreamSize_usingCParams(cp);
}

struct iot_chunker *iot_chunker_init_static(void *mem, size_t size, int level)
{
    struct iot_chunker *c = mem;

    if (size < STATIC_HEAD || ((uintptr_t)mem & 63))
        return NULL;
    c->cctx = ZSTD_initStaticCCtx((uint8_t *)mem + STATIC_HEAD, size - STATIC_HEAD);
    if (!c->cctx)
        return NULL;
    chunker_params(c->cctx, level);
    return c;
}

void iot_chunker_free(struct iot_chunker *c)
{
    if (!c)
        return;
    ZSTD_freeCCtx(c->cctx);
    free(c);
}

/* The index frame: skippable-frame magic, length, then the header. */
#define INDEX_FRAME_SIZE (8 + IOT_CHUNK_HDR_SIZE)

size_t iot_chunk_bound(size_t bytes)
{
    return INDEX_FRAME_SIZE + ZSTD_compressBound(IOT_CHUNK_HDR_SIZE + bytes);
}

size_t iot_chunk_compress(struct iot_chunker *c, const struct iot_chunk_hdr *h,
                          const void *records, void *dst, size_t cap)
{
    uint8_t hdr[IOT_CHUNK_HDR_SIZE];
    ZSTD_outBuffer out = { (uint8_t *)dst + INDEX_FRAME_SIZE, cap - INDEX_FRAME_SIZE, 0 };
    ZSTD_inBuffer in = { hdr, sizeof(hdr), 0 };
    size_t r;

    if (cap < INDEX_FRAME_SIZE)
        return 0;
    iot_chunk_hdr_put(hdr, h);
    /*
     * A skippable frame with a copy of the header comes first, so a reader can
     * index a trace without decompressing it; zstd -dc ignores it.
     */
    iot_put_le32(dst, IOT_INDEX_FRAME_MAGIC);
    iot_put_le32((uint8_t *)dst + 4, IOT_CHUNK_HDR_SIZE);
    memcpy((uint8_t *)dst + 8, hdr, IOT_CHUNK_HDR_SIZE);
    ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_only);
    if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c->cctx, IOT_CHUNK_HDR_SIZE + (size_t)h->bytes)))
        return 0;
    /* Header and records go in as two pieces of one frame: no copy. */
    while (in.pos < in.size) {
        r = ZSTD_compressStream2(c->cctx, &out, &in, ZSTD_e_continue);
        if (ZSTD_isError(r))
            return 0;
    }
    in.src = records;
    in.size = h->bytes;
    in.pos = 0;
    do {
        r = ZSTD_compressStream2(c->cctx, &out, &in, ZSTD_e_end);
        if (ZSTD_isError(r) || (r != 0 && out.pos == out.size))
            return 0;
    } while (r != 0);
    return INDEX_FRAME_SIZE + out.pos;
}
