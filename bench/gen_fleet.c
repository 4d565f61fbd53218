/*
 * gen_fleet - a fleet of N labelled traces for ioanalyze fleet's bench, made
 * in seconds from a few recorded ones.
 *
 *   gen_fleet [--pool P] [--hosts H] [--placeholder TEXT] OUT N TEMPLATE...
 *
 * Each TEMPLATE is a native trace recorded with a label whose value is the
 * placeholder (default "@@@@@@@@": iorecord --label host=@@@@@@@@). Trace i
 * of the fleet (i from 0) is template i % T with every occurrence of the
 * placeholder replaced by the host name "h" + (i % H), zero-padded to the
 * placeholder's length: a chunk that holds it is decompressed, its bytes
 * replaced and compressed again as the recorder does (zstd level 1, content
 * size and checksum); every other byte is the template's. The chunk header
 * and its index frame are unchanged: the records keep their length.
 *
 * The first P traces are written so; trace i >= P is a hard link to trace
 * i % P, which with P a multiple of T and of H has the same template and
 * host. So the fleet costs P small files and N directory entries of disk,
 * and the analyzer still opens and reads each of the N paths, as it would
 * N files (they are in the page cache either way: the bench reads what it
 * has just written).
 *
 * Files: OUT/DDD/tNNNNNNN.zst, 1,000 a directory, DDD = i / 1000, so the
 * first K thousand traces of a fleet are its directories 000 to K-1 (the
 * bench's smaller fleet is a prefix of the larger). Prints what it made on
 * stdout. Exit status 0, 1 on any error (named on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#define SKIPPABLE_MASK 0xFFFFFFF0u
#define SKIPPABLE_MAGIC 0x184D2A50u
#define PER_DIR 1000

/* One frame of a template: its bytes, and for a data frame that holds the
   placeholder, its content decompressed (NULL otherwise). */
struct frame {
    const unsigned char *bytes;
    size_t len;
    unsigned char *content;
    size_t content_len;
};

struct tmpl {
    const char *path;
    unsigned char *file;
    size_t file_len;
    struct frame *frames;
    size_t nframes;
    size_t hits;              /* occurrences of the placeholder */
};

static const char *placeholder = "@@@@@@@@";

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "gen_fleet: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;

    if (!f)
        die("cannot read '%s': %s", path, strerror(errno));
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            buf = realloc(buf, cap);
            if (!buf)
                die("out of memory reading '%s'", path);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    if (ferror(f))
        die("cannot read '%s': %s", path, strerror(errno));
    fclose(f);
    *len = n;
    return buf;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t count_hits(const unsigned char *s, size_t n)
{
    size_t k = strlen(placeholder), hits = 0;
    const unsigned char *p = s, *end = s + n;

    while ((size_t)(end - p) >= k && (p = memmem(p, (size_t)(end - p), placeholder, k))) {
        hits++;
        p += k;
    }
    return hits;
}

/* Splits a template into its zstd frames and decompresses those that hold
   the placeholder. A trace is a valid zstd stream (docs/trace-format.md,
   1): anything else is refused. */
static void load(struct tmpl *t)
{
    size_t off = 0, cap = 0;

    t->file = read_all(t->path, &t->file_len);
    while (off < t->file_len) {
        const unsigned char *p = t->file + off;
        size_t left = t->file_len - off, len;
        struct frame fr = {p, 0, NULL, 0};

        if (left >= 8 && (le32(p) & SKIPPABLE_MASK) == SKIPPABLE_MAGIC) {
            len = 8 + (size_t)le32(p + 4);
            if (len > left)
                die("'%s': a skippable frame runs past the end", t->path);
        } else {
            unsigned long long size;

            len = ZSTD_findFrameCompressedSize(p, left);
            if (ZSTD_isError(len))
                die("'%s' is not a native trace: %s", t->path, ZSTD_getErrorName(len));
            size = ZSTD_getFrameContentSize(p, len);
            if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ||
                size > (64u << 20))
                die("'%s': a data frame without a usable content size", t->path);
            fr.content = malloc(size ? size : 1);
            if (!fr.content)
                die("out of memory for '%s'", t->path);
            fr.content_len = ZSTD_decompress(fr.content, size, p, len);
            if (ZSTD_isError(fr.content_len))
                die("'%s': %s", t->path, ZSTD_getErrorName(fr.content_len));
            size_t hits = count_hits(fr.content, fr.content_len);
            if (hits)
                t->hits += hits;
            else {
                free(fr.content);
                fr.content = NULL;
            }
        }
        fr.len = len;
        if (t->nframes == cap) {
            cap = cap ? cap * 2 : 16;
            t->frames = realloc(t->frames, cap * sizeof(*t->frames));
            if (!t->frames)
                die("out of memory for '%s'", t->path);
        }
        t->frames[t->nframes++] = fr;
        off += len;
    }
    if (!t->hits)
        die("'%s' holds no label with the value '%s' (record it with --label host=...)",
            t->path, placeholder);
}

static void replace_all(unsigned char *s, size_t n, const char *value)
{
    size_t k = strlen(placeholder);
    unsigned char *p = s, *end = s + n;

    while ((size_t)(end - p) >= k && (p = memmem(p, (size_t)(end - p), placeholder, k))) {
        memcpy(p, value, k);
        p += k;
    }
}

