/*
 * symcache.c - symbols by build-id, in memory and on disk (symcache.h).
 *
 * A cache file is text, one record a line, fields separated by tabs:
 *
 *     ioscope-symbols 1
 *     id BUILDID
 *     dwarf 0|1
 *     entries N
 *     a OFFSET_HEX NFRAMES                   N times, each followed by
 *     f INLINED LINE FN_OFFSET_HEX FUNCTION FILE    NFRAMES of these
 *     end CHECKSUM_HEX
 *
 * (an empty field: unknown). CHECKSUM is FNV-1a 64 of every byte before the
 * "end" line. A file is taken whole or not at all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "iotrace.h"
#include "symcache.h"

#define FILE_MAGIC "ioscope-symbols 1\n"
/* addresses kept on disk per build-id; more stay in memory only */
#define MAX_FILE_ENTRIES 65536
/* a file larger than this is not one the cache wrote */
#define MAX_FILE_BYTES ((size_t)64 << 20)
#define MAX_FRAMES 16
#define DEFAULT_MAX_MB 256
#define ID_MAX 128

struct centry {
    uint64_t offset;
    struct sym_frame *f;
    size_t n;
};

struct cmod {
    const char *id;
    struct hmap addrs;          /* offset + 1 -> struct centry */
    struct centry **list;       /* the same entries, in the order they came */
    size_t n, cap;
    int loaded;                 /* the disk file was read (or found absent or bad) */
    int dwarf;                  /* the entries came with DWARF */
    int missing;                /* nothing found for it (this process only) */
    int dirty;                  /* the disk file should be (re)written */
};

struct symcache {
    pthread_mutex_t lock;       /* the analysis may run on several threads */
    char *dir;                  /* ".../symbols", or NULL: memory only */
    struct iot_strtab *strs;
    struct hmap mods;           /* interned id -> struct cmod */
    uint64_t max_bytes;
    uint64_t written;           /* bytes written since the size was last checked */
    int checked;
    size_t hits, misses;
};

static struct symcache *process_cache;

int symcache_id_ok(const char *id)
{
    size_t n = 0;

    if (!id)
        return 0;
    for (; id[n]; n++)
        if (!((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'f')) || n >= ID_MAX)
            return 0;
    return n >= 4;
}

struct symcache *symcache_create(const char *dir)
{
    struct symcache *c = calloc(1, sizeof(*c));
    const char *mb = getenv("IOSCOPE_SYMCACHE_MAX_MB");
    char *end;
    unsigned long long v;

    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->strs = iot_strtab_create();
    if (dir && asprintf(&c->dir, "%s/symbols", dir) < 0)
        c->dir = NULL;
    if (!c->strs || (dir && !c->dir)) {
        symcache_free(c);
        return NULL;
    }
    v = mb && *mb ? strtoull(mb, &end, 10) : 0;
    c->max_bytes = (mb && *mb && !*end && v > 0 && v < (1ull << 30) ? v : DEFAULT_MAX_MB) << 20;
    return c;
}

void symcache_free(struct symcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->mods.cap; i++)
        if (c->mods.used && c->mods.used[i]) {
            struct cmod *m = c->mods.vals[i];

            for (size_t k = 0; k < m->n; k++) {
                free(m->list[k]->f);
                free(m->list[k]);
            }
            free(m->list);
            hmap_release(&m->addrs);
            free(m);
        }
    hmap_release(&c->mods);
    iot_strtab_free(c->strs);
    pthread_mutex_destroy(&c->lock);
    free(c->dir);
    if (c == process_cache)
        process_cache = NULL;
    free(c);
}

static void process_cache_end(void)
{
    symcache_flush(process_cache);
    symcache_free(process_cache);
}

struct symcache *symcache_process(void)
{
    const char *off = getenv("IOSCOPE_SYMCACHE");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *dir = NULL;

    if (process_cache)
        return process_cache;
    /* XDG: a relative $XDG_CACHE_HOME is invalid and ignored */
    if (off && strcmp(off, "0") == 0)
        dir = NULL;
    else if (xdg && xdg[0] == '/')
        dir = asprintf(&dir, "%s/ioscope", xdg) < 0 ? NULL : dir;
    else if (home && home[0] == '/')
        dir = asprintf(&dir, "%s/.cache/ioscope", home) < 0 ? NULL : dir;
    process_cache = symcache_create(dir);
    free(dir);
    if (process_cache)
        atexit(process_cache_end);
    return process_cache;
}

