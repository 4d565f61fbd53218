/* Inputs (input.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "heap.h"
#include "infile.h"
#include "input.h"
#include "input_int.h"
#include "msg.h"
#include "spool.h"
#include "strace.h"

/* Malformed JSONL lines named one by one in warnings; the rest are counted. */
#define JSONL_BAD_NAMED 3

struct source {
    enum input_kind kind;
    const char *name;
    struct infile *inf;        /* JSONL: its file */
    struct strace_src *strace;
    struct iot_jsonl_scratch *scratch;
    char *line;
    size_t linecap;
    uint64_t lineno;
    uint64_t unknown;          /* JSONL: events of ops or kinds we do not know */
    uint64_t unknown_line;     /* the first of them: its line, and what it was */
    char unknown_what[64];
    uint64_t bad;              /* JSONL: malformed lines skipped */
    uint64_t good;             /* JSONL: events read */
    uint64_t first_bad;        /* JSONL: the first malformed line, and what is wrong */
    char first_bad_what[IOT_ERRBUF_SIZE];
    struct iot_event ev;       /* lookahead when merging */
    size_t file;               /* index into files[] */
};

struct input {
    struct iot_strtab *st;
    struct input_file_info *files;
    struct infile **infs;      /* files[]'s open files */
    size_t nfiles, capfiles, capinfs;
    struct infiles *pool;      /* every infile: a bounded number holds a descriptor */
    int have_stdin;
    struct iot_trace *native;
    struct source *src;        /* src[0] is the native reader when there is one */
    size_t nsrc;
    int started;
    size_t *heap;              /* sources with a lookahead, earliest first (src_before) */
    size_t nheap;
    size_t last;               /* index + 1 of the source of the event returned last */
    struct iot_event cur;      /* the event input_next_ref() returns when merging */
    char errbuf[IOT_ERRBUF_SIZE];
};

/* The file opened at path (its name: "-" is standard input) is an input of
   that kind; 0, or -1 out of memory (not reported). */
static int add_file(struct input *in, const char *path, enum input_kind kind, struct infile *inf)
{
    struct input_file_info *nf;

    if (iot_grow(&in->files, &in->capfiles, in->nfiles + 1, sizeof(*in->files)) < 0 ||
        iot_grow(&in->infs, &in->capinfs, in->nfiles + 1, sizeof(*in->infs)) < 0)
        return -1;
    nf = &in->files[in->nfiles];
    memset(nf, 0, sizeof(*nf));
    nf->name = iot_intern(in->st, path, strlen(path));
    nf->kind = kind;
    nf->bytes = infile_bytes(inf);
    in->infs[in->nfiles] = inf;
    if (!nf->name)
        return -1;
    in->nfiles++;
    return 0;
}

/* The kind of a file from its first line, in buf[0..n); -1 when unrecognisable. */
static int detect_start(const char *buf, size_t n)
{
    size_t i;

    if (iot_is_native_trace(buf, n))
        return INPUT_NATIVE;
    for (i = 0; i < n && strchr(" \t\r\n", buf[i]); i++)
        ;
    /* a JSONL event file: its first object has an "ev" key (a config or an
       issue object in a directory of traces is not one) */
    if (i < n && buf[i] == '{') {
        const char *nl = memchr(buf + i, '\n', n - i);

        if (memmem(buf + i, (size_t)((nl ? nl : buf + n) - (buf + i)), "\"ev\"", 4))
            return INPUT_JSONL;
        return -1;
    }
    if (strace_detect(buf, n))
        return INPUT_STRACE;
    /* a native trace with a damaged start: read from its next chunk, the
       damage said by input_report_damage (the reader counts it) */
    if (iot_native_trace_resync(buf, n) > 0)
        return INPUT_NATIVE;
    return -1;
}

/*
 * The kind of a file from its first bytes buf[0..n); -1 when unrecognisable.
 * A JSONL file or strace log cut at its head (a log rotated by size, a copy
 * taken with tail -c) starts inside a line: it is known by its second line,
 * and its reader skips the first as a line it cannot read, with a warning.
 */
