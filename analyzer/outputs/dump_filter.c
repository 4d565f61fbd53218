/* Which events `ioanalyze dump` writes (dump_filter.h). */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_filter.h"
#include "grow.h"

/* A --since or --until at or above this many seconds is a Unix time. */
#define ABS_TIME_MIN_S 1000000000.0

/* A list of pids or tids: "12" or "12,13". */
static int parse_ids(const char *value, int32_t **out, size_t *n, char *err, size_t size)
{
    size_t cap = 0;
    const char *p = value;

    *n = 0;
    do {
        char *end;
        long v;

        errno = 0;
        v = strtol(p, &end, 10);
        if (end == p || errno || v <= 0 || v > INT32_MAX || (*end && *end != ',')) {
            snprintf(err, size, "expected a number or numbers separated by commas, not '%s'",
                     value);
            return -1;
        }
        if (iot_grow(out, &cap, *n + 1, sizeof(**out)) < 0) {
            snprintf(err, size, "out of memory");
            return -1;
        }
        (*out)[(*n)++] = (int32_t)v;
        p = *end ? end + 1 : end;
    } while (*p);
    return 0;
}

static int parse_ops(struct dump_filter *f, const char *value, char *err, size_t size)
{
    const char *p = value;

    if (!f->ops && !(f->ops = calloc(IOT_OP_COUNT, 1))) {
        snprintf(err, size, "out of memory");
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        int op = iot_op_from_name(p, len);

        if (op < 0 || !len) {
            snprintf(err, size, "'%.*s' is not a call ioanalyze knows (docs/trace-format.md "
                     "lists them)", (int)len, p);
            return -1;
        }
        f->ops[op] = 1;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* A duration: a number with ns, us, ms or s after it; ms without. */
static int parse_dur(const char *value, int64_t *ns, char *err, size_t size)
{
    static const struct { const char *unit; double ns; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e6},
    };
    char *end;
    double v;

    errno = 0;
    v = strtod(value, &end);
    for (size_t i = 0; end != value && !errno && v >= 0 && i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(end, units[i].unit) == 0 && v * units[i].ns < 9e18) {
            *ns = (int64_t)llround(v * units[i].ns);
            return 0;
        }
    snprintf(err, size, "expected a duration such as 5ms, 200us, 1.5s or 800ns, not '%s'", value);
    return -1;
}

/* A time: seconds on the trace's clock, or (from 10^9 on) a Unix time. */
static int parse_time(const char *value, int64_t *t, int *abs, char *err, size_t size)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(value, &end);
    if (end == value || *end || errno || !(v >= 0) || v > 9e9) {
        snprintf(err, size, "expected seconds from the trace's start (1.5) or a Unix time "
                 "(1763800000.25), not '%s'", value);
        return -1;
    }
    *abs = v >= ABS_TIME_MIN_S;
    *t = llround(*abs ? v * 1e3 : v * 1e9);
    return 0;
}

static int parse_top(const char *value, size_t *n, char *err, size_t size)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(value, &end, 10);
    if (end == value || *end || errno || v == 0 || v > 100000000 || *value == '-') {
        snprintf(err, size, "expected a count from 1 to 100000000, not '%s'", value);
        return -1;
    }
    *n = (size_t)v;
    return 0;
}

