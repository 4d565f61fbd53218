/*
 * test_format.c - the native trace format: seeded round trip of every op and
 * field, truncation at every byte, flipped bytes, version refusal, zstd
 * compatibility and the compactness of a tight read loop.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_isSkippableFrame */
#include <zstd.h>

#include "enc_io.h"
#include "future_enc.h"
#include "gen.h"
#include "iotrace.h"
#include "unit.h"

/* Expected events with their strings kept alive in their own table. */
struct expect {
    struct iot_event *ev;
    size_t n;
    struct iot_strtab *st;
};

static const char *keep(struct iot_strtab *st, const char *s)
{
    return s ? iot_intern(st, s, strlen(s)) : NULL;
}

static void expect_add(struct expect *x, const struct iot_event *ev)
{
    struct iot_event *c = &x->ev[x->n++];

    *c = *ev;
    c->path = keep(x->st, ev->path);
    c->mode = keep(x->st, ev->mode);
    c->stack = keep(x->st, ev->stack);
    c->newpath = keep(x->st, ev->newpath);
    c->exe = keep(x->st, ev->exe);
    c->name = keep(x->st, ev->name);
    if (ev->kind == IOT_EV_PROCESS) {
        const char **argv = calloc((size_t)ev->argc + 1, sizeof(*argv));
        for (int i = 0; i < ev->argc; i++)
            argv[i] = keep(x->st, ev->argv[i]);
        c->argv = argv;
    } else {
        c->argv = NULL;
    }
}

static void expect_free(struct expect *x)
{
    for (size_t i = 0; i < x->n; i++)
        if (x->ev[i].kind == IOT_EV_PROCESS)
            free((void *)x->ev[i].argv);
    free(x->ev);
    iot_strtab_free(x->st);
}

#define tmp_path unit_tmp_path

/*
 * Write n generated events of nproc processes x nthreads threads to path;
 * the expected events (t relative) in x.
 */
static void write_random_of(const char *path, uint64_t seed, size_t n, size_t chunk,
                            int nproc, int nthreads, struct expect *x)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, chunk, err);
    struct gen g;
    struct iot_event ev;
    int64_t origin = 0;

    CU_ASSERT_FATAL(w != NULL);
    x->ev = calloc(n, sizeof(*x->ev));
    x->n = 0;
    x->st = iot_strtab_create();
    gen_init(&g, seed, nproc, nthreads);
    for (size_t i = 0; i < n; i++) {
        gen_event(&g, &ev, 0);
        if (i == 0)
            origin = ev.t;
        CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
        ev.t -= origin;
        expect_add(x, &ev);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
}

static void write_random(const char *path, uint64_t seed, size_t n, size_t chunk,
                         struct expect *x)
{
    write_random_of(path, seed, n, chunk, 3, 4, x);
}

/* Read every event of path; returns how many, or -1 when open fails. */
static long read_all(const char *path, struct iot_event **out, struct iot_strtab *st,
                     struct iot_trace_stats *stats, char *err)
{
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    size_t cap = 0, n = 0;
    struct iot_event ev;
    int r;

    if (!tr)
        return -1;
    while ((r = iot_trace_next(tr, &ev, err)) == 1) {
        if (out) {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                *out = realloc(*out, cap * sizeof(**out));
            }
            /* argv is only valid until the next event: not compared here */
            if (ev.kind == IOT_EV_PROCESS) {
                ev.argv = NULL;
                ev.argc = 0;
            }
            (*out)[n] = ev;
        }
        n++;
    }
    CU_ASSERT(r == 0);
    if (stats)
        iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    return (long)n;
}

enum read_way { BY_COPY, BY_REF, BY_BATCH, READ_WAYS };

/* The next event of tr, read the given way (a batch is handed out one by one). */
static int next_way(struct iot_trace *tr, enum read_way way, const struct iot_event *const **batch,
                    int *left, struct iot_event *copy, const struct iot_event **ev, char *err)
{
    int r;

    switch (way) {
    case BY_COPY:
        r = iot_trace_next(tr, copy, err);
        *ev = copy;
        return r;
    case BY_REF:
        return iot_trace_next_ref(tr, ev, err);
    default:
        if (*left == 0) {
            r = iot_trace_next_batch(tr, batch, err);
            if (r <= 0)
                return r;
            *left = r;
        }
        *ev = *(*batch)++;
        (*left)--;
        return 1;
    }
}