static int detect(const char *buf, size_t n)
{
    int kind = detect_start(buf, n);
    /* text only: a NUL is binary (a native trace's chunk cut), whose bytes
       after a newline may look like a line by chance */
    const char *nl = kind < 0 && !memchr(buf, 0, n) ? memchr(buf, '\n', n) : NULL;

    if (nl) {
        kind = detect_start(nl + 1, n - (size_t)(nl + 1 - buf));
        if (kind == INPUT_NATIVE)
            kind = -1;  /* a trace's magic after a newline is chance in a text */
    }
    return kind;
}

/* How far into a regular file detection looks for a chunk of a native
   trace cut at its head: beyond the largest chunk a recorder writes. */
#define CUT_TRACE_SCAN ((uint64_t)4 << 20)

/*
 * A regular file the peek did not recognise is a native trace cut at its
 * head when a chunk's index frame follows within CUT_TRACE_SCAN bytes (a
 * chunk is larger than the peek); its reader skips to that frame and counts
 * the bytes before it as damage. INPUT_NATIVE or -1.
 */
static int detect_cut_trace(struct infile *inf)
{
    static char win[64 << 10];   /* detection runs on one thread, one file at a time */
    const size_t overlap = 12;   /* a frame's magic may straddle two windows */
    uint64_t off = INFILE_PEEK - overlap;

    while (off < CUT_TRACE_SCAN) {
        ssize_t r = infile_pread(inf, win, sizeof(win), off);

        if (r <= (ssize_t)overlap)
            return -1;
        if (iot_native_trace_resync(win, (size_t)r) >= 0)
            return INPUT_NATIVE;
        off += (uint64_t)r - overlap;
    }
    return -1;
}

/*
 * The kind of the file opened as inf, from its first bytes peek[0..n);
 * -1 when unrecognisable, -2 out of memory. A strace log or JSONL file
 * compressed with gzip or zstd is read decompressed from then on; a native
 * trace begins with zstd's magic too, and is one when its start does not
 * decode to a log or JSONL.
 */
int input_detect_file(struct infile *inf, const char *peek, size_t n)
{
    enum decomp_kind z = decomp_detect(peek, n);
    int kind;

    if (z != DECOMP_NONE) {
        char plain[INFILE_PEEK];
        ssize_t k = decomp_peek(z, peek, n, plain, sizeof(plain));

        kind = k > 0 ? detect(plain, (size_t)k) : -1;

        if (kind == INPUT_JSONL || kind == INPUT_STRACE)
            return infile_decompress(inf, z) < 0 ? -2 : kind;
    }
    kind = detect(peek, n);
    return kind < 0 && n == INFILE_PEEK ? detect_cut_trace(inf) : kind;
}

static int source_next(struct input *in, struct source *s, struct iot_event *ev)
{
    char errbuf[IOT_ERRBUF_SIZE];   /* not zero-filled: this runs per event */
    int rc;

    errbuf[0] = 0;
    switch (s->kind) {
    case INPUT_NATIVE:
        rc = iot_trace_next(in->native, ev, errbuf);
        if (rc < 0)
            iot_error("%s", errbuf);
        return rc;
    case INPUT_STRACE:
        rc = strace_next(s->strace, ev, errbuf);
        if (rc < 0)
            iot_error("%s", errbuf);  /* it names the log: one of several */
        return rc;
    case INPUT_JSONL:
        for (;;) {
            FILE *f = infile_file(s->inf);   /* reopened where it stopped if parked */
            ssize_t len;

            errno = 0;
            len = f ? getline(&s->line, &s->linecap, f) : -1;
            if (len < 0) {
                if (!f || ferror(f)) {
                    iot_error("cannot read '%s': %s", s->name,
                              strerror(errno ? errno : EIO));
                    return -1;
                }
                infile_done(s->inf);   /* its descriptor goes to the next file */
                /* not one good line: not a damaged event file but none */
                if (s->bad && !s->good) {
                    iot_error("'%s': line %llu: %s (no line of the file is an event)", s->name,
                              (unsigned long long)s->first_bad, s->first_bad_what);
                    return -1;
                }
                return 0;
            }
            s->lineno++;
            in->files[s->file].lines++;
            while (len > 0 && (s->line[len - 1] == '\n' || s->line[len - 1] == '\r'))
                len--;
            rc = iot_jsonl_parse(s->line, (size_t)len, ev, in->st, s->scratch, errbuf);
            if (rc == IOT_JSONL_UNKNOWN) {
                /* a newer writer's: skipped and counted (input_report_damage) */
                in->files[s->file].unknown_lines++;
                if (s->unknown++ == 0) {
                    s->unknown_line = s->lineno;
                    snprintf(s->unknown_what, sizeof(s->unknown_what), "%.60s", errbuf);
                }
                continue;
            }
            if (rc < 0) {
                /* damage (a line cut by a full disk, a stray byte): the good
                   lines around it are kept, as a native trace's intact
                   chunks are; the first few bad lines are named here, the
                   rest counted (input_report_damage) */
                in->files[s->file].bad_lines++;
                if (!s->bad) {
                    s->first_bad = s->lineno;
                    snprintf(s->first_bad_what, sizeof(s->first_bad_what), "%s", errbuf);
                }
                if (s->bad++ < JSONL_BAD_NAMED)
                    iot_warn("'%s': line %llu: %s: line skipped", s->name,
                             (unsigned long long)s->lineno, errbuf);
                continue;
            }
            if (rc > 0) {
                s->good++;
                return 1;
            }
        }
    }
    return -1;
}