int dump_filter_set(struct dump_filter *f, const char *name, const char *value, char *err,
                    size_t size)
{
    int rc = -1;

    if (strcmp(name, "pid") == 0) {
        rc = parse_ids(value, &f->pids, &f->npids, err, size);
    } else if (strcmp(name, "tid") == 0) {
        rc = parse_ids(value, &f->tids, &f->ntids, err, size);
        f->calls_only = 1;
    } else if (strcmp(name, "path") == 0) {
        f->path = value;
        f->calls_only = 1;
        rc = 0;
    } else if (strcmp(name, "op") == 0) {
        rc = parse_ops(f, value, err, size);
        f->calls_only = 1;
    } else if (strcmp(name, "since") == 0) {
        rc = parse_time(value, &f->since, &f->since_abs, err, size);
        f->has_since = 1;
    } else if (strcmp(name, "until") == 0) {
        rc = parse_time(value, &f->until, &f->until_abs, err, size);
        f->has_until = 1;
    } else if (strcmp(name, "min-dur") == 0) {
        rc = parse_dur(value, &f->min_dur, err, size);
        f->calls_only = 1;
    } else if (strcmp(name, "top") == 0) {
        rc = parse_top(value, &f->top, err, size);
        f->calls_only = 1;
    } else {
        snprintf(err, size, "no filter '%s'", name);
    }
    return rc;
}

int dump_filter_any(const struct dump_filter *f)
{
    return f->npids || f->calls_only || f->has_since || f->has_until || f->ignore;
}

static int has_id(const int32_t *ids, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* ev's Unix time in ms: 1, or 0 when unknown. A process event's is its
   own start (the engine meets its process after this). */
static int unix_ms(struct engine *e, const struct iot_event *ev, int64_t *ms)
{
    if (ev->kind == IOT_EV_PROCESS) {
        *ms = ev->start_unix_ns / 1000000;
        return ev->start_unix_ns != 0;
    }
    return engine_unix_ms(e, ev->pid, ev->t, ms);
}

/* Whether ev's time is within --since and --until. */
static int admit_time(const struct dump_filter *f, struct engine *e, const struct iot_event *ev)
{
    int64_t ms = 0;
    int have_ms = -1;   /* not asked yet */

    if (f->has_since) {
        if (f->since_abs) {
            have_ms = unix_ms(e, ev, &ms);
            if (!have_ms || ms < f->since)
                return 0;
        } else if (ev->t < f->since) {
            return 0;
        }
    }
    if (f->has_until) {
        if (f->until_abs) {
            if (have_ms < 0)
                have_ms = unix_ms(e, ev, &ms);
            if (!have_ms || ms >= f->until)
                return 0;
        } else if (ev->t >= f->until) {
            return 0;
        }
    }
    return 1;
}

int dump_filter_admit(const struct dump_filter *f, struct engine *e, const struct iot_event *ev,
                      int names)
{
    const char *path;

    if (f->npids && !has_id(f->pids, f->npids, ev->pid))
        return 0;
    if (ev->kind != IOT_EV_CALL) {
        if (names && (ev->kind == IOT_EV_PROCESS || ev->kind == IOT_EV_THREAD))
            return 1;
        return !f->calls_only && admit_time(f, e, ev);
    }
    if (f->ntids && !has_id(f->tids, f->ntids, ev->tid))
        return 0;
    if (f->ops && (ev->op >= IOT_OP_COUNT || !f->ops[ev->op]))
        return 0;
    if ((f->min_dur || f->top) && (ev->has & IOT_HAS_NO_DUR))
        return 0;
    if (f->min_dur && ev->dur < f->min_dur)
        return 0;
    if (!admit_time(f, e, ev))
        return 0;
    if (f->path || f->ignore) {
        path = engine_call_path(e, ev);
        if (f->path && (!path || fnmatch(f->path, path, 0) != 0))
            return 0;
        if (f->ignore && path && config_ignored(f->ignore, path))
            return 0;
    }
    return 1;
}

int dump_filter_admit_issue(const struct dump_filter *f, const struct issue *issue)
{
    const char *path = issue->path;

    if (f->npids && !has_id(f->pids, f->npids, issue->pid))
        return 0;
    if (f->ntids && !has_id(f->tids, f->ntids, issue->tid))
        return 0;
    if (f->path && (!path || fnmatch(f->path, path, 0) != 0))
        return 0;
    return 1;
}

void dump_filter_release(struct dump_filter *f)
{
    free(f->pids);
    free(f->tids);
    free(f->ops);
    memset(f, 0, sizeof(*f));
}
