/* Folding the random parts of paths for fingerprints (fold.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "hash.h"
#include "hmap.h"

/*
 * At most this many made names are kept: a program that makes more temp
 * files than this (a build making one per compile) is folded for the first
 * ones and by fold_random's shapes for the others; memory stays bounded.
 */
#define FOLD_MADE_MAX 65536

struct made {
    char *path;
    size_t at, n;
};

struct fold_made {
    struct hmap by_path;    /* fnv64 of path -> index in list + 1 */
    struct made *list;
    size_t count, cap;
    size_t shortest;        /* the shortest path kept: shorter prefixes are not looked up */
};

struct fold_made *fold_made_create(void)
{
    return calloc(1, sizeof(struct fold_made));
}

void fold_made_free(struct fold_made *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++)
        free(m->list[i].path);
    free(m->list);
    hmap_release(&m->by_path);
    free(m);
}

void fold_made_add(struct fold_made *m, const char *path, size_t at, size_t n)
{
    size_t len = path ? strlen(path) : 0;
    uint64_t key;
    struct made *x;

    if (!m || len < 2 || path[0] != '/' || n == 0 || at > len || n > len - at ||
        m->count >= FOLD_MADE_MAX)
        return;
    /* trailing slashes are not part of the name the lookups compare */
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (at + n > len)
        return;
    key = iot_fnv64(path, len);
    if (hmap_get(&m->by_path, key))
        return;     /* made again (a pid reused the name): the first span stands */
    if (m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        struct made *l = realloc(m->list, cap * sizeof(*l));

        if (!l)
            return;
        m->list = l;
        m->cap = cap;
    }
    x = &m->list[m->count];
    x->path = strndup(path, len);
    if (!x->path)
        return;
    x->at = at;
    x->n = n;
    if (hmap_put(&m->by_path, key, (void *)(uintptr_t)(m->count + 1)) < 0) {
        free(x->path);
        return;
    }
    m->count++;
    if (m->count == 1 || len < m->shortest)
        m->shortest = len;
}

/* The made name path[0..len) is, or NULL. */
static const struct made *made_of(const struct fold_made *m, const char *path, size_t len)
{
    void *v = hmap_get(&m->by_path, iot_fnv64(path, len));
    const struct made *x = v ? &m->list[(uintptr_t)v - 1] : NULL;

    return x && strlen(x->path) == len && memcmp(x->path, path, len) == 0 ? x : NULL;
}

void fold_made_apply(const struct fold_made *m, char *path)
{
    size_t len;

    if (!m || !m->count || path[0] != '/')
        return;
    len = strlen(path);
    /* each prefix that ends a component, and the whole path; all looked
       up on the bytes as given before any is folded, since a made name
       inside another holds the outer one's random bytes */
    const struct made *hit[64];
    size_t nhit = 0;

    for (size_t i = m->shortest; i <= len && nhit < 64; i++) {
        const struct made *x;

        if (i < len && path[i] != '/')
            continue;
        if ((x = made_of(m, path, i)) != NULL)
            hit[nhit++] = x;
    }
    for (size_t k = 0; k < nhit; k++)
        memset(path + hit[k]->at, 'X', hit[k]->n);
}

/* Python's tempfile alphabet: "abcdefghijklmnopqrstuvwxyz0123456789_". */
static int py_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