/* One source for every strace log among the inputs; 0 or -1 (reported). */
static int open_strace(struct input *in, struct iot_strtab *st, char *errbuf)
{
    struct infile **files = calloc(in->nfiles + 1, sizeof(*files));
    const char **names = calloc(in->nfiles + 1, sizeof(*names));
    size_t n = 0, first = 0;
    struct source *s = NULL;

    if (!files || !names) {
        free(files);
        free(names);
        iot_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < in->nfiles; i++)
        if (in->files[i].kind == INPUT_STRACE) {
            if (!n)
                first = i;
            files[n] = in->infs[i];
            names[n++] = in->files[i].name;
        }
    if (n) {
        s = &in->src[in->nsrc++];
        s->kind = INPUT_STRACE;
        s->name = in->files[first].name;
        s->file = first;
        s->strace = strace_open_files(files, names, n, st, errbuf);
        if (!s->strace)
            iot_error("%s", errbuf);
    }
    free(files);
    free(names);
    return s && !s->strace ? -1 : 0;
}

/*
 * One reader for every native trace among the inputs, so that their
 * processes merge. Each file's descriptor is handed over: the file detection
 * opened, or a capped copy of a piped input (the reader reads a trace twice).
 */
static int open_native(struct input *in, struct iot_strtab *st, char *errbuf)
{
    const char **names = calloc(in->nfiles + 1, sizeof(*names));
    int *fds = calloc(in->nfiles + 1, sizeof(*fds));
    size_t n = 0;

    if (!names || !fds) {
        free(names);
        free(fds);
        iot_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < in->nfiles; i++) {
        if (in->files[i].kind != INPUT_NATIVE)
            continue;
        names[n] = in->files[i].name;
        fds[n] = infile_take_fd(in->infs[i], iot_spool_max());
        if (fds[n] < 0 && errno) {
            int err = errno;   /* before the message's own calls */
            char msg[PATH_MAX + 256];

            if (err == EFBIG) {
                iot_spool_too_big(msg, sizeof(msg), in->files[i].name,
                                  "a trace read from a pipe");
                iot_error("%s", msg);
            } else
                iot_error("cannot read trace '%s': %s", in->files[i].name, strerror(err));
            for (size_t j = 0; j < n; j++)
                if (fds[j] >= 0)
                    close(fds[j]);
            free(names);
            free(fds);
            return -1;
        }
        /* a copy of standard input has no path: name it in messages */
        if (strcmp(names[n], "-") == 0)
            names[n] = "<stdin>";
        n++;
    }
    if (n) {
        in->native = iot_trace_open_fds(names, fds, n, st, errbuf);
        if (!in->native)
            iot_error("%s", errbuf);
    }
    free(names);
    free(fds);
    if (n && !in->native)
        return -1;
    if (n) {
        struct source *s = &in->src[in->nsrc++];

        s->kind = INPUT_NATIVE;
        for (size_t i = 0; i < in->nfiles; i++)
            if (in->files[i].kind == INPUT_NATIVE) {
                s->name = in->files[i].name;
                break;
            }
    }
    return 0;
}