/*
 * Every numeric member a call's record holds is small (below 2^40), so the
 * decoder must find it plain when iot_event_plain() holds (gen's time gaps
 * are small too).
 */
static int small_record(const struct iot_event *ev)
{
    const int64_t lim = (int64_t)1 << 40;
    const int64_t v[] = { ev->ret, ev->dur };

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (v[i] <= -lim || v[i] >= lim)
            return 0;
    /* the fields present (the decoder sees no other) */
    for (unsigned i = 0; i < IOT_FIELD_COUNT; i++)
        if ((ev->has & iot_fields[i].bit) && iot_fields[i].type != IOT_FT_STR &&
            (iot_field_int(ev, i) <= -lim || iot_field_int(ev, i) >= lim))
            return 0;
    return 1;
}

/*
 * Every event back, equal and in order, whichever way it is read and
 * whether the reader merges one stream, a few (a scanned list) or many (a
 * heap); and marked plain exactly when it is (iot_event_plain), as far as
 * the decoder can tell from the record's encoding.
 */
static void test_roundtrip(void)
{
    static const int shapes[][2] = { { 1, 1 }, { 2, 3 }, { 3, 4 } };
    uint64_t seed = unit_seed();
    const char *path = tmp_path("roundtrip.zst");

    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        struct expect x;

        write_random_of(path, seed + k, 20000, 4096, shapes[k][0], shapes[k][1], &x);
        for (int way = 0; way < READ_WAYS; way++) {
            struct iot_strtab *st = iot_strtab_create();
            char err[IOT_ERRBUF_SIZE];
            struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
            const struct iot_event *const *batch = NULL, *ev;
            struct iot_event copy;
            struct iot_trace_stats stats;
            size_t i = 0, plain = 0, sure = 0;
            int r, left = 0, bad = 0, plain_bad = 0;

            CU_ASSERT_FATAL(tr != NULL);
            while ((r = next_way(tr, (enum read_way)way, &batch, &left, &copy, &ev, err)) == 1) {
                if (i >= x.n || !iot_event_equal(ev, &x.ev[i])) {
                    if (!bad++)
                        fprintf(stderr, "\nroundtrip: %d x %d threads, way %d: event %zu differs "
                                "(seed %llu; rerun with IOSCOPE_SEED=%llu)\n", shapes[k][0],
                                shapes[k][1], way, i, (unsigned long long)seed,
                                (unsigned long long)seed);
                } else if (ev->plain ? !iot_event_plain(ev)
                                     : iot_event_plain(ev) && small_record(ev)) {
                    if (!plain_bad++)
                        fprintf(stderr, "\nroundtrip: event %zu has plain %d (seed %llu)\n", i,
                                ev->plain, (unsigned long long)seed);
                }
                plain += ev->plain;
                sure += iot_event_plain(ev) && small_record(ev);
                i++;
            }
            CU_ASSERT(r == 0);
            CU_ASSERT_EQUAL(i, x.n);
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT_EQUAL(plain_bad, 0);
            /* gen's random values leave a few percent of the events plain */
            CU_ASSERT(plain >= sure && sure > x.n / 200);
            iot_trace_stats(tr, &stats);
            CU_ASSERT_EQUAL(stats.events, x.n);
            CU_ASSERT(stats.chunks > 20);
            CU_ASSERT_EQUAL(stats.chunks_damaged, 0);
            CU_ASSERT_EQUAL(stats.truncated, 0);
            CU_ASSERT_EQUAL(stats.bytes_skipped, 0);
            iot_trace_close(tr);
            iot_strtab_free(st);
        }
        expect_free(&x);
    }
}

