/*
 * ci.h - what CI needs on top of analyze: issue files, baselines and SARIF
 * (the `ioanalyze diff` command is cmd_diff.c). See docs/ci.md.
 */
#ifndef CI_H
#define CI_H

#include <stddef.h>

#include <jansson.h>

#include "issue_rec.h"

/*
 * Load issues from path: a JSON array of issue objects (what `analyze`
 * writes by default) or JSONL, one issue object per line (--format jsonl).
 * "-" reads standard input. 0 with a new array in *issues, or -1 with a
 * one-line message in errbuf (IOT_ERRBUF_SIZE bytes).
 */
int issues_load(const char *path, json_t **issues, char *errbuf);

/*
 * 1 when the first bytes of a file look like an issues file rather than an
 * event input: a JSON array, or a JSONL line that is an issue object (has
 * "fingerprint" or "rule") and not an event (no "ev").
 */
int issues_detect(const char *buf, size_t len);

/* issues_load's issues as records (issue_rec.h), appended to list. */
int issues_load_list(const char *path, struct issue_list *list, char *errbuf);

/*
 * Removes from issues every issue whose fingerprint appears in baseline
 * (an issue without one is never removed), keeping the others' order.
 * Returns how many were removed.
 */
size_t issues_drop_baseline(struct issue_list *issues, const struct issue_list *baseline);

/*
 * Removes from issues every issue whose severity (issue.h) is below
 * min_severity (an issue file's issue without one counts as medium),
 * keeping the others' order. Returns how many were removed.
 */
size_t issues_drop_below(struct issue_list *issues, int min_severity);

/*
 * The regression diff of two issue sets, matched by fingerprint (an issue
 * without one matches nothing): the issues of next whose fingerprint base
 * lacks go to added, the other issues of next to kept (the unchanged
 * ones), the issues of base whose fingerprint next lacks to fixed, each in
 * its side's order; the other issues of base are freed. base and next are
 * left empty. 0, or -1 when out of memory (base and next released).
 */
int issues_diff(struct issue_list *base, struct issue_list *next, struct issue_list *added,
                struct issue_list *fixed, struct issue_list *kept);

/*
 * Where an issue's stack starts, as "function (file:line)", "function
 * (module)" or the first line of its "stack" text, in buf; "" when it has
 * no stack. Returns buf. The text is the issue file's own: a writer makes
 * it safe for its format.
 */
const char *issue_top_frame(const struct issue *is, char *buf, size_t size);

struct config;

/*
 * 1 when the finding rests on what the machine's load moves (a duration,
 * a ratio of times, or a count within a time window with less than a
 * factor of two of margin), judged with the thresholds of cfg (NULL: the defaults). The
 * rules and margins are ci_near.c's table; docs/ci.md lists them.
 */
int issue_near_threshold(const struct issue *issue, const struct config *cfg);

/*
 * diff --ci: moves the issues of added (new) and of fixed that are near
 * their threshold to near, which the diff counts as unchanged; the lists
 * keep their order, and near owns what was moved to it. 0, or -1 out of
 * memory.
 */
int issues_diff_near(struct issue_list *added, struct issue_list *fixed, struct issue_list *near,
                     const struct config *cfg);

/* One rule as SARIF describes it. type is the issue type number. */
struct sarif_rule {
    const char *id;    /* the rule name, e.g. "small_buffer" */
    const char *name;  /* a CamelCase name, e.g. "SmallBufferIo", never id case aside; id when NULL */
    const char *help;  /* one or two sentences: what it finds and why it hurts */
    int type;
    const char *fix;   /* how to fix it (markdown), or NULL */
};

/*
 * Render issues as a SARIF 2.1.0 log with one rule descriptor per rule.
 * Issues whose rule is not in rules[] get a descriptor of their own.
 * source_root is the absolute directory the program's sources live in:
 * each result's primary location is the first frame of the issue's
 * frames under it, as a uri relative to it (uriBaseId SRCROOT); NULL
 * takes none as the user's. Returns a new object, or NULL when out of
 * memory.
 */
json_t *sarif_render(const struct issue_list *issues, const struct sarif_rule *rules,
                     size_t n, const char *source_root);

#endif /* CI_H */