static struct cmod *mod_of(struct symcache *c, const char *id, int make)
{
    const char *p = iot_intern(c->strs, id, strlen(id));
    struct cmod *m;

    if (!p)
        return NULL;
    m = hmap_get(&c->mods, hmap_ptr_key(p));
    if (m || !make)
        return m;
    m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->id = p;
    if (hmap_put(&c->mods, hmap_ptr_key(p), m) < 0) {
        free(m);
        return NULL;
    }
    return m;
}

static int path_of(const struct symcache *c, const char *id, char *buf, size_t size)
{
    return snprintf(buf, size, "%s/%.2s/%s", c->dir, id, id) < (int)size ? 0 : -1;
}

/* Add offset's frames unless it is known; their strings interned here. */
static int add_entry(struct symcache *c, struct cmod *m, uint64_t offset,
                     const struct sym_frame *f, size_t n)
{
    struct centry *e;

    if (hmap_get(&m->addrs, offset + 1))
        return 0;
    e = calloc(1, sizeof(*e));
    if (!e || !(e->f = calloc(n, sizeof(*e->f))) || iot_grow(&m->list, &m->cap, m->n + 1,
                                                              sizeof(*m->list)) < 0 ||
        hmap_put(&m->addrs, offset + 1, e) < 0) {
        if (e)
            free(e->f);
        free(e);
        return -1;
    }
    e->offset = offset;
    e->n = n;
    for (size_t i = 0; i < n; i++) {
        e->f[i] = (struct sym_frame){
            .function = f[i].function ? iot_intern(c->strs, f[i].function,
                                                   strlen(f[i].function)) : NULL,
            .file = f[i].file ? iot_intern(c->strs, f[i].file, strlen(f[i].file)) : NULL,
            .line = f[i].line,
            .fn_offset = f[i].fn_offset,
            .has_fn_offset = f[i].has_fn_offset,
            .inlined = f[i].inlined,
        };
    }
    m->list[m->n++] = e;
    return 0;
}

/* One tab-separated field of line [*p, end): its bounds; *p past it. */
static int field(const char **p, const char *end, const char **s, size_t *len)
{
    const char *t = memchr(*p, '\t', (size_t)(end - *p));

    if (!t)
        t = end;
    *s = *p;
    *len = (size_t)(t - *p);
    *p = t < end ? t + 1 : end;
    return 0;
}

static int parse_hex(const char *s, size_t len, uint64_t *v)
{
    *v = 0;
    if (!len || len > 16)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 : -1;

        if (d < 0)
            return -1;
        *v = *v << 4 | (uint64_t)d;
    }
    return 0;
}

static int parse_dec(const char *s, size_t len, uint64_t max, uint64_t *v)
{
    *v = 0;
    if (!len || len > 10)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10 + (uint64_t)(s[i] - '0');
    }
    return *v <= max ? 0 : -1;
}

/* The next line of [*p, end) without its newline; -1 when there is none. */
static int next_line(const char **p, const char *end, const char **line, const char **lend)
{
    const char *nl = *p < end ? memchr(*p, '\n', (size_t)(end - *p)) : NULL;

    if (!nl)
        return -1;
    *line = *p;
    *lend = nl;
    *p = nl + 1;
    return 0;
}

/* A frame line's fields into f; its strings interned after the whole file checks out. */
static int parse_frame(const char *p, const char *end, struct sym_frame *f, const char **fn,
                       size_t *fnlen, const char **file, size_t *filelen)
{
    const char *s;
    size_t len;
    uint64_t v;

    field(&p, end, &s, &len);
    if (len != 1 || s[0] != 'f')
        return -1;
    field(&p, end, &s, &len);
    if (parse_dec(s, len, 1, &v) < 0)
        return -1;
    f->inlined = (uint8_t)v;
    field(&p, end, &s, &len);
    if (parse_dec(s, len, INT32_MAX, &v) < 0)
        return -1;
    f->line = (int)v;
    field(&p, end, &s, &len);
    f->has_fn_offset = len > 0;
    if (len && parse_hex(s, len, &f->fn_offset) < 0)
        return -1;
    field(&p, end, fn, fnlen);
    field(&p, end, file, filelen);
    return p == end && memchr(*file, '\t', *filelen) == NULL ? 0 : -1;
}

