/*
 * hostile_gen.c - writes hostile but well-formed native traces, to check
 * that the analyzer's memory stays bounded (tests/e2e/test_stress_hostile.sh).
 * Not a fuzz target: built by that test against build/lib/libiotrace.a.
 *
 *   hostile_gen bomb STREAMS MIB OUT     STREAMS threads, each one chunk of
 *                                        MIB MiB of repeated 1-byte reads
 *                                        that compresses to a few KiB, all
 *                                        overlapping in time (so a reader
 *                                        that inflates every thread's
 *                                        chunk at once needs STREAMS*MIB)
 *   hostile_gen paths N OUT              one thread opening and closing N
 *                                        distinct paths
 *   hostile_gen stack FRAMES N OUT       N opens, each with a distinct
 *                                        stack of FRAMES frames (a string is
 *                                        at most 1 MiB in the format)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"

static int bomb(long streams, long mib, const char *out)
{
    size_t cap = (size_t)mib << 20, fcap = iot_chunk_bound(cap);
    uint8_t *rec = malloc(cap), *frame = malloc(fcap);
    struct iot_chunker *c = iot_chunker_create(3);
    FILE *f = fopen(out, "wb");
    struct iot_enc e;
    struct iot_chunk_hdr h;
    int64_t t = 1000000000;
    size_t n;

    if (!rec || !frame || !c || !f)
        return 1;
    /* one chunk's records, reused for every thread: a call, then repeats */
    iot_enc_begin(&e, rec, cap, t);
    iot_enc_thread(&e, t, "bomb");
    while (iot_enc_io(&e, IOT_OP_READ, 3, 1, 1, 0, t, 250) == 0)
        t += 280;
    for (long s = 0; s < streams; s++) {
        memset(&h, 0, sizeof(h));
        h.version = IOT_FORMAT_VERSION;
        h.flags = IOT_CHUNK_LAST;
        h.pid = 4242;
        h.tid = (int32_t)(4242 + s);
        h.chain_id = (uint64_t)s + 1;
        h.nrec = e.nrec;
        h.base_t = 1000000000;
        h.bytes = (uint32_t)e.len;
        n = iot_chunk_compress(c, &h, rec, frame, fcap);
        if (!n || fwrite(frame, 1, n, f) != n)
            return 1;
    }
    fprintf(stderr, "bomb: %ld streams x %zu record bytes (%u events each)\n", streams, e.len, e.nrec);
    iot_chunker_free(c);
    free(rec);
    free(frame);
    return fclose(f) != 0;
}

static int opens(long n, long frames, const char *out)
{
    char err[IOT_ERRBUF_SIZE], path[64];
    /* a chunk must hold the longest record */
    struct iot_writer *w = iot_writer_open(out, frames > 0 ? (size_t)frames * 12 + 4096 : 0, err);
    struct iot_event ev;
    char *stack = NULL;
    int64_t t = 1000000000;

    if (!w) {
        fprintf(stderr, "hostile_gen: %s\n", err);
        return 1;
    }
    if (frames > 0) {
        /* "u0000000000+0x1 (m)", then "f+0x10 (m)" per frame: a stack that
           compresses ~1000:1, so a small file carries gigabytes of them */
        long len;

        stack = malloc((size_t)frames * 12 + 32);
        if (!stack)
            return 1;
        len = sprintf(stack, "u0000000000+0x1 (m)");
        for (long i = 1; i < frames; i++)
            len += sprintf(stack + len, "\nf+0x10 (m)");
    }
    for (long i = 0; i < n; i++) {
        memset(&ev, 0, sizeof(ev));
        ev.kind = IOT_EV_CALL;
        ev.pid = ev.tid = 4242;
        ev.op = IOT_OP_OPEN;
        ev.t = t;
        ev.dur = 100;
        ev.ret = 3;
        ev.fd = 3;
        snprintf(path, sizeof(path), "/data/%ld/f%ld", i % 1000, i);
        ev.path = path;
        ev.has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS;
        if (stack) {
            /* the innermost frame differs, so no two stacks intern alike */
            for (long k = 10, v = i; k >= 1; k--, v /= 10)
                stack[k] = (char)('0' + v % 10);
            ev.stack = stack;
            ev.has |= IOT_HAS_STACK;
        }
        if (iot_writer_event(w, &ev, err) < 0)
            goto fail;
        memset(&ev, 0, sizeof(ev));
        ev.kind = IOT_EV_CALL;
        ev.pid = ev.tid = 4242;
        ev.op = IOT_OP_CLOSE;
        ev.t = t + 200;
        ev.dur = 100;
        ev.fd = 3;
        ev.has = IOT_HAS_FD;
        if (iot_writer_event(w, &ev, err) < 0)
            goto fail;
        t += 1000;
    }
    free(stack);
    return iot_writer_close(w, err) != 0;
fail:
    fprintf(stderr, "hostile_gen: %s\n", err);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "bomb") == 0)
        return bomb(atol(argv[2]), atol(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "paths") == 0)
        return opens(atol(argv[2]), 0, argv[3]);
    if (argc == 5 && strcmp(argv[1], "stack") == 0)
        return opens(atol(argv[3]), atol(argv[2]), argv[4]);
    fprintf(stderr, "usage: hostile_gen bomb STREAMS MIB OUT | paths N OUT | stack FRAMES N OUT\n");
    return 2;
}
