/*
 * per_file.h - a process's sessions of one path added up, for the rules
 * that judge a file over all its sessions (sync_storm, repeat_open,
 * redundant_read, write_amplification). Each rule keeps its own table in
 * its state and adds the sessions it cares about.
 */
#ifndef PER_FILE_H
#define PER_FILE_H

#include "hmap.h"
#include "rule.h"

struct per_file {
    struct rule_session first;   /* the first session added: the open site */
    uint64_t sessions;
    uint64_t left_open;          /* sessions still open when their process or the trace ended */
    uint64_t ops, reads, writes, syncs;
    int64_t op_size, read_bytes, write_bytes;
    int64_t buffer;              /* largest single request */
    int64_t cost_ns, sync_ns;
    int64_t max_file_size;       /* largest size seen at a close, -1 none known */
    int64_t last_file_size;      /* size at the newest close that knew it, -1 none */
    int64_t last_unix_ms;
    int timed;                   /* every session had durations */
};

struct per_file_table {
    struct per_file *v;          /* the entries, dense, in the order first added */
    size_t n, vcap;
    struct hmap idx;             /* key of (pid, path pointer) -> index in v + 1 */
};

/* Adds s to its (pid, path) entry: the entry, or NULL when out of memory. */
struct per_file *per_file_add(struct per_file_table *t, const struct rule_session *s);
/* A session for the issue of entry f: its first session with the whole
   file's figures (op, opSize, buffer, cost, size, and the evidence's end). */
struct rule_session per_file_session(const struct per_file *f);
/*
 * For the rules that weigh one direction of a file's traffic against its
 * size (redundant_read: RULE_OP_READ, write_amplification: RULE_OP_WRITE):
 * how many times over the file's bytes were moved that way, with *s the
 * issue's session carrying that direction's figures and the largest size;
 * 0 when f moved fewer than min_bytes, less than min_factor times over, or
 * has no known size.
 */
double per_file_amplified(const struct per_file *f, int op_type, int64_t min_bytes,
                          double min_factor, struct rule_session *s);
void per_file_free(struct per_file_table *t);
/* The farthest any entry sits from its home slot in the map: small (tens)
   however many processes share a path, when the keys spread. For tests. */
size_t per_file_max_probe(const struct per_file_table *t);

#define PER_FILE_FOREACH(t, f) \
    for (struct per_file *f = (t)->v; f < (t)->v + (t)->n; f++)

#endif /* PER_FILE_H */
