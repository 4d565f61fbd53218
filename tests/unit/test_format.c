/*
 * test_format.c - the native trace format read back: seeded round trip of
 * every op and field every way of reading, the merge's order and times,
 * REPEAT records, string de-duplication, module records and the
 * compactness of a tight read loop. The extension records added since
 * (JIT symbols, labels): test_format_ext.c; damaged and foreign input:
 * test_format_damage.c, both in the same suite.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_io.h"
#include "format_util.h"
#include "iotrace.h"
#include "unit.h"

#define tmp_path unit_tmp_path
#define spill unit_spill

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
 * An untimed repeat of a call that carried a stack carries none (5.12):
 * the stack was that call's own site; a timed REPEAT of the call after it
 * has the stack again.
 */
static void test_untimed_after_stack(void)
{
    enum { T0 = 5000000 };
    const char *path = tmp_path("untimed_stack.zst");
    static uint8_t rec[1024];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_event *got = NULL, ev = { 0 };
    struct iot_enc e;
    char err[IOT_ERRBUF_SIZE] = "";
    static const char stack[] = "/bin/app+0x1234\n/bin/app+0x99";

    iot_enc_begin(&e, rec, sizeof(rec), T0);
    ev.kind = IOT_EV_CALL;
    ev.op = IOT_OP_FWRITE;
    ev.has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_STREAM | IOT_HAS_STACK;
    ev.fd = 3;
    ev.stream = 0x55;
    ev.size = ev.ret = 64;
    CU_ASSERT_FATAL(iot_enc_str(&e, stack, strlen(stack), &ev.stack_id) == 0);
    ev.t = T0 + 100;
    ev.dur = 40;
    CU_ASSERT_FATAL(iot_enc_call(&e, &ev) == 0);
    CU_ASSERT_FATAL(iot_enc_repeat_untimed(&e) == 0);
    CU_ASSERT_FATAL(iot_enc_repeat_untimed(&e) == 0);
    ev.t = T0 + 500;
    CU_ASSERT_FATAL(iot_enc_call(&e, &ev) == 0);     /* a timed REPEAT */
    spill_chunk(path, rec, e.len, e.nrec, T0);
    CU_ASSERT_EQUAL_FATAL(read_all(path, &got, st, NULL, err), 4);
    for (int i = 0; i < 4; i++) {
        int stacked = i == 0 || i == 3;

        CU_ASSERT_EQUAL(got[i].op, IOT_OP_FWRITE);
        CU_ASSERT_EQUAL(got[i].size, 64);
        CU_ASSERT_EQUAL(got[i].dur, stacked ? 40 : 0);
        CU_ASSERT_EQUAL((got[i].has & IOT_HAS_STACK) != 0, stacked);
        CU_ASSERT(stacked ? got[i].stack && strcmp(got[i].stack, stack) == 0 : !got[i].stack);
    }
    free(got);
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

/*
 * A process's trace time as Unix time and back (iot_unix_ns_of,
 * iot_trace_t_of); an unknown start or a sum past int64_t gives none and
 * stores nothing.
 */
static void test_unix_time(void)
{
    const int64_t start_t = 5000, start_unix = 1700000000000000000;
    int64_t ns = 7, t = 7;

    CU_ASSERT_EQUAL(iot_unix_ns_of(start_t, start_unix, 5000 + 2500000, &ns), 1);
    CU_ASSERT_EQUAL(ns, start_unix + 2500000);
    CU_ASSERT_EQUAL(iot_trace_t_of(start_t, start_unix, ns / 1000000, &t), 1);
    CU_ASSERT_EQUAL(t, 5000 + 2000000);
    CU_ASSERT_EQUAL(iot_unix_ns_of(-1000, start_unix, -3000, &ns), 1);
    CU_ASSERT_EQUAL(ns, start_unix - 2000);
    ns = t = 7;
    CU_ASSERT_EQUAL(iot_unix_ns_of(start_t, 0, 10, &ns), 0);
    CU_ASSERT_EQUAL(iot_trace_t_of(start_t, 0, 10, &t), 0);
    CU_ASSERT_EQUAL(iot_unix_ns_of(INT64_MIN, start_unix, INT64_MAX, &ns), 0);
    CU_ASSERT_EQUAL(iot_unix_ns_of(0, INT64_MAX, 1, &ns), 0);
    CU_ASSERT_EQUAL(iot_trace_t_of(0, start_unix, INT64_MAX / 1000, &t), 0);
    CU_ASSERT_EQUAL(iot_trace_t_of(INT64_MAX, 1, 1, &t), 0);
    CU_ASSERT_EQUAL(ns, 7);
    CU_ASSERT_EQUAL(t, 7);
}

void format_suite(void)
{
    CU_pSuite s = CU_add_suite("format", NULL, NULL);

    CU_add_test(s, "seeded round trip of every op and field, every way of reading", test_roundtrip);
    CU_add_test(s, "equal times: one order of streams, each thread's kept", test_equal_times);
    CU_add_test(s, "plain events among REPEATs of a large duration", test_plain_repeats);
    CU_add_test(s, "untimed repeats: at the previous end, lasting 0", test_untimed_repeats);
    CU_add_test(s, "untimed repeats of a stacked call carry no stack", test_untimed_after_stack);
    CU_add_test(s, "times beyond the merge's clamp", test_far_times);
    CU_add_test(s, "an exec's argv while its batch is handed out", test_exec_argv_in_batch);
    CU_add_test(s, "tight read loop <= 4 bytes/event", test_tight_loop_compact);
    CU_add_test(s, "string de-duplication and full buffers", test_string_dedup);
    CU_add_test(s, "module records, in JSONL too; a payload that is none skipped", test_module_record);
    CU_add_test(s, "trace time as Unix time and back", test_unix_time);
    format_extension_tests(s);
    format_damage_tests(s);
}
