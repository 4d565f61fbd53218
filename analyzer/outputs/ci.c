/*
 * ci.c - issue files and baselines (see ci.h).
 *
 * An issues file is what `ioanalyze analyze` wrote: a JSON array, or JSONL
 * with one issue per line (--format jsonl). Issues are matched across runs by
 * their "fingerprint" alone: the fingerprint already says "the same problem"
 * (rule, normalised path, top stack frames), while every other field (pid,
 * time, cost) changes from run to run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "grow.h"
#include "iotrace.h"
#include "issue.h"

/* Read all of f into a new buffer; NULL on error (errno set). */
static char *slurp(FILE *f, size_t *len)
{
    char *buf = NULL;
    size_t cap = 0, n = 0, r;

    /* one read of 64 KiB holds most issue files */
    if (iot_grow(&buf, &cap, 65536, 1) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap && iot_grow(&buf, &cap, n + 1, 1) < 0) {
            free(buf);
            errno = ENOMEM;
            return NULL;
        }
    }
    if (ferror(f)) {
        free(buf);
        errno = errno ? errno : EIO;
        return NULL;
    }
    *len = n;
    return buf;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Parse JSONL issues: one object per non-blank line. */
static int load_jsonl(const char *name, const char *buf, size_t len, json_t *out, char *errbuf)
{
    const char *p = buf, *end = buf + len;
    size_t lineno = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        json_error_t jerr;
        json_t *v;

        lineno++;
        if (skip_space(p, le) < le) {
            v = json_loadb(p, (size_t)(le - p), 0, &jerr);
            if (!v || !json_is_object(v)) {
                snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s' line %zu: %s", name, lineno,
                         v ? "not an issue object" : jerr.text);
                json_decref(v);
                return -1;
            }
            json_array_append_new(out, v);
        }
        p = le + (nl ? 1 : 0);
    }
    return 0;
}

int issues_load(const char *path, json_t **issues, char *errbuf)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
    json_error_t jerr;
    char *buf;
    size_t len = 0;
    const char *p;
    json_t *arr = NULL;
    int ret = -1;

    *issues = NULL;
    if (!f) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot open issues '%s': %s", name, strerror(errno));
        return -1;
    }
    buf = slurp(f, &len);
    if (!buf) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot read issues '%s': %s", name, strerror(errno));
        goto out;
    }
    p = skip_space(buf, buf + len);
    if (p < buf + len && *p == '[') {
        arr = json_loadb(buf, len, 0, &jerr);
        if (!arr) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s' line %d: %s", name, jerr.line, jerr.text);
            goto out;
        }
        for (size_t i = 0; i < json_array_size(arr); i++)
            if (!json_is_object(json_array_get(arr, i))) {
                snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s': element %zu is not an issue object",
                         name, i);
                goto out;
            }
    } else {
        /* JSONL, or an empty file (no issues written one per line) */
        arr = json_array();
        if (!arr || load_jsonl(name, buf, len, arr, errbuf) < 0)
            goto out;
    }
    *issues = arr;
    arr = NULL;
    ret = 0;
out:
    json_decref(arr);
    free(buf);
    if (f != stdin)
        fclose(f);
    return ret;
}

int issues_detect(const char *buf, size_t len)
{
    const char *end = buf + len, *p = skip_space(buf, end), *nl;
    json_t *v;
    int yes;

    if (p == end)
        return len == 0;  /* an empty file is an empty JSONL issues file */
    if (*p == '[')
        return 1;
    if (*p != '{')
        return 0;
    nl = memchr(p, '\n', (size_t)(end - p));
    v = json_loadb(p, (size_t)((nl ? nl : end) - p), 0, NULL);
    yes = json_is_object(v) && !json_object_get(v, "ev") &&
          (json_object_get(v, "fingerprint") || json_object_get(v, "rule"));
    json_decref(v);
    return yes;
}

int issues_load_list(const char *path, struct issue_list *list, char *errbuf)
{
    json_t *a;
    int rc;

    if (issues_load(path, &a, errbuf) < 0)
        return -1;
    rc = issue_list_from_json(list, a);
    json_decref(a);
    if (rc < 0)
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory reading issues '%s'",
                 strcmp(path, "-") == 0 ? "(stdin)" : path);
    return rc;
}

