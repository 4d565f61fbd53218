/*
 * The Perfetto / Chrome trace-event export (perfetto.h). Times are in
 * microseconds, the format's unit, written with three decimals so that the
 * trace's nanoseconds survive.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "perfetto.h"

/*
 * A read or write shorter than this, on an fd and without an error, joins
 * its thread's run of such calls on the same fd; the run is written as one
 * slice with the count, bytes and busy time in its args. A run ends at a
 * call that does not join it, or that starts more than RUN_GAP_NS after the
 * run's last call ended: a slice never covers a pause of the thread.
 */
#define RUN_SMALL_NS 100000
#define RUN_GAP_NS 1000000
#define OP_WORDS ((IOT_OP_COUNT + 63) / 64)

/* A thread's pending run of small calls on one fd. */
struct run {
    struct iot_event first;     /* a run of one is written as that call */
    const char *path;
    int64_t end;                /* the last call's end */
    int64_t busy;               /* the calls' summed durations */
    uint64_t calls, bytes;      /* bytes: what reads and writes moved */
    uint64_t ops[OP_WORDS];
    struct run *next;           /* the next run of the same process (perfetto.procs) */
};

struct perfetto {
    FILE *f;
    /* pid -> its start on the trace clock and the epoch, to place issues
       (whose time is ms since the epoch) on the trace's clock */
    struct hmap starts;
    /* the name last written for a track (track_key), so each is written once */
    struct hmap names;
    /* (pid, tid) -> its pending run (struct run), and pid -> the first of
       its threads' runs, which its exit writes and frees */
    struct hmap runs, procs;
    int first;                  /* no event written yet: no comma before it */
};

