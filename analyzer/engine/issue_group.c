/*
 * Ranking issues by impact and grouping the issues of one cause (issue.h;
 * docs/analyzer.md, "Ranking and groups"). Both work on the final issue
 * objects, after issue_judge has set their impact and severity, so that
 * they follow whatever stack and figures an issue carries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "issue.h"

static json_int_t iget(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *sget(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));

    return s ? s : "";
}

/* An impact figure as a number: model_ms is a real, the excess integers. */
static double impact_of(const json_t *issue, const char *k)
{
    return json_number_value(json_object_get(json_object_get(issue, "impact"), k));
}

/* The excess figures in the order they break ties: bytes weigh most, as
   they are what wears storage and fills caches. */
static const char *const excess_keys[] = {
    "excess_bytes", "excess_syncs", "excess_opens", "excess_calls", "handles",
};

int issue_rank_cmp(const json_t *x, const json_t *y)
{
    int sx = issue_severity_of(x), sy = issue_severity_of(y);
    double dx, dy;
    json_int_t ix, iy;
    int c;

    if (sx != sy)
        return sx > sy ? -1 : 1;
    /* the modelled cost, not the measured time: the order is the same on a
       quiet and on a loaded machine */
    dx = impact_of(x, "model_ms");
    dy = impact_of(y, "model_ms");
    if (dx != dy)
        return dx > dy ? -1 : 1;
    for (size_t k = 0; k < sizeof(excess_keys) / sizeof(excess_keys[0]); k++) {
        dx = impact_of(x, excess_keys[k]);
        dy = impact_of(y, excess_keys[k]);
        if (dx != dy)
            return dx > dy ? -1 : 1;
    }
    /* equal impact: the JSON's own order (time, type), then the
       fingerprint, so that two runs give the same order */
    ix = iget(x, "time");
    iy = iget(y, "time");
    if (ix != iy)
        return ix < iy ? -1 : 1;
    ix = iget(x, "type");
    iy = iget(y, "type");
    if (ix != iy)
        return ix < iy ? -1 : 1;
    c = strcmp(sget(x, "fingerprint"), sget(y, "fingerprint"));
    return c ? c : strcmp(sget(x, "path"), sget(y, "path"));
}

static int rank_qsort_cmp(const void *a, const void *b)
{
    return issue_rank_cmp(*(json_t *const *)a, *(json_t *const *)b);
}

/*
 * The files a database writes beside its own to commit: its rollback
 * journal, its write-ahead log and the log's index. Each is written,
 * synced and deleted by the same commit as the database (same cause), so
 * it counts as the database's file.
 */
static const char *const companion_suffixes[] = {"-journal", "-wal", "-shm"};

/* The length of path without a companion suffix (the database's name). */
static size_t unit_len(const char *path)
{
    size_t n = strlen(path);

    for (size_t i = 0; i < sizeof(companion_suffixes) / sizeof(companion_suffixes[0]); i++) {
        size_t k = strlen(companion_suffixes[i]);

        if (n > k && strcmp(path + n - k, companion_suffixes[i]) == 0)
            return n - k;
    }
    return n;
}

/*
 * Whether issue a, a directory synced (no data moved, syncs in excess:
 * group_key tests that), is for b's file: a's path is the directory b's
 * is in, and both are of one process. A database syncs its
 * directory so that its journal's creation and deletion are durable: the
 * same commits as the journal's syncs.
 */
static int dir_sync_of(const json_t *a, const json_t *b)
{
    const char *d = sget(a, "path"), *p = sget(b, "path");
    size_t n = strlen(d);

    while (n > 1 && d[n - 1] == '/')
        n--;
    return n > 0 && strncmp(d, p, n) == 0 && p[n] == '/' && p[n + 1] &&
           !strchr(p + n + 1, '/') && iget(a, "pid") == iget(b, "pid");
}

