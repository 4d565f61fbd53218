/* The findings of the human reports, and the counts by severity (report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hmap.h"
#include "issue.h"
#include "report.h"

static int rank_qsort_cmp(const void *a, const void *b)
{
    return issue_rank_compare(*(const struct issue *const *)a, *(const struct issue *const *)b);
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

    /* an empty list's array may be NULL, which memcpy and qsort refuse */
    if (!oom && ni) {
        memcpy(v, issues->v, ni * sizeof(*v));
        qsort(v, ni, sizeof(*v), rank_qsort_cmp);
    }
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
