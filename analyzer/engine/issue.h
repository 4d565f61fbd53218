/*
 * issue.h - collecting rule reports as issues (struct issue, issue_rec.h,
 * made once per finding): the fingerprint, de-duplication per fingerprint,
 * impact, severity, groups and the final order.
 */
#ifndef ISSUE_H
#define ISSUE_H

#include <jansson.h>

#include "config.h"
#include "issue_rec.h"
#include "rule.h"

struct issues;

/* What rule_ctx.sink points to: which rule reports into which collector. */
struct issue_binding {
    struct issues *issues;
    const struct rule *rule;
};

struct issues *issues_create(const struct config *cfg);
void issues_free(struct issues *is);

/*
 * Symbolize stacks with sym (symbolize.h; the caller keeps it and frees it
 * after the issues): issues then show functions and source lines, carry
 * "frames", and fingerprints take function and module names. Without one,
 * stacks are shown as recorded and "frames" is empty.
 */
struct symbolizer;
void issues_set_symbolizer(struct issues *is, struct symbolizer *sym);
/* A module record of the input (path, build-id in hex) for the symbolizer. */
void issues_module(struct issues *is, const char *path, const char *build_id);
/* A JIT symbol record of the input (process pid's code at [start, start + size)). */
void issues_py_code(struct issues *is, int32_t pid, uint64_t code, const char *file,
                    const char *qualname, int64_t first_line, const char *lines);
void issues_jit_symbol(struct issues *is, int32_t pid, uint64_t start, uint64_t size,
                       const char *name);

/* What process pid was started with, for the flags its runtime takes
   (symbolizer_process_args(), symbolizer_runtime_env()). */
void issues_process_args(struct issues *is, int32_t pid, const char *const *argv, int argc);
void issues_runtime_env(struct issues *is, int32_t pid, const char *options);

/* A label record of process pid: every issue carries the labels of its
   process, so of its trace (its labels, empty when none; the first value
   of a key wins; proc_labels.h). */
void issues_label(struct issues *is, int32_t pid, const char *key, const char *value);
/* The labels of the input's first labelled process, empty when none
   (borrowed, valid until issues_free()); what an input with no issue says
   of its labels. */
const struct rule_detail *issues_labels(const struct issues *is);

/*
 * A name the input says was made from a template (a template record, or an
 * exclusive create of a tempfile-shaped name): its random bytes [at, at + n)
 * fold in the fingerprints of the paths at or under it (fold.h).
 */
void issues_template(struct issues *is, const char *path, size_t at, size_t n);

/*
 * The fingerprint: 16 hex digits of a 64-bit FNV-1a over the rule name, the
 * normalised path (components of random shape folded, fold.h, then the
 * config's patterns) and the top 4 stack frames (normalised, "+0x..."
 * offsets and load addresses removed). out must hold 17 bytes.
 */
void issue_fingerprint(const struct config *cfg, const char *rule, const char *path,
                       const char *stack, char *out);

/*
 * How much an issue matters, from its impact (docs/analyzer.md, "Impact
 * and severity"): the order is the order of the values.
 */
enum issue_severity { ISSUE_LOW = 0, ISSUE_MEDIUM, ISSUE_HIGH, ISSUE_NSEVERITIES };

/* "low", "medium", "high"; NULL out of range. */
const char *issue_severity_name(int severity);
/* The severity called name, or -1. */
int issue_severity_parse(const char *name);

/*
 * The order of the human reports: by impact, largest first (severity,
 * then impact.model_ms, then the excess figures), then time, type,
 * fingerprint and path, so that two runs list equal issues alike.
 * qsort-style.
 */
int issue_rank_compare(const struct issue *x, const struct issue *y);

/*
 * Sets every issue's group: 8 hex digits, equal for the issues of one
 * cause, those of one process on one file at one stack (docs/analyzer.md,
 * "One cause, one finding": a database's journal and its synced directory
 * count as the database's file). Needs their impact and severity.
 */
void issues_group(struct issue_list *issues);

/*
 * The final issues, appended to out (which owns them): one per
 * fingerprint (the earliest, with detail.occurrences), sorted by time,
 * then type, each with its impact, severity, labels and group. timing: 0
 * when the input had calls without durations (the measured time_ms is
 * then null; nothing else changes); proc_model_ns(arg, pid): the modelled
 * cost of process pid's calls, 0 unknown (engine_proc_model_ns_of after
 * engine_finish; NULL: no shares). 0, or -1 out of memory; the collector
 * is left empty either way.
 */
int issues_finish(struct issues *is, int timing, int64_t (*proc_model_ns)(void *arg, int32_t pid),
                  void *arg, struct issue_list *out);

#endif /* ISSUE_H */
