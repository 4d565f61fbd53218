/*
 * test_format_damage.c - the native trace format against damaged, foreign
 * and newer input: truncation at every byte and at every record boundary,
 * flipped bytes, a damaged index, more inputs than open files, version
 * refusal, a newer writer's records skipped, zstd's own tools, and the
 * docs listing every op and field. Part of the "format" suite.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_isSkippableFrame */
#include <zstd.h>

#include "format_util.h"
#include "future_enc.h"
#include "gen.h"
#include "iotrace.h"
#include "unit.h"

#define tmp_path unit_tmp_path
#define slurp unit_slurp
#define spill unit_spill

/* Events in each frame decoded on its own (a chunk must be self-contained). */
static void frame_events(const unsigned char *buf, size_t len, size_t *ends, long *counts,
                         size_t *nframes)
{
    char err[IOT_ERRBUF_SIZE];
    size_t off = 0, k = 0;

    while (off < len) {
        /* a chunk is its index frame (skippable) and its data frame */
        size_t fs = ZSTD_findFrameCompressedSize(buf + off, len - off);
        struct iot_strtab *st = iot_strtab_create();

        CU_ASSERT_FATAL(!ZSTD_isError(fs));
        CU_ASSERT_FATAL(ZSTD_isSkippableFrame(buf + off, len - off));
        fs += ZSTD_findFrameCompressedSize(buf + off + fs, len - off - fs);
        spill(tmp_path("frame.zst"), buf + off, fs);
        counts[k] = read_all(tmp_path("frame.zst"), NULL, st, NULL, err);
        CU_ASSERT(counts[k] > 0);
        iot_strtab_free(st);
        off += fs;
        ends[k++] = off;
    }
    *nframes = k;
}

static void test_truncation(void)
{
    const char *path = tmp_path("small.zst");
    struct expect x;
    unsigned char *buf;
    size_t len, ends[256], nframes, k = 0;
    long counts[256], complete = 0;
    char err[IOT_ERRBUF_SIZE];
    struct iot_event *prefix_events = NULL, *got = NULL;
    long nprefix = 0;
    int cut_fd;
    /* one table for every cut: events kept across cuts point into it */
    struct iot_strtab *st = iot_strtab_create();

    write_random(path, unit_seed() ^ 0x5eed, 300, 512, &x);
    buf = slurp(path, &len);
    frame_events(buf, len, ends, counts, &nframes);
    CU_ASSERT_FATAL(nframes >= 5);
    /* The cut file grows by one byte a cut: it holds buf[0, cut) each time
       without being written whole again (thousands of cuts). */
    spill(tmp_path("cut.zst"), buf, 0);
    cut_fd = open(tmp_path("cut.zst"), O_WRONLY | O_CLOEXEC);
    CU_ASSERT_FATAL(cut_fd >= 0);
    for (size_t cut = 0; cut <= len; cut++) {
        struct iot_trace_stats stats;
        long n;

        /* complete = events of the frames that end at or before cut */
        while (k < nframes && ends[k] <= cut)
            complete += counts[k++];
        if (cut > 0)
            CU_ASSERT_FATAL(pwrite(cut_fd, buf + cut - 1, 1, (off_t)(cut - 1)) == 1);
        memset(&stats, 0, sizeof(stats));
        n = read_all(tmp_path("cut.zst"), &got, st, &stats, err);
        if (k == 0) {
            CU_ASSERT_EQUAL(n, -1);  /* no complete chunk: refused with a message */
            CU_ASSERT(strstr(err, "cut.zst") != NULL);
        } else {
            CU_ASSERT_EQUAL(n, complete);
            CU_ASSERT_EQUAL(stats.truncated, cut != ends[k - 1]);
            if (cut == ends[k - 1]) {
                free(prefix_events);
                prefix_events = got;
                got = NULL;
                nprefix = n;
            } else if (n == nprefix) {
                /* a cut inside a frame yields exactly the complete frames' events */
                for (long i = 0; i < n; i++)
                    CU_ASSERT(iot_event_equal(&got[i], &prefix_events[i]));
            }
        }
    }
    close(cut_fd);
    iot_strtab_free(st);
    CU_ASSERT_EQUAL(complete, (long)x.n);
    free(prefix_events);
    free(got);
    free(buf);
    expect_free(&x);
}