/*
 * Events at equal times in different threads come out in one fixed order of
 * their streams, the same in every tie, and each thread's own events keep
 * their order: with few streams (the scanned list) and many (the heap), and
 * small chunks so that batches and chunks end at every point of a tie.
 */
static void test_equal_times(void)
{
    static const int shapes[][2] = { { 1, 6 }, { 2, 6 } };
    const char *path = tmp_path("ties.zst");
    uint64_t rng = unit_seed() | 1;

    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        int nthr = shapes[k][0] * shapes[k][1];
        char err[IOT_ERRBUF_SIZE];
        struct iot_writer *w = iot_writer_open(path, 256, err);
        struct iot_strtab *st = iot_strtab_create();
        struct iot_trace *tr;
        const struct iot_event *ev;
        struct iot_event e;
        int64_t seq[12] = { 0 }, last_t = INT64_MIN;
        unsigned char before[12][12] = { { 0 } };  /* [a][b]: a came before b at one time */
        int last_tid = -1, r, contradictions = 0, disorder = 0;
        long n = 0, ties = 0;
        const long total = 6000;

        CU_ASSERT_FATAL(w != NULL);
        memset(&e, 0, sizeof(e));
        for (long i = 0; i < total; i++) {
            int th = (int)(unit_rand(&rng) % (uint64_t)nthr);

            e.kind = IOT_EV_CALL;
            e.op = IOT_OP_READ;
            e.has = IOT_HAS_FD | IOT_HAS_SIZE;
            e.pid = 100 + th / shapes[k][1] * 100;
            e.tid = e.pid + th % shapes[k][1];
            e.fd = 3;
            e.size = seq[th]++;           /* the thread's own order */
            e.t = 1000000 + i / 4 * 1000;  /* four calls at each time */
            e.dur = (int64_t)(unit_rand(&rng) % 3);
            e.ret = 1;
            CU_ASSERT_FATAL(iot_writer_event(w, &e, err) == 0);
        }
        CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
        memset(seq, 0, sizeof(seq));
        tr = iot_trace_open(&path, 1, st, err);
        CU_ASSERT_FATAL(tr != NULL);
        while ((r = iot_trace_next_ref(tr, &ev, err)) == 1) {
            int th = (ev->pid - 100) / 100 * shapes[k][1] + (ev->tid - ev->pid);

            CU_ASSERT_FATAL(th >= 0 && th < nthr);
            disorder += ev->t < last_t || ev->size != seq[th]++;
            if (ev->t == last_t && last_tid != th) {
                before[last_tid][th] = 1;
                contradictions += before[th][last_tid];
                ties++;
            }
            last_t = ev->t;
            last_tid = th;
            n++;
        }
        CU_ASSERT(r == 0);
        CU_ASSERT_EQUAL(n, total);
        CU_ASSERT_EQUAL(disorder, 0);
        CU_ASSERT_EQUAL(contradictions, 0);
        CU_ASSERT(ties > total / 4);  /* the case was exercised */
        iot_trace_close(tr);
        iot_strtab_free(st);
    }
}

/*
 * A process event's argv lives in its stream's decoder until that stream
 * decodes again, so the merge must not decode further in the round that
 * hands it out, even when it ends a full batch. Execs after every number of
 * calls put one at each place of a batch; a second exec soon after would
 * overwrite the first's argv. One thread, and two (the other one's calls
 * interleaved), read a batch at a time.
 */