/* A thread's key; a process's name is under its tid 0. */
static uint64_t track_key(int32_t pid, int32_t tid)
{
    return (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
}

struct proc_start {
    int64_t t, unix_ns;
};

struct perfetto *perfetto_begin(FILE *f)
{
    struct perfetto *pf = calloc(1, sizeof(*pf));

    if (!pf)
        return NULL;
    pf->f = f;
    pf->first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    return pf;
}

/* ns as microseconds with three decimals, exactly */
static void put_us(FILE *f, int64_t ns)
{
    uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

    fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

static void put_str(FILE *f, const char *s)
{
    iot_json_write_string(f, s ? s : "", s ? strlen(s) : 0);
}

/* The keys every event has, first in it. */
static void event_keys(FILE *f, const char *ph, int32_t pid, int32_t tid)
{
    fprintf(f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d", ph, (int)pid, (int)tid);
}

/* The separator before the next element of the array. */
static void next_element(struct perfetto *pf)
{
    fputs(pf->first ? "\n" : ",\n", pf->f);
    pf->first = 0;
}

/* The start of one event: the separator and the keys every event has. */
static void open_event(struct perfetto *pf, const char *ph, int32_t pid, int32_t tid)
{
    next_element(pf);
    event_keys(pf->f, ph, pid, tid);
}

/* A process's (what "process_name") or thread's name, unless the track
   has it already. */
static void name_meta(struct perfetto *pf, const char *what, int32_t pid, int32_t tid,
                      const char *name)
{
    uint64_t key = track_key(pid, strcmp(what, "process_name") == 0 ? 0 : tid);
    char *last = hmap_get(&pf->names, key), *copy;

    name = name ? name : "";
    if (last && strcmp(last, name) == 0)
        return;
    copy = strdup(name);
    if (copy && hmap_put(&pf->names, key, copy) == 0)
        free(last);
    else
        free(copy);   /* out of memory: written again next time, no harm */
    open_event(pf, "M", pid, tid);
    fprintf(pf->f, ",\"name\":\"%s\",\"args\":{\"name\":", what);
    put_str(pf->f, name);
    fputs("}}", pf->f);
}

static void on_process(struct perfetto *pf, const struct iot_event *ev)
{
    const char *base = ev->exe ? strrchr(ev->exe, '/') : NULL;
    struct proc_start *ps = hmap_get(&pf->starts, (uint64_t)(uint32_t)ev->pid);

    base = base ? base + 1 : ev->exe;
    if (!ps && (ps = malloc(sizeof(*ps))) && hmap_put(&pf->starts, (uint64_t)(uint32_t)ev->pid, ps) < 0) {
        free(ps);
        ps = NULL;
    }
    if (ps)
        *ps = (struct proc_start){ev->t, ev->start_unix_ns};
    /* an exec names the process anew: the last name wins in the viewers */
    name_meta(pf, "process_name", ev->pid, ev->pid, base);
    name_meta(pf, "thread_name", ev->pid, ev->pid, base);
}

/* One call on path as a complete event, to f. */
static void call_slice(FILE *f, const struct iot_event *ev, const char *path)
{
    const char *op = iot_op_name(ev->op);

    event_keys(f, "X", ev->pid, ev->tid);
    fputs(",\"cat\":\"io\",\"name\":", f);
    put_str(f, op ? op : "?");
    fputs(",\"ts\":", f);
    put_us(f, ev->t);
    fputs(",\"dur\":", f);
    put_us(f, (ev->has & IOT_HAS_NO_DUR) ? 0 : ev->dur);
    fputs(",\"args\":{", f);
    if (path) {
        fputs("\"path\":", f);
        put_str(f, path);
        fputc(',', f);
    }
    if (ev->has & IOT_HAS_FD)
        fprintf(f, "\"fd\":%d,", (int)ev->fd);
    if (ev->has & IOT_HAS_SIZE)
        fprintf(f, "\"size\":%" PRId64 ",", ev->size);
    if (ev->has & IOT_HAS_OFFSET)
        fprintf(f, "\"offset\":%" PRId64 ",", ev->offset);
    if (ev->has & IOT_HAS_ERRNO)
        fprintf(f, "\"errno\":%u,", (unsigned)ev->err);
    fprintf(f, "\"ret\":%" PRId64 "}}", ev->ret);
}

/* A run as one slice: named by its op, or its ops joined by '+'. */
static void write_run(struct perfetto *pf, struct run *r)
{
    const struct iot_event *ev = &r->first;
    FILE *f = pf->f;
    const char *sep = "\"";

    next_element(pf);
    if (r->calls == 1) {
        call_slice(f, ev, r->path);
        r->calls = 0;
        return;
    }
    event_keys(f, "X", ev->pid, ev->tid);
    fputs(",\"cat\":\"io\",\"name\":", f);
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        if (r->ops[op / 64] >> (op % 64) & 1) {
            fprintf(f, "%s%s", sep, iot_op_name(op));
            sep = "+";
        }
    fputs("\",\"ts\":", f);
    put_us(f, ev->t);
    fputs(",\"dur\":", f);
    put_us(f, r->end - ev->t);
    fputs(",\"args\":{", f);
    if (r->path) {
        fputs("\"path\":", f);
        put_str(f, r->path);
        fputc(',', f);
    }
    fprintf(f, "\"fd\":%d,\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"busy_us\":",
            (int)ev->fd, r->calls, r->bytes);
    put_us(f, r->busy);
    fputs("}}", f);
    r->calls = 0;
}

/* Whether ev may join a run: a small read or write (RUN_SMALL_NS) on an
   fd that did not fail. Opens, closes, seeks and syncs stay slices of their own. */
static int is_small(const struct iot_event *ev)
{
    return !(ev->has & (IOT_HAS_NO_DUR | IOT_HAS_ERRNO)) && (ev->has & IOT_HAS_FD) &&
           ev->dur < RUN_SMALL_NS && ev->op < IOT_OP_COUNT &&
           iot_ops[ev->op].dir != IOT_DIR_NONE;
}

/* Whether ev joins run r (which has a call). */
static int joins(const struct run *r, const struct iot_event *ev, const char *path)
{
    return ev->fd == r->first.fd && path == r->path && ev->t >= r->first.t &&
           ev->t - r->end <= RUN_GAP_NS;
}

static void on_call(struct perfetto *pf, struct engine *e, const struct iot_event *ev)
{
    uint64_t key = track_key(ev->pid, ev->tid);
    struct run *r = hmap_get(&pf->runs, key);
    const char *path = engine_call_path(e, ev);
    int small = is_small(ev);

    if (r && r->calls && !(small && joins(r, ev, path)))
        write_run(pf, r);
    if (small && !r && (r = calloc(1, sizeof(*r)))) {
        r->next = hmap_get(&pf->procs, (uint32_t)ev->pid);
        if (hmap_put(&pf->runs, key, r) < 0) {
            free(r);
            r = NULL;
        } else if (hmap_put(&pf->procs, (uint32_t)ev->pid, r) < 0) {
            hmap_del(&pf->runs, key);   /* not freed at the exit: never made */
            free(r);
            r = NULL;
        }
    }
    if (!small || !r) {
        next_element(pf);
        call_slice(pf->f, ev, path);
        return;
    }
    if (!r->calls) {
        r->first = *ev;
        r->path = path;
        r->end = ev->t;
        r->busy = 0;
        r->bytes = 0;
        memset(r->ops, 0, sizeof(r->ops));
    }
    r->calls++;
    r->busy += ev->dur;
    if (ev->t + ev->dur > r->end)
        r->end = ev->t + ev->dur;
    if (ev->op < IOT_OP_COUNT) {
        r->ops[ev->op / 64] |= (uint64_t)1 << (ev->op % 64);
        if (ev->ret > 0)
            r->bytes += (uint64_t)ev->ret;
    }
}

/* Write a process's pending runs and free them: its threads are done. */
static void end_runs(struct perfetto *pf, int32_t pid)
{
    struct run *r = hmap_del(&pf->procs, (uint32_t)pid), *next;

    for (; r; r = next) {
        next = r->next;
        if (r->calls)
            write_run(pf, r);
        hmap_del(&pf->runs, track_key(r->first.pid, r->first.tid));
        free(r);
    }
}

/* Write every pending run (the end of the trace); the runs are freed with the map. */
static void write_all_runs(struct perfetto *pf)
{
    for (size_t k = 0; k < pf->runs.cap; k++)
        if (pf->runs.used && pf->runs.used[k]) {
            struct run *r = pf->runs.vals[k];

            if (r->calls)
                write_run(pf, r);
        }
}

void perfetto_write_call(void *arg, FILE *to, struct engine *e, const struct iot_event *ev)
{
    (void)arg;
    call_slice(to, ev, engine_call_path(e, ev));
}

int perfetto_put_element(void *arg, const char *s, size_t len)
{
    struct perfetto *pf = arg;

    next_element(pf);
    return fwrite(s, 1, len, pf->f) == len ? 0 : -1;
}

/* An exit's args: its integer members (IOT_KIND_MEMBERS) but the thread. */
static void exit_args(FILE *f, const struct iot_event *ev)
{
    const char *sep = "{";

    fputs(",\"args\":", f);
#define PF_HAS_REQ 1
#define PF_HAS_OPT 1
#define PF_HAS_SIG (ev->has & IOT_HAS_SIGNAL)
#define PF_HAS_TID 0
#define PF_INT_I32 1
#define PF_INT_I64 1
#define PF_INT_UNIXNS 1
#define PF_INT_U64 1
#define PF_INT_STR 0
#define PF_INT_HEXID 0
#define PF_INT_ARGV 0
#define PF_ARG_(KIND, m, type, k, tk, need, ph)                                 \
    if (IOT_EV_##KIND == IOT_EV_EXIT && PF_INT_##type && PF_HAS_##need) {       \
        fprintf(f, "%s\"" k "\":%lld", sep, (long long)ev->m);    \
        sep = ",";                                                \
    }
    IOT_KIND_MEMBERS(PF_ARG_)
#undef PF_ARG_
    fputs("}}", f);
}

void perfetto_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n)
{
    struct perfetto *pf = arg;

    for (size_t i = 0; i < n; i++) {
        const struct iot_event *ev = evs[i];

        switch (ev->kind) {
        case IOT_EV_CALL:
            on_call(pf, e, ev);
            break;
        case IOT_EV_PROCESS:
            on_process(pf, ev);
            break;
        case IOT_EV_THREAD:
            if (ev->name && *ev->name)
                name_meta(pf, "thread_name", ev->pid, ev->tid, ev->name);
            break;
        case IOT_EV_EXIT:
            end_runs(pf, ev->pid);
            open_event(pf, "i", ev->pid, ev->tid ? ev->tid : ev->pid);
            fputs(",\"s\":\"p\",\"cat\":\"process\",\"name\":\"exit\",\"ts\":", pf->f);
            put_us(pf->f, ev->t);
            exit_args(pf->f, ev);
            break;
        default:
            break;
        }
    }
}

/* An issue's time (ms since the epoch) on its process's trace clock; 0 when
   the process's start is unknown (or the time absurd). */
static int64_t issue_t(const struct proc_start *ps, int64_t ms)
{
    int64_t t;

    return ps && iot_trace_t_of(ps->t, ps->unix_ns, ms, &t) ? t : 0;
}

static void put_key_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, ",\"%s\":", key);
    put_str(f, s);
}

