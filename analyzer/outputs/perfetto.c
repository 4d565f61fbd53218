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

struct perfetto {
    FILE *f;
    /* pid -> its start on the trace clock and the epoch, to place issues
       (whose time is ms since the epoch) on the trace's clock */
    struct hmap starts;
    int first;                  /* no event written yet: no comma before it */
};

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

static void name_meta(struct perfetto *pf, const char *what, int32_t pid, int32_t tid,
                      const char *name)
{
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

/* One call as a complete event, to f. */
static void call_slice(FILE *f, struct engine *e, const struct iot_event *ev)
{
    const char *path = engine_call_path(e, ev), *op = iot_op_name(ev->op);

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

static void on_call(struct perfetto *pf, struct engine *e, const struct iot_event *ev)
{
    next_element(pf);
    call_slice(pf->f, e, ev);
}

void perfetto_write_call(void *arg, FILE *to, struct engine *e, const struct iot_event *ev)
{
    (void)arg;
    call_slice(to, e, ev);
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

static void put_key_str(FILE *f, const char *key, const json_t *o)
{
    fprintf(f, ",\"%s\":", key);
    put_str(f, json_string_value(json_object_get(o, key)));
}

int perfetto_end(struct perfetto *pf, const json_t *issues)
{
    size_t i;
    const json_t *is;
    FILE *f = pf->f;
    int ret;

    json_array_foreach(issues, i, is) {
        int32_t pid = (int32_t)json_integer_value(json_object_get(is, "pid"));
        int32_t tid = (int32_t)json_integer_value(json_object_get(is, "tid"));
        const struct proc_start *ps = hmap_get(&pf->starts, (uint64_t)(uint32_t)pid);
        int64_t ms = (int64_t)json_integer_value(json_object_get(is, "time"));
        char *detail = json_dumps(json_object_get(is, "detail"), JSON_COMPACT | JSON_ENCODE_ANY);

        /* the issue's time is when its evidence ended, in ms since the
           epoch: back on the trace clock through its process's start */
        open_event(pf, "i", pid, tid ? tid : pid);
        fputs(",\"s\":\"t\",\"cat\":\"issue\",\"name\":", f);
        put_str(f, json_string_value(json_object_get(is, "rule")));
        fputs(",\"ts\":", f);
        put_us(f, issue_t(ps, ms));
        fputs(",\"args\":{\"type\":", f);
        fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(is, "type")));
        fputs(",\"message\":", f);
        put_str(f, json_string_value(json_object_get(is, "message")));
        put_key_str(f, "path", is);
        put_key_str(f, "fingerprint", is);
        put_key_str(f, "stack", is);
        fprintf(f, ",\"detail\":%s}}", detail ? detail : "{}");
        free(detail);
    }
    fputs("\n]}\n", f);
    ret = fflush(f) == 0 && !ferror(f) ? 0 : -1;
    for (size_t k = 0; k < pf->starts.cap; k++)
        if (pf->starts.used && pf->starts.used[k])
            free(pf->starts.vals[k]);
    hmap_release(&pf->starts);
    free(pf);
    return ret;
}