static void test_exec_argv_in_batch(void)
{
    static const char *const argv1[] = { "first" }, *const argv2[] = { "second", "x" },
                             *const argv3[] = { "third", "y", "z" };
    static const char *const *const argvs[] = { argv1, argv2, argv3 };
    const char *path = tmp_path("exec.zst");

    for (int threads = 1; threads <= 2; threads++) {
        for (int pre = 0; pre <= 40; pre++) {  /* past two batches of 16 */
            char err[IOT_ERRBUF_SIZE];
            struct iot_writer *w = iot_writer_open(path, 0, err);
            struct iot_strtab *st = iot_strtab_create();
            struct iot_trace *tr;
            const struct iot_event *const *evs;
            struct iot_event e;
            int64_t t = 1000000;
            int r, execs = 0, wrong = 0;
            long calls = 0;

            CU_ASSERT_FATAL(w != NULL);
            for (int x = 0; x < 3; x++) {
                memset(&e, 0, sizeof(e));
                e.kind = IOT_EV_PROCESS;
                e.pid = e.tid = 100;
                e.ppid = 1;
                e.t = t++;
                e.exe = "/bin/app";
                e.argc = x + 1;
                e.argv = argvs[x];
                CU_ASSERT_FATAL(iot_writer_event(w, &e, err) == 0);
                for (int i = 0; i < (x == 0 ? pre : x == 1 ? 3 : 30); i++) {
                    for (int th = 0; th < threads; th++) {
                        memset(&e, 0, sizeof(e));
                        e.kind = IOT_EV_CALL;
                        e.op = IOT_OP_READ;
                        e.has = IOT_HAS_FD | IOT_HAS_SIZE;
                        e.pid = 100;
                        e.tid = 100 + th;
                        e.fd = 3;
                        e.size = e.ret = 1;
                        e.t = t++;
                        e.dur = 1;
                        CU_ASSERT_FATAL(iot_writer_event(w, &e, err) == 0);
                    }
                }
            }
            CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
            tr = iot_trace_open(&path, 1, st, err);
            CU_ASSERT_FATAL(tr != NULL);
            while ((r = iot_trace_next_batch(tr, &evs, err)) > 0) {
                for (int i = 0; i < r; i++) {
                    if (evs[i]->kind != IOT_EV_PROCESS) {
                        calls++;
                        continue;
                    }
                    wrong += execs >= 3 || evs[i]->argc != execs + 1 ||
                             strcmp(evs[i]->argv[0], argvs[execs][0]) != 0 ||
                             strcmp(evs[i]->argv[execs], argvs[execs][execs]) != 0;
                    execs++;
                }
            }
            CU_ASSERT_EQUAL(r, 0);
            CU_ASSERT_EQUAL(execs, 3);
            CU_ASSERT_EQUAL(calls, (long)(pre + 3 + 30) * threads);
            CU_ASSERT_EQUAL(wrong, 0);
            iot_trace_close(tr);
            iot_strtab_free(st);
        }
    }
}

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
    /* one table for every cut: events kept across cuts point into it */
    struct iot_strtab *st = iot_strtab_create();

    write_random(path, unit_seed() ^ 0x5eed, 300, 512, &x);
    buf = slurp(path, &len);
    frame_events(buf, len, ends, counts, &nframes);
    CU_ASSERT_FATAL(nframes >= 5);
    for (size_t cut = 0; cut <= len; cut++) {
        struct iot_trace_stats stats;
        long n;

        /* complete = events of the frames that end at or before cut */
        while (k < nframes && ends[k] <= cut)
            complete += counts[k++];
        spill(tmp_path("cut.zst"), buf, cut);
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

    write_random(path, unit_seed() ^ 0xf1, 300, 512, &x);
    buf = slurp(path, &len);
    for (int i = 0; i < 1500; i++) {
        size_t pos = unit_rand(&rng) % len;
        unsigned char bit = (unsigned char)(1u << (unit_rand(&rng) % 8));
        struct iot_strtab *st = iot_strtab_create();
        struct iot_trace_stats stats;
        long n;

        buf[pos] ^= bit;
        spill(tmp_path("flipped.zst"), buf, len);
        memset(&stats, 0, sizeof(stats));
        n = read_all(tmp_path("flipped.zst"), NULL, st, &stats, err);
        /* either refused, or recovered with at most the original events */
        CU_ASSERT(n == -1 || (n <= (long)x.n && (stats.chunks_damaged > 0 || stats.truncated ||
                                                  n == (long)x.n)));
        buf[pos] ^= bit;
        iot_strtab_free(st);
    }
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
 * A tight loop of identical 1-byte reads with call-to-call jitter like a real
 * machine's: the SPEC's bound is 4 bytes per event on disk.
 */
static void test_tight_loop_compact(void)
{
    enum { N = 1000000, CHUNK = 64 << 10 };
    uint64_t rng = 42;
    struct iot_chunker *c = iot_chunker_create(1);
    unsigned char *buf = malloc(CHUNK), *frame = malloc(iot_chunk_bound(CHUNK));
    struct iot_enc e;
    int64_t t = 5000000000LL;
    size_t total = 0;
    uint32_t seq = 0;

    iot_enc_begin(&e, buf, CHUNK, t);
    for (int i = 0; i < N; i++) {
        int64_t dur = 230 + (int64_t)(unit_rand(&rng) % 24);

        t += 25 + (int64_t)(unit_rand(&rng) % 8);
        if (iot_enc_io(&e, IOT_OP_READ, 3, 1, 1, 0, t, dur) < 0) {
            struct iot_chunk_hdr h = { IOT_FORMAT_VERSION, 0, 7, 7, 1, seq++, e.nrec, e.base_t,
                                       (uint32_t)e.len };
            total += iot_chunk_compress(c, &h, buf, frame, iot_chunk_bound(CHUNK));
            iot_enc_begin(&e, buf, CHUNK, t);
            CU_ASSERT_FATAL(iot_enc_io(&e, IOT_OP_READ, 3, 1, 1, 0, t, dur) == 0);
        }
        t += dur;
    }
    struct iot_chunk_hdr h = { IOT_FORMAT_VERSION, 0, 7, 7, 1, seq, e.nrec, e.base_t, (uint32_t)e.len };
    total += iot_chunk_compress(c, &h, buf, frame, iot_chunk_bound(CHUNK));
    fprintf(stderr, "\ntight loop: %.2f bytes/event\n", (double)total / N);
    CU_ASSERT((double)total / N <= 4.0);
    free(buf);
    free(frame);
    iot_chunker_free(c);
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

/*
 * A REPEAT with a large duration is not plain, and the REPEATs after it
 * are again, also the one decoded into its slot of the next batch: event
 * 5's duration is large, and event 21 goes into slot 5 of the second batch
 * of 16.
 */
#define BIG(i) ((i) == 5 || (i) == 22)
static void test_plain_repeats(void)
{
    const char *path = tmp_path("plain.zst");
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, 64 << 10, err);
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_READ, .pid = 9, .tid = 9,
                            .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = 3, .size = 4096, .ret = 4096 };
    struct iot_event *got = NULL;
    struct iot_strtab *st = iot_strtab_create();
    int64_t t = 1000000;

    CU_ASSERT_FATAL(w != NULL);
    for (int i = 0; i < 40; i++) {
        ev.t = t;
        ev.dur = BIG(i) ? (int64_t)1 << 52 : 1000 + i;
        t += ev.dur + 100;
        CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
    CU_ASSERT_EQUAL_FATAL(read_all(path, &got, st, NULL, err), 40);
    for (int i = 0; i < 40; i++) {
        CU_ASSERT_EQUAL(got[i].dur, BIG(i) ? (int64_t)1 << 52 : 1000 + i);
        CU_ASSERT_EQUAL(got[i].plain, !BIG(i));
    }
    free(got);
    iot_strtab_free(st);
}

/* One chunk of records rec[0..len) of thread 7, alone in path. */
static void spill_chunk(const char *path, const uint8_t *rec, size_t len, uint32_t nrec,
                        int64_t base_t)
{
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 7, .tid = 7,
                               .chain_id = 1, .nrec = nrec, .base_t = base_t,
                               .bytes = (uint32_t)len };
    static unsigned char frame[8192];
    size_t n = iot_chunk_compress(c, &h, rec, frame, sizeof(frame));

    CU_ASSERT_FATAL(n > 0);
    spill(path, frame, n);
    iot_chunker_free(c);
}

