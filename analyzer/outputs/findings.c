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
    return issue_rank_cmp(*(const json_t *const *)a, *(const json_t *const *)b);
}

void report_findings_free(struct report_finding *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        free(f[i].symptoms);
    free(f);
}

/* Adds is to f's symptoms; -1 out of memory. */
static int add_symptom(struct report_finding *f, const json_t *is)
{
    const json_t **v = realloc(f->symptoms, (f->nsymptoms + 1) * sizeof(*v));

    if (!v)
        return -1;
    v[f->nsymptoms++] = is;
    f->symptoms = v;
    return 0;
}

struct report_finding *report_findings(const json_t *issues, size_t *n)
{
    size_t ni = json_array_size(issues), nf = 0;
    const json_t **v = calloc(ni ? ni : 1, sizeof(*v));
    struct report_finding *f = calloc(ni ? ni : 1, sizeof(*f));
    struct hmap by_group = {0};   /* hash of the group -> index in f + 1 */
    int oom = !v || !f;

    for (size_t i = 0; !oom && i < ni; i++)
        v[i] = json_array_get(issues, i);
    if (!oom)
        qsort(v, ni, sizeof(*v), rank_qsort_cmp);
    for (size_t i = 0; !oom && i < ni; i++) {
        const char *g = json_string_value(json_object_get(v[i], "group"));
        uint64_t key = g ? iot_fnv64_add(IOT_FNV64_INIT, g, strlen(g)) : 0;
        size_t at = g ? (size_t)(uintptr_t)hmap_get(&by_group, key) : 0;
        const char *ag = at ? json_string_value(json_object_get(f[at - 1].main, "group")) : NULL;

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

const char *report_severity_counts(const json_t *issues, char *buf, size_t cap)
{
    size_t cnt[ISSUE_NSEVERITIES] = {0}, i, len = 0;
    const json_t *is;

    buf[0] = '\0';
    json_array_foreach(issues, i, is)
        cnt[issue_severity_of(is)]++;
    for (int s = ISSUE_NSEVERITIES - 1; s >= 0; s--) {
        if (!cnt[s] || len >= cap)
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%zu %s", len ? ", " : "", cnt[s],
                                issue_severity_name(s));
    }
    return buf;
}