/*
 * The entries of a file's text into m (those m does not hold yet): 0, or
 * -1 when the text is not a whole, intact cache file of id. It is checked
 * in full before anything is added.
 */
static int parse_file(struct symcache *c, struct cmod *m, const char *text, size_t size,
                      int *dwarf)
{
    const char *end = text + size, *p, *line, *lend, *tail;
    char head[64 + ID_MAX];
    uint64_t sum, n, nf, off;
    size_t len;

    /* the last line: "end CHECKSUM" over everything before it */
    if (size < 2 || text[size - 1] != '\n')
        return -1;
    tail = text + size - 1;
    while (tail > text && tail[-1] != '\n')
        tail--;
    if (end - tail < 6 || memcmp(tail, "end ", 4) != 0 ||
        parse_hex(tail + 4, (size_t)(end - 1 - (tail + 4)), &sum) < 0 ||
        iot_fnv64(text, (size_t)(tail - text)) != sum)
        return -1;
    len = (size_t)snprintf(head, sizeof(head), FILE_MAGIC "id %s\ndwarf ", m->id);
    if ((size_t)(tail - text) < len + 2 || memcmp(text, head, len) != 0 ||
        (text[len] != '0' && text[len] != '1') || text[len + 1] != '\n')
        return -1;
    *dwarf = text[len] == '1';
    p = text + len + 2;
    if (next_line(&p, tail, &line, &lend) < 0 || lend - line < 9 ||
        memcmp(line, "entries ", 8) != 0 ||
        parse_dec(line + 8, (size_t)(lend - line - 8), MAX_FILE_ENTRIES, &n) < 0)
        return -1;
    /* two passes: check every line, then add */
    for (int pass = 0; pass < 2; pass++) {
        const char *q = p;

        for (uint64_t i = 0; i < n; i++) {
            struct sym_frame f[MAX_FRAMES];
            const char *s;
            size_t slen;

            if (next_line(&q, tail, &line, &lend) < 0 || lend - line < 5 ||
                memcmp(line, "a\t", 2) != 0)
                return -1;
            line += 2;
            field(&line, lend, &s, &slen);
            if (parse_hex(s, slen, &off) < 0)
                return -1;
            field(&line, lend, &s, &slen);
            if (parse_dec(s, slen, MAX_FRAMES, &nf) < 0 || nf == 0 || line != lend)
                return -1;
            for (uint64_t k = 0; k < nf; k++) {
                const char *fn, *file;
                size_t fnlen, filelen;

                if (next_line(&q, tail, &line, &lend) < 0)
                    return -1;
                f[k] = (struct sym_frame){0};
                if (parse_frame(line, lend, &f[k], &fn, &fnlen, &file, &filelen) < 0)
                    return -1;
                if (pass == 1) {
                    f[k].function = fnlen ? iot_intern(c->strs, fn, fnlen) : NULL;
                    f[k].file = filelen ? iot_intern(c->strs, file, filelen) : NULL;
                }
            }
            if (pass == 1)
                add_entry(c, m, off, f, (size_t)nf);
        }
        if (q != tail)
            return -1;
    }
    return 0;
}

/* The whole file at path (at most MAX_FILE_BYTES), or NULL. */
static char *read_whole(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    size_t got = 0;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (size_t)st.st_size <= MAX_FILE_BYTES && (buf = malloc((size_t)st.st_size))) {
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
        }
    }
    close(fd);
    *size = got;
    return buf;
}

/* Merge m's disk file in; 1 when there was one that did not check out. */
static int load(struct symcache *c, struct cmod *m, int touch)
{
    char path[4096];
    char *text;
    size_t size;
    int dwarf = 0, bad = 0;

    if (!c->dir || path_of(c, m->id, path, sizeof(path)) < 0)
        return 0;
    text = read_whole(path, &size);
    if (!text) {
        bad = access(path, F_OK) == 0;   /* there, but empty, huge or unreadable */
    } else if (parse_file(c, m, text, size, &dwarf) < 0) {
        bad = 1;
    } else {
        m->dwarf |= dwarf;
        if (touch)
            utimensat(AT_FDCWD, path, NULL, 0);   /* recently used: kept longest */
    }
    free(text);
    return bad;
}

static void ensure_loaded(struct symcache *c, struct cmod *m)
{
    if (m->loaded)
        return;
    m->loaded = 1;
    if (load(c, m, 1))
        m->dirty = 1;   /* rewritten whole at the next flush */
}

