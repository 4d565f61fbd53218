/*
 * The reports' collector (report.h): sums per op, process, thread and file,
 * each thread's timeline in bins, and the slowest calls.
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "heap.h"
#include "report.h"
#include "saturate.h"

struct report *report_create(void)
{
    struct report *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    r->slow = malloc(REPORT_SLOW * sizeof(*r->slow));
    if (!r->slow) {
        free(r);
        return NULL;
    }
    r->bin_ns = 1000;   /* 1 us to start with: doubles as the trace grows */
    return r;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nproc; i++) {
        free(r->procv[i]->name);
        free(r->procv[i]);
    }
    for (size_t i = 0; i < r->nthr; i++) {
        free(r->thrv[i]->name);
        free(r->thrv[i]->bins);
        free(r->thrv[i]);
    }
    for (size_t i = 0; i < r->nfile; i++) {
        free(r->filev[i]->path);
        free(r->filev[i]->offsets);
        free(r->filev[i]);
    }
    free(r->procv);
    free(r->thrv);
    free(r->filev);
    hmap_release(&r->procs);
    hmap_release(&r->threads);
    hmap_release(&r->files);
    free(r->slow);
    free(r);
}

/* Append p to the vector *v of *n (capacity *cap); -1 out of memory. */
static int push(void ***v, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap && iot_grow(v, cap, *n + 1, sizeof(**v)) < 0)
        return -1;
    (*v)[(*n)++] = p;
    return 0;
}

/* The entry under key of map, made with size zeroed bytes when new; NULL out of memory. */
static void *entry(struct report *r, struct hmap *m, uint64_t key, size_t size, void ***v,
                   size_t *n, size_t *cap, int *fresh)
{
    void *p = hmap_get(m, key);

    *fresh = 0;
    if (p)
        return p;
    p = calloc(1, size);
    if (!p || hmap_put(m, key, p) < 0 || push(v, n, cap, p) < 0) {
        if (p)
            hmap_del(m, key);
        free(p);
        r->oom = 1;
        return NULL;
    }
    *fresh = 1;
    return p;
}

static struct report_proc *proc_get(struct report *r, int32_t pid)
{
    int fresh;
    struct report_proc *p = entry(r, &r->procs, (uint64_t)(uint32_t)pid, sizeof(*p),
                                  (void ***)&r->procv, &r->nproc, &r->capproc, &fresh);

    if (p && fresh) {
        p->pid = pid;
        p->first_t = INT64_MAX;
        p->last_t = INT64_MIN;
    }
    return p;
}

static struct report_thread *thread_get(struct report *r, int32_t pid, int32_t tid)
{
    int fresh;
    struct report_thread *t = entry(r, &r->threads, (uint64_t)(uint32_t)tid, sizeof(*t),
                                    (void ***)&r->thrv, &r->nthr, &r->capthr, &fresh);

    if (t && fresh) {
        t->pid = pid;
        t->tid = tid;
    }
    return t;
}

static const char *base_name(const char *s)
{
    const char *b = s ? strrchr(s, '/') : NULL;

    return b ? b + 1 : s;
}

/* *dst becomes a copy of s (NULL for NULL or ""), the old one freed. */
static void set_copy(struct report *r, char **dst, const char *s)
{
    char *copy = s && *s ? strdup(s) : NULL;

    if (s && *s && !copy) {
        r->oom = 1;
        return;
    }
    free(*dst);
    *dst = copy;
}

/* Twice as wide bins, each pair merged, until d (ns after t0) fits. */
static void widen(struct report *r, uint64_t d)
{
    while (d >= (uint64_t)r->bin_ns * REPORT_BINS && r->bin_ns < INT64_MAX / 4 / REPORT_BINS) {
        for (size_t i = 0; i < r->nthr; i++) {
            struct report_bin *b = r->thrv[i]->bins;

            for (size_t j = 0; b && j < REPORT_BINS / 2; j++) {
                struct report_bin *x = &b[2 * j], *y = &b[2 * j + 1];

                b[j] = (struct report_bin){x->calls + y->calls, x->errors + y->errors,
                                           x->reads + y->reads, x->writes + y->writes,
                                           iot_sadd(x->ns, y->ns), iot_sadd(x->bytes, y->bytes)};
            }
            if (b)
                memset(b + REPORT_BINS / 2, 0, REPORT_BINS / 2 * sizeof(*b));
        }
        r->bin_ns *= 2;
    }
}