/* Open and detect one INPUT that is not a directory; 0 or -1 (reported). */
static int add_input(struct input *in, const char *path)
{
    char peek[INFILE_PEEK];
    size_t npeek;
    struct infile *inf;
    int kind;

    if (strcmp(path, "-") == 0 && in->have_stdin++) {
        iot_error("'-' given more than once");
        return -1;
    }
    inf = infile_open(in->pool, path, peek, &npeek);
    if (!inf) {
        iot_error("cannot open trace '%s': %s", path, strerror(errno));
        return -1;
    }
    kind = input_detect_file(inf, peek, npeek);
    if (kind < 0) {
        infile_done(inf);
        if (kind == -2)
            iot_error("out of memory");
        else
            iot_error("'%s': not a trace, JSONL event file or strace log", path);
        return -1;
    }
    if (add_file(in, path, (enum input_kind)kind, inf) < 0) {
        iot_error("out of memory");
        return -1;
    }
    return 0;
}

/* A file found below a directory INPUT (input_dir_take_fn). */
static enum input_dir_took take_dir_file(void *ctx, const char *path)
{
    struct input *in = ctx;
    char peek[INFILE_PEEK];
    size_t npeek;
    struct infile *inf = infile_open(in->pool, path, peek, &npeek);
    int kind = inf ? input_detect_file(inf, peek, npeek) : -1;

    if (kind == -2)
        return INPUT_DIR_NO_MEMORY;
    if (kind >= 0)
        return add_file(in, path, (enum input_kind)kind, inf) < 0 ? INPUT_DIR_NO_MEMORY
                                                                    : INPUT_DIR_TAKEN;
    if (!inf)
        return INPUT_DIR_UNREADABLE;
    infile_done(inf);
    return INPUT_DIR_NOT_INPUT;
}

struct input *input_open(const char *const *paths, size_t n, struct iot_strtab *st)
{
    struct input *in = calloc(1, sizeof(*in));
    char errbuf[IOT_ERRBUF_SIZE];

    if (!in || !(in->pool = infiles_create())) {
        iot_error("out of memory");
        free(in);
        return NULL;
    }
    in->st = st;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;

        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (input_dir_walk(paths[i], take_dir_file, in) < 0)
                goto fail;
        } else if (add_input(in, paths[i]) < 0) {
            goto fail;
        }
    }
    in->src = calloc(in->nfiles + 1, sizeof(*in->src));
    if (!in->src) {
        iot_error("out of memory");
        goto fail;
    }
    if (open_native(in, st, errbuf) < 0)
        goto fail;
    /* All strace logs are one source: the files of `strace -ff` share
       threads, children and descriptors, and one time origin. */
    if (open_strace(in, st, errbuf) < 0)
        goto fail;
    for (size_t i = 0; i < in->nfiles; i++) {
        struct source *s = &in->src[in->nsrc];

        if (in->files[i].kind != INPUT_JSONL)
            continue;
        s->kind = in->files[i].kind;
        s->name = in->files[i].name;
        s->file = i;
        s->inf = in->infs[i];
        in->nsrc++;
        s->scratch = iot_jsonl_scratch_create();
        if (!s->scratch) {
            iot_error("out of memory");
            goto fail;
        }
    }
    return in;
fail:
    input_close(in);
    return NULL;
}

struct iot_trace *input_lone_native(struct input *in)
{
    return in->nsrc == 1 ? in->native : NULL;
}

int input_next_ref(struct input *in, const struct iot_event **ev)
{
    int rc;

    /* a lone native trace: its reader's own event, no copy (the hot path) */
    if (in->nsrc == 1 && in->native) {
        rc = iot_trace_next_ref(in->native, ev, in->errbuf);
        if (rc < 0)
            iot_error("%s", in->errbuf);
        return rc;
    }
    rc = input_next(in, &in->cur);
    *ev = &in->cur;
    return rc;
}

/* Merge order: by time, then by source index, so that runs agree. */
static int src_before(const struct input *in, size_t a, size_t b)
{
    int64_t ta = in->src[a].ev.t, tb = in->src[b].ev.t;

    return ta < tb || (ta == tb && a < b);
}

#define SRC_BEFORE(in, x, y) src_before(in, *(x), *(y))
IOT_HEAP_DEFINE(src_heap, size_t, const struct input *, SRC_BEFORE, IOT_HEAP_UNPLACED)