static void test_flipped_bytes(void)
{
    uint64_t rng = unit_seed() ^ 0xf11b;
    const char *path = tmp_path("flip.zst");
    struct expect x;
    unsigned char *buf;
    size_t len;
    char err[IOT_ERRBUF_SIZE];

    int fd;

    write_random(path, unit_seed() ^ 0xf1, 300, 512, &x);
    buf = slurp(path, &len);
    /* the copy is written whole once; each flip changes its one byte there
       and puts it back after */
    spill(tmp_path("flipped.zst"), buf, len);
    fd = open(tmp_path("flipped.zst"), O_WRONLY | O_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0);
    for (int i = 0; i < 1500; i++) {
        size_t pos = unit_rand(&rng) % len;
        unsigned char bit = (unsigned char)(1u << (unit_rand(&rng) % 8));
        struct iot_strtab *st = iot_strtab_create();
        struct iot_trace_stats stats;
        long n;

        buf[pos] ^= bit;
        CU_ASSERT_FATAL(pwrite(fd, buf + pos, 1, (off_t)pos) == 1);
        memset(&stats, 0, sizeof(stats));
        n = read_all(tmp_path("flipped.zst"), NULL, st, &stats, err);
        /* either refused, or recovered with at most the original events */
        CU_ASSERT(n == -1 || (n <= (long)x.n && (stats.chunks_damaged > 0 || stats.truncated ||
                                                  n == (long)x.n)));
        buf[pos] ^= bit;
        CU_ASSERT_FATAL(pwrite(fd, buf + pos, 1, (off_t)pos) == 1);
        iot_strtab_free(st);
    }
    close(fd);
    free(buf);
    expect_free(&x);
}

/*
 * An index frame whose size field is damaged: skipping what it says would
 * drop the chunks after it unnoticed (test_flipped_bytes found one bit
 * turning 48 into 2096). Set wrong three ways - a little too big, beyond
 * the file, too small - every event is still read and the damage counted.
 */
static void test_index_size_damaged(void)
{
    static const uint32_t sizes[] = { IOT_CHUNK_HDR_SIZE + 2048, 0x7fffffffu, 8 };
    static const unsigned char magic[4] = { 0x5e, 0x2a, 0x4d, 0x18 };  /* IOT_INDEX_FRAME_MAGIC */
    const char *path = tmp_path("index.zst");
    char err[IOT_ERRBUF_SIZE];
    struct expect x;
    unsigned char *buf, saved[4];
    size_t len, at = 0;
    int seen = 0;

    write_random(path, 0x1dec5, 300, 512, &x);
    buf = slurp(path, &len);
    for (size_t i = 0; i + 8 <= len && seen < 5; i++)
        if (memcmp(buf + i, magic, 4) == 0 && ++seen == 5)
            at = i;                                        /* the fifth chunk's index frame */
    CU_ASSERT_FATAL(at > 0);
    memcpy(saved, buf + at + 4, 4);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        struct iot_strtab *st = iot_strtab_create();
        struct iot_trace_stats stats;
        long n;

        buf[at + 4] = (unsigned char)sizes[k];
        buf[at + 5] = (unsigned char)(sizes[k] >> 8);
        buf[at + 6] = (unsigned char)(sizes[k] >> 16);
        buf[at + 7] = (unsigned char)(sizes[k] >> 24);
        spill(tmp_path("index_bad.zst"), buf, len);
        memset(&stats, 0, sizeof(stats));
        n = read_all(tmp_path("index_bad.zst"), NULL, st, &stats, err);
        CU_ASSERT_EQUAL(n, (long)x.n);
        CU_ASSERT(stats.chunks_damaged >= 1);
        CU_ASSERT_FALSE(stats.truncated);
        memcpy(buf + at + 4, saved, 4);
        iot_strtab_free(st);
    }
    free(buf);
    expect_free(&x);
}