size_t symcache_get(struct symcache *c, const char *id, uint64_t offset, struct sym_frame *out,
                    size_t max, int *dwarf)
{
    struct cmod *m;
    struct centry *e = NULL;
    size_t n = 0;

    if (!c || !symcache_id_ok(id))
        return 0;
    pthread_mutex_lock(&c->lock);
    m = mod_of(c, id, 1);
    if (m) {
        ensure_loaded(c, m);
        e = hmap_get(&m->addrs, offset + 1);
        if (dwarf)
            *dwarf = m->dwarf;
    }
    if (e) {
        n = e->n < max ? e->n : max;
        memcpy(out, e->f, n * sizeof(*out));
        c->hits++;
    }
    pthread_mutex_unlock(&c->lock);
    return n;
}

int symcache_missing(struct symcache *c, const char *id)
{
    struct cmod *m;
    int missing;

    if (!c || !symcache_id_ok(id))
        return 0;
    pthread_mutex_lock(&c->lock);
    m = mod_of(c, id, 0);
    missing = m && m->missing;
    pthread_mutex_unlock(&c->lock);
    return missing;
}

void symcache_set_missing(struct symcache *c, const char *id)
{
    struct cmod *m;

    if (!c || !symcache_id_ok(id))
        return;
    pthread_mutex_lock(&c->lock);
    m = mod_of(c, id, 1);
    if (m)
        m->missing = 1;
    pthread_mutex_unlock(&c->lock);
}

void symcache_forget(struct symcache *c, const char *id)
{
    struct cmod *m;
    char path[4096];

    if (!c || !symcache_id_ok(id))
        return;
    pthread_mutex_lock(&c->lock);
    m = mod_of(c, id, 0);
    if (m) {
        for (size_t k = 0; k < m->n; k++) {
            free(m->list[k]->f);
            free(m->list[k]);
        }
        m->n = 0;
        hmap_release(&m->addrs);
        m->addrs = (struct hmap)HMAP_INIT;
        m->dwarf = m->missing = m->dirty = 0;
        m->loaded = 1;   /* the disk file is no longer believed */
    }
    if (c->dir && path_of(c, id, path, sizeof(path)) == 0)
        unlink(path);
    pthread_mutex_unlock(&c->lock);
}

