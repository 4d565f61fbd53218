/*
 * profile.h - the per-file CSV profile (SPEC "CSV profile"): one row per
 * (pid, path, layer), accumulated from ended sessions, so memory grows with
 * distinct files, not with the trace.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stdint.h>
#include <stdio.h>

/* What one session adds to its row. */
struct prof_counts {
    uint64_t opens, reads, writes, seeks, fsyncs, main_ops;
    uint64_t seq_reads, random_reads, seq_writes, random_writes;
    int64_t read_bytes, write_bytes;          /* bytes transferred (returned) */
    int64_t read_ns, write_ns, max_read_ns, max_write_ns;
    int64_t sync_ns;                          /* time in fsync/fdatasync */
    uint64_t hints;                           /* writeback/cache hints: sync_file_range, fadvise */
    int64_t hint_ns;                          /* ... and their time */
};

struct profile;

struct profile *profile_create(void);
void profile_free(struct profile *p);
/* Add a session; path is interned (rows are keyed by its pointer); process is
   the name of its process (NULL: unknown). 0, or -1 OOM. */
int profile_add(struct profile *p, int32_t pid, const char *process, const char *path, int layer,
                const struct prof_counts *c, double open_s, double close_s, int64_t file_size);
/* The CSV (header + rows sorted by pid, path, layer; LF line ends). 0, or -1 on write error. */
int profile_write_csv(const struct profile *p, FILE *f);
/* Write one RFC 4180 field (quoted when it holds a comma, quote, CR or LF;
   bytes that are not UTF-8 as U+FFFD; a ' before a leading = + - @ tab or CR). */
void csv_field(FILE *f, const char *s);

#endif /* PROFILE_H */
