/* Inputs (input.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "hmap.h"
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

/* A regular file found below a directory INPUT, or a symlink to a directory. */
struct found {
    char *path;
    dev_t dev;
    ino_t ino;
    int linked;         /* reached through a symlink: another path may be its own */
};

/* A directory walked. */
struct dir_id {
    dev_t dev;
    ino_t ino;
    size_t next;        /* index + 1 of the previous one with the same inode number, 0 none */
    int open;           /* on the current path: reaching it again is a loop */
};

struct walk {
    struct found *files;
    size_t nfiles, capfiles;
    struct dir_id *dirs;            /* indices, not pointers: it grows while walking */
    size_t ndirs, capdirs;
    struct hmap by_ino;             /* inode number -> index + 1 of the newest dir_id */
    struct found *links;            /* symlinks to directories, walked after the tree */
    size_t nlinks, caplinks;
    size_t skipped;
    char *first_skip;               /* "'path': why" of the first entry skipped */
};

/* Index + 1 of the directory dev:ino when it has been walked, else 0. */
static size_t dir_find(const struct walk *w, dev_t dev, ino_t ino)
{
    size_t k = (size_t)(uintptr_t)hmap_get(&w->by_ino, (uint64_t)ino);

    while (k && w->dirs[k - 1].dev != dev)
        k = w->dirs[k - 1].next;
    return k;
}

/* Record dev:ino as walked and on the current path; its index + 1, or 0 out of memory. */
static size_t dir_add(struct walk *w, dev_t dev, ino_t ino)
{
    size_t k;

    if (iot_grow(&w->dirs, &w->capdirs, w->ndirs + 1, sizeof(*w->dirs)) < 0)
        return 0;
    k = w->ndirs++;
    w->dirs[k].dev = dev;
    w->dirs[k].ino = ino;
    w->dirs[k].next = (size_t)(uintptr_t)hmap_get(&w->by_ino, (uint64_t)ino);
    w->dirs[k].open = 1;
    if (hmap_put(&w->by_ino, (uint64_t)ino, (void *)(uintptr_t)(k + 1)) < 0)
        return 0;
    return k + 1;
}

/* Count an entry that is not walked. Only the first is named: a tree may hold
   thousands of sockets or device nodes, and stderr stays one line. */
static int skip(struct walk *w, const char *path, const char *why)
{
    if (!w->skipped++ && asprintf(&w->first_skip, "'%s': %s", path, why) < 0) {
        w->first_skip = NULL;
        return -1;
    }
    return 0;
}

static const char *special_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "FIFO";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "device";
    return "not a regular file";
}

static int walk_dir(struct walk *w, const char *dir, int linked);

/* Append path, dev:ino to a list of found entries (files or links). */
static int push_found(struct found **list, size_t *n, size_t *cap, char **path,
                      const struct stat *sb, int linked)
{
    if (iot_grow(list, cap, *n + 1, sizeof(**list)) < 0)
        return -1;
    (*list)[*n].path = *path;
    (*list)[*n].dev = sb->st_dev;
    (*list)[*n].ino = sb->st_ino;
    (*list)[*n].linked = linked;
    (*n)++;
    *path = NULL;
    return 0;
}

/* Walk the directory dev:ino at path, not walked yet. */
static int walk_new_dir(struct walk *w, const char *path, dev_t dev, ino_t ino, int linked)
{
    size_t k = dir_add(w, dev, ino);
    int rc;

    if (!k)
        return -1;
    rc = walk_dir(w, path, linked);
    w->dirs[k - 1].open = 0;
    return rc;
}

/*
 * One entry of a directory; linked when the directory was reached through a
 * symlink. A symlink to a file is found as that file (add_dir keeps one path
 * per file, a path without links first). A symlink to a directory is a loop
 * when that directory is on the current path; else it waits until the whole
 * tree has been walked, so that a directory inside the tree is walked, and
 * its files named, where it is, and nothing is walked twice. Takes *path
 * (sets it to NULL) when it keeps it. 0, or -1 out of memory.
 */
