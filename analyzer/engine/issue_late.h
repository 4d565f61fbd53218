/*
 * issue_late.h - an issue's stacks as the trace gave them, kept to be
 * named again as the issues are finished (internal to the engine): a
 * runtime that writes its perf map at exit (the JVM's
 * -XX:+DumpPerfMapAtExit) names JIT frames after the issues found while it
 * ran were made.
 */
#ifndef ISSUE_LATE_H
#define ISSUE_LATE_H

#include <stddef.h>

struct rule_detail;
struct symbolizer;

struct late_stacks {
    char *rule, *fpath;     /* what the fingerprint takes beside the open stack */
    char *site, *open;      /* the issue's stack, its open's ("" for none) */
    char **sites;           /* the stacks of detail.open_sites, in its order */
    size_t nsites;
};

/*
 * Copies of the stacks, the open sites' from detail as the rule gave them
 * (before they are shown symbolized); NULL on out of memory.
 */
struct late_stacks *late_stacks_new(const char *rule, const char *fpath, const char *site,
                                    const char *open, const struct rule_detail *detail);
void late_stacks_free(struct late_stacks *l);

/*
 * Whether a record read later could name a frame of l's stacks: one holds
 * a JIT frame no record named yet, or a frame of a runtime that writes a
 * perf map (its hint is judged at the end too).
 */
int late_stacks_pending(const struct late_stacks *l, struct symbolizer *sym);

/*
 * detail's stacks shown from l's, as sym names them now: each of
 * detail.open_sites' and detail.opened_by's (the open's: the opener's
 * open is the session's). As the issue is made, and again as the issues
 * are finished.
 */
void late_stacks_rename_detail(const struct late_stacks *l, struct symbolizer *sym,
                               struct rule_detail *detail);

#endif /* ISSUE_LATE_H */