int perfetto_end(struct perfetto *pf, const struct issue_list *issues)
{
    FILE *f = pf->f;
    struct hmap *maps[] = {&pf->starts, &pf->names, &pf->runs};   /* each value malloc'd */
    int ret;

    write_all_runs(pf);
    for (size_t i = 0; issues && i < issues->n; i++) {
        const struct issue *is = issues->v[i];
        int32_t pid = is->pid, tid = is->tid;
        const struct proc_start *ps = hmap_get(&pf->starts, (uint64_t)(uint32_t)pid);
        int64_t ms = is->time;
        json_t *dj = issue_detail_to_json(is->detail);
        char *detail = dj ? json_dumps(dj, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

        /* the issue's time is when its evidence ended, in ms since the
           epoch: back on the trace clock through its process's start */
        open_event(pf, "i", pid, tid ? tid : pid);
        fputs(",\"s\":\"t\",\"cat\":\"issue\",\"name\":", f);
        put_str(f, is->rule);
        fputs(",\"ts\":", f);
        put_us(f, issue_t(ps, ms));
        fputs(",\"args\":{\"type\":", f);
        fprintf(f, "%d", is->type);
        fputs(",\"message\":", f);
        put_str(f, is->message);
        put_key_str(f, "path", is->path);
        put_key_str(f, "fingerprint", is->fingerprint);
        put_key_str(f, "stack", is->stack);
        fprintf(f, ",\"detail\":%s}}", detail ? detail : "{}");
        free(detail);
        json_decref(dj);
    }
    fputs("\n]}\n", f);
    ret = fflush(f) == 0 && !ferror(f) ? 0 : -1;
    for (size_t j = 0; j < sizeof(maps) / sizeof(maps[0]); j++) {
        for (size_t k = 0; k < maps[j]->cap; k++)
            if (maps[j]->used && maps[j]->used[k])
                free(maps[j]->vals[k]);
        hmap_release(maps[j]);
    }
    hmap_release(&pf->procs);   /* its values are the runs' */
    free(pf);
    return ret;
}
