/* An issue's strings and frames as its record holds them (issue_text.h). */
#include <stdlib.h>
#include <string.h>

#include "issue_text.h"
#include "text.h"

/*
 * A string of the trace (a path, a process or thread name, a stack, a
 * message naming them) as an issue holds it: JSON takes only UTF-8, and an
 * issue about a file named otherwise was lost with its bytes. Those bytes
 * show as U+FFFD, as in the JSONL dump; the path's own bytes stay in
 * path_hex (issue_path_hex). NULL is "". NULL only out of memory.
 */
char *issue_trace_text(const char *s)
{
    if (!s)
        s = "";
    return iot_utf8_valid(s, strlen(s)) ? strdup(s) : iot_utf8_repaired(s);
}

/* s when it is UTF-8, else NULL: what JSON cannot hold is left out. */
const char *issue_utf8_or_null(const char *s)
{
    return s && iot_utf8_valid(s, strlen(s)) ? s : NULL;
}

/* The bytes of a path that is not UTF-8 in hex (JSONL's path_hex); NULL for
   a UTF-8 path, which path holds whole. */
char *issue_path_hex(const char *path)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = path ? strlen(path) : 0;
    char *h;

    if (!n || iot_utf8_valid(path, n) || !(h = malloc(2 * n + 1)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = hex[(unsigned char)path[i] >> 4];
        h[2 * i + 1] = hex[(unsigned char)path[i] & 0xf];
    }
    h[2 * n] = 0;
    return h;
}

static int dup_or_null(const char *s, char **out)
{
    *out = s ? strdup(s) : NULL;
    return !s || *out ? 0 : -1;
}

/* The stack as frames (SPEC "frames"): none without a stack or a
   symbolizer. A frame with a name that is not UTF-8 is left out, as JSON
   cannot hold it. 0, or -1 out of memory. */
int issue_frames_of(const struct sym_stack *st, struct issue_frames *out)
{
    if (!st || !st->n)
        return 0;
    if (!(out->v = calloc(st->n, sizeof(*out->v))))
        return -1;
    for (size_t i = 0; i < st->n; i++) {
        const struct sym_frame *f = &st->frames[i];
        struct issue_frame *o = &out->v[out->n];

        if ((f->function && !issue_utf8_or_null(f->function)) || (f->file && !issue_utf8_or_null(f->file)) ||
            (f->module && !issue_utf8_or_null(f->module)) || (f->build_id && !issue_utf8_or_null(f->build_id)))
            continue;
        out->n++;
        if (dup_or_null(f->function, &o->function) < 0 || dup_or_null(f->file, &o->file) < 0 ||
            dup_or_null(f->module, &o->module) < 0 || dup_or_null(f->build_id, &o->build_id) < 0)
            return -1;
        o->line = f->line;
        o->offset = f->offset;
        o->has_offset = f->has_offset != 0;
        o->inlined = f->inlined != 0;
    }
    return 0;
}