/*
 * Untimed repeats (5.12): the previous call again at its end, lasting 0;
 * a timed REPEAT after them counts its gap from that same end; a payload
 * (fields of a later version) is stepped over; one before any call is
 * damage.
 */
static void test_untimed_repeats(void)
{
    enum { T0 = 5000000 };
    const char *path = tmp_path("untimed.zst");
    static uint8_t rec[1024];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace_stats ts;
    struct iot_event *got = NULL;
    struct iot_enc e;
    size_t at;
    char err[IOT_ERRBUF_SIZE] = "";

    iot_enc_begin(&e, rec, sizeof(rec), T0);
    CU_ASSERT_FATAL(iot_enc_repeat_untimed(&e) == -1);   /* no call yet */
    CU_ASSERT_FATAL(iot_enc_io_inline(&e, IOT_OP_FWRITE, 3, 0x55, 64, 64, 0, T0 + 100, 40) == 0);
    at = e.len;
    for (int i = 0; i < 3; i++)
        CU_ASSERT_FATAL(iot_enc_repeat_untimed(&e) == 0);
    CU_ASSERT_EQUAL(e.len, at + 3 * 2);   /* two bytes each */
    CU_ASSERT_FATAL(iot_enc_io_inline(&e, IOT_OP_FWRITE, 3, 0x55, 64, 64, 0, T0 + 500, 900) == 0);
    /* an untimed repeat as a later version may write it: two more bytes */
    memcpy(rec + e.len, "\x45\x02\x07\x09", 4);
    e.len += 4;
    e.nrec++;
    CU_ASSERT_FATAL(iot_enc_io_inline(&e, IOT_OP_READ, 4, 0, 10, 10, 0, T0 + 2000, 30) == 0);
    spill_chunk(path, rec, e.len, e.nrec, T0);
    CU_ASSERT_EQUAL_FATAL(read_all(path, &got, st, &ts, err), 7);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.records_unknown, 0);
    {
        static const int64_t t[] = { 100, 140, 140, 140, 500, 1400, 2000 };
        static const int64_t dur[] = { 40, 0, 0, 0, 900, 0, 30 };

        for (int i = 0; i < 7; i++) {
            CU_ASSERT_EQUAL(got[i].kind, IOT_EV_CALL);
            CU_ASSERT_EQUAL(got[i].op, i < 6 ? IOT_OP_FWRITE : IOT_OP_READ);
            CU_ASSERT_EQUAL(got[i].t, t[i]);
            CU_ASSERT_EQUAL(got[i].dur, dur[i]);
            CU_ASSERT_EQUAL(got[i].ret, i < 6 ? 64 : 10);
            CU_ASSERT_EQUAL(got[i].size, i < 6 ? 64 : 10);
            CU_ASSERT_EQUAL(got[i].stream, i < 6 ? 0x55u : 0u);
            CU_ASSERT_EQUAL(got[i].fd, i < 6 ? 3 : 4);
        }
    }
    free(got);
    got = NULL;

    /* before any call: the chunk is damaged from there on */
    spill_chunk(path, (const uint8_t *)"\x45\x00", 2, 1, T0);
    CU_ASSERT_EQUAL(read_all(path, NULL, st, &ts, err), 0);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 1);
    iot_strtab_free(st);
}

