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

/* The key an issue is matched by across runs. */
const char *issue_key(const json_t *issue)
{
    return json_string_value(json_object_get(issue, "fingerprint"));
}

/* Removes the issues drop() says to, keeping the others' order, in place;
   how many were removed. */
static size_t issues_drop_if(json_t *issues, int (*drop)(json_t *issue, const void *arg),
                             const void *arg)
{
    size_t i, kept = 0, n = json_array_size(issues);

    for (i = 0; i < n; i++) {
        json_t *v = json_array_get(issues, i);

        if (drop(v, arg))
            continue;
        if (kept != i)
            json_array_set(issues, kept, v);
        kept++;
    }
    while (json_array_size(issues) > kept)
        json_array_remove(issues, json_array_size(issues) - 1);
    return n - kept;
}

static int below(json_t *issue, const void *min_severity)
{
    return issue_severity_of(issue) < *(const int *)min_severity;
}

size_t issues_drop_below(json_t *issues, int min_severity)
{
    return issues_drop_if(issues, below, &min_severity);
}

/* known: the fingerprints of a baseline, as keys */
static int known(json_t *issue, const void *known)
{
    const char *k = issue_key(issue);

    return k && json_object_get(known, k);
}

size_t issues_drop_baseline(json_t *issues, const json_t *baseline)
{
    json_t *keys = json_object();
    size_t i, dropped;
    json_t *v;

    if (!keys)
        return 0;
    json_array_foreach(baseline, i, v) {
        const char *k = issue_key(v);
        if (k)
            json_object_set_new(keys, k, json_true());
    }
    dropped = issues_drop_if(issues, known, keys);
    json_decref(keys);
    return dropped;
}

int issues_diff(const json_t *base, const json_t *next, json_t *out, size_t *nnew)
{
    json_t *in_base = json_object(), *in_next = json_object();
    json_t *added = json_array(), *fixed = json_array(), *v;
    size_t i, unchanged = 0;
    int ret = -1;

    if (!in_base || !in_next || !added || !fixed)
        goto out;
    json_array_foreach(base, i, v)
        if (issue_key(v))
            json_object_set_new(in_base, issue_key(v), json_true());
    json_array_foreach(next, i, v)
        if (issue_key(v))
            json_object_set_new(in_next, issue_key(v), json_true());
    json_array_foreach(next, i, v) {
        if (issue_key(v) && json_object_get(in_base, issue_key(v)))
            unchanged++;
        else if (json_array_append(added, v) < 0)
            goto out;
    }
    json_array_foreach(base, i, v)
        if (!(issue_key(v) && json_object_get(in_next, issue_key(v))) &&
            json_array_append(fixed, v) < 0)
            goto out;
    *nnew = json_array_size(added);
    if (json_object_set(out, "new", added) < 0 || json_object_set(out, "fixed", fixed) < 0 ||
        json_object_set_new(out, "unchanged", json_integer((json_int_t)unchanged)) < 0)
        goto out;
    ret = 0;
out:
    json_decref(in_base);
    json_decref(in_next);
    json_decref(added);
    json_decref(fixed);
    return ret;
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
