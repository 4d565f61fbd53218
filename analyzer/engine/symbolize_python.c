/*
 * symbolize_python.c - Python code records and frames (symbolize_python.h).
 *
 * The recorder writes a record once per code object per process, so there
 * are as many as functions the stacks pass through: each is kept with its
 * line table as arrays, found by (pid, code address).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hmap.h"
#include "iotrace.h"
#include "symbolize_python.h"

struct py_code {
    int32_t pid;
    uint64_t code;
    const char *file, *qualname;
    int first_line;
    uint32_t *start;        /* entries: from code byte start[i] on, line[i] */
    int32_t *line;
    size_t n;
    struct py_code *next;   /* another process's code at the same address */
};

struct py_table {
    struct iot_strtab *strs;
    struct hmap codes;      /* code address -> struct py_code chain */
};

struct py_table *py_table_create(struct iot_strtab *strs)
{
    struct py_table *t = calloc(1, sizeof(*t));

    if (t)
        t->strs = strs;
    return t;
}

void py_table_free(struct py_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->codes.cap; i++)
        if (t->codes.used && t->codes.used[i])
            for (struct py_code *c = t->codes.vals[i], *next; c; c = next) {
                next = c->next;
                free(c->start);
                free(c->line);
                free(c);
            }
    hmap_release(&t->codes);
    free(t);
}

/* The text's entries into c; -1 when it does not parse or memory runs out. */
static int take_lines(struct py_code *c, const char *text)
{
    size_t cap = 0, lcap = 0;

    for (const char *p = text; p && *p;) {
        char *end;
        unsigned long long off = strtoull(p, &end, 10);
        long long line;

        if (end == p || *end != ':')
            return -1;
        p = end + 1;
        line = strtoll(p, &end, 10);
        if (end == p || line < 0 || line > INT32_MAX || off > UINT32_MAX)
            return -1;
        if (iot_grow(&c->start, &cap, c->n + 1, sizeof(*c->start)) < 0 ||
            iot_grow(&c->line, &lcap, c->n + 1, sizeof(*c->line)) < 0)
            return -1;
        c->start[c->n] = (uint32_t)off;
        c->line[c->n++] = (int32_t)line;
        p = *end == ' ' ? end + 1 : end;
    }
    return 0;
}

int py_table_add(struct py_table *t, int32_t pid, uint64_t code, const char *file,
                 const char *qualname, int64_t first_line, const char *lines)
{
    struct py_code *head = hmap_get(&t->codes, code), *c;

    if (code == 0 || !qualname || !*qualname)
        return 0;
    if (!(c = calloc(1, sizeof(*c))))
        return -1;
    *c = (struct py_code){ .pid = pid, .code = code,
                           .file = iot_intern(t->strs, file ? file : "", strlen(file ? file : "")),
                           .qualname = iot_intern(t->strs, qualname, strlen(qualname)),
                           .first_line = first_line > 0 && first_line <= INT32_MAX
                                             ? (int)first_line : 0 };
    if (!c->file || !c->qualname || take_lines(c, lines) < 0) {
        free(c->start);
        free(c->line);
        free(c);
        return -1;
    }
    /* the newest first: a later record for the code wins */
    c->next = head;
    if (hmap_put(&t->codes, code, c) < 0) {
        free(c->start);
        free(c->line);
        free(c);
        return -1;
    }
    return 0;
}

static int hex_number(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;

    if (end - s < 3 || memcmp(s, "0x", 2) != 0)
        return -1;
    for (s += 2; s < end; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

        if (d < 0)
            break;
        if (v >> 60)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    if (s == *p + 2)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

int py_frame_of(const struct py_table *t, const char *text, size_t len, struct py_frame *out)
{
    static const char prefix[] = "[py:";
    const size_t plen = sizeof(prefix) - 1;
    const char *p = text + plen, *end = text + len;
    const struct py_code *c;
    uint64_t code, off;
    int64_t pid = 0;

    if (len <= plen || memcmp(text, prefix, plen) != 0)
        return 0;
    for (; p < end && *p >= '0' && *p <= '9' && pid <= INT32_MAX; p++)
        pid = pid * 10 + (*p - '0');
    if (p == text + plen || pid > INT32_MAX || end - p < 2 || memcmp(p, "]+", 2) != 0)
        return 0;
    p += 2;
    if (hex_number(&p, end, &code) < 0 || p == end || *p++ != '+' ||
        hex_number(&p, end, &off) < 0 || p != end)
        return 0;
    memset(out, 0, sizeof(*out));
    out->offset = off;
    for (c = hmap_get(&t->codes, code); c && c->pid != (int32_t)pid; c = c->next)
        ;
    if (!c)
        return 1;
    out->function = c->qualname;
    out->file = *c->file ? c->file : NULL;
    out->line = c->first_line;
    /* the last entry that starts at or before the instruction */
    for (size_t i = 0; i < c->n && c->start[i] <= off; i++)
        out->line = c->line[i];
    return 1;
}