/*
 * Times beyond the merge's clamp (2^58 ns from the origin): every event
 * comes back, the near ones in time order and before the far ones, and
 * each thread's own in order; with few streams (the scan) and many (the
 * heap).
 */
static void test_far_times(void)
{
    const int64_t far = (int64_t)1 << 58;
    const char *path = tmp_path("far.zst");

    for (int nthreads = 4; nthreads <= 12; nthreads += 8) {
        char err[IOT_ERRBUF_SIZE];
        struct iot_writer *w = iot_writer_open(path, 64 << 10, err);
        struct iot_strtab *st = iot_strtab_create();
        struct iot_event *got = NULL, ev = { .kind = IOT_EV_CALL, .op = IOT_OP_READ, .pid = 9,
                                             .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = 3, .size = 1,
                                             .ret = 1, .dur = 1 };
        long n = 0, want = 0, near_seen_after_far = 0, unordered = 0;
        int64_t last_near = 0, last[16] = {0};
        int far_started = 0;

        CU_ASSERT_FATAL(w != NULL);
        for (int th = 0; th < nthreads; th++) {
            for (int i = 0; i < 3; i++) {
                ev.tid = 100 + th;
                /* threads 1 and 2 run years away; the others near the start */
                ev.t = th == 1 ? 2 * far + i : th == 2 ? 3 * far + 1000 * i : 1000 + 10 * i + th;
                CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
                want++;
            }
        }
        CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
        n = read_all(path, &got, st, NULL, err);
        CU_ASSERT_EQUAL_FATAL(n, want);
        for (long i = 0; i < n; i++) {
            int th = got[i].tid - 100, is_far = th == 1 || th == 2;

            CU_ASSERT_FATAL(th >= 0 && th < 16);
            unordered += got[i].t < last[th];
            last[th] = got[i].t;
            if (is_far) {
                far_started = 1;
            } else {
                near_seen_after_far += far_started;
                unordered += got[i].t < last_near;
                last_near = got[i].t;
            }
        }
        CU_ASSERT_EQUAL(unordered, 0);
        CU_ASSERT_EQUAL(near_seen_after_far, 0);
        free(got);
        iot_strtab_free(st);
    }
}

