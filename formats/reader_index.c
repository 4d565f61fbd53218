/*
 * reader_index.c - pass 1 of the reader: walk an input's zstd frames, note
 * each intact chunk's place, chain, sequence number and start time, and skip
 * damage to the next frame magic (docs/trace-format.md, section 6).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "reader_int.h"
#include "records.h"
#include "varint.h"

/* ---------------------------------------------------------- chains */

/* What tells a chain of one input from another, hashed (iot_mix64). */
static uint64_t chain_hash(uint32_t input, uint64_t chain_id, int32_t pid, int32_t tid)
{
    uint64_t who = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;

    return iot_mix64_pair(iot_mix64_pair(input, chain_id), who);
}

static int chain_is(const struct trace_chain *s, uint32_t input, const struct iot_chunk_hdr *h)
{
    return s->input == input && s->chain_id == h->chain_id && s->pid == h->pid &&
           s->tid == h->tid;
}

/* The slot of (input, h's chain) in slots (cap a power of two): the one
   holding its index + 1, or the empty one where it would go. */
static uint32_t *chain_slot(const struct iot_trace *tr, uint32_t *slots, size_t cap,
                             uint32_t input, const struct iot_chunk_hdr *h)
{
    size_t i = (size_t)chain_hash(input, h->chain_id, h->pid, h->tid) & (cap - 1);

    while (slots[i] && !chain_is(&tr->chains[slots[i] - 1], input, h))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Room for one more chain in the slots (kept at most half full); 0 or -1. */
static int chain_slots_reserve(struct iot_trace *tr)
{
    size_t ncap = tr->chain_slots_cap ? tr->chain_slots_cap * 2 : 64;
    uint32_t *ns;

    if ((tr->nchains + 1) * 2 <= tr->chain_slots_cap)
        return 0;
    if (tr->nchains >= UINT32_MAX / 2 || !(ns = calloc(ncap, sizeof(*ns))))
        return -1;
    for (size_t k = 0; k < tr->nchains; k++) {
        const struct trace_chain *s = &tr->chains[k];
        struct iot_chunk_hdr h = {.chain_id = s->chain_id, .pid = s->pid, .tid = s->tid};

        *chain_slot(tr, ns, ncap, s->input, &h) = (uint32_t)k + 1;
    }
    free(tr->chain_slots);
    tr->chain_slots = ns;
    tr->chain_slots_cap = ncap;
    return 0;
}

static struct trace_chain *trace_chain_get(struct iot_trace *tr, uint32_t input,
                                             const struct iot_chunk_hdr *h)
{
    struct trace_chain *s;
    uint32_t *slot;

    /* chunks of a chain cluster in the file: the newest chain first */
    if (tr->nchains && chain_is(&tr->chains[tr->nchains - 1], input, h))
        return &tr->chains[tr->nchains - 1];
    /* then by hash: a trace of 30,000 short processes has 30,000 chains,
       and a scan of them all per new chain would be quadratic */
    if (chain_slots_reserve(tr) < 0)
        return NULL;
    slot = chain_slot(tr, tr->chain_slots, tr->chain_slots_cap, input, h);
    if (*slot)
        return &tr->chains[*slot - 1];
    if (iot_grow(&tr->chains, &tr->chains_cap, tr->nchains + 1, sizeof(*tr->chains)) < 0)
        return NULL;
    s = &tr->chains[tr->nchains++];
    memset(s, 0, sizeof(*s));
    s->input = input;
    s->pid = h->pid;
    s->tid = h->tid;
    s->chain_id = h->chain_id;
    *slot = (uint32_t)tr->nchains;
    return s;
}

/* ------------------------------------------------------------ frames */

/* Offset of the next zstd frame magic at or after off, or size. */
static size_t find_bytes(const struct trace_input *in, size_t off, size_t end,
                         const uint8_t *m, size_t n)
{
    while (off + n <= end) {
        const uint8_t *p = memchr(in->map + off, m[0], end - off - (n - 1));

        if (!p)
            break;
        if (memcmp(p, m, n) == 0)
            return (size_t)(p - in->map);
        off = (size_t)(p - in->map) + 1;
    }
    return end;
}

/*
 * Where reading resumes after damage at off - 1: the next data frame's
 * magic or the next chunk's index frame (its magic, size 48 and the chunk
 * header's magic), whichever comes first, so that the bytes counted as
 * skipped are the damaged ones only. in->size when neither follows.
 */
static size_t find_magic(const struct trace_input *in, size_t off)
{
    static const uint8_t m[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    static const uint8_t index[12] = { 0x5e, 0x2a, 0x4d, 0x18, 48, 0, 0, 0, 'I', 'O', 'S', 'C' };
    size_t data = find_bytes(in, off, in->size, m, 4);
    size_t frame = find_bytes(in, off, data + 12 <= in->size ? data + 12 : in->size, index, 12);

    return frame < data ? frame : data;
}

size_t trace_frame_decode(struct iot_trace *tr, const uint8_t *src, size_t csize,
                          uint8_t **buf, size_t *cap)
{
    unsigned long long content = ZSTD_getFrameContentSize(src, csize);
    size_t r;

    if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
        content < IOT_CHUNK_HDR_SIZE || content > IOT_MAX_CHUNK_BYTES)
        return 0;
    if (content > *cap) {
        /*
         * Exactly the content, not doubled: pass 2 counts these buffers
         * against IOT_MAX_INFLATED. *cap counts the content; the decoder's
         * zero pad comes on top.
         */
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

/* ------------------------------------------------------------ pass 1 */

int trace_index_input(struct iot_trace *tr, uint32_t idx, uint8_t **scratch,
                      size_t *scratch_cap, char *errbuf)
{
    static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    static const uint8_t index_magic[4] = { 0x5e, 0x2a, 0x4d, 0x18 };
    const struct trace_input *in = &tr->inputs[idx];
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
            trace_input_release(in, released, off - released);
            released = off;
        }
        struct chunk_ref c;
        struct trace_chain *s;
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
            n = trace_frame_decode(tr, in->map + off, csize, scratch, scratch_cap);
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
        c.dsize = (uint32_t)n;
        c.seq = h.seq;
        c.nrec = h.nrec;
        c.base_t = h.base_t;
        s = trace_chain_get(tr, idx, &h);
        if (!s || trace_chain_add(tr, s, &c) < 0) {
            trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, "out of memory");
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
        trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, "empty file");
    } else if (tr->stats.truncated && damaged == 0) {
        trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, "no complete chunk (truncated trace)");
    } else {
        trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, "not an ioscope trace (no readable chunk)");
    }
    return -1;
}
