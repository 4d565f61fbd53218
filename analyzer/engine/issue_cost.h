/*
 * issue_cost.h - the cost a rule states for its finding (struct
 * rule_report's time_ns, excess_* and handles), summed over an issue's
 * occurrences, and the impact and severity made from it (issue_impact.c).
 * The engine's own: issue.c collects, issue_impact.c judges.
 */
#ifndef ISSUE_COST_H
#define ISSUE_COST_H

#include <stdint.h>

#include "rule.h"

struct issue_cost {
    int64_t time_ns;         /* measured, summed; evidence only, meaningless unless has_time */
    int64_t model_ns;        /* modelled (cost_model.h), summed: what severity is made from */
    int64_t excess_bytes, excess_syncs, excess_opens, excess_calls, handles;
    int32_t pid;             /* the issue's process: whose I/O time the share is of */
    int known;               /* the rule stated a cost (built with report_size) */
    int has_time;            /* the finding is about time (time_ns not RULE_NO_TIME) */
    int has_model;           /* the rule stated a modelled cost (model_ns not RULE_NO_TIME) */
};

/*
 * r's cost as rule (with its report_size) stated it, into *c: a rule built
 * before report_size states none (c->known 0).
 */
void issue_cost_of(const struct rule *rule, const struct rule_report *r, struct issue_cost *c);
/* Adds src's figures to *dst (saturating). */
void issue_cost_add(struct issue_cost *dst, const struct issue_cost *src);

struct issue;

/*
 * Sets the issue's impact (c's figures: model_ms and io_share,
 * the modelled cost and its share of the process's; time_ms, measured,
 * null when the input had no durations) and its severity, made from the
 * modelled figures and the counts alone. proc_model_ns: the modelled cost
 * of c->pid's calls, 0 unknown; timing 0: the input had no durations.
 */
void issue_judge(struct issue *issue, const struct issue_cost *c, int64_t proc_model_ns, int timing);

#endif /* ISSUE_COST_H */
