/* A process's sessions of one path added up (per_file.h). */
#include <stdlib.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "per_file.h"

/* Every bit of pid and path reaches the key: thousands of processes
   opening one path spread over the map rather than piling on one slot. Keys
   of two entries may collide: the later one is passed over to key + 1, as
   far as need be, and an entry is told by its pid and path. */
static uint64_t pf_key(int32_t pid, const char *path)
{
    return iot_mix64_pair((uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)path);
}

struct per_file *per_file_add(struct per_file_table *t, const struct rule_session *s)
{
    struct per_file *f = NULL;
    uint64_t key;
    void *v;

    for (key = pf_key(s->pid, s->path); (v = hmap_get(&t->idx, key)); key++) {
        f = &t->v[(uintptr_t)v - 1];
        if (f->first.pid == s->pid && f->first.path == s->path)
            break;
        f = NULL;
    }
    if (!f) {
        if ((t->n == t->vcap && iot_grow(&t->v, &t->vcap, t->n + 1, sizeof(*t->v)) < 0) ||
            hmap_put(&t->idx, key, (void *)(uintptr_t)(t->n + 1)) < 0)
            return NULL;
        f = &t->v[t->n++];
        *f = (struct per_file){.first = *s, .max_file_size = -1, .last_file_size = -1,
                               .timed = 1};
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

size_t per_file_max_probe(const struct per_file_table *t)
{
    return hmap_max_probe(&t->idx);
}

void per_file_free(struct per_file_table *t)
{
    free(t->v);
    hmap_release(&t->idx);
    *t = (struct per_file_table){0};
}
