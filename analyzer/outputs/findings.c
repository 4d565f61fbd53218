/* The findings of the human reports, and the counts by severity (report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hmap.h"
#include "issue.h"
#include "report.h"

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* The excess figures in the order they break ties (issue_group.c's order:
   bytes weigh most, as they are what wears storage and fills caches). */
static int64_t excess(const struct issue_impact *im, size_t k)
{
    const int64_t v[] = {im->excess_bytes, im->excess_syncs, im->excess_opens,
                         im->excess_calls, im->handles};

    return v[k];
}
#define NEXCESS 5

int report_rank_cmp(const struct issue *x, const struct issue *y)
{
    /* a figure the impact lacks is 0, as an issue without one has */
    const struct issue_impact *ix = &x->impact, *iy = &y->impact;
    double dx = ix->model_ms, dy = iy->model_ms;
    int c;

    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    /* the modelled cost, not the measured time: the order is the same on a
       quiet and on a loaded machine */
    if (dx != dy)
        return dx > dy ? -1 : 1;
    for (size_t k = 0; k < NEXCESS; k++) {
        int64_t ex = excess(ix, k), ey = excess(iy, k);

        if (ex != ey)
            return ex > ey ? -1 : 1;
    }
    /* equal impact: the JSON's own order (time, type), then the
       fingerprint, so that two runs give the same order */
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    c = strcmp(or_empty(x->fingerprint), or_empty(y->fingerprint));
    return c ? c : strcmp(or_empty(x->path), or_empty(y->path));
}

static int rank_qsort_cmp(const void *a, const void *b)
{
    return report_rank_cmp(*(const struct issue *const *)a, *(const struct issue *const *)b);
}

void report_findings_free(struct report_finding *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        free(f[i].symptoms);
    free(f);
}

/* Adds is to f's symptoms; -1 out of memory. */
static int add_symptom(struct report_finding *f, const struct issue *is)
{
    const struct issue **v = realloc(f->symptoms, (f->nsymptoms + 1) * sizeof(*v));

    if (!v)
        return -1;
    v[f->nsymptoms++] = is;
    f->symptoms = v;
    return 0;
}

struct report_finding *report_findings(const struct issue_list *issues, size_t *n)
{
    size_t ni = issues->n, nf = 0;
    const struct issue **v = calloc(ni ? ni : 1, sizeof(*v));
    struct report_finding *f = calloc(ni ? ni : 1, sizeof(*f));
    struct hmap by_group = {0};   /* hash of the group -> index in f + 1 */
    int oom = !v || !f;

    if (!oom)
        memcpy(v, issues->v, ni * sizeof(*v));
    if (!oom)
        qsort(v, ni, sizeof(*v), rank_qsort_cmp);
    for (size_t i = 0; !oom && i < ni; i++) {
        const char *g = v[i]->group;
        uint64_t key = g ? iot_fnv64_add(IOT_FNV64_INIT, g, strlen(g)) : 0;
        size_t at = g ? (size_t)(uintptr_t)hmap_get(&by_group, key) : 0;
        const char *ag = at ? f[at - 1].main->group : NULL;

        /* a hash collision between two groups keeps them apart */
        if (at && ag && strcmp(ag, g) == 0) {
            oom = add_symptom(&f[at - 1], v[i]) < 0;
            continue;
        }
        f[nf].main = v[i];
        nf++;
        if (g && !at && hmap_put(&by_group, key, (void *)(uintptr_t)nf) < 0)
            oom = 1;
    }
    hmap_release(&by_group);
    free(v);
    if (oom) {
        report_findings_free(f, nf);
        return NULL;
    }
    *n = nf;
    return f;
}

/* A made or parsed record's severity is one of them; any other counts as medium. */
static int severity_of(const struct issue *is)
{
    return is->severity >= 0 && is->severity < ISSUE_NSEVERITIES ? is->severity : ISSUE_MEDIUM;
}

const char *report_severity_counts(const struct issue_list *issues, char *buf, size_t cap)
{
    size_t cnt[ISSUE_NSEVERITIES] = {0}, len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < issues->n; i++)
        cnt[severity_of(issues->v[i])]++;
    for (int s = ISSUE_NSEVERITIES - 1; s >= 0; s--) {
        if (!cnt[s] || len >= cap)
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%zu %s", len ? ", " : "", cnt[s],
                                issue_severity_name(s));
    }
    return buf;
}
