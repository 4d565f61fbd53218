/* A process's sessions of one path added up (per_file.h). */
#include <stdlib.h>
#include <string.h>

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

/*
 * One say in a weighted majority vote (per_file.h): a stack with calls
 * weighs against the standing one (*stack, *weight).
 */
static void vote_calls(const char **stack, uint64_t *weight, const char *s, uint64_t calls)
{
    if (!s || !*s || calls == 0)
        return;
    if (*stack == s) {
        *weight += calls;
    } else if (*weight >= calls) {
        *weight -= calls;
    } else {
        *stack = s;
        *weight = calls - *weight;
    }
}

/* A session's say on its site's stack: one, whatever its calls. */
static void vote(const char **stack, uint64_t *weight, const char *s)
{
    vote_calls(stack, weight, s, 1);
}

/* A session's modelled data and sync cost, 0 from an ioanalyze without it. */
static int64_t session_model(const struct rule_session *s)
{
    return RULE_HAS(struct rule_session, s, model_ns) ? s->model_ns : 0;
}

/* Counts s at its open site (s_site: rule_stack_site()); the first site's
   figures are the file's less the others'. 0, or -1 out of memory. */
static int site_add(struct per_file *f, const struct rule_session *s, uint64_t s_site)
{
    struct per_file_sites *m = f->more;
    struct per_file_site *site = NULL;

    if (s_site == f->first.site && s->stack == f->first.stack && !m)
        return 0;
    if (!m) {
        m = f->more = calloc(1, sizeof(*m));
        if (!m)
            return -1;
        /* every session before came from the first's stack */
        m->first_stack = f->first.stack;
        m->first_weight = f->sessions;
    }
    if (s_site == f->first.site) {
        vote(&m->first_stack, &m->first_weight, s->stack);
        return 0;
    }
    for (unsigned i = 0; i < m->n && !site; i++)
        if (m->v[i].site == s_site)
            site = &m->v[i];
    if (!site && m->n < PER_FILE_SITES - 1) {
        site = &m->v[m->n++];
        *site = (struct per_file_site){.thread = s->thread, .site = s_site, .tid = s->tid};
    }
    if (!site) {
        m->other_sessions++;
        m->other_cost_ns += session_model(s);
        return 0;
    }
    site->sessions++;
    site->cost_ns += session_model(s);
    vote(&site->stack, &site->weight, s->stack);
    return 0;
}

/* The first site: the file's sessions and cost less those of the others. */
static struct per_file_site first_site(const struct per_file *f)
{
    struct per_file_site site = {.stack = f->first.stack, .thread = f->first.thread,
                                 .site = f->first.site, .tid = f->first.tid,
                                 .sessions = f->sessions,
                                 .cost_ns = f->model_ns};
    const struct per_file_sites *m = f->more;