static void heap_push(struct input *in, size_t k)
{
    in->heap[in->nheap] = k;
    in->nheap++;
    src_heap_fix(in, in->heap, in->nheap, in->nheap - 1);
}

static size_t heap_pop(struct input *in)
{
    size_t top = in->heap[0];

    in->heap[0] = in->heap[--in->nheap];
    if (in->nheap > 1)
        src_heap_fix(in, in->heap, in->nheap, 0);
    return top;
}

/* Read source k's next event into its lookahead; it joins the heap when there is one. */
static int refill(struct input *in, size_t k)
{
    int rc = source_next(in, &in->src[k], &in->src[k].ev);

    if (rc > 0)
        heap_push(in, k);
    return rc;
}

int input_next(struct input *in, struct iot_event *ev)
{
    size_t k;

    if (in->nsrc == 1) {
        if (in->native) {       /* the common case, kept short */
            int rc = iot_trace_next(in->native, ev, in->errbuf);

            if (rc < 0)
                iot_error("%s", in->errbuf);
            return rc;
        }
        return source_next(in, &in->src[0], ev);
    }
    if (!in->started) {
        in->heap = calloc(in->nsrc, sizeof(*in->heap));
        if (!in->heap) {
            iot_error("out of memory");
            return -1;
        }
        for (size_t i = 0; i < in->nsrc; i++)
            if (refill(in, i) < 0)
                return -1;
        in->started = 1;
    }
    /* The event returned last time has been used by now: refill its source
       (argv of an event lives only until its source's next read). */
    if (in->last && refill(in, in->last - 1) < 0)
        return -1;
    in->last = 0;
    if (!in->nheap)
        return 0;
    k = heap_pop(in);
    *ev = in->src[k].ev;
    in->last = k + 1;
    return 1;
}

void input_native_stats(const struct input *in, struct iot_trace_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (in->native)
        iot_trace_stats(in->native, out);
}

/*
 * The strace logs' lines not understood (the first few by number, then a
 * count) and their calls left unfinished for good; 1 when a line was not
 * understood (damage), else 0.
 */
static int report_strace(struct input *in)
{
    const struct input_file_info *files;
    size_t nf = input_files(in, &files);
    int damaged = 0;

    for (size_t j = 0; j < nf; j++) {
        const struct input_file_info *f = &files[j];

        if (f->kind != INPUT_STRACE)
            continue;
        for (uint64_t k = 0; k < f->unknown_lines && k < STRACE_LINES_NAMED; k++)
            iot_warn("'%s': line %llu: not an strace line this reader understands: line skipped",
                     f->name, (unsigned long long)f->unknown_at[k]);
        if (f->unknown_lines > STRACE_LINES_NAMED)
            iot_warn("'%s': %llu more line%s not understood, skipped (%llu in all, %llu lines read)",
                     f->name, (unsigned long long)(f->unknown_lines - STRACE_LINES_NAMED),
                     f->unknown_lines - STRACE_LINES_NAMED == 1 ? "" : "s",
                     (unsigned long long)f->unknown_lines, (unsigned long long)f->lines);
        if (f->unfinished)
            iot_warn("'%s': %llu call%s left <unfinished ...> and never resumed (the task "
                     "ended or the log did first): not analysed", f->name,
                     (unsigned long long)f->unfinished, f->unfinished == 1 ? "" : "s");
        damaged |= f->unknown_lines != 0;
    }
    return damaged;
}

