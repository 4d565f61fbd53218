/*
 * Ranking issues by impact and grouping the issues of one cause (issue.h;
 * docs/analyzer.md, "Ranking and groups"). Both work on the final issue
 * records, after issue_judge has set their impact and severity, so that
 * they follow whatever stack and figures an issue carries; a JSON issue
 * (an issue file's, a report still reading keys) is ranked by the same key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "issue.h"
#include "issue_rec.h"

static const char *str(const char *s)
{
    return s ? s : "";
}

/*
 * What an issue is ranked by, read once from a record or from a JSON issue
 * (the figures an issue lacks count as 0), so that both are ranked alike.
 */
struct rank_key {
    int severity;
    double model_ms;
    /* the excess figures in the order they break ties: bytes weigh most,
       as they are what wears storage and fills caches */
    int64_t excess[5];
    int64_t time, type;
    const char *fingerprint, *path;
};

static void rank_key_of(const struct issue *is, struct rank_key *k)
{
    const struct issue_impact *im = &is->impact;

    k->severity = is->severity;
    k->model_ms = im->has & ISSUE_IMPACT_MODEL ? im->model_ms : 0;
    k->excess[0] = im->excess_bytes;
    k->excess[1] = im->excess_syncs;
    k->excess[2] = im->excess_opens;
    k->excess[3] = im->excess_calls;
    k->excess[4] = im->handles;
    k->time = is->time;
    k->type = is->type;
    k->fingerprint = str(is->fingerprint);
    k->path = str(is->path);
}

static int rank_key_cmp(const struct rank_key *x, const struct rank_key *y)
{
    int c;

    if (x->severity != y->severity)
        return x->severity > y->severity ? -1 : 1;
    /* the modelled cost, not the measured time: the order is the same on a
       quiet and on a loaded machine */
    if (x->model_ms != y->model_ms)
        return x->model_ms > y->model_ms ? -1 : 1;
    for (size_t k = 0; k < sizeof(x->excess) / sizeof(x->excess[0]); k++)
        if (x->excess[k] != y->excess[k])
            return x->excess[k] > y->excess[k] ? -1 : 1;
    /* equal impact: the JSON's own order (time, type), then the
       fingerprint, so that two runs give the same order */
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    c = strcmp(x->fingerprint, y->fingerprint);
    return c ? c : strcmp(x->path, y->path);
}

int issue_rank_compare(const struct issue *x, const struct issue *y)
{
    struct rank_key kx, ky;

    rank_key_of(x, &kx);
    rank_key_of(y, &ky);
    return rank_key_cmp(&kx, &ky);
}

static int rank_qsort_cmp(const void *a, const void *b)
{
    return issue_rank_compare(*(const struct issue *const *)a, *(const struct issue *const *)b);
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
static int dir_sync_of(const struct issue *a, const struct issue *b)
{
    const char *d = str(a->path), *p = str(b->path);
    size_t n = strlen(d);

    while (n > 1 && d[n - 1] == '/')
        n--;
    return n > 0 && strncmp(d, p, n) == 0 && p[n] == '/' && p[n + 1] &&
           !strchr(p + n + 1, '/') && a->pid == b->pid;
}

/* Whether b is on the main file of a's unit (a database's own file). */
static int main_file_of(const struct issue *a, const struct issue *b)
{
    const char *pa = str(a->path), *pb = str(b->path);
    size_t n = unit_len(pa);

    return a->pid == b->pid && strlen(pb) == n && strncmp(pa, pb, n) == 0;
}

/*
 * The site that opened an issue's file: its open_stack when its own stack
 * names another call (the writes, the syncs), else its stack. Issues of one
 * file opened by one site are one cause whichever of its calls each names
 * (PHP's session file: opened per request at one site, so a repeat_open,
 * and rewritten whole each time at another, a write_amplification).
 */
static const char *open_site(const struct issue *issue)
{
    const char *s = str(issue->open_stack);

    return *s ? s : str(issue->stack);
}

/*
 * An issue that names the site of its calls but not the file's open (a
 * call found by its site alone: main_thread's fdatasync on an event loop)
 * takes the open site of an issue on the same file of the same process
 * whose calls are made at that same site (sync_storm's issue on the same
 * syncs names both): the same calls on the same file are one cause, found
 * twice. Its index in v, n when there is none.
 */
static size_t same_calls_of(struct issue *const *v, size_t n, const struct issue *is)
{
    const char *stack = str(is->stack);

    if (*str(is->open_stack) || !*stack)
        return n;
    for (size_t j = 0; j < n; j++)
        if (v[j] != is && *str(v[j]->open_stack) && v[j]->pid == is->pid &&
            strcmp(str(v[j]->path), str(is->path)) == 0 &&
            strcmp(str(v[j]->stack), stack) == 0)
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
static void group_key(struct issue *const *v, size_t n, size_t i, char *out, size_t cap)
{
    const struct issue *is = v[i], *unit = is, *stack_of = is;
    const char *path = str(is->path);
    uint64_t h = IOT_FNV64_INIT;
    size_t twin = same_calls_of(v, n, is);

    if (twin < n) {
        /* the twin has an open site: it is keyed below, never here */
        group_key(v, n, twin, out, cap);
        return;
    }
    /* the cheap tests first: most issues are neither */
    if (is->op == 0 && is->impact.excess_syncs > 0)
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
    path = str(unit->path);
    h = iot_fnv64_add(h, str(is->process), strlen(str(is->process)) + 1);
    h = iot_fnv64_add(h, path, unit_len(path));
    h = iot_fnv64_add(h, "", 1);
    h = iot_fnv64_add(h, open_site(stack_of), strlen(open_site(stack_of)));
    snprintf(out, cap, "%08llx", (unsigned long long)((h >> 32) ^ (h & 0xffffffffu)));
}

void issues_group(struct issue_list *issues)
{
    size_t n = issues->n;
    struct issue **v = calloc(n ? n : 1, sizeof(*v));
    char key[16];

    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = issues->v[i];
    qsort(v, n, sizeof(*v), rank_qsort_cmp);
    for (size_t i = 0; i < n; i++) {
        char *g;

        group_key(v, n, i, key, sizeof(key));
        if (!(g = strdup(key)))
            continue;
        free(v[i]->group);
        v[i]->group = g;
        v[i]->has |= ISSUE_HAS_GROUP;
    }
    free(v);
}
