/* Inputs (input.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "input.h"
#include "msg.h"
#include "strace.h"

#define PEEK 4096

struct source {
    enum input_kind kind;
    const char *name;
    FILE *f;
    struct strace_src *strace;
    struct iot_jsonl_scratch *scratch;
    char *line;
    size_t linecap;
    uint64_t lineno;
    struct iot_event ev;       /* lookahead when merging */
    int have;
    size_t file;               /* index into files[] */
};

struct input {
    struct iot_strtab *st;
    struct input_file_info *files;
    char **paths;              /* real paths of files[] (spooled stdin included) */
    size_t nfiles, capfiles, cappaths;
    char *spool;               /* temp file holding standard input, unlinked at close */
    struct iot_trace *native;
    struct source *src;        /* src[0] is the native reader when there is one */
    size_t nsrc;
    int started;
    struct iot_event cur;      /* the event input_next_ref() returns when merging */
    char errbuf[IOT_ERRBUF_SIZE];
};

static int add_file(struct input *in, const char *name, const char *path, enum input_kind kind,
                    uint64_t bytes)
{
    struct input_file_info *nf;
    char **np;

    if (iot_grow(&in->files, &in->capfiles, in->nfiles + 1, sizeof(*in->files)) < 0 ||
        iot_grow(&in->paths, &in->cappaths, in->nfiles + 1, sizeof(*in->paths)) < 0)
        return -1;
    nf = in->files;
    np = in->paths;
    memset(&nf[in->nfiles], 0, sizeof(*nf));
    nf[in->nfiles].name = iot_intern(in->st, name, strlen(name));
    nf[in->nfiles].kind = kind;
    nf[in->nfiles].bytes = bytes;
    np[in->nfiles] = strdup(path);
    if (!np[in->nfiles] || !nf[in->nfiles].name)
        return -1;
    in->nfiles++;
    return 0;
}

/* The kind of the file at path from its first bytes; -1 when unrecognisable. */
static int detect(const char *path, uint64_t *bytes, int *err)
{
    char buf[PEEK];
    size_t n, i;
    FILE *f = fopen(path, "rb");
    struct stat sb;

    *err = 0;
    if (!f) {
        *err = errno;
        return -1;
    }
    n = fread(buf, 1, sizeof(buf), f);
    if (fstat(fileno(f), &sb) == 0)
        *bytes = (uint64_t)sb.st_size;
    fclose(f);
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
    return -1;
}

static int spool_stdin(struct input *in, char **path)
{
    const char *dir = getenv("TMPDIR");
    char *p, buf[65536];
    int fd;
    size_t n;
    FILE *f;

    if (in->spool) {
        iot_error("'-' given more than once");
        return -1;
    }
    if (asprintf(&p, "%s/ioanalyze-stdin-XXXXXX", dir && *dir ? dir : "/tmp") < 0)
        return -1;
    fd = mkstemp(p);
    if (fd < 0 || !(f = fdopen(fd, "wb"))) {
        iot_error("cannot spool standard input: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(p);
        return -1;
    }
    in->spool = p;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
        fwrite(buf, 1, n, f);
    if (fclose(f) != 0) {
        iot_error("cannot spool standard input: %s", strerror(errno));
        return -1;
    }
    *path = p;
    return 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(struct input *in, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0, found = 0;
    int rc = 0;

    if (!d) {
        iot_error("cannot open directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        char *p;
        struct stat sb;

        if (de->d_name[0] == '.')
            continue;
        if (asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
            rc = -1;
            break;
        }
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            free(p);
            continue;
        }
        if (iot_grow(&names, &cap, n + 1, sizeof(*names)) < 0) {
            free(p);
            rc = -1;
            break;
        }
        names[n++] = p;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = 0;
        int err, kind = rc ? -1 : detect(names[i], &bytes, &err);

        /* a directory may hold other files (READMEs, issue files): skip them */
        if (kind >= 0) {
            if (add_file(in, names[i], names[i], (enum input_kind)kind, bytes) < 0)
                rc = -1;
            found++;
        }
        free(names[i]);
    }
    free(names);
    if (!rc && !found) {
        iot_error("'%s': no trace, JSONL event file or strace log in this directory", dir);
        rc = -1;
    }
    return rc;
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
            iot_error("'%s': %s", s->name, errbuf);
        return rc;
    case INPUT_JSONL:
        for (;;) {
            ssize_t len = getline(&s->line, &s->linecap, s->f);

            if (len < 0) {
                if (ferror(s->f)) {
                    iot_error("cannot read '%s': %s", s->name, strerror(errno));
                    return -1;
                }
                return 0;
            }
            s->lineno++;
            in->files[s->file].lines++;
            while (len > 0 && (s->line[len - 1] == '\n' || s->line[len - 1] == '\r'))
                len--;
            rc = iot_jsonl_parse(s->line, (size_t)len, ev, in->st, s->scratch, errbuf);
            if (rc < 0) {
                iot_error("'%s': line %llu: %s", s->name, (unsigned long long)s->lineno,
                          errbuf);
                return -1;
            }
            if (rc > 0)
                return 1;
        }
    }
    return -1;
}

/* One source for every strace log among the inputs; 0 or -1 (reported). */
static int open_strace(struct input *in, struct iot_strtab *st, char *errbuf)
{
    const char **paths = calloc(in->nfiles + 1, sizeof(*paths));
    size_t n = 0, first = 0;
    struct source *s;

    if (!paths) {
        iot_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < in->nfiles; i++)
        if (in->files[i].kind == INPUT_STRACE) {
            if (!n)
                first = i;
            paths[n++] = in->paths[i];
        }
    if (n) {
        s = &in->src[in->nsrc++];
        s->kind = INPUT_STRACE;
        s->name = in->files[first].name;
        s->file = first;
        s->strace = strace_open_paths(paths, n, st, errbuf);
        if (!s->strace)
            iot_error("%s", errbuf);
    }
    free(paths);
    return n && !s->strace ? -1 : 0;
}

struct input *input_open(const char *const *paths, size_t n, struct iot_strtab *st)
{
    struct input *in = calloc(1, sizeof(*in));
    const char **native = NULL;
    size_t nnative = 0;
    char errbuf[IOT_ERRBUF_SIZE];

    if (!in)
        return NULL;
    in->st = st;
    for (size_t i = 0; i < n; i++) {
        const char *name = paths[i];
        char *path = (char *)paths[i];
        struct stat sb;
        uint64_t bytes = 0;
        int err, kind;

        if (strcmp(name, "-") == 0) {
            if (spool_stdin(in, &path) < 0)
                goto fail;
        } else if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (add_dir(in, path) < 0)
                goto fail;
            continue;
        }
        kind = detect(path, &bytes, &err);
        if (kind < 0) {
            if (err)
                iot_error("cannot open trace '%s': %s", name, strerror(err));
            else
                iot_error("'%s': not a trace, JSONL event file or strace log", name);
            goto fail;
        }
        if (add_file(in, name, path, (enum input_kind)kind, bytes) < 0)
            goto oom;
    }
    in->src = calloc(in->nfiles + 1, sizeof(*in->src));
    native = calloc(in->nfiles + 1, sizeof(*native));
    if (!in->src || !native)
        goto oom;
    for (size_t i = 0; i < in->nfiles; i++)
        if (in->files[i].kind == INPUT_NATIVE)
            native[nnative++] = in->paths[i];
    if (nnative) {
        in->native = iot_trace_open(native, nnative, st, errbuf);
        if (!in->native) {
            iot_error("%s", errbuf);
            goto fail;
        }
        in->src[in->nsrc].kind = INPUT_NATIVE;
        in->src[in->nsrc].name = nnative == 1 ? in->files[0].name : "native traces";
        for (size_t i = 0; i < in->nfiles; i++)
            if (in->files[i].kind == INPUT_NATIVE) {
                in->src[in->nsrc].name = in->files[i].name;
                break;
            }
        in->nsrc++;
    }
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
        s->f = fopen(in->paths[i], "rb");
        if (!s->f) {
            iot_error("cannot open trace '%s': %s", s->name, strerror(errno));
            goto fail;
        }
        in->nsrc++;
        s->scratch = iot_jsonl_scratch_create();
        if (!s->scratch)
            goto oom;
    }
    free(native);
    return in;