/*
 * More traces at once than the process may have files open: the reader
 * keeps only some open between its passes (it held one per trace once,
 * and 150 traces under a limit of 40 failed with "Too many open files").
 */
static void test_many_inputs(void)
{
    enum { NTRACES = 120 };
    static char names[NTRACES][160];
    const char *paths[NTRACES];
    char err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st = iot_strtab_create();
    struct rlimit old, low;
    struct iot_trace *tr;
    struct iot_event ev;
    size_t written = 0;
    long n = 0;
    int r;

    for (int i = 0; i < NTRACES; i++) {
        struct expect x;
        char name[32];

        snprintf(name, sizeof(name), "many%03d.zst", i);
        snprintf(names[i], sizeof(names[i]), "%s", tmp_path(name));
        write_random(names[i], 0x3a11 + (uint64_t)i, 20, 512, &x);
        written += x.n;
        expect_free(&x);
        paths[i] = names[i];
    }
    CU_ASSERT_FATAL(getrlimit(RLIMIT_NOFILE, &old) == 0);
    low = old;
    low.rlim_cur = 40;
    CU_ASSERT_FATAL(setrlimit(RLIMIT_NOFILE, &low) == 0);
    tr = iot_trace_open(paths, NTRACES, st, err);
    if (tr) {
        while ((r = iot_trace_next(tr, &ev, err)) == 1)
            n++;
        CU_ASSERT_EQUAL(r, 0);
        iot_trace_close(tr);
    }
    setrlimit(RLIMIT_NOFILE, &old);
    CU_ASSERT_PTR_NOT_NULL(tr);
    CU_ASSERT_EQUAL(n, (long)written);
    iot_strtab_free(st);
}

static void test_version_refused(void)
{
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION + 1, .pid = 1, .tid = 1, .bytes = 0 };
    struct iot_chunker *c = iot_chunker_create(1);
    unsigned char frame[256];
    size_t n = iot_chunk_compress(c, &h, "", frame, sizeof(frame));
    const char *path = tmp_path("v2.zst");
    char err[IOT_ERRBUF_SIZE] = "";

    CU_ASSERT_FATAL(n > 0);
    spill(path, frame, n);
    CU_ASSERT_EQUAL(read_all(path, NULL, NULL, NULL, err), -1);
    CU_ASSERT(strstr(err, "format version 2 is newer than this reader (1)") != NULL);
    CU_ASSERT(strstr(err, "v2.zst") != NULL);
    iot_chunker_free(c);
}

/*
 * A trace a later version wrote: ops, fields and a record kind this reader
 * does not know, among calls it does, in two threads' chunks. Every known
 * event comes back intact, times included, and what was skipped is counted.
 */