    if (m) {
        site.stack = m->first_stack;
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

static void vote_sites(struct per_file *f, const struct rule_session *s)
{
    if (!RULE_HAS(struct rule_session, s, sync_stack))
        return;
    for (int k = 0; k < PER_FILE_KINDS; k++) {
        const char *stack = k == PER_FILE_READS ? s->read_stack
                            : k == PER_FILE_WRITES ? s->write_stack : s->sync_stack;
        uint64_t calls = k == PER_FILE_READS ? s->reads : k == PER_FILE_WRITES ? s->writes : s->syncs;

        vote_calls(&f->call_site[k].stack, &f->call_site[k].weight, stack, calls);
    }
}

/* The entry of (pid, path) and the key it is (or would be) under. */
static struct per_file *find(const struct per_file_table *t, int32_t pid, const char *path,
                             uint64_t *key_out)
{
    uint64_t key;
    void *v;

    for (key = pf_key(pid, path); (v = hmap_get(&t->idx, key)); key++) {
        struct per_file *f = &t->v[(uintptr_t)v - 1];

        if (f->first.pid == pid && f->first.path == path) {
            *key_out = key;
            return f;
        }
    }
    *key_out = key;
    return NULL;
}

void per_file_renamed(struct per_file_table *t, const struct rule_path_call *c)
{
    uint64_t key;
    struct per_file *f;

    if (!RULE_HAS(struct rule_path_call, c, newpath) || !c->newpath ||
        !(f = find(t, c->pid, c->path, &key)))
        return;
    /* strings are interned: one name, one pointer */
    if (c->newpath != f->renamed_to)
        f->renamed_apart++;
    f->renamed_to = c->newpath;
}

struct per_file *per_file_add(struct per_file_table *t, const struct rule_ctx *ctx,
                              const struct rule_session *s)
{
    uint64_t key, site = rule_stack_site(ctx, s->stack);
    struct per_file *f = find(t, s->pid, s->path, &key);

    if (!f) {
        if ((t->n == t->vcap && iot_grow(&t->v, &t->vcap, t->n + 1, sizeof(*t->v)) < 0) ||
            hmap_put(&t->idx, key, (void *)(uintptr_t)(t->n + 1)) < 0)
            return NULL;
        f = &t->v[t->n++];
        *f = (struct per_file){.first = {s->path, s->process, s->thread, s->stack,
                                         s->opener_process, s->data_op, site, s->pid, s->tid,
                                         s->opener_pid, s->layer, s->op_type, s->directory},
                               .max_file_size = -1, .last_file_size = -1,
                               .write_extent = -1,
                               .timed = 1};
    }
    if (f->sessions && site_add(f, s, site) < 0)
        return NULL;
    f->sessions++;
    /* a path any session showed to be a directory is one (a sync of it
       may come before the trace shows it: opened O_RDONLY, then listed) */
    f->first.directory |= s->directory;
    if (RULE_HAS(struct rule_session, s, calls_threads) && s->calls_threads) {
        if (f->calls_threads && s->calls_tid != f->calls_tid && f->calls_threads < 2)
            f->calls_threads = 2;
        if (s->calls_threads > f->calls_threads)
            f->calls_threads = s->calls_threads;
        if (s->calls_tid == f->calls_tid)
            f->calls_tid_calls += s->calls_tid_calls;
        else if (s->calls_tid_calls > f->calls_tid_calls) {
            f->calls_tid = s->calls_tid;
            f->calls_thread = s->calls_thread;
            f->calls_tid_calls = s->calls_tid_calls;
        }
    }
    f->left_open += s->end != RULE_END_CLOSE;
    f->ops += s->op;
    f->reads += s->reads;
    f->writes += s->writes;
    f->syncs += s->syncs;
    f->op_size += s->op_size;
    f->read_bytes += s->read_bytes;
    f->write_bytes += s->write_bytes;
    if (RULE_HAS(struct rule_session, s, write_from))
        f->written_whole += s->writes && s->write_from == 0;
    if (RULE_HAS(struct rule_session, s, write_extent)) {
        f->truncations += s->truncations;
        if (s->write_extent > f->write_extent)
            f->write_extent = s->write_extent;
    }
    if (RULE_HAS(struct rule_session, s, synced_bytes)) {
        f->synced_writes += s->synced_writes;
        f->synced_bytes += s->synced_bytes;
    } else if (s->syncs) {
        /* an ioanalyze that does not say: every write, as before */
        f->synced_writes += s->writes;
        f->synced_bytes += s->write_bytes;
    }
    f->cost_ns += s->cost_ns;
    f->sync_ns += s->sync_ns;
    f->open_ns += s->open_ns;
    f->model_ns += session_model(s);
    if (RULE_HAS(struct rule_session, s, open_model_ns)) {
        f->sync_model_ns += s->sync_model_ns;
        f->open_model_ns += s->open_model_ns;
    }
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
    f->random_writes += s->random_writes;
    vote_sites(f, s);
    if (RULE_HAS(struct rule_session, s, write_wraps)) {
        f->unseen_io |= s->unseen_io;
        f->write_wraps += s->write_wraps;
    }
    if (RULE_HAS(struct rule_session, s, sync_ops_mixed)) {
        if (!f->sync_op)
            f->sync_op = s->sync_op;
        else if (s->sync_op && strcmp(s->sync_op, f->sync_op) != 0)
            f->sync_ops_mixed = 1;
        f->sync_ops_mixed |= s->sync_ops_mixed;
        if (!f->exe)
            f->exe = s->exe;
    }
    return f;
}

struct rule_session per_file_session(const struct per_file *f)
{
    const struct per_file_first *p = &f->first;
    struct rule_session s = {.size = sizeof(s), .path = p->path, .process = p->process,
                             .thread = p->thread, .stack = p->stack, .pid = p->pid,
                             .tid = p->tid, .layer = p->layer, .op_type = p->op_type,
                             .directory = p->directory, .opener_process = p->opener_process,
                             .opener_pid = p->opener_pid, .data_op = p->data_op,
                             .timed = f->timed};
    struct per_file_site top;

    /* the first's own, or the stack its site's sessions carried most */
    top_site(f, &top);
    s.stack = top.stack;
    s.thread = top.thread;
    s.tid = top.tid;

    s.calls_tid = f->calls_tid;
    s.calls_thread = f->calls_thread;
    s.calls_tid_calls = f->calls_tid_calls;
    s.calls_threads = f->calls_threads;
    s.sync_op = f->sync_op;
    s.sync_ops_mixed = f->sync_ops_mixed;
    s.exe = f->exe;
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
    s.model_ns = f->model_ns;
    s.sync_model_ns = f->sync_model_ns;
    s.open_model_ns = f->open_model_ns;
    s.read_stack = f->call_site[PER_FILE_READS].stack ? f->call_site[PER_FILE_READS].stack : "";
    s.write_stack = f->call_site[PER_FILE_WRITES].stack ? f->call_site[PER_FILE_WRITES].stack : "";
    s.sync_stack = f->call_site[PER_FILE_SYNCS].stack ? f->call_site[PER_FILE_SYNCS].stack : "";
    return s;
}

double per_file_amplified(const struct per_file *f, int op_type, int64_t min_bytes,
                          double min_factor, struct rule_session *s)
{
    int write = op_type == RULE_OP_WRITE;
    int64_t bytes = write ? f->write_bytes : f->read_bytes;
    double factor;

    if (f->max_file_size <= 0 || bytes < min_bytes || f->unseen_io)
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
static void site_detail(struct rule_detail *detail, const struct per_file_site *site)
{
    struct rule_detail *o = rule_detail_add_object(detail, "open_sites");

    rule_detail_string(o, "stack", site->stack ? site->stack : "");
    rule_detail_int(o, "sessions", (int64_t)site->sessions);
}

void per_file_note_sites(const struct per_file *f, struct rule_detail *detail)
{
    const struct per_file_sites *m = f->more;
    struct per_file_site top, first = first_site(f);
    const struct per_file_site *best;

    /* one site, however many stacks it was opened with */
    if (!detail || !m || !m->n)
        return;
    best = top_site(f, &top);
    /* the site first, then the others in the order first seen */
    site_detail(detail, &top);
    if (best)
        site_detail(detail, &first);
    for (unsigned i = 0; i < m->n; i++)
        if (&m->v[i] != best)
            site_detail(detail, &m->v[i]);
    if (m->other_sessions)
        rule_detail_int(detail, "other_sessions", (int64_t)m->other_sessions);
}

size_t per_file_max_probe(const struct per_file_table *t)
{
    return hmap_max_probe(&t->idx);
}

void per_file_free(struct per_file_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].more);
    free(t->v);
    hmap_release(&t->idx);
    *t = (struct per_file_table){0};
}
