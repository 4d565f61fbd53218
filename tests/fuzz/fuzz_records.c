/*
 * fuzz_records.c - the record decoder behind valid framing. Mutated zstd
 * frames almost never decompress (checksums), so the trace target seldom
 * reaches the decoder; here the input is raw records that get wrapped into
 * well-formed chunks and frames before the reader sees them.
 *
 * Input: byte 0 picks 1-4 threads and, with byte 1, the chunk flags and
 * sequence numbers; then per thread a 2-byte little-endian length and that
 * many bytes of records (the last thread takes whatever is left). Every event
 * read is also written as JSONL, as `ioanalyze dump` would.
 */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "iotrace.h"

#define MAX_THREADS 4
#define FRAME_CAP (1u << 18)

void fuzz_records(const uint8_t *data, size_t size)
{
    static uint8_t frames[MAX_THREADS * FRAME_CAP];
    static struct iot_chunker *ck;
    struct iot_strtab *st;
    struct iot_trace *tr;
    const struct iot_event *ev;
    char err[IOT_ERRBUF_SIZE];
    const char *path;
    size_t len = 0, nthreads;
    FILE *null;

    if (size < 2)
        return;
    if (!ck && !(ck = iot_chunker_create(1)))
        return;
    nthreads = 1 + data[0] % MAX_THREADS;
    for (size_t i = 0, off = 2; i < nthreads && off <= size; i++) {
        size_t n = size - off;
        struct iot_chunk_hdr h = {0};

        if (i + 1 < nthreads && n >= 2) {
            size_t want = (size_t)data[off] | (size_t)data[off + 1] << 8;

            off += 2;
            n = want < size - off ? want : size - off;
        }
        h.version = IOT_FORMAT_VERSION;
        /* threads share a pid or not, end or not, and may repeat a seq */
        h.flags = (data[1] >> (2 * i)) & 3u;
        h.pid = 100 + (int32_t)((data[0] >> 2) & i);
        h.tid = 100 + (int32_t)i;
        h.chain_id = i + 1;
        h.seq = (data[0] >> 4) & (uint32_t)i;
        h.nrec = (uint32_t)n;
        h.base_t = 1000000000LL * (int64_t)(i + 1);
        h.bytes = (uint32_t)n;
        len += iot_chunk_compress(ck, &h, data + off, frames + len, sizeof(frames) - len);
        off += n;
    }
    path = fuzz_file(frames, len);
    st = iot_strtab_create();
    null = fopen("/dev/null", "w");
    tr = st ? iot_trace_open(&path, 1, st, err) : NULL;
    if (tr) {
        while (iot_trace_next_ref(tr, &ev, err) == 1)
            if (null)
                iot_jsonl_write(null, ev);
        iot_trace_close(tr);
    }
    if (null)
        fclose(null);
    iot_strtab_free(st);
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_records)