static void sum_add(struct report_sum *s, int dir, int err, int64_t dur, int64_t bytes)
{
    s->calls++;
    s->errors += (uint64_t)err;
    s->ns = iot_sadd(s->ns, dur);
    if (dir == IOT_DIR_READ) {
        s->reads++;
        s->read_bytes = iot_sadd(s->read_bytes, bytes);
    } else if (dir == IOT_DIR_WRITE) {
        s->writes++;
        s->write_bytes = iot_sadd(s->write_bytes, bytes);
    }
    s->bytes = iot_sadd(s->bytes, bytes);
}

#define FASTER(ctx, x, y) ((x)->dur < (y)->dur)
IOT_HEAP_DEFINE(slow_heap, struct report_call, void *, FASTER, IOT_HEAP_UNPLACED)

/* The min-heap of the slowest calls: the root is the fastest kept. */
static void slow_add(struct report *r, const struct report_call *c)
{
    if (r->nslow < REPORT_SLOW) {
        r->slow[r->nslow] = *c;
        slow_heap_fix(NULL, r->slow, r->nslow + 1, r->nslow);
        r->nslow++;
        return;
    }
    if (c->dur <= r->slow[0].dur)
        return;
    r->slow[0] = *c;
    slow_heap_fix(NULL, r->slow, r->nslow, 0);
}

static void on_call(struct report *r, struct engine *e, const struct iot_event *ev)
{
    const struct iot_op_info *info = &iot_ops[ev->op];
    int err = (ev->has & IOT_HAS_ERRNO) != 0;
    int64_t dur = (ev->has & IOT_HAS_NO_DUR) || ev->dur < 0 ? 0 : ev->dur;
    int dir = info->cls == IOT_CLASS_DATA || info->cls == IOT_CLASS_COPY ? info->dir : IOT_DIR_NONE;
    /* what a data call moved is what it returned */
    int64_t bytes = dir != IOT_DIR_NONE && !err && ev->ret > 0 ? ev->ret : 0;
    const char *path = engine_call_path(e, ev);
    struct report_proc *p = proc_get(r, ev->pid);
    struct report_thread *th = thread_get(r, ev->pid, ev->tid);
    struct report_file *f = NULL;
    struct report_call c;

    /* a note names an fd or a directory; the engine follows it, the
       figures of calls do not count it */
    if (iot_op_is_note(ev->op))
        return;
    sum_add(&r->ops[ev->op], dir, err, dur, bytes);
    sum_add(&r->total, dir, err, dur, bytes);
    if (p)
        sum_add(&p->sum, dir, err, dur, bytes);
    if (path) {
        int fresh;

        f = entry(r, &r->files, hmap_ptr_key(path), sizeof(*f), (void ***)&r->filev, &r->nfile,
                  &r->capfile, &fresh);
        /* An empty path ("" given to mkdir or open) is a file entry too:
         * every entry in filev has a path, which the sorts compare. */
        if (f && fresh && !(f->path = strdup(path)))
            r->oom = 1;
        if (f && fresh)
            f->next_off = -1;
        if (f && !f->path)
            f = NULL;       /* out of memory for its copy: counted, never shown */
        if (f) {
            if (fresh || f->pid != ev->pid)
                f->nprocs++;
            f->pid = ev->pid;
            f->opens += info->cls == IOT_CLASS_OPEN && !err;
            sum_add(&f->sum, dir, err, dur, bytes);
        }
    }
    if ((dir == IOT_DIR_READ || dir == IOT_DIR_WRITE) && !err)
        report_access(r, e, ev, f, dir);
    if (th) {
        struct report_bin *b;

        /* unsigned: t - t0 of hostile times may not fit an int64_t */
        uint64_t d = ev->t > r->t0 ? (uint64_t)ev->t - (uint64_t)r->t0 : 0, k;

        sum_add(&th->sum, dir, err, dur, bytes);
        if (!th->bins && !(th->bins = calloc(REPORT_BINS, sizeof(*th->bins))))
            r->oom = 1;
        widen(r, d);
        k = d / (uint64_t)r->bin_ns;
        if (th->bins) {
            b = &th->bins[k < REPORT_BINS ? k : REPORT_BINS - 1];
            b->calls++;
            b->errors += (uint32_t)err;
            b->reads += dir == IOT_DIR_READ;
            b->writes += dir == IOT_DIR_WRITE;
            b->ns = iot_sadd(b->ns, dur);
            b->bytes = iot_sadd(b->bytes, bytes);
        }
    }
    c = (struct report_call){ev->t, dur, ev->has & IOT_HAS_SIZE ? ev->size : -1, ev->ret, ev->tid,
                             ev->op, err ? (uint16_t)ev->err : 0, f ? f->path : NULL};
    slow_add(r, &c);
    if (iot_sadd(ev->t, dur) > r->t1)
        r->t1 = iot_sadd(ev->t, dur);
}

