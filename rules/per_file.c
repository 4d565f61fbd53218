/* A process's sessions of one path added up (per_file.h). */
#include <stdlib.h>

#include "per_file.h"

static size_t pf_hash(int32_t pid, const char *path, size_t cap)
{
    uint64_t k = (uint64_t)(uintptr_t)path ^ ((uint64_t)(uint32_t)pid << 40);

    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static struct per_file *pf_slot(struct per_file *v, size_t cap, int32_t pid, const char *path)
{
    size_t i;

    for (i = pf_hash(pid, path, cap); v[i].sessions; i = (i + 1) & (cap - 1))
        if (v[i].first.pid == pid && v[i].first.path == path)
            break;
    return &v[i];
}

/* Doubles the table (kept at most half full). 0, or -1 out of memory. */
static int pf_grow(struct per_file_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct per_file *nv = calloc(ncap, sizeof(*nv));

    if (!nv)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->v[i].sessions)
            *pf_slot(nv, ncap, t->v[i].first.pid, t->v[i].first.path) = t->v[i];
    free(t->v);
    t->v = nv;
    t->cap = ncap;
    return 0;
}

struct per_file *per_file_add(struct per_file_table *t, const struct rule_session *s)
{
    struct per_file *f;

    if ((t->used + 1) * 2 > t->cap && pf_grow(t) < 0)
        return NULL;
    f = pf_slot(t->v, t->cap, s->pid, s->path);
    if (!f->sessions) {
        *f = (struct per_file){.first = *s, .max_file_size = -1, .last_file_size = -1,
                               .timed = 1};
        t->used++;
    }
    f->sessions++;
    f->left_open += s->end != RULE_END_CLOSE;
    f->ops += s->op;
    f->reads += s->reads;
    f->writes += s->writes;
    f->syncs += s->syncs;
    f->op_size += s->op_size;
    f->read_bytes += s->read_bytes;
    f->write_bytes += s->write_bytes;
    f->cost_ns += s->cost_ns;
    f->sync_ns += s->sync_ns;
    if (s->buffer > f->buffer)
        f->buffer = s->buffer;
    if (s->file_size >= 0) {
        f->last_file_size = s->file_size;
        if (s->file_size > f->max_file_size)
            f->max_file_size = s->file_size;
    }
    if (s->end_unix_ms > f->last_unix_ms)
        f->last_unix_ms = s->end_unix_ms;
    f->timed &= s->timed;
    return f;
}

struct rule_session per_file_session(const struct per_file *f)
{
    struct rule_session s = f->first;

    s.op = f->ops;
    s.op_size = f->op_size;
    s.buffer = f->buffer;
    s.cost_ns = f->cost_ns;
    s.file_size = f->last_file_size;
    s.end_unix_ms = f->last_unix_ms;
    s.reads = f->reads;
    s.writes = f->writes;
    s.read_bytes = f->read_bytes;
    s.write_bytes = f->write_bytes;
    s.syncs = f->syncs;
    s.sync_ns = f->sync_ns;
    return s;
}

double per_file_amplified(const struct per_file *f, int op_type, int64_t min_bytes,
                          double min_factor, struct rule_session *s)
{
    int write = op_type == RULE_OP_WRITE;
    int64_t bytes = write ? f->write_bytes : f->read_bytes;
    double factor;

    if (f->max_file_size <= 0 || bytes < min_bytes)
        return 0;
    factor = (double)bytes / (double)f->max_file_size;
    if (factor < min_factor)
        return 0;
    *s = per_file_session(f);
    s->file_size = f->max_file_size;
    s->op = write ? f->writes : f->reads;
    s->op_size = bytes;
    s->op_type = op_type;
    return factor;
}

void per_file_free(struct per_file_table *t)
{
    free(t->v);
    t->v = NULL;
    t->cap = t->used = 0;
}