int input_report_damage(struct input *in)
{
    struct iot_trace_stats ts;
    int damaged = 0;

    for (size_t i = 0; i < in->nsrc; i++)
        if (in->src[i].kind == INPUT_JSONL && in->src[i].unknown)
            iot_warn("'%s': skipped %llu events this ioanalyze does not know, the first "
                     "at line %llu (%s): written by a newer ioscope? (upgrade ioanalyze "
                     "to see them)", in->src[i].name,
                     (unsigned long long)in->src[i].unknown,
                     (unsigned long long)in->src[i].unknown_line, in->src[i].unknown_what);
    damaged = report_strace(in);
    for (size_t i = 0; i < in->nfiles; i++) {
        const char *what = infile_damage(in->infs[i]);

        if (what) {
            iot_warn("'%s': %s: what it held up to there is read", in->files[i].name, what);
            damaged = 1;
        }
    }
    for (size_t i = 0; i < in->nsrc; i++) {
        const struct source *s = &in->src[i];

        if (s->kind != INPUT_JSONL || !s->bad)
            continue;
        damaged = 1;
        if (s->bad > JSONL_BAD_NAMED)
            iot_warn("'%s': %llu more malformed line%s skipped (%llu in all, %llu lines read)",
                     s->name, (unsigned long long)(s->bad - JSONL_BAD_NAMED),
                     s->bad - JSONL_BAD_NAMED == 1 ? "" : "s",
                     (unsigned long long)s->bad, (unsigned long long)s->lineno);
    }
    if (!in->native)
        return damaged;
    iot_trace_stats(in->native, &ts);
    /* not damage: what a newer recorder added, skipped exactly (trace-format.md 7) */
    if (ts.calls_unknown || ts.fields_unknown || ts.records_unknown)
        iot_warn("a newer recorder wrote part of this trace: skipped %llu calls of ops, "
                 "fields of %llu calls and %llu records that this ioanalyze does not know "
                 "(upgrade ioanalyze to see them)",
                 (unsigned long long)ts.calls_unknown, (unsigned long long)ts.fields_unknown,
                 (unsigned long long)ts.records_unknown);
    if (!ts.chunks_damaged && !ts.truncated && !ts.bytes_skipped)
        return damaged;
    for (size_t i = 0; i < in->nfiles; i++) {
        if (in->files[i].kind != INPUT_NATIVE)
            continue;
        iot_warn("'%s': damaged trace%s: recovered %llu events from %llu intact chunks; "
                 "%llu damaged chunks, %llu bytes skipped",
                 in->files[i].name, ts.truncated ? " (truncated)" : "",
                 (unsigned long long)ts.events, (unsigned long long)ts.chunks,
                 (unsigned long long)ts.chunks_damaged, (unsigned long long)ts.bytes_skipped);
        break;
    }
    return 1;
}

size_t input_files(const struct input *in, const struct input_file_info **files)
{
    /* a piped input's size is what has been read of it */
    for (size_t i = 0; i < in->nfiles; i++)
        in->files[i].bytes = infile_bytes(in->infs[i]);
    for (size_t i = 0; i < in->nsrc; i++) {
        struct source *s = &in->src[i];

        if (s->kind == INPUT_STRACE && s->strace) {
            size_t k = 0;

            /* the merged source reports each file's share, in input order */
            for (size_t j = 0; j < in->nfiles; j++) {
                struct strace_info si;

                if (in->files[j].kind != INPUT_STRACE)
                    continue;
                strace_file_info(s->strace, k++, &si);
                in->files[j].lines = si.lines;
                in->files[j].unknown_lines = si.unknown_lines;
                memcpy(in->files[j].unknown_at, si.unknown_at, sizeof(si.unknown_at));
                in->files[j].unfinished = si.unfinished;
                in->files[j].has_durations = si.has_durations;
            }
        }
    }
    *files = in->files;
    return in->nfiles;
}

int input_progress(const struct input *in, uint64_t *done, uint64_t *total)
{
    struct iot_trace_stats ts;
    int known = 1;

    /* the native traces were handed over to their reader (and a piped one
       copied to a file first, so its size is known): the reader counts */
    input_native_stats(in, &ts);
    *done = ts.bytes_read;
    *total = ts.file_bytes;
    for (size_t i = 0; i < in->nfiles; i++) {
        if (in->files[i].kind == INPUT_NATIVE)
            continue;
        *done += infile_pos(in->infs[i]);
        *total += infile_bytes(in->infs[i]);
        if (infile_is_unseekable(in->infs[i]))
            known = 0;
    }
    return known;
}

void input_close(struct input *in)
{
    if (!in)
        return;
    for (size_t i = 0; in->src && i < in->nsrc; i++) {
        struct source *s = &in->src[i];

        if (s->strace)
            strace_close(s->strace);
        if (s->scratch)
            iot_jsonl_scratch_free(s->scratch);
        free(s->line);
    }
    free(in->src);
    free(in->heap);
    if (in->native)
        iot_trace_close(in->native);
    free(in->infs);
    free(in->files);
    infiles_free(in->pool);
    free(in);
}
