/*
 * test_reader_damage.c - the reader's figures and messages when an input is
 * damaged or cannot be read: a chunk found damaged only when pass 2
 * decompresses it takes away exactly what pass 1 counted for it; inputs
 * that are not regular files say why; standard input from a pipe reads like
 * the file.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "gen.h"
#include "iotrace.h"
#include "unit.h"

#define tmp_path unit_tmp_path

/* n generated events of 2 processes x 3 threads, in chunks of `chunk` record bytes. */
static void write_trace(const char *path, uint64_t seed, size_t n, size_t chunk)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, chunk, err);
    struct gen g;
    struct iot_event ev;

    CU_ASSERT_FATAL(w != NULL);
    gen_init(&g, seed, 2, 3);
    for (size_t i = 0; i < n; i++) {
        gen_event(&g, &ev, 0);
        CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
}

#define slurp unit_slurp
#define spill unit_spill

/* Events of paths[0..n), or -1 when they cannot be opened (message in err). */
static long read_count(const char *const *paths, size_t n, struct iot_trace_stats *stats,
                       char *err)
{
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace *tr = iot_trace_open(paths, n, st, err);
    const struct iot_event *ev;
    long count = 0;
    int r;

    if (!tr) {
        iot_strtab_free(st);
        return -1;
    }
    while ((r = iot_trace_next_ref(tr, &ev, err)) == 1)
        count++;
    CU_ASSERT_EQUAL(r, 0);
    iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    iot_strtab_free(st);
    return count;
}

/* A data frame: where it is, and its size compressed and decompressed. */
struct frame {
    size_t off, csize;
    uint64_t dsize;
};

/* The data frames of buf[0..len), at most max; returns how many. */
static size_t data_frames(const unsigned char *buf, size_t len, struct frame *fr, size_t max)
{
    size_t off = 0, n = 0;

    while (off < len && n < max) {
        size_t fs = ZSTD_findFrameCompressedSize(buf + off, len - off);

        CU_ASSERT_FATAL(!ZSTD_isError(fs));
        if (buf[off] == 0x28) {  /* a zstd frame, not the skippable index frame */
            fr[n].off = off;
            fr[n].csize = fs;
            fr[n].dsize = ZSTD_getFrameContentSize(buf + off, fs);
            n++;
        }
        off += fs;
    }
    return n;
}

/*
 * A data frame whose content checksum is wrong passes pass 1 (its index
 * frame and sizes agree) and fails in pass 2: the chunk is then counted as
 * damaged instead of intact, with its compressed bytes skipped and its
 * decompressed bytes no longer counted. Pass 2 once took an uninitialised
 * header's size away from the decompressed bytes instead.
 */
static void test_damaged_in_pass2(void)
{
    enum { MAXF = 64 };
    const char *path = tmp_path("pass2.zst"), *bad = tmp_path("pass2-bad.zst");
    char err[IOT_ERRBUF_SIZE];
    struct frame fr[MAXF];
    struct iot_trace_stats s0, s;
    unsigned char *buf;
    size_t len, nf;
    long n0, n;

    write_trace(path, 0x9a55, 600, 1024);
    buf = slurp(path, &len);
    nf = data_frames(buf, len, fr, MAXF);
    CU_ASSERT_FATAL(nf >= 6 && nf < MAXF);
    n0 = read_count(&path, 1, &s0, err);
    CU_ASSERT_FATAL(n0 == 600);
    CU_ASSERT_EQUAL(s0.chunks, nf);
    CU_ASSERT_EQUAL(s0.chunks_damaged, 0);
    CU_ASSERT_EQUAL(s0.bytes_skipped, 0);
    for (size_t k = 0; k < nf; k++) {
        size_t at = fr[k].off + fr[k].csize - 1;  /* the checksum's last byte */

        buf[at] ^= 0x5a;
        spill(bad, buf, len);
        buf[at] ^= 0x5a;
        n = read_count(&bad, 1, &s, err);
        CU_ASSERT(n >= 0 && n < n0);
        CU_ASSERT_EQUAL(s.chunks, s0.chunks - 1);
        CU_ASSERT_EQUAL(s.chunks_damaged, 1);
        CU_ASSERT_EQUAL(s.bytes_skipped, fr[k].csize);
        CU_ASSERT_EQUAL(s.raw_bytes, s0.raw_bytes - fr[k].dsize);
        CU_ASSERT_EQUAL(s.truncated, 0);
        CU_ASSERT_EQUAL(s.events, (uint64_t)n);
        CU_ASSERT_EQUAL(s.bytes_read, s.file_bytes);  /* a damaged chunk was read too */
    }
    free(buf);
}