/* Strings are de-duplicated per chunk; ids are dense and in order. */
static void test_string_dedup(void)
{
    unsigned char buf[1024];
    struct iot_enc e;
    uint32_t a, b, c;

    iot_enc_begin(&e, buf, sizeof(buf), 0);
    CU_ASSERT(iot_enc_str(&e, "/etc/passwd", 11, &a) == 0);
    size_t len = e.len;
    CU_ASSERT(iot_enc_str(&e, "/etc/passwd", 11, &b) == 0);
    CU_ASSERT(iot_enc_str(&e, "/etc/group", 10, &c) == 0);
    CU_ASSERT_EQUAL(a, 1);
    CU_ASSERT_EQUAL(b, 1);
    CU_ASSERT_EQUAL(c, 2);
    CU_ASSERT(e.len > len);
    /* a full buffer refuses a record and stays unchanged */
    iot_enc_begin(&e, buf, 20, 0);
    CU_ASSERT(iot_enc_io(&e, IOT_OP_READ, 3, 1, 1, 0, 10, 10) == -1);
    CU_ASSERT_EQUAL(e.len, 0);
    CU_ASSERT_EQUAL(e.nrec, 0);
}

/*
 * Module records (tag 0x44): read back with their build-id in hex, through
 * JSONL and back; bytes a later version appends to the payload are stepped
 * over, and a payload that is no module record is skipped like an unknown
 * kind, the records after it intact.
 */