int fold_made_by_call(const struct iot_event *ev, size_t *at, size_t *n)
{
    const char *path = ev->path, *base;
    size_t len, b;
    int exclusive;

    if (!(ev->has & IOT_HAS_PATH) || !path || path[0] != '/' || !(ev->has & IOT_HAS_FLAGS))
        return 0;
    if (ev->op == IOT_OP_MKDIR)
        exclusive = (ev->flags & 07777) == 0700;
    else if (ev->op == IOT_OP_OPEN)
        exclusive = (ev->flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
    else
        return 0;
    if (!exclusive)
        return 0;
    base = strrchr(path, '/') + 1;
    len = strlen(base);
    if (len < 9)
        return 0;
    for (b = len - 8; b < len; b++)
        if (!py_char(base[b]))
            return 0;
    b = len - 8;
    /* "tmp" + 8 (no prefix given), or a prefix ending in a separator */
    if (!((b == 3 && memcmp(base, "tmp", 3) == 0) || base[b - 1] == '-' || base[b - 1] == '_' ||
          base[b - 1] == '.'))
        return 0;
    *at = (size_t)(base - path) + b;
    *n = 8;
    return 1;
}

/* ------------------------------------------------------------ shapes */

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int hex_lower(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int hex_upper(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* Whether s[0..n) is all hex digits of one case. */
static int all_hex(const char *s, size_t n)
{
    size_t lo = 0, up = 0;

    for (size_t i = 0; i < n; i++) {
        lo += hex_lower(s[i]);
        up += hex_upper(s[i]);
    }
    return lo == n || up == n;
}

/*
 * Whether s[0..n) holds at least 4 distinct characters: a random id of 16
 * or more all but always does (the odds against are about 1e-9 for hex),
 * a filler name ("aaaaaaaaaaaaaaaaaaaa", "0000000000000000") does not.
 */
static int varied(const char *s, size_t n)
{
    unsigned char seen[256] = { 0 };
    size_t distinct = 0;

    for (size_t i = 0; i < n && distinct < 4; i++)
        if (!seen[(unsigned char)s[i]]++)
            distinct++;
    return distinct >= 4;
}

/* Whether s (at an alnum boundary) starts with a UUID (8-4-4-4-12 hex) that
   no alnum follows. */
static int uuid_at(const char *s)
{
    static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

    for (size_t i = 0; i < sizeof(shape) - 1; i++)
        if (shape[i] == '-' ? s[i] != '-' : !(hex_lower(s[i]) || hex_upper(s[i])))
            return 0;
    return !is_alnum(s[sizeof(shape) - 1]);
}

/* 0 lower, 1 upper, 2 digit */
static int cclass(char c)
{
    return c >= '0' && c <= '9' ? 2 : c >= 'A' && c <= 'Z' ? 1 : 0;
}

/*
 * Whether the alnum token s[0..n) looks like a base32/64 id rather than a
 * name: at least 16 characters, at least 2 digits and 2 letters, and the
 * class (lower, upper, digit) changing between neighbours at least once
 * every 4 characters. A random base62 token of 16 meets it 4 times in 5,
 * of 22 nine in 10; names people write rarely do ("libQt5WebEngineCore"
 * has one digit, "sha256sum2019report" changes class 4 times in 19).
 */
static int id_like(const char *s, size_t n)
{
    size_t digits = 0, changes = 0;

    if (n < 16)
        return 0;
    for (size_t i = 0; i < n; i++) {
        digits += cclass(s[i]) == 2;
        changes += i > 0 && cclass(s[i]) != cclass(s[i - 1]);
    }
    return digits >= 2 && n - digits >= 2 && changes * 4 >= n && varied(s, n);
}

/* One component c[0..len) folded into out (never longer); its new length. */
static size_t fold_component(const char *c, size_t len, char *out)
{
    size_t i = 0, w = 0;

    while (i < len) {
        size_t j = i;

        if (!is_alnum(c[i])) {
            out[w++] = c[i++];
            continue;
        }
        if (len - i >= 36 && uuid_at(c + i) && (i + 36 == len || !is_alnum(c[i + 36]))) {
            memcpy(out + w, "<uuid>", 6);
            w += 6;
            i += 36;
            continue;
        }
        while (j < len && is_alnum(c[j]))
            j++;
        if (j - i >= 16 && all_hex(c + i, j - i) && varied(c + i, j - i)) {
            memcpy(out + w, "<hex>", 5);
            w += 5;
        } else if (id_like(c + i, j - i)) {
            memcpy(out + w, "<id>", 4);
            w += 4;
        } else {
            memmove(out + w, c + i, j - i);
            w += j - i;
        }
        i = j;
    }
    return w;
}

void fold_random(char *path)
{
    size_t r = 0, w = 0, prev = (size_t)-1, prev_len = 0;

    while (path[r]) {
        size_t start = r, end, n;

        if (path[r] == '/') {
            path[w++] = path[r++];
            continue;
        }
        end = r;
        while (path[end] && path[end] != '/')
            end++;
        n = fold_component(path + start, end - start, path + w);
        /* a fan-out directory ("objects/3f/", "data/3f/") above a folded
           hex name is as random as the name; it grows by 3 bytes at most,
           which the name's fold (16 or more to 5) freed, so the writes stay
           behind the reads */
        if (prev != (size_t)-1 && prev_len >= 2 && prev_len <= 4 && n >= 5 &&
            memcmp(path + w, "<hex>", 5) == 0 && all_hex(path + prev, prev_len) &&
            path[prev + prev_len] == '/' && end - start >= n + 3) {
            char tail[4096];
            size_t keep = n < sizeof(tail) ? n : sizeof(tail) - 1;

            memcpy(tail, path + w, keep);
            memcpy(path + prev, "<hex>/", 6);
            w = prev + 6;
            memmove(path + w, tail, keep);
            n = keep;
        }
        prev = w;
        prev_len = n;
        w += n;
        r = end;
    }
    path[w] = '\0';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

void fold_pid(char *path, size_t cap, int32_t pid)
{
    char num[16];
    size_t k, len, i = 0;

    if (pid < 100)
        return;
    k = (size_t)snprintf(num, sizeof(num), "%d", (int)pid);
    len = strlen(path);
    while (i < len) {
        size_t j = i;

        if (!is_digit(path[i])) {
            i++;
            continue;
        }
        while (j < len && is_digit(path[j]))
            j++;
        if (j - i == k && memcmp(path + i, num, k) == 0 && len - k + 5 < cap) {
            memmove(path + i + 5, path + j, len - j + 1);
            memcpy(path + i, "<pid>", 5);
            len = len - k + 5;
            j = i + 5;
        }
        i = j;
    }
}