/*
 * A set of fingerprints, to match issues across runs: the fingerprint
 * already says "the same problem" (rule, normalised path, top stack
 * frames). Sorted, looked up by bisection.
 */
struct fingerprints {
    const char **v;
    size_t n;
};

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The fingerprints of list's issues (pointers into them); -1 out of memory. */
static int fingerprints_of(const struct issue_list *list, struct fingerprints *set)
{
    set->n = 0;
    set->v = malloc((list->n ? list->n : 1) * sizeof(*set->v));
    if (!set->v)
        return -1;
    for (size_t i = 0; i < list->n; i++)
        if (list->v[i]->fingerprint)
            set->v[set->n++] = list->v[i]->fingerprint;
    qsort(set->v, set->n, sizeof(*set->v), str_cmp);
    return 0;
}

/* Whether is has a fingerprint that is in set. */
static int known(const struct fingerprints *set, const struct issue *is)
{
    return is->fingerprint &&
           bsearch(&is->fingerprint, set->v, set->n, sizeof(*set->v), str_cmp) != NULL;
}

/* Removes the issues drop() says to, keeping the others' order, in place;
   how many were removed. */
static size_t issues_drop_if(struct issue_list *issues,
                             int (*drop)(const struct issue *is, const void *arg), const void *arg)
{
    size_t kept = 0, n = issues->n;

    for (size_t i = 0; i < n; i++) {
        if (drop(issues->v[i], arg))
            issue_free(issues->v[i]);
        else
            issues->v[kept++] = issues->v[i];
    }
    issues->n = kept;
    return n - kept;
}

static int below(const struct issue *is, const void *min_severity)
{
    return is->severity < *(const int *)min_severity;
}

size_t issues_drop_below(struct issue_list *issues, int min_severity)
{
    return issues_drop_if(issues, below, &min_severity);
}

static int in_baseline(const struct issue *is, const void *set)
{
    return known(set, is);
}

size_t issues_drop_baseline(struct issue_list *issues, const struct issue_list *baseline)
{
    struct fingerprints set;
    size_t dropped;

    if (fingerprints_of(baseline, &set) < 0)
        return 0;
    dropped = issues_drop_if(issues, in_baseline, &set);
    free(set.v);
    return dropped;
}

/* Moves each issue of from to yes when in(set, it), else to no (NULL: freed);
   from is left empty. -1 out of memory (from's rest released). */
static int split(struct issue_list *from, const struct fingerprints *set, struct issue_list *yes,
                 struct issue_list *no)
{
    int rc = 0;

    for (size_t i = 0; i < from->n; i++) {
        struct issue *is = from->v[i];
        struct issue_list *to = known(set, is) ? yes : no;

        from->v[i] = NULL;
        if (!to)
            issue_free(is);
        else if (rc == 0 && issue_list_add(to, is) < 0)
            rc = -1;
        else if (rc < 0)
            issue_free(is);
    }
    issue_list_release(from);
    return rc;
}

int issues_diff(struct issue_list *base, struct issue_list *next, struct issue_list *added,
                struct issue_list *fixed, struct issue_list *kept)
{
    struct fingerprints in_base = {0}, in_next = {0};
    int rc = -1;

    if (fingerprints_of(base, &in_base) == 0 && fingerprints_of(next, &in_next) == 0 &&
        split(next, &in_base, kept, added) == 0 && split(base, &in_next, NULL, fixed) == 0)
        rc = 0;
    /* the sets point into the issues: freed once both sides are split */
    free(in_base.v);
    free(in_next.v);
    issue_list_release(base);
    issue_list_release(next);
    return rc;
}

const char *issue_top_frame(const struct issue *is, char *buf, size_t size)
{
    const struct issue_frame *f = is->frames.n ? &is->frames.v[0] : NULL;
    const char *fn = f ? f->function : NULL, *file = f ? f->file : NULL;
    const char *module = f ? f->module : NULL, *stack = is->stack;
    int64_t line = f ? f->line : 0;

    buf[0] = 0;
    if (fn && file && line > 0)
        snprintf(buf, size, "%s (%s:%lld)", fn, file, (long long)line);
    else if (fn || module)
        snprintf(buf, size, "%s%s%s%s", fn ? fn : "", fn && module ? " (" : "",
                 module ? module : "", fn && module ? ")" : "");
    else if (stack)
        snprintf(buf, size, "%.*s", (int)strcspn(stack, "\n"), stack);
    return buf;
}
