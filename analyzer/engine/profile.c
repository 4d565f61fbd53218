/* The per-file CSV profile (profile.h). */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "iotrace.h"
#include "hmap.h"
#include "profile.h"
#include "text.h"

struct prow {
    int32_t pid;
    const char *process;        /* basename of the exe (interned, copied with the path) */
    char *process_copy;
    const char *path;           /* interned: the row's key while the run lasts */
    char *path_copy;            /* outlives the string table */
    int layer;
    struct prof_counts c;
    double first_open_s, last_close_s;
    int64_t file_size;
};

struct profile {
    struct hmap idx;        /* key of (pid, path, layer) -> row index + 1 */
    struct prow *rows;
    size_t n, cap;
};

struct profile *profile_create(void)
{
    return calloc(1, sizeof(struct profile));
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    hmap_release(&p->idx);
    for (size_t i = 0; i < p->n; i++) {
        free(p->rows[i].path_copy);
        free(p->rows[i].process_copy);
    }
    free(p->rows);
    free(p);
}

/* A hash of the row's (pid, path, layer); rows whose keys collide are
   told apart by their fields (profile_add walks on to key + 1). */
static uint64_t row_key(int32_t pid, const char *path, int layer)
{
    return iot_mix64_pair((uint64_t)(uint32_t)pid << 8 | (uint8_t)layer, hmap_ptr_key(path));
}

int profile_add(struct profile *p, int32_t pid, const char *process, const char *path, int layer,
                const struct prof_counts *c, double open_s, double close_s, int64_t file_size)
{
    uint64_t key = row_key(pid, path, layer);
    size_t i;
    struct prow *r = NULL;

    /* Keys can collide: walk a short chain of candidates. */
    for (uint64_t k = key;; k++) {
        void *v = hmap_get(&p->idx, k);

        if (!v)
            break;
        i = (size_t)(uintptr_t)v - 1;
        if (p->rows[i].pid == pid && p->rows[i].path == path && p->rows[i].layer == layer) {
            r = &p->rows[i];
            break;
        }
        key = k + 1;
    }
    if (!r) {
        if (iot_grow(&p->rows, &p->cap, p->n + 1, sizeof(*p->rows)) < 0)
            return -1;
        r = &p->rows[p->n];
        memset(r, 0, sizeof(*r));
        r->path_copy = strdup(path);
        if (!r->path_copy)
            return -1;
        if (hmap_put(&p->idx, key, (void *)(uintptr_t)(p->n + 1)) < 0) {
            free(r->path_copy);
            return -1;
        }
        p->n++;
        r->pid = pid;
        r->path = path;
        r->layer = layer;
        r->first_open_s = open_s;
    }
#define REDUCE_(kind, column, print, ...) REDUCE_##kind(__VA_ARGS__)
#define REDUCE_ROW(value)
#define REDUCE_FIG(member, type, reduce, session, value) REDUCE_##reduce(r->c.member, c->member);
#define REDUCE_SUM(into, v) into += v
#define REDUCE_MAX(into, v) if (v > into) into = v
    PROFILE_COLUMNS(REDUCE_)
    if (open_s < r->first_open_s)
        r->first_open_s = open_s;
    if (close_s > r->last_close_s)
        r->last_close_s = close_s;
    r->file_size = file_size;
    /* the latest image's name: an exec renames the process */
    if (process && r->process != process) {
        char *copy = strdup(process);

        if (!copy)
            return -1;
        free(r->process_copy);
        r->process_copy = copy;
        r->process = process;
    }
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    int c;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    c = strcmp(x->path_copy, y->path_copy);
    if (c)
        return c;
    return x->layer - y->layer;
}

int profile_write_csv(const struct profile *p, FILE *f)
{
    struct prow *rows = malloc((p->n ? p->n : 1) * sizeof(*rows));

    if (!rows)
        return -1;
    if (p->n)
        memcpy(rows, p->rows, p->n * sizeof(*rows));
    qsort(rows, p->n, sizeof(*rows), row_cmp);
#define HEADER_(kind, column, ...) "," column
    /* the first column's comma dropped */
    fputs(&(PROFILE_COLUMNS(HEADER_) "\n")[1], f);
    for (size_t i = 0; i < p->n; i++) {
        const struct prow *r = &rows[i];
        const struct prof_counts *c = &r->c;
        const char *sep = "";

#define CELL_(kind, column, print, ...) fputs(sep, f), sep = ",", CELL_##kind(print, __VA_ARGS__);
#define CELL_ROW(print, value) CELL_##print(value)
#define CELL_FIG(print, member, type, reduce, session, value) CELL_##print(c->member)
#define CELL_INT(v)    fprintf(f, "%d", (int)(v))
#define CELL_COUNT(v)  fprintf(f, "%llu", (unsigned long long)(v))
#define CELL_SIGNED(v) fprintf(f, "%lld", (long long)(v))
#define CELL_US(v)     fprintf(f, "%.3f", (v) / 1e3)
#define CELL_F1(v)     fprintf(f, "%.1f", (double)(v))
#define CELL_F3(v)     fprintf(f, "%.3f", (double)(v))
#define CELL_F6(v)     fprintf(f, "%.6f", (double)(v))
/* an unknown size is empty, not -1: an average over the column stays right */
#define CELL_SIZE(v)   ((v) >= 0 ? fprintf(f, "%lld", (long long)(v)) : 0)
#define CELL_WORD(v)   fputs(v, f)
#define CELL_TEXT(v)   iot_csv_write(f, v)
        PROFILE_COLUMNS(CELL_)
        fputc('\n', f);
    }
    free(rows);
    return ferror(f) ? -1 : 0;
}