/*
 * bytes_read, the progress of `ioanalyze` (analyzer/cli/progress.h): what is
 * never decoded (the index frames here) counts from the start, each data
 * frame once it is read, so it grows with the events and ends at the
 * file's size.
 */
static void test_bytes_read(void)
{
    enum { MAXF = 64 };
    const char *path = tmp_path("progress.zst");
    char err[IOT_ERRBUF_SIZE];
    struct frame fr[MAXF];
    struct iot_trace_stats s;
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace *tr;
    const struct iot_event *ev;
    unsigned char *buf;
    size_t len, nf, data = 0;
    uint64_t last;
    int r;

    write_trace(path, 0x5eed, 600, 1024);
    buf = slurp(path, &len);
    nf = data_frames(buf, len, fr, MAXF);
    CU_ASSERT_FATAL(nf >= 6 && nf < MAXF);
    for (size_t k = 0; k < nf; k++)
        data += fr[k].csize;
    tr = iot_trace_open(&path, 1, st, err);
    CU_ASSERT_FATAL(tr != NULL);
    iot_trace_stats(tr, &s);
    CU_ASSERT_EQUAL(s.file_bytes, len);
    CU_ASSERT_EQUAL(s.bytes_read, len - data);
    last = s.bytes_read;
    while ((r = iot_trace_next_ref(tr, &ev, err)) == 1) {
        iot_trace_stats(tr, &s);
        CU_ASSERT(s.bytes_read >= last && s.bytes_read <= len);
        last = s.bytes_read;
    }
    CU_ASSERT_EQUAL(r, 0);
    iot_trace_stats(tr, &s);
    CU_ASSERT_EQUAL(s.bytes_read, len);
    iot_trace_close(tr);
    iot_strtab_free(st);
    free(buf);
}

/* Inputs that are not regular files, or not there, are refused with the reason. */
static void test_not_regular(void)
{
    char dir_path[128], fifo_path[128], missing_path[128];
    const char *dir = dir_path, *fifo = fifo_path, *missing = missing_path;
    char err[IOT_ERRBUF_SIZE] = "";
    struct iot_trace_stats s;
    int keep;

    snprintf(dir_path, sizeof(dir_path), "%s", tmp_path("dir"));
    snprintf(fifo_path, sizeof(fifo_path), "%s", tmp_path("fifo"));
    snprintf(missing_path, sizeof(missing_path), "%s", tmp_path("missing.zst"));
    CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
    CU_ASSERT_EQUAL(read_count(&dir, 1, &s, err), -1);
    CU_ASSERT(strstr(err, "cannot read trace '") != NULL && strstr(err, "': Is a directory") != NULL);
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    /* a reader and writer of our own: the reader's open of the FIFO does not wait */
    keep = open(fifo, O_RDWR);
    CU_ASSERT_FATAL(keep >= 0);
    CU_ASSERT_EQUAL(read_count(&fifo, 1, &s, err), -1);
    CU_ASSERT(strstr(err, "': not a regular file") != NULL);
    close(keep);
    CU_ASSERT_EQUAL(read_count(&missing, 1, &s, err), -1);
    CU_ASSERT(strstr(err, "cannot open trace '") != NULL &&
              strstr(err, "': No such file or directory") != NULL);
}