/* Whether b is on the main file of a's unit (a database's own file). */
static int main_file_of(const json_t *a, const json_t *b)
{
    const char *pa = sget(a, "path"), *pb = sget(b, "path");
    size_t n = unit_len(pa);

    return iget(a, "pid") == iget(b, "pid") && strlen(pb) == n && strncmp(pa, pb, n) == 0;
}

/*
 * The site that opened an issue's file: its open_stack when its own stack
 * names another call (the writes, the syncs), else its stack. Issues of one
 * file opened by one site are one cause whichever of its calls each names
 * (PHP's session file: opened per request at one site, so a repeat_open,
 * and rewritten whole each time at another, a write_amplification).
 */
static const char *open_site(const json_t *issue)
{
    const char *s = sget(issue, "open_stack");

    return *s ? s : sget(issue, "stack");
}

/*
 * An issue that names the site of its calls but not the file's open (a
 * call found by its site alone: main_thread's fdatasync on an event loop)
 * takes the open site of an issue on the same file of the same process
 * whose calls are made at that same site (sync_storm's issue on the same
 * syncs names both): the same calls on the same file are one cause, found
 * twice. Its index in v, n when there is none.
 */
static size_t same_calls_of(json_t *const *v, size_t n, const json_t *is)
{
    const char *stack = sget(is, "stack");

    if (*sget(is, "open_stack") || !*stack)
        return n;
    for (size_t j = 0; j < n; j++)
        if (v[j] != is && *sget(v[j], "open_stack") && iget(v[j], "pid") == iget(is, "pid") &&
            strcmp(sget(v[j], "path"), sget(is, "path")) == 0 &&
            strcmp(sget(v[j], "stack"), stack) == 0)
            return j;
    return n;
}

/*
 * The group key of v[i]: process, file and the site that opened it. The file is its unit
 * (a companion's database, a synced directory's file), and a companion or
 * a directory takes the open site of the highest-ranked issue on its unit's
 * main file, since the library opens them at sites of their own. v is in
 * rank order.
 */
static void group_key(json_t *const *v, size_t n, size_t i, char *out, size_t cap)
{
    const json_t *is = v[i], *unit = is, *stack_of = is;
    const char *path = sget(is, "path");
    uint64_t h = IOT_FNV64_INIT;
    size_t twin = same_calls_of(v, n, is);

    if (twin < n) {
        /* the twin has an open site: it is keyed below, never here */
        group_key(v, n, twin, out, cap);
        return;
    }
    /* the cheap tests first: most issues are neither */
    if (iget(is, "op") == 0 && impact_of(is, "excess_syncs") > 0)
        for (size_t j = 0; j < n && unit == is; j++)
            if (j != i && dir_sync_of(is, v[j]))
                unit = v[j];
    stack_of = unit;
    if (unit != is || unit_len(path) != strlen(path))
        for (size_t j = 0; j < n; j++)
            if (main_file_of(unit, v[j])) {
                stack_of = v[j];
                break;
            }
    path = sget(unit, "path");
    h = iot_fnv64_add(h, sget(is, "process"), strlen(sget(is, "process")) + 1);
    h = iot_fnv64_add(h, path, unit_len(path));
    h = iot_fnv64_add(h, "", 1);
    h = iot_fnv64_add(h, open_site(stack_of), strlen(open_site(stack_of)));
    snprintf(out, cap, "%08llx", (unsigned long long)((h >> 32) ^ (h & 0xffffffffu)));
}

void issues_group(json_t *issues)
{
    size_t n = json_array_size(issues);
    json_t **v = calloc(n ? n : 1, sizeof(*v));
    char key[16];

    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(issues, i);
    qsort(v, n, sizeof(*v), rank_qsort_cmp);
    for (size_t i = 0; i < n; i++) {
        group_key(v, n, i, key, sizeof(key));
        json_object_set_new(v[i], "group", json_string(key));
    }
    free(v);
}
