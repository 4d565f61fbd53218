/*
 * profile.h - the per-file CSV profile (SPEC "CSV profile"): one row per
 * (pid, path, layer), accumulated from ended sessions, so memory grows with
 * distinct files, not with the trace.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stdint.h>
#include <stdio.h>

/*
 * The profile's columns, declared once, in CSV order: the header, each
 * row's printing, and for a session's figures also the member of struct
 * prof_counts that keeps it, what a session gives it and how a row adds
 * sessions up. X(kind, "column", print, ...) with kind
 *
 *   FIG  ..., member, type, reduce, session, value
 *        a figure of a session: prof_counts.member of that type; reduce
 *        SUM (+) or MAX across the sessions of a row; session FILL when
 *        struct rule_session has the member too and takes the value from
 *        here, KEPT when the engine counts it in the rule_session member
 *        as calls come (the value then reads it), NONE when only the
 *        profile has it, LIVE when the engine counts it in struct
 *        prof_counts itself as calls come (value unused: writeback and
 *        cache hints, sync_file_range and fadvise, counted apart from
 *        syncs); value, the ended session's figure, an expression
 *        of o (struct ofd *), d (&o->dir) and h (&o->h) (engine_figures.c)
 *   ROW  ..., value
 *        not a figure of one session: value, an expression of r (the
 *        row) and c (&r->c)
 *
 * print: INT, COUNT (unsigned), SIGNED, US (ns as us, 3 decimals), F1, F3,
 * F6 (a double with that many decimals), SIZE (signed, empty when
 * negative: unknown), WORD (as is), TEXT (iot_csv_write). Adding a figure is
 * one FIG row here (and a member at the end of rule_session for FILL or
 * KEPT), plus the engine's counting of it.
 */
#define PROFILE_COLUMNS(X)                                                                          \
    X(ROW, "pid",             INT,    r->pid)                                                       \
    X(ROW, "path",            TEXT,   r->path_copy)                                                 \
    X(FIG, "opens",           COUNT,  opens,         uint64_t, SUM, NONE, 1)                        \
    X(FIG, "reads",           COUNT,  reads,         uint64_t, SUM, FILL, d->calls[0])              \
    X(FIG, "read_bytes",      SIGNED, read_bytes,    int64_t,  SUM, FILL, d->bytes[0])              \
    X(FIG, "read_time_us",    US,     read_ns,       int64_t,  SUM, NONE, d->ns[0])                 \
    X(ROW, "avg_read_bytes",  F1,     c->reads ? (double)c->read_bytes / (double)c->reads : 0.0)    \
    X(ROW, "avg_read_us",     F3,     c->reads ? c->read_ns / 1e3 / (double)c->reads : 0.0)         \
    X(FIG, "max_read_us",     US,     max_read_ns,   int64_t,  MAX, NONE, d->max_ns[0])             \
    X(FIG, "writes",          COUNT,  writes,        uint64_t, SUM, FILL, d->calls[1])              \
    X(FIG, "write_bytes",     SIGNED, write_bytes,   int64_t,  SUM, FILL, d->bytes[1])              \
    X(FIG, "write_time_us",   US,     write_ns,      int64_t,  SUM, NONE, d->ns[1])                 \
    X(ROW, "avg_write_bytes", F1,     c->writes ? (double)c->write_bytes / (double)c->writes : 0.0) \
    X(ROW, "avg_write_us",    F3,     c->writes ? c->write_ns / 1e3 / (double)c->writes : 0.0)      \
    X(FIG, "max_write_us",    US,     max_write_ns,  int64_t,  MAX, NONE, d->max_ns[1])             \
    X(FIG, "seeks",           COUNT,  seeks,         uint64_t, SUM, NONE, h->seeks)                 \
    X(FIG, "seq_reads",       COUNT,  seq_reads,     uint64_t, SUM, NONE, d->jumps[JUMP_NONE][0])   \
    X(FIG, "random_reads",    COUNT,  random_reads,  uint64_t, SUM, FILL, ofd_random(d, 0))         \
    X(FIG, "seq_writes",      COUNT,  seq_writes,    uint64_t, SUM, NONE, d->jumps[JUMP_NONE][1])   \
    X(FIG, "random_writes",   COUNT,  random_writes, uint64_t, SUM, FILL, ofd_random(d, 1))         \
    X(FIG, "fsyncs",          COUNT,  syncs,         uint64_t, SUM, KEPT, o->s.syncs)               \
    X(FIG, "main_thread_ops", COUNT,  main_ops,      uint64_t, SUM, FILL, h->main_ops)              \
    X(ROW, "first_open_s",    F6,     r->first_open_s)                                              \
    X(ROW, "last_close_s",    F6,     r->last_close_s)                                              \
    X(ROW, "file_size",       SIZE,   r->file_size)                                                 \
    X(ROW, "layer",           WORD,   r->layer ? "stdio" : "syscall")                               \
    X(FIG, "sync_time_us",    US,     sync_ns,       int64_t,  SUM, KEPT, o->s.sync_ns)             \
    X(ROW, "process",         TEXT,   r->process_copy ? r->process_copy : "")                       \
    X(FIG, "hints",           COUNT,  hints,         uint64_t, SUM, LIVE, 0)                        \
    X(FIG, "hint_time_us",    US,     hint_ns,       int64_t,  SUM, LIVE, 0)

/* What one session adds to its row: its FIG columns. */
#define PROFILE_MEMBER_(kind, column, print, ...) PROFILE_MEMBER_##kind(__VA_ARGS__)
#define PROFILE_MEMBER_ROW(value)
#define PROFILE_MEMBER_FIG(member, type, reduce, session, value) type member;
struct prof_counts {
    PROFILE_COLUMNS(PROFILE_MEMBER_)
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

#endif /* PROFILE_H */