/* "-" reads standard input, here a pipe, as it reads the same bytes from a file. */
static void test_stdin_pipe(void)
{
    const char *path = tmp_path("stdin.zst"), *dash = "-";
    char err[IOT_ERRBUF_SIZE];
    struct iot_trace_stats s0, s;
    unsigned char *buf;
    size_t len;
    int fds[2], saved;
    long n0, n;

    /* small enough for a pipe's buffer: written whole before it is read */
    write_trace(path, 0x57d1, 200, 4096);
    buf = slurp(path, &len);
    CU_ASSERT_FATAL(len < 60000);
    n0 = read_count(&path, 1, &s0, err);
    CU_ASSERT_FATAL(n0 == 200);
    CU_ASSERT_FATAL(pipe(fds) == 0);
    CU_ASSERT_FATAL(write(fds[1], buf, len) == (ssize_t)len);
    close(fds[1]);
    saved = dup(0);
    CU_ASSERT_FATAL(saved >= 0 && dup2(fds[0], 0) == 0);
    close(fds[0]);
    n = read_count(&dash, 1, &s, err);
    dup2(saved, 0);
    close(saved);
    CU_ASSERT_EQUAL(n, n0);
    CU_ASSERT_EQUAL(s.chunks, s0.chunks);
    CU_ASSERT_EQUAL(s.raw_bytes, s0.raw_bytes);
    CU_ASSERT_EQUAL(s.file_bytes, len);
    free(buf);
}


/* n generated events of one thread, in chunks of `chunk` record bytes. */
static void write_chain(const char *path, uint64_t seed, size_t n, size_t chunk)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, chunk, err);
    struct gen g;
    struct iot_event ev;

    CU_ASSERT_FATAL(w != NULL);
    gen_init(&g, seed, 1, 1);
    for (size_t i = 0; i < n; i++) {
        gen_event(&g, &ev, 0);
        CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
}

/* A hash of what a reader hands out, event by event, and how many. */
static uint64_t read_hash(const char *path, long *count, struct iot_trace_stats *stats)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    const struct iot_event *ev;
    uint64_t h = 1469598103934665603ULL;

    *count = 0;
    CU_ASSERT_FATAL(tr != NULL);
    while (iot_trace_next_ref(tr, &ev, err) == 1) {
        uint64_t v[5] = {(uint64_t)ev->t, (uint64_t)ev->pid, (uint64_t)ev->tid, ev->op,
                         (uint64_t)ev->size};

        for (size_t i = 0; i < sizeof(v); i++)
            h = (h ^ ((const unsigned char *)v)[i]) * 1099511628211ULL;
        (*count)++;
    }
    iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    iot_strtab_free(st);
    return h;
}

/*
 * A thread chain of more than 4096 chunks (the refs a chain keeps in memory;
 * the rest go to the reader's temporary file and come back in pass 2): the
 * same events in the same order as the same events in large chunks, and
 * every frame counted read.
 */
static void test_many_chunks(void)
{
    char small[256], large[256];
    struct iot_trace_stats ss, ls;
    long ns, nl;
    uint64_t hs, hl;

    snprintf(small, sizeof(small), "%s", tmp_path("many_small.zst"));
    snprintf(large, sizeof(large), "%s", tmp_path("many_large.zst"));
    write_chain(small, 7, 400000, 512);
    write_chain(large, 7, 400000, 1 << 20);
    hs = read_hash(small, &ns, &ss);
    hl = read_hash(large, &nl, &ls);
    CU_ASSERT(ss.chunks > 2 * 4096);  /* one chain: two blocks and more */
    CU_ASSERT_EQUAL(ls.chunks < 100, 1);
    CU_ASSERT_EQUAL(ss.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ns, nl);
    CU_ASSERT_EQUAL(hs, hl);
    CU_ASSERT_EQUAL(ss.bytes_read, ss.file_bytes);
    unlink(small);
    unlink(large);
}

void reader_damage_suite(void)
{
    CU_pSuite s = CU_add_suite("reader_damage", NULL, NULL);

    CU_add_test(s, "a chunk damaged past pass 1 takes exactly its figures away", test_damaged_in_pass2);
    CU_add_test(s, "bytes_read: from what is never decoded to the file's size", test_bytes_read);
    CU_add_test(s, "not a regular file / missing: the reason", test_not_regular);
    CU_add_test(s, "standard input from a pipe reads like the file", test_stdin_pipe);
    CU_add_test(s, "chains of more chunks than kept in memory read whole", test_many_chunks);
}
