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

/*
 * What matches an issue across runs: its "fingerprint", or NULL when it has
 * none (such an issue matches nothing).
 */
const char *issue_key(const json_t *issue);

/*
 * Remove from issues every issue whose "fingerprint" appears in baseline (an
 * issues array). Returns how many were removed.
 */
size_t issues_drop_baseline(json_t *issues, const json_t *baseline);

/*
 * Remove from issues (an array, compacted in place) every issue whose
 * severity (issue.h) is below min_severity; an issue without one counts as
 * medium. Returns how many were removed.
 */
size_t issues_drop_below(json_t *issues, int min_severity);

/*
 * The regression diff of two issue sets, matched by fingerprint: sets "new"
 * (issues of next whose fingerprint base lacks), "fixed" (issues of base
 * whose fingerprint next lacks) and "unchanged" (how many issues of next
 * base has) in the object out, and *nnew. 0, or -1 when out of memory.
 */
int issues_diff(const json_t *base, const json_t *next, json_t *out, size_t *nnew);

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