oom:
    iot_error("out of memory");
fail:
    free(native);
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

int input_next(struct input *in, struct iot_event *ev)
{
    struct source *best = NULL;

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
        for (size_t i = 0; i < in->nsrc; i++) {
            int rc = source_next(in, &in->src[i], &in->src[i].ev);

            if (rc < 0)
                return -1;
            in->src[i].have = rc;
        }
        in->started = 1;
    }
    /* The event returned last time has been used by now: refill its source
       (argv of an event lives only until its source's next read). */
    for (size_t i = 0; i < in->nsrc; i++) {
        if (in->src[i].have == 2) {
            int rc = source_next(in, &in->src[i], &in->src[i].ev);

            if (rc < 0)
                return -1;
            in->src[i].have = rc;
        }
    }
    for (size_t i = 0; i < in->nsrc; i++)
        if (in->src[i].have && (!best || in->src[i].ev.t < best->ev.t))
            best = &in->src[i];
    if (!best)
        return 0;
    *ev = best->ev;
    best->have = 2;
    return 1;
}

void input_native_stats(const struct input *in, struct iot_trace_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (in->native)
        iot_trace_stats(in->native, out);
}

int input_report_damage(struct input *in)
{
    struct iot_trace_stats ts;

    if (!in->native)
        return 0;
    iot_trace_stats(in->native, &ts);
    /* not damage: what a newer recorder added, skipped exactly (trace-format.md 7) */
    if (ts.calls_unknown || ts.fields_unknown || ts.records_unknown)
        iot_warn("a newer recorder wrote part of this trace: skipped %llu calls of ops, "
                 "fields of %llu calls and %llu records that this ioanalyze does not know "
                 "(upgrade ioanalyze to see them)",
                 (unsigned long long)ts.calls_unknown, (unsigned long long)ts.fields_unknown,
                 (unsigned long long)ts.records_unknown);
    if (!ts.chunks_damaged && !ts.truncated && !ts.bytes_skipped)
        return 0;
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
                in->files[j].has_durations = si.has_durations;
            }
        }
    }
    *files = in->files;
    return in->nfiles;
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
        if (s->f)
            fclose(s->f);
        free(s->line);
    }
    free(in->src);
    if (in->native)
        iot_trace_close(in->native);
    for (size_t i = 0; i < in->nfiles; i++)
        free(in->paths[i]);
    free(in->paths);
    free(in->files);
    if (in->spool) {
        unlink(in->spool);
        free(in->spool);
    }
    free(in);
}