void report_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n)
{
    struct report *r = arg;

    for (size_t i = 0; i < n; i++) {
        const struct iot_event *ev = evs[i];
        struct report_proc *p;
        struct report_thread *th;

        r->events++;
        if (!r->have_t) {
            r->t0 = r->t1 = ev->t;
            r->have_t = 1;
        }
        if (ev->t > r->t1)
            r->t1 = ev->t;
        switch (ev->kind) {
        case IOT_EV_CALL:
            if (ev->op < IOT_OP_COUNT)
                on_call(r, e, ev);
            break;
        case IOT_EV_PROCESS:
            if ((p = proc_get(r, ev->pid))) {
                p->ppid = ev->ppid;
                set_copy(r, &p->name, base_name(ev->exe));
                p->start_t = ev->t;
                p->start_unix_ns = ev->start_unix_ns;
            }
            break;
        case IOT_EV_THREAD:
            if ((th = thread_get(r, ev->pid, ev->tid)) && ev->name && *ev->name)
                set_copy(r, &th->name, ev->name);
            break;
        case IOT_EV_EXIT:
            if ((p = proc_get(r, ev->pid))) {
                p->exited = 1;
                p->exit_status = ev->status;
                p->exit_signal = ev->has & IOT_HAS_SIGNAL ? ev->signal : 0;
            }
            break;
        default:
            break;
        }
        if (ev->kind != IOT_EV_MODULE && (p = proc_get(r, ev->pid))) {
            if (ev->t < p->first_t)
                p->first_t = ev->t;
            if (ev->t > p->last_t)
                p->last_t = ev->t;
        }
    }
}

static int by_proc_time(const void *a, const void *b)
{
    const struct report_proc *x = *(const struct report_proc *const *)a;
    const struct report_proc *y = *(const struct report_proc *const *)b;

    if (x->sum.ns != y->sum.ns)
        return x->sum.ns < y->sum.ns ? 1 : -1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_file_time(const void *a, const void *b)
{
    const struct report_file *x = *(const struct report_file *const *)a;
    const struct report_file *y = *(const struct report_file *const *)b;

    if (x->sum.ns != y->sum.ns)
        return x->sum.ns < y->sum.ns ? 1 : -1;
    /* an entry whose copy ran out of memory has no path: last */
    if (!x->path || !y->path)
        return !x->path - !y->path;
    return strcmp(x->path, y->path);
}

struct report_proc **report_procs_by_time(const struct report *r)
{
    struct report_proc **v = malloc((r->nproc + 1) * sizeof(*v));

    if (!v)
        return NULL;
    if (r->nproc)   /* procv is NULL with none */
        memcpy(v, r->procv, r->nproc * sizeof(*v));
    qsort(v, r->nproc, sizeof(*v), by_proc_time);
    return v;
}

struct report_file **report_files_by_time(const struct report *r)
{
    struct report_file **v = malloc((r->nfile + 1) * sizeof(*v));

    if (!v)
        return NULL;
    if (r->nfile)   /* filev is NULL with none */
        memcpy(v, r->filev, r->nfile * sizeof(*v));
    qsort(v, r->nfile, sizeof(*v), by_file_time);
    return v;
}

const struct report_proc *report_proc(const struct report *r, int32_t pid)
{
    return hmap_get(&r->procs, (uint64_t)(uint32_t)pid);
}

int report_issue_t(const struct report *r, const struct issue *issue, int64_t *t)
{
    const struct report_proc *p = report_proc(r, issue->pid);

    return p && iot_trace_t_of(p->start_t, p->start_unix_ns, issue->time, t);
}
