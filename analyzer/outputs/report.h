/*
 * report.h - what the human reports (--format text, --format html) show
 * beside the issues, gathered while the analysis replays the events
 * (struct analyze_opts' observe hook): per op, process, thread and file
 * sums, a timeline of each thread in bins, and the slowest calls one by one.
 * Memory is bounded: distinct processes, threads and files, REPORT_BINS bins
 * per thread and REPORT_SLOW calls. Names and paths are the report's own
 * copies: the reports are written after the analysis has freed its strings.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "hmap.h"
#include "issue_rec.h"

/*
 * The timeline: REPORT_BINS bins of one width per thread, starting at the
 * first event. When the trace outgrows them the width doubles and pairs of
 * bins merge, so a long trace costs no more than a short one.
 */
#define REPORT_BINS 1024
/* The slowest calls kept one by one (every call of a trace with fewer). */
#define REPORT_SLOW 20000

/* Sums of calls: time is the sum of their durations, bytes what they moved. */
struct report_sum {
    uint64_t calls, errors, reads, writes;
    int64_t ns, bytes, read_bytes, write_bytes;
};

struct report_bin {
    uint32_t calls, errors, reads, writes;
    int64_t ns, bytes;
};

struct report_proc {
    int32_t pid, ppid;
    char *name;                 /* basename of the exe, NULL: unknown */
    int64_t start_t, start_unix_ns;  /* start_unix_ns 0: unknown */
    int64_t first_t, last_t;
    int exit_status, exit_signal, exited;
    struct report_sum sum;
};

struct report_thread {
    int32_t pid, tid;
    char *name;                 /* NULL until named: the process's name */
    struct report_sum sum;
    struct report_bin *bins;    /* REPORT_BINS, or NULL before its first call */
};

/*
 * Request sizes for the HTML report's histogram: bucket k counts the data
 * calls asking for [2^k, 2^(k+1)) bytes (0 and 1 byte in bucket 0).
 */
#define REPORT_SIZE_BUCKETS 48
/*
 * Offsets over time, for the files whose access jumps (report_access.c):
 * at most REPORT_OFFSET_FILES files at once keep points, each at most
 * REPORT_OFFSET_POINTS of them, one every stride-th data call (the stride
 * doubles and every other point goes when they fill).
 */
#define REPORT_OFFSET_FILES 16
#define REPORT_OFFSET_POINTS 512

struct report_point {
    int64_t t, off;
    int32_t len, write;
};

struct report_offsets {
    struct report_point v[REPORT_OFFSET_POINTS];
    size_t n;
    uint64_t stride, skip;
};

struct report_file {
    char *path;
    int32_t pid;                /* the first process that used it */
    uint32_t nprocs;            /* how many processes did (counted per change) */
    struct report_sum sum;
    uint64_t opens;
    /* its data calls at a known offset, those that did not start where
       the one before ended, and where that one ended (-1 none yet) */
    uint64_t accesses, jumps;
    int64_t next_off;
    struct report_offsets *offsets;   /* NULL: no points kept */
};

struct report_call {
    int64_t t, dur, size, ret;
    int32_t tid;
    uint16_t op;
    uint16_t err;
    const char *path;           /* its file's path (struct report_file), NULL: unknown */
};

struct report {
    struct report_sum ops[IOT_OP_COUNT];
    struct report_sum total;
    struct hmap procs, threads, files;    /* pid, tid, path pointer -> entries */
    /* entries in the order they were first seen */
    struct report_proc **procv; size_t nproc, capproc;
    struct report_thread **thrv; size_t nthr, capthr;
    struct report_file **filev; size_t nfile, capfile;
    int64_t t0, t1;             /* first and last event time (t1: end of last call) */
    int64_t bin_ns;             /* width of a bin */
    int have_t;
    struct report_call *slow;   /* min-heap on dur, nslow <= REPORT_SLOW */
    size_t nslow;
    uint64_t events;
    uint64_t sizes[2][REPORT_SIZE_BUCKETS];   /* reads', writes' request sizes */
    size_t noffsets;            /* files keeping points (REPORT_OFFSET_FILES at most) */
    int oom;
};

struct report *report_create(void);
void report_free(struct report *r);
/* struct analyze_opts' observe hook: arg is the report. */
void report_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n);
/* A data call's request size and offset (report_access.c): f its file
   (NULL unknown), dir IOT_DIR_READ or IOT_DIR_WRITE. */
void report_access(struct report *r, struct engine *e, const struct iot_event *ev,
                   struct report_file *f, int dir);
/* The files whose access is random enough to chart, most jumps first, at
   most max of them, into v; how many. */
size_t report_random_files(const struct report *r, const struct report_file **v, size_t max);
/* Entries sorted by a sum's time, largest first: a new array of n pointers
   (free it), NULL out of memory. */
struct report_proc **report_procs_by_time(const struct report *r);
struct report_file **report_files_by_time(const struct report *r);
/* The process of pid, NULL when none was seen. */
const struct report_proc *report_proc(const struct report *r, int32_t pid);
/* An issue's time (ms since the epoch) on the trace clock of its process;
   0 with *t unset when the process's start is unknown. */
int report_issue_t(const struct report *r, const struct issue *issue, int64_t *t);

/*
 * The findings the human reports list (findings.c; docs/analyzer.md, "One
 * cause, one finding"): the issues of one group as one finding, its main
 * issue the highest-ranked (issue.h's issue_rank_compare order), the others its symptoms in
 * rank order; findings in their main issue's rank order. An issue without
 * a group (an issue file of an older ioanalyze) is a finding of its own.
 */
struct report_finding {
    const struct issue *main;
    const struct issue **symptoms;
    size_t nsymptoms;
};

/* A new array of *n findings (report_findings_free), NULL out of memory. */
struct report_finding *report_findings(const struct issue_list *issues, size_t *n);
void report_findings_free(struct report_finding *f, size_t n);
/* "7 issues: 3 high, 2 medium, 2 low" without the "7 issues: " (severities
   with no issue left out, highest first), into buf. */
const char *report_severity_counts(const struct issue_list *issues, char *buf, size_t cap);

/* The reports: 0, or -1 on a write error. */
int report_text(FILE *f, const struct report *r, const struct issue_list *issues, int color);
int report_html(FILE *f, const struct report *r, const struct issue_list *issues);


#endif /* REPORT_H */
