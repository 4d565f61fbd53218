/* A process's sessions of one path added up (per_file.h). */
#include <stdlib.h>

#include "hash.h"
#include "per_file.h"

/* Every bit of pid and path reaches the slot: thousands of processes
   opening one path spread over the table rather than piling on one slot. */
static size_t pf_hash(int32_t pid, const char *path, size_t cap)
{
    return (size_t)iot_mix64_pair((uint64_t)(uint32_t)pid, (uint64_t)(uintptr_t)path) & (cap - 1);
}

/* The slot of (pid, path): the one holding its entry's index + 1, or the
   empty one (0) where it would go. */
static uint32_t *pf_slot(const struct per_file_table *t, uint32_t *slots, size_t cap,
                         int32_t pid, const char *path)
{
    size_t i;

    for (i = pf_hash(pid, path, cap); slots[i]; i = (i + 1) & (cap - 1)) {
        const struct per_file *f = &t->v[slots[i] - 1];

        if (f->first.pid == pid && f->first.path == path)
            break;
    }
    return &slots[i];
}

/* Room for one more entry: the slots kept at most half full, the entries
   dense. 0, or -1 out of memory. */
static int pf_reserve(struct per_file_table *t)
{
    if (t->n == t->vcap) {
        size_t ncap = t->vcap ? t->vcap * 2 : 16;
        struct per_file *nv = ncap < UINT32_MAX ? realloc(t->v, ncap * sizeof(*nv)) : NULL;

        if (!nv)
            return -1;
        t->v = nv;
        t->vcap = ncap;
    }
    if ((t->n + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        uint32_t *ns = calloc(ncap, sizeof(*ns));

        if (!ns)
            return -1;
        for (size_t k = 0; k < t->n; k++)
            *pf_slot(t, ns, ncap, t->v[k].first.pid, t->v[k].first.path) = (uint32_t)k + 1;
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    return 0;
}

/* Counts s at its open site (by stack: interned, so by pointer); the first
   site's figures are the file's less the others'. 0, or -1 out of memory. */
static int site_add(struct per_file *f, const struct rule_session *s)
{
    struct per_file_sites *m = f->more;
    struct per_file_site *site = NULL;

    if (s->stack == f->first.stack)
        return 0;
    if (!m) {
        m = f->more = calloc(1, sizeof(*m));
        if (!m)
            return -1;
    }
    for (unsigned i = 0; i < m->n && !site; i++)
        if (m->v[i].stack == s->stack)
            site = &m->v[i];
    if (!site && m->n < PER_FILE_SITES - 1) {
        site = &m->v[m->n++];
        *site = (struct per_file_site){.stack = s->stack, .thread = s->thread, .tid = s->tid};
    }
    if (!site) {
        m->other_sessions++;
        m->other_cost_ns += s->cost_ns + s->sync_ns;
        return 0;
    }
    site->sessions++;
    site->cost_ns += s->cost_ns + s->sync_ns;
    return 0;
}

/* The first site: the file's sessions and cost less those of the others. */
static struct per_file_site first_site(const struct per_file *f)
{
    struct per_file_site site = {.stack = f->first.stack, .thread = f->first.thread,
                                 .tid = f->first.tid, .sessions = f->sessions,
                                 .cost_ns = f->cost_ns + f->sync_ns};
    const struct per_file_sites *m = f->more;

    if (m) {
        site.sessions -= m->other_sessions;
        site.cost_ns -= m->other_cost_ns;
        for (unsigned i = 0; i < m->n; i++) {
            site.sessions -= m->v[i].sessions;
            site.cost_ns -= m->v[i].cost_ns;
        }
    }
    return site;
}

/* The site that repeats most: most sessions, then most cost, then the first;
   into *top; NULL when it is the first session's own. */
static const struct per_file_site *top_site(const struct per_file *f, struct per_file_site *top)
{
    const struct per_file_sites *m = f->more;
    const struct per_file_site *best = NULL;

    *top = first_site(f);
    for (unsigned i = 0; m && i < m->n; i++) {
        const struct per_file_site *c = &m->v[i], *b = best ? best : top;

        if (c->sessions > b->sessions || (c->sessions == b->sessions && c->cost_ns > b->cost_ns))
            best = c;
    }
    if (best)
        *top = *best;
    return best;
}

struct per_file *per_file_add(struct per_file_table *t, const struct rule_session *s)
{
    struct per_file *f;
    uint32_t *slot;

    if (pf_reserve(t) < 0)
        return NULL;
    slot = pf_slot(t, t->slots, t->cap, s->pid, s->path);
    if (!*slot) {
        f = &t->v[t->n];
        *f = (struct per_file){.first = *s, .max_file_size = -1, .last_file_size = -1,
                               .timed = 1};
        *slot = (uint32_t)++t->n;
    }
    f = &t->v[*slot - 1];
    if (f->sessions && site_add(f, s) < 0)
        return NULL;
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
    struct per_file_site top;

    if (top_site(f, &top)) {
        s.stack = top.stack;
        s.thread = top.thread;
        s.tid = top.tid;
    }

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

/* One entry of detail.open_sites. */
static json_t *site_json(const struct per_file_site *site)
{
    return json_pack("{s:s,s:I}", "stack", site->stack ? site->stack : "", "sessions",
                     (json_int_t)site->sessions);
}

void per_file_note_sites(const struct per_file *f, json_t *detail)
{
    const struct per_file_sites *m = f->more;
    struct per_file_site top, first = first_site(f);
    const struct per_file_site *best;
    json_t *list;

    if (!detail || !m)
        return;
    best = top_site(f, &top);
    list = json_array();
    if (!list)
        return;
    /* the site first, then the others in the order first seen */
    json_array_append_new(list, site_json(&top));
    if (best)
        json_array_append_new(list, site_json(&first));
    for (unsigned i = 0; i < m->n; i++)
        if (&m->v[i] != best)
            json_array_append_new(list, site_json(&m->v[i]));
    json_object_set_new(detail, "open_sites", list);
    if (m->other_sessions)
        json_object_set_new(detail, "other_sessions", json_integer((json_int_t)m->other_sessions));
}

size_t per_file_max_probe(const struct per_file_table *t)
{
    size_t worst = 0;

    for (size_t i = 0; i < t->cap; i++) {
        const struct per_file *f = t->slots[i] ? &t->v[t->slots[i] - 1] : NULL;
        size_t d = f ? (i - pf_hash(f->first.pid, f->first.path, t->cap)) & (t->cap - 1) : 0;

        if (d > worst)
            worst = d;
    }
    return worst;
}

void per_file_free(struct per_file_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].more);
    free(t->v);
    free(t->slots);
    *t = (struct per_file_table){0};
}