void symcache_put(struct symcache *c, const char *id, uint64_t offset,
                  const struct sym_frame *f, size_t n, int dwarf)
{
    struct cmod *m;

    if (!c || !symcache_id_ok(id) || n == 0)
        return;
    if (n > MAX_FRAMES)
        n = MAX_FRAMES;
    pthread_mutex_lock(&c->lock);
    m = mod_of(c, id, 1);
    if (m) {
        ensure_loaded(c, m);
        if (!hmap_get(&m->addrs, offset + 1) && add_entry(c, m, offset, f, n) == 0) {
            m->dirty = 1;
            m->dwarf |= dwarf;
        }
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
}

/* A name the file can hold: no tab, newline or other control character. */
static int storable(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static int entry_storable(const struct centry *e)
{
    for (size_t k = 0; k < e->n; k++)
        if (!storable(e->f[k].function) || !storable(e->f[k].file) || e->f[k].line < 0)
            return 0;
    return 1;
}

/* m's entries as a cache file, in a memstream; NULL on out of memory. */
static char *file_text(const struct cmod *m, size_t *size)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    size_t n = 0;

    if (!f)
        return NULL;
    for (size_t i = 0; i < m->n && n < MAX_FILE_ENTRIES; i++)
        n += entry_storable(m->list[i]);
    fprintf(f, FILE_MAGIC "id %s\ndwarf %d\nentries %zu\n", m->id, m->dwarf, n);
    for (size_t i = 0, w = 0; i < m->n && w < n; i++) {
        const struct centry *e = m->list[i];

        if (!entry_storable(e))
            continue;
        w++;
        fprintf(f, "a\t%llx\t%zu\n", (unsigned long long)e->offset, e->n);
        for (size_t k = 0; k < e->n; k++) {
            const struct sym_frame *fr = &e->f[k];

            fprintf(f, "f\t%d\t%d\t", fr->inlined ? 1 : 0, fr->line);
            if (fr->has_fn_offset)
                fprintf(f, "%llx", (unsigned long long)fr->fn_offset);
            fprintf(f, "\t%s\t%s\n", fr->function ? fr->function : "", fr->file ? fr->file : "");
        }
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int make_dirs(const char *path)
{
    char buf[4096];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

/* Write m's file: to a temporary name beside it, then renamed over it. */
static int write_mod(struct symcache *c, struct cmod *m)
{
    char path[4096], dir[4096], tmp[4096 + 32];
    char *text, line[40];
    size_t size;
    int fd, ok;

    /* what another process added since this one read the file is kept */
    load(c, m, 0);
    if (path_of(c, m->id, path, sizeof(path)) < 0)
        return -1;
    snprintf(dir, sizeof(dir), "%s/%.2s", c->dir, m->id);
    snprintf(tmp, sizeof(tmp), "%s/.tmp-%.16s-XXXXXX", dir, m->id);
    if (make_dirs(dir) < 0 || !(text = file_text(m, &size)))
        return -1;
    fd = mkstemp(tmp);
    if (fd < 0) {
        free(text);
        return -1;
    }
    snprintf(line, sizeof(line), "end %llx\n", (unsigned long long)iot_fnv64(text, size));
    ok = write(fd, text, size) == (ssize_t)size &&
         write(fd, line, strlen(line)) == (ssize_t)strlen(line);
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    c->written += size;
    free(text);
    return ok ? 0 : -1;
}

struct cfile {
    char *path;
    time_t used;
    off_t size;
};

static int by_use(const void *a, const void *b)
{
    const struct cfile *x = a, *y = b;

    return x->used < y->used ? -1 : x->used > y->used;
}

/* The files under dir/XX/ (temporaries a crashed writer left an hour ago included). */
static size_t list_files(const char *dir, struct cfile **out, size_t *cap, uint64_t *total)
{
    DIR *top = opendir(dir), *sub;
    struct dirent *d, *e;
    size_t n = 0;
    time_t now = time(NULL);

    *total = 0;
    while (top && (d = readdir(top))) {
        char sdir[4096];

        if (strlen(d->d_name) != 2 || d->d_name[0] == '.' ||
            snprintf(sdir, sizeof(sdir), "%s/%s", dir, d->d_name) >= (int)sizeof(sdir) ||
            !(sub = opendir(sdir)))
            continue;
        while ((e = readdir(sub))) {
            struct stat st;
            char *p;

            if (e->d_name[0] == '.' && strncmp(e->d_name, ".tmp-", 5) != 0)
                continue;
            if (asprintf(&p, "%s/%s", sdir, e->d_name) < 0)
                continue;
            if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) ||
                (e->d_name[0] == '.' && (now - st.st_mtime < 3600 || unlink(p) == 0)) ||
                iot_grow(out, cap, n + 1, sizeof(**out)) < 0) {
                free(p);
                continue;
            }
            (*out)[n++] = (struct cfile){ p, st.st_mtime, st.st_size };
            *total += (uint64_t)st.st_size;
        }
        closedir(sub);
    }
    if (top)
        closedir(top);
    return n;
}

/* Keep the files under max_bytes: the least recently used go first, down to 3/4 of it. */
static void trim(struct symcache *c)
{
    struct cfile *files = NULL;
    size_t cap = 0, n;
    uint64_t total;

    n = list_files(c->dir, &files, &cap, &total);
    if (total > c->max_bytes) {
        qsort(files, n, sizeof(*files), by_use);
        for (size_t i = 0; i < n && total > c->max_bytes / 4 * 3; i++)
            if (unlink(files[i].path) == 0)
                total -= (uint64_t)files[i].size;
    }
    for (size_t i = 0; i < n; i++)
        free(files[i].path);
    free(files);
}

int symcache_flush(struct symcache *c)
{
    int rc = 0;

    if (!c || !c->dir)
        return 0;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->mods.cap; i++)
        if (c->mods.used && c->mods.used[i]) {
            struct cmod *m = c->mods.vals[i];

            if (m->dirty && write_mod(c, m) < 0)
                rc = -1;
            m->dirty = 0;
        }
    /* the size is checked at a process's first write, then every 1/16 of the bound */
    if (c->written && (!c->checked || c->written > c->max_bytes / 16)) {
        c->checked = 1;
        c->written = 0;
        trim(c);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void symcache_counts(const struct symcache *c, size_t *hits, size_t *misses)
{
    *hits = c ? c->hits : 0;
    *misses = c ? c->misses : 0;
}
