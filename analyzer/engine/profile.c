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
    r->c.opens += c->opens;
    r->c.reads += c->reads;
    r->c.writes += c->writes;
    r->c.seeks += c->seeks;
    r->c.fsyncs += c->fsyncs;
    r->c.sync_ns += c->sync_ns;
    r->c.hints += c->hints;
    r->c.hint_ns += c->hint_ns;
    r->c.main_ops += c->main_ops;
    r->c.seq_reads += c->seq_reads;
    r->c.random_reads += c->random_reads;
    r->c.seq_writes += c->seq_writes;
    r->c.random_writes += c->random_writes;
    r->c.read_bytes += c->read_bytes;
    r->c.write_bytes += c->write_bytes;
    r->c.read_ns += c->read_ns;
    r->c.write_ns += c->write_ns;
    if (c->max_read_ns > r->c.max_read_ns)
        r->c.max_read_ns = c->max_read_ns;
    if (c->max_write_ns > r->c.max_write_ns)
        r->c.max_write_ns = c->max_write_ns;
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

/*
 * A field as RFC 4180 wants it, and as valid UTF-8: pandas and DuckDB refuse
 * a whole file for one byte that is not, so such bytes become U+FFFD as in
 * the JSONL dump (a path on Linux is bytes, not text). A field that a
 * spreadsheet would take for a formula (it begins with = + - @, tab or CR:
 * a process named =HYPERLINK(...)) gets a leading ' as OWASP's CSV
 * injection advice says, so that it shows as the text it is.
 */
void csv_field(FILE *f, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t left = strlen(s);
    int quote = s[strcspn(s, ",\"\r\n")] != 0;

    if (quote)
        fputc('"', f);
    if (*s && strchr("=+-@\t\r", *s))
        fputc('\'', f);
    while (*u) {
        size_t n = iot_utf8_len(u, left);

        if (!n) {
            fputs("\xef\xbf\xbd", f);
            u++;
            left--;
            continue;
        }
        if (*u == '"')
            fputc('"', f);
        fwrite(u, 1, n, f);
        u += n;
        left -= n;
    }
    if (quote)
        fputc('"', f);
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
    fputs("pid,path,opens,reads,read_bytes,read_time_us,avg_read_bytes,avg_read_us,max_read_us,"
          "writes,write_bytes,write_time_us,avg_write_bytes,avg_write_us,max_write_us,seeks,"
          "seq_reads,random_reads,seq_writes,random_writes,fsyncs,main_thread_ops,"
          "first_open_s,last_close_s,file_size,layer,sync_time_us,process,hints,hint_time_us\n", f);
    for (size_t i = 0; i < p->n; i++) {
        const struct prow *r = &rows[i];
        const struct prof_counts *c = &r->c;

        fprintf(f, "%d,", (int)r->pid);
        csv_field(f, r->path_copy);
        fprintf(f, ",%llu,%llu,%lld,%.3f,%.1f,%.3f,%.3f,%llu,%lld,%.3f,%.1f,%.3f,%.3f,"
                   "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,",
                (unsigned long long)c->opens, (unsigned long long)c->reads,
                (long long)c->read_bytes, c->read_ns / 1e3,
                c->reads ? (double)c->read_bytes / (double)c->reads : 0.0,
                c->reads ? c->read_ns / 1e3 / (double)c->reads : 0.0, c->max_read_ns / 1e3,
                (unsigned long long)c->writes, (long long)c->write_bytes, c->write_ns / 1e3,
                c->writes ? (double)c->write_bytes / (double)c->writes : 0.0,
                c->writes ? c->write_ns / 1e3 / (double)c->writes : 0.0, c->max_write_ns / 1e3,
                (unsigned long long)c->seeks, (unsigned long long)c->seq_reads,
                (unsigned long long)c->random_reads, (unsigned long long)c->seq_writes,
                (unsigned long long)c->random_writes, (unsigned long long)c->fsyncs,
                (unsigned long long)c->main_ops, r->first_open_s, r->last_close_s);
        /* an unknown size is empty, not -1: an average over the column stays right */
        if (r->file_size >= 0)
            fprintf(f, "%lld", (long long)r->file_size);
        fprintf(f, ",%s,%.3f,", r->layer ? "stdio" : "syscall", c->sync_ns / 1e3);
        csv_field(f, r->process_copy ? r->process_copy : "");
        fprintf(f, ",%llu,%.3f\n", (unsigned long long)c->hints, c->hint_ns / 1e3);
    }
    free(rows);
    return ferror(f) ? -1 : 0;
}