static void test_module_record(void)
{
    static const uint8_t id[] = { 0x85, 0x63, 0xcc, 0x5c, 0x00, 0xff };
    static uint8_t rec[1024], frames[4096];
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 7, .tid = 7, .chain_id = 1,
                               .base_t = 5000 };
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *js = iot_jsonl_scratch_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL, back;
    struct iot_enc e;
    char err[IOT_ERRBUF_SIZE] = "", *line = NULL;
    size_t len = 0, at;
    FILE *f;
    long n;

    iot_enc_begin(&e, rec, sizeof(rec), h.base_t);
    CU_ASSERT_FATAL(iot_enc_module(&e, 5010, "/usr/lib/libz.so.1", 0x7f0000001000ull, id,
                                   sizeof(id)) == 0);
    /* a later version's module record: one more byte at the payload's end
       (the length is one varint byte here) */
    at = e.len;
    CU_ASSERT_FATAL(iot_enc_module(&e, 5020, "/usr/bin/app", 0x555500000000ull, NULL, 0) == 0);
    CU_ASSERT_FATAL(rec[at] == 0x44 && rec[at + 1] < 0x7f);
    rec[at + 1]++;
    rec[e.len++] = 0x2a;
    /* no module inside: tag 0x44, length 3, three bytes that do not parse */
    rec[e.len] = 0x44, rec[e.len + 1] = 3, rec[e.len + 2] = 0x80, rec[e.len + 3] = 0x80;
    rec[e.len + 4] = 0x80;
    e.len += 5;
    e.nrec++;
    CU_ASSERT_FATAL(iot_enc_exit(&e, 5030, 0, 0) == 0);
    h.bytes = (uint32_t)e.len;
    h.nrec = e.nrec;
    n = (long)iot_chunk_compress(c, &h, rec, frames, sizeof(frames));
    CU_ASSERT_FATAL(n > 0);
    spill(tmp_path("modules.zst"), frames, (size_t)n);
    n = read_all(tmp_path("modules.zst"), &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.records_unknown, 1);
    CU_ASSERT_EQUAL(evs[0].kind, IOT_EV_MODULE);
    CU_ASSERT_EQUAL(evs[0].pid, 7);
    CU_ASSERT_EQUAL(evs[0].t, 10);
    CU_ASSERT_STRING_EQUAL(evs[0].path, "/usr/lib/libz.so.1");
    CU_ASSERT_EQUAL(evs[0].bias, 0x7f0000001000ull);
    CU_ASSERT_STRING_EQUAL(evs[0].build_id, "8563cc5c00ff");
    CU_ASSERT_EQUAL(evs[1].kind, IOT_EV_MODULE);
    CU_ASSERT_STRING_EQUAL(evs[1].path, "/usr/bin/app");
    CU_ASSERT_STRING_EQUAL(evs[1].build_id, "");
    CU_ASSERT_EQUAL(evs[2].kind, IOT_EV_EXIT);

    /* JSONL and back */
    f = open_memstream(&line, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(iot_jsonl_write(f, &evs[0]) == 0);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"ev\":\"module\""));
    CU_ASSERT_EQUAL(iot_jsonl_parse(line, len, &back, st, js, err), 1);
    CU_ASSERT_EQUAL(back.kind, IOT_EV_MODULE);
    CU_ASSERT_STRING_EQUAL(back.path, "/usr/lib/libz.so.1");
    CU_ASSERT_EQUAL(back.bias, 0x7f0000001000ull);
    CU_ASSERT_STRING_EQUAL(back.build_id, "8563cc5c00ff");
    CU_ASSERT_EQUAL(back.t, 10);
    free(line);
    free(evs);
    iot_jsonl_scratch_free(js);
    iot_strtab_free(st);
    iot_chunker_free(c);
}

void format_suite(void)
{
    CU_pSuite s = CU_add_suite("format", NULL, NULL);

    CU_add_test(s, "seeded round trip of every op and field, every way of reading", test_roundtrip);
    CU_add_test(s, "equal times: one order of streams, each thread's kept", test_equal_times);
    CU_add_test(s, "plain events among REPEATs of a large duration", test_plain_repeats);
    CU_add_test(s, "untimed repeats: at the previous end, lasting 0", test_untimed_repeats);
    CU_add_test(s, "times beyond the merge's clamp", test_far_times);
    CU_add_test(s, "an exec's argv while its batch is handed out", test_exec_argv_in_batch);
    CU_add_test(s, "truncation at every byte offset", test_truncation);
    CU_add_test(s, "flipped bytes never crash", test_flipped_bytes);
    CU_add_test(s, "a damaged index frame size loses no chunk", test_index_size_damaged);
    CU_add_test(s, "more traces at once than open files allowed", test_many_inputs);
    CU_add_test(s, "newer version refused", test_version_refused);
    CU_add_test(s, "a newer writer's ops, fields and records skipped exactly", test_newer_writer);
    CU_add_test(s, "the docs list every op and field of the schema", test_docs_list_schema);
    CU_add_test(s, "not a trace / empty / missing", test_not_a_trace);
    CU_add_test(s, "zstd -t accepts a trace", test_zstd_accepts);
    CU_add_test(s, "tight read loop <= 4 bytes/event", test_tight_loop_compact);
    CU_add_test(s, "string de-duplication and full buffers", test_string_dedup);
    CU_add_test(s, "module records, in JSONL too; a payload that is none skipped", test_module_record);
    CU_add_test(s, "a chunk cut at every kind of record boundary", test_records_prefix);
}