static int walk_entry(struct walk *w, char **path, int linked)
{
    struct stat sb;
    size_t k;
    int link = 0;

    if (lstat(*path, &sb) != 0)
        return skip(w, *path, strerror(errno));
    if (S_ISLNK(sb.st_mode)) {
        link = 1;
        if (stat(*path, &sb) != 0)
            return skip(w, *path, errno == ELOOP ? "symlink loop" : strerror(errno));
    }
    if (S_ISREG(sb.st_mode))
        return push_found(&w->files, &w->nfiles, &w->capfiles, path, &sb, linked || link);
    if (!S_ISDIR(sb.st_mode))
        return skip(w, *path, special_kind(sb.st_mode));
    /* a directory walked already: a loop when on the current path (a link, or
       a bind mount, of an ancestor), else its files are in w already */
    k = dir_find(w, sb.st_dev, sb.st_ino);
    if (k)
        return w->dirs[k - 1].open ? skip(w, *path, "symlink loop") : 0;
    if (link)
        return push_found(&w->links, &w->nlinks, &w->caplinks, path, &sb, 1);
    return walk_new_dir(w, *path, sb.st_dev, sb.st_ino, linked);
}

/*
 * Add the regular files below dir to w, depth first. The entries are listed
 * and the directory closed before going down, so the depth of the tree costs
 * no descriptors. 0, or -1 out of memory.
 */
static int walk_dir(struct walk *w, const char *dir, int linked)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    if (!d)
        return skip(w, dir, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        char *p;

        /* ".", ".." and hidden entries (.git, editors' files), as at the top */
        if (de->d_name[0] == '.')
            continue;
        if (iot_grow(&names, &cap, n + 1, sizeof(*names)) < 0 ||
            asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
            rc = -1;
            break;
        }
        names[n++] = p;
    }
    closedir(d);
    /* in name order so that which of two links to a directory is walked,
       and the first skipped entry named, are the same every run */
    if (n)
        qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!rc)
            rc = walk_entry(w, &names[i], linked);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int found_path_cmp(const void *a, const void *b)
{
    const struct found *x = a, *y = b;

    return strcmp(x->path, y->path);
}

static int found_inode_cmp(const void *a, const void *b)
{
    const struct found *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (x->linked != y->linked)
        return x->linked - y->linked;
    return strcmp(x->path, y->path);
}

/*
 * Every regular file below dir, at any depth, in path order (so two runs
 * read the same files in the same order), each file once however many links
 * lead to it. Special files, symlink loops, broken links and unreadable
 * subdirectories are skipped with one warning for them all.
 */
static int add_dir(struct input *in, const char *dir)
{
    struct walk w = {0};
    struct stat sb;
    DIR *d = opendir(dir);
    size_t n = 0, found = 0;
    int rc = 0;

    /* the top one is an error when unreadable, as a file INPUT is */
    if (!d) {
        iot_error("cannot open directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    closedir(d);
    w.by_ino = (struct hmap)HMAP_INIT;
    if (stat(dir, &sb) != 0 || !dir_add(&w, sb.st_dev, sb.st_ino) || walk_dir(&w, dir, 0) < 0)
        rc = -1;
    /* then the directories linked to that were not in the tree (the list
       grows while it is walked; each directory is walked once at most) */
    for (size_t i = 0; i < w.nlinks; i++) {
        if (!rc && !dir_find(&w, w.links[i].dev, w.links[i].ino))
            rc = walk_new_dir(&w, w.links[i].path, w.links[i].dev, w.links[i].ino, 1);
        free(w.links[i].path);
    }
    /* the same file reached twice: keep one path, one without links when
       there is one, else the first in order */
    if (w.nfiles)
        qsort(w.files, w.nfiles, sizeof(*w.files), found_inode_cmp);
    for (size_t i = 0; i < w.nfiles; i++) {
        if (n && w.files[n - 1].dev == w.files[i].dev && w.files[n - 1].ino == w.files[i].ino)
            free(w.files[i].path);
        else
            w.files[n++] = w.files[i];
    }
    if (n)
        qsort(w.files, n, sizeof(*w.files), found_path_cmp);
    for (size_t i = 0; i < n; i++) {
        uint64_t bytes = 0;
        int err, kind = rc ? -1 : detect(w.files[i].path, &bytes, &err);

        /* a directory may hold other files (READMEs, issue files): skip them */
        if (kind >= 0) {
            if (add_file(in, w.files[i].path, w.files[i].path, (enum input_kind)kind,
                         bytes) < 0)
                rc = -1;
            found++;
        }
        free(w.files[i].path);
    }
    if (rc)
        iot_error("out of memory");
    else if (w.skipped == 1)
        iot_warn("'%s': skipped %s", dir, w.first_skip);
    else if (w.skipped)
        iot_warn("'%s': skipped %zu entries that are not regular files or directories "
                 "that can be read, the first %s", dir, w.skipped, w.first_skip);
    if (!rc && !found) {
        iot_error("'%s': no trace, JSONL event file or strace log in this directory", dir);
        rc = -1;
    }
    free(w.files);
    free(w.links);
    free(w.dirs);
    free(w.first_skip);
    hmap_release(&w.by_ino);
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