static void test_newer_writer(void)
{
    enum { T0 = 1000000 };
    /* known: this version's op numbers; FUTURE_OP_*: the later version's */
    static const struct future_call calls[] = {
        { IOT_OP_OPEN, 0, 3, -1, 3, "/data/a", 1, T0 + 10, 5 },
        { IOT_OP_READ, 0, 3, 100, 100, NULL, 0, T0 + 20, 7 },
        { IOT_OP_READ, 0, 3, 100, 100, NULL, 0, T0 + 30, 9 },           /* REPEAT */
        { -1, FUTURE_OP_NEAR, 3, 64, 64, NULL, 1, T0 + 40, 3 },
        { -1, FUTURE_OP_NEAR, 3, 64, 64, NULL, 1, T0 + 50, 4 },          /* REPEAT, skipped */
        { IOT_OP_WRITE, 0, 3, 8, 8, NULL, 1, T0 + 60, 2 },              /* unknown fields */
        { IOT_OP_WRITE, 0, 3, 8, 8, NULL, 1, T0 + 70, 6 },              /* REPEAT of it */
        { -1, FUTURE_OP_FAR, 3, 4096, 4096, "/data/b", 0, T0 + 80, 11 },  /* escape tag */
        { IOT_OP_FSYNC, 0, 3, -1, 0, NULL, 0, T0 + 90, 13 },
        { IOT_OP_CLOSE, 0, 3, -1, 0, NULL, 1, T0 + 100, 1 },
    };
    const size_t ncalls = sizeof(calls) / sizeof(calls[0]);
    struct iot_chunker *c = iot_chunker_create(1);
    static uint8_t rec[4096], frames[16384];
    size_t flen = 0;
    const char *path = tmp_path("newer.zst");
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL;
    char err[IOT_ERRBUF_SIZE] = "";
    long n;

    /* the same script in a second process, one that starts later */
    for (int i = 0; i < 2; i++) {
        struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 100 + i,
                                   .tid = 100 + i, .chain_id = 1, .base_t = T0 + i * 1000 };
        struct future_call shifted[sizeof(calls) / sizeof(calls[0])];

        for (size_t k = 0; k < ncalls; k++) {
            shifted[k] = calls[k];
            shifted[k].t += i * 1000;
        }
        h.bytes = (uint32_t)future_records(rec, sizeof(rec), h.base_t, shifted, ncalls, 3,
                                           T0 + 200 + i * 1000, &h.nrec);
        CU_ASSERT_FATAL(h.bytes > 0);
        n = (long)iot_chunk_compress(c, &h, rec, frames + flen, sizeof(frames) - flen);
        CU_ASSERT_FATAL(n > 0);
        flen += (size_t)n;
    }
    spill(path, frames, flen);
    n = read_all(path, &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 2 * (2 + 7));   /* process, 7 known calls, exit; twice */
    CU_ASSERT_EQUAL(ts.chunks, 2);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.calls_unknown, 2 * 3);
    CU_ASSERT_EQUAL(ts.fields_unknown, 2 * 3); /* the open, the first write, the close */
    CU_ASSERT_EQUAL(ts.records_unknown, 2);
    for (int i = 0; i < 2; i++) {
        const struct iot_event *ev = &evs[i * 9];
        size_t k = 0;

        CU_ASSERT_EQUAL(ev->kind, IOT_EV_PROCESS);
        CU_ASSERT_EQUAL(ev->pid, 100 + i);
        for (size_t j = 0; j < ncalls; j++) {
            const struct future_call *want = &calls[j];

            if (want->known_op < 0)
                continue;
            ev = &evs[i * 9 + 1 + k++];
            CU_ASSERT_EQUAL(ev->kind, IOT_EV_CALL);
            CU_ASSERT_EQUAL(ev->op, want->known_op);
            CU_ASSERT_EQUAL(ev->pid, 100 + i);
            /* times relative to the origin, the first chunk's start */
            CU_ASSERT_EQUAL(ev->t, want->t + i * 1000 - T0);
            CU_ASSERT_EQUAL(ev->dur, want->dur);
            CU_ASSERT_EQUAL(ev->ret, want->ret);
            CU_ASSERT_EQUAL(ev->fd, want->fd);
            CU_ASSERT_EQUAL(ev->has, IOT_HAS_FD | (want->size >= 0 ? IOT_HAS_SIZE : 0) |
                                         (want->path ? IOT_HAS_PATH : 0));
            CU_ASSERT_EQUAL(ev->size, want->size >= 0 ? want->size : 0);
            CU_ASSERT(want->path ? ev->path && !strcmp(ev->path, want->path) : !ev->path);
        }
        ev = &evs[i * 9 + 8];
        CU_ASSERT_EQUAL(ev->kind, IOT_EV_EXIT);
        CU_ASSERT_EQUAL(ev->t, 200 + i * 1000);
    }
    free(evs);
    iot_strtab_free(st);
    iot_chunker_free(c);
}