static void put(int fd, const void *buf, size_t len, const char *path)
{
    const unsigned char *p = buf;

    while (len) {
        ssize_t w = write(fd, p, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            die("cannot write '%s': %s", path, strerror(errno));
        p += w;
        len -= (size_t)w;
    }
}

/* Trace i: template t with the host value, written to path. */
static size_t write_trace(ZSTD_CCtx *cc, const struct tmpl *t, const char *value,
                          const char *path, unsigned char **scratch, size_t *scratch_cap)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t total = 0;

    if (fd < 0)
        die("cannot create '%s': %s", path, strerror(errno));
    for (size_t f = 0; f < t->nframes; f++) {
        const struct frame *fr = &t->frames[f];

        if (!fr->content) {
            put(fd, fr->bytes, fr->len, path);
            total += fr->len;
            continue;
        }
        size_t bound = ZSTD_compressBound(fr->content_len);
        if (*scratch_cap < fr->content_len + bound) {
            *scratch_cap = fr->content_len + bound;
            *scratch = realloc(*scratch, *scratch_cap);
            if (!*scratch)
                die("out of memory writing '%s'", path);
        }
        unsigned char *plain = *scratch, *packed = *scratch + fr->content_len;
        memcpy(plain, fr->content, fr->content_len);
        replace_all(plain, fr->content_len, value);
        size_t n = ZSTD_compress2(cc, packed, bound, plain, fr->content_len);
        if (ZSTD_isError(n))
            die("compressing '%s': %s", path, ZSTD_getErrorName(n));
        put(fd, packed, n, path);
        total += n;
    }
    if (close(fd) < 0)
        die("cannot write '%s': %s", path, strerror(errno));
    return total;
}

static long number(const char *s, const char *what)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < 1)
        die("%s must be a positive number, not '%s'", what, s);
    return v;
}

int main(int argc, char **argv)
{
    long pool = 1000, hosts = 1000, n;
    int a = 1;

    for (; a + 1 < argc && argv[a][0] == '-' && argv[a][1] == '-'; a += 2) {
        if (!strcmp(argv[a], "--pool"))
            pool = number(argv[a + 1], "--pool");
        else if (!strcmp(argv[a], "--hosts"))
            hosts = number(argv[a + 1], "--hosts");
        else if (!strcmp(argv[a], "--placeholder"))
            placeholder = argv[a + 1];
        else
            break;
    }
    if (argc - a < 3) {
        fprintf(stderr, "usage: gen_fleet [--pool P] [--hosts H] [--placeholder TEXT] "
                        "OUT N TEMPLATE...\n");
        return 2;
    }
    const char *out = argv[a];
    n = number(argv[a + 1], "N");
    size_t nt = (size_t)(argc - a - 2), width = strlen(placeholder);
    if (width < 2 || width > 64)
        die("the placeholder '%s' must be 2 to 64 characters", placeholder);
    struct tmpl *t = calloc(nt, sizeof(*t));
    if (!t)
        die("out of memory");
    for (size_t k = 0; k < nt; k++) {
        t[k].path = argv[a + 2 + (long)k];
        load(&t[k]);
    }

    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (!cc || ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)))
        die("cannot set up zstd");
    if (mkdir(out, 0755) < 0 && errno != EEXIST)
        die("cannot create '%s': %s", out, strerror(errno));

    unsigned char *scratch = NULL;
    size_t scratch_cap = 0;
    unsigned long long bytes = 0;
    char path[4096], first[4096], value[72];
    for (long i = 0; i < n; i++) {
        if (i % PER_DIR == 0) {
            snprintf(path, sizeof(path), "%s/%03ld", out, i / PER_DIR);
            if (mkdir(path, 0755) < 0)
                die("cannot create '%s': %s", path, strerror(errno));
        }
        snprintf(path, sizeof(path), "%s/%03ld/t%07ld.zst", out, i / PER_DIR, i);
        if (i >= pool) {
            long j = i % pool;

            snprintf(first, sizeof(first), "%s/%03ld/t%07ld.zst", out, j / PER_DIR, j);
            if (link(first, path) < 0)
                die("cannot link '%s': %s", path, strerror(errno));
            continue;
        }
        /* "h" and the host number, zero-padded to the placeholder's width */
        snprintf(value, sizeof(value), "h%0*ld", (int)width - 1, i % hosts);
        if (strlen(value) != width)
            die("--hosts is too large for the placeholder '%s'", placeholder);
        bytes += write_trace(cc, &t[(size_t)i % nt], value, path, &scratch, &scratch_cap);
    }
    printf("gen_fleet: %ld traces under %s: %ld files of %zu templates (%llu bytes) and "
           "%ld hard links, %ld hosts\n", n, out, n < pool ? n : pool, nt, bytes,
           n > pool ? n - pool : 0, hosts < n ? hosts : n);
    ZSTD_freeCCtx(cc);
    free(scratch);
    for (size_t k = 0; k < nt; k++) {
        for (size_t f = 0; f < t[k].nframes; f++)
            free(t[k].frames[f].content);
        free(t[k].frames);
        free(t[k].file);
    }
    free(t);
    return 0;
}