/* The whole of TOP/rel (TOP: the source tree, the working directory by default). */
static char *read_doc(const char *rel)
{
    char path[512];
    const char *top = getenv("TOP");
    FILE *f;
    char *buf = NULL;
    size_t n;

    snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
    f = fopen(path, "rb");
    if (!f) {
        printf("\n  cannot open %s (run from the source tree or set TOP)\n", path);
        return NULL;
    }
    buf = calloc(1, 1 << 20);
    n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/*
 * The docs a reader or a contributor goes by list every op and field of the
 * schema: the byte-level spec with each op's number and each field's bit,
 * and the recorder's table of what it records with each op.
 */
static void test_docs_list_schema(void)
{
    char *spec = read_doc("docs/trace-format.md"), *rec = read_doc("docs/recorder.md");
    char *recorded = rec ? strstr(rec, "## What is recorded") : NULL;
    char *end = recorded ? strstr(recorded + 1, "\n## ") : NULL;
    char cell[128];

    CU_ASSERT_FATAL(spec != NULL && recorded != NULL);
    if (end)
        *end = '\0';
    for (unsigned op = 0; op < IOT_OP_COUNT; op++) {
        snprintf(cell, sizeof(cell), "| %u | %s |", op, iot_op_name(op));
        if (!strstr(spec, cell))
            printf("\n  docs/trace-format.md 5.3 lacks op %u, %s\n", op, iot_op_name(op));
        CU_ASSERT(strstr(spec, cell) != NULL);
        snprintf(cell, sizeof(cell), "`%s`", iot_op_name(op));
        if (!strstr(recorded, cell))
            printf("\n  docs/recorder.md \"What is recorded\" lacks op %s\n", iot_op_name(op));
        CU_ASSERT(strstr(recorded, cell) != NULL);
    }
    for (unsigned i = 0; i < IOT_FIELD_COUNT; i++) {
        unsigned bit = (unsigned)__builtin_ctz(iot_fields[i].bit);

        snprintf(cell, sizeof(cell), "| %u | %s |", bit, iot_fields[i].key);
        if (!strstr(spec, cell))
            printf("\n  docs/trace-format.md 5.2 lacks field %u, %s\n", bit, iot_fields[i].key);
        CU_ASSERT(strstr(spec, cell) != NULL);
    }
    free(spec);
    free(rec);
}

static void test_not_a_trace(void)
{
    const char *path = tmp_path("junk.zst");
    char err[IOT_ERRBUF_SIZE] = "";

    spill(path, "hello, world\n", 13);
    CU_ASSERT_EQUAL(read_all(path, NULL, NULL, NULL, err), -1);
    CU_ASSERT(strstr(err, "not an ioscope trace") != NULL);
    spill(path, "", 0);
    CU_ASSERT_EQUAL(read_all(path, NULL, NULL, NULL, err), -1);
    CU_ASSERT(strstr(err, "empty file") != NULL);
    CU_ASSERT_EQUAL(read_all(tmp_path("missing.zst"), NULL, NULL, NULL, err), -1);
    CU_ASSERT(strstr(err, "No such file or directory") != NULL);
}

static void test_zstd_accepts(void)
{
    const char *path = tmp_path("zstdt.zst");
    struct expect x;
    char cmd[256];

    write_random(path, unit_seed() ^ 0x2, 2000, 4096, &x);
    expect_free(&x);
    if (system("command -v zstd >/dev/null 2>&1") != 0) {
        fprintf(stderr, "\nzstd not installed: `zstd -t` check skipped\n");
        return;
    }
    snprintf(cmd, sizeof(cmd), "zstd -q -t '%s'", path);
    CU_ASSERT_EQUAL(system(cmd), 0);
    /* the decompressed stream starts with the first chunk's header */
    snprintf(cmd, sizeof(cmd), "zstd -q -dc '%s' | head -c 4 | grep -q IOSC", path);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/*
 * A chunk of every kind of record (strings, repeats, process, thread and
 * exit records) cut by iot_records_prefix at budgets from 1 byte to the
 * whole: each cut is a chunk that reads back as exactly the events whose
 * records lie wholly within it, and the whole is the whole.
 */
static void test_records_prefix(void)
{
    enum { N = 300, CHUNK = 64 << 10 };
    struct gen g;
    struct expect x = { calloc(N, sizeof(struct iot_event)), 0, iot_strtab_create() };
    unsigned char *buf = malloc(CHUNK), *frame = malloc(iot_chunk_bound(CHUNK));
    size_t ends[N], budgets[] = { 1, 7, 60, 333, 1000, 2500, 4096, 9999, 0 };
    struct iot_chunker *c = iot_chunker_create(1);
    const char *path = tmp_path("prefix.zst");
    struct iot_enc e;

    gen_init(&g, 7, 1, 1);
    iot_enc_begin(&e, buf, CHUNK, 0);
    for (size_t i = 0; i < N; i++) {
        struct iot_event ev;
        int r = 0;

        gen_event(&g, &ev, 1);
        ev.pid = ev.tid = 1000;
        if (ev.kind == IOT_EV_CALL) {
            if (ev.has & IOT_HAS_PATH) r |= iot_enc_str(&e, ev.path, strlen(ev.path), &ev.path_id);
            if (ev.has & IOT_HAS_MODE) r |= iot_enc_str(&e, ev.mode, strlen(ev.mode), &ev.mode_id);
            if (ev.has & IOT_HAS_STACK) r |= iot_enc_str(&e, ev.stack, strlen(ev.stack), &ev.stack_id);
            if (ev.has & IOT_HAS_NEWPATH)
                r |= iot_enc_str(&e, ev.newpath, strlen(ev.newpath), &ev.newpath_id);
            r |= iot_enc_call(&e, &ev);
        } else if (ev.kind == IOT_EV_PROCESS) {
            r = iot_enc_process(&e, ev.ppid, ev.t, ev.start_unix_ns, ev.exe, ev.argc, ev.argv);
        } else if (ev.kind == IOT_EV_THREAD) {
            r = iot_enc_thread(&e, ev.t, ev.name);
        } else {
            r = iot_enc_exit(&e, ev.t, ev.status, ev.signal);
        }
        CU_ASSERT_FATAL(r == 0);
        ends[i] = e.len;
        expect_add(&x, &ev);
    }
    budgets[sizeof(budgets) / sizeof(budgets[0]) - 1] = e.len;
    for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
        struct iot_chunk_hdr h = { IOT_FORMAT_VERSION, 0, 1000, 1000, 1, 0, 0, 0, 0 };
        struct iot_event *got = NULL;
        struct iot_strtab *st = iot_strtab_create();
        char err[IOT_ERRBUF_SIZE] = "";
        size_t want = 0, len;
        long n;

        len = iot_records_prefix(buf, e.len, budgets[b], &h.nrec);
        CU_ASSERT(len <= budgets[b]);
        while (want < N && ends[want] <= len)
            want++;
        h.bytes = (uint32_t)len;
        if (len == 0) {
            CU_ASSERT_EQUAL(want, 0);
            iot_strtab_free(st);
            continue;
        }
        spill(path, frame, iot_chunk_compress(c, &h, buf, frame, iot_chunk_bound(CHUNK)));
        n = read_all(path, &got, st, NULL, err);
        CU_ASSERT_EQUAL(n, (long)want);
        for (long i = 0; i < n && (size_t)i < want; i++) {
            struct iot_event w = x.ev[i], r = got[i];

            /* a process event's argv lives in the reader until the next
               event: read_all's copies cannot be compared by it */
            if (w.kind == IOT_EV_PROCESS)
                w.argc = r.argc = 0;
            CU_ASSERT(iot_event_equal(&r, &w));
        }
        if (budgets[b] == e.len)
            CU_ASSERT(len == e.len && h.nrec == e.nrec && want == N);
        free(got);
        iot_strtab_free(st);
    }
    expect_free(&x);
    free(buf);
    free(frame);
    iot_chunker_free(c);
}

void format_damage_tests(CU_pSuite s)
{
    CU_add_test(s, "truncation at every byte offset", test_truncation);
    CU_add_test(s, "flipped bytes never crash", test_flipped_bytes);
    CU_add_test(s, "a damaged index frame size loses no chunk", test_index_size_damaged);
    CU_add_test(s, "more traces at once than open files allowed", test_many_inputs);
    CU_add_test(s, "newer version refused", test_version_refused);
    CU_add_test(s, "a newer writer's ops, fields and records skipped exactly", test_newer_writer);
    CU_add_test(s, "the docs list every op and field of the schema", test_docs_list_schema);
    CU_add_test(s, "not a trace / empty / missing", test_not_a_trace);
    CU_add_test(s, "zstd -t accepts a trace", test_zstd_accepts);
    CU_add_test(s, "a chunk cut at every kind of record boundary", test_records_prefix);
}
