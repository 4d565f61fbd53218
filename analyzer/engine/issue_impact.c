/*
 * An issue's impact and severity (issue_cost.h, issue.h): the figures a
 * rule states for its finding, summed over the occurrences, and what they
 * make of it. The thresholds are docs/analyzer.md's "Impact and severity".
 */
#include <stddef.h>
#include <string.h>

#include "issue.h"
#include "issue_cost.h"
#include "issue_rec.h"
#include "saturate.h"

static const char *const severity_names[ISSUE_NSEVERITIES] = {
    [ISSUE_LOW] = "low",
    [ISSUE_MEDIUM] = "medium",
    [ISSUE_HIGH] = "high",
};

/*
 * Severity is made from the modelled cost (cost_model.h) and the counts,
 * never from a measured time, so that a loaded machine cannot move it.
 * Negligible (low): a modelled cost under these, or a few ms of it that
 * are a sliver of the process's modelled I/O cost (PostgreSQL's bootstrap
 * opening pg_class 593 times); an issue with no modelled cost of its own
 * is never low. Clearly costly (high): any of the "high" figures. A share
 * of the process's cost makes an issue high only with a cost that is felt
 * (a large share of a few microseconds is not).
 */
#define LOW_MODEL_NS (1000000LL)           /* 1 ms modelled in the harmful calls */
#define LOW_IO_SHARE 0.05                  /* 5% of the process's modelled I/O cost */
#define LOW_EXCESS_BYTES (1LL << 20)       /* 1 MiB read again or written in excess */
#define LOW_SLIVER_NS (10000000LL)         /* or under 10 ms ... */
#define LOW_SLIVER_SHARE 0.02              /* ... and 2% of the process's modelled cost */
#define HIGH_MODEL_NS (100000000LL)        /* 100 ms: 50 syncs, or 300 MB copied */
#define HIGH_IO_SHARE 0.10                 /* 10% of the process's modelled cost ... */
#define HIGH_IO_SHARE_MIN_NS (10000000LL)  /* ... with at least 10 ms */
#define HIGH_EXCESS_BYTES (100LL << 20)    /* 100 MiB */

const char *issue_severity_name(int severity)
{
    return severity >= 0 && severity < ISSUE_NSEVERITIES ? severity_names[severity] : NULL;
}

int issue_severity_parse(const char *name)
{
    for (int i = 0; name && i < ISSUE_NSEVERITIES; i++)
        if (strcmp(name, severity_names[i]) == 0)
            return i;
    return -1;
}

void issue_cost_of(const struct rule *rule, const struct rule_report *r, struct issue_cost *c)
{
    struct rule_report rr;
    size_t n = rule->report_size ? rule->report_size : RULE_REPORT_SIZE_FIRST;

    /* only what the rule was built with: a plugin's older struct is smaller */
    memset(&rr, 0, sizeof(rr));
    memcpy(&rr, r, n < sizeof(rr) ? n : sizeof(rr));
    memset(c, 0, sizeof(*c));
    c->pid = r->s ? r->s->pid : 0;
    c->known = (rule->flags & RULE_F_STATES_COST) &&
               n >= offsetof(struct rule_report, handles) + sizeof(rr.handles);
    if (!c->known)
        return;
    c->has_time = rr.time_ns != RULE_NO_TIME;
    c->time_ns = rr.time_ns > 0 ? rr.time_ns : 0;
    /* a rule built before model_ns states none (its zero from the memset),
       nor does one that leaves it 0 or RULE_NO_TIME */
    c->has_model = n >= offsetof(struct rule_report, model_ns) + sizeof(rr.model_ns) &&
                   rr.model_ns > 0;
    c->model_ns = c->has_model ? rr.model_ns : 0;
    c->excess_bytes = rr.excess_bytes > 0 ? rr.excess_bytes : 0;
    c->excess_syncs = rr.excess_syncs > 0 ? rr.excess_syncs : 0;
    c->excess_opens = rr.excess_opens > 0 ? rr.excess_opens : 0;
    c->excess_calls = rr.excess_calls > 0 ? rr.excess_calls : 0;
    c->handles = rr.handles > 0 ? rr.handles : 0;
}

void issue_cost_add(struct issue_cost *dst, const struct issue_cost *src)
{
    dst->time_ns = iot_sadd(dst->time_ns, src->time_ns);
    dst->model_ns = iot_sadd(dst->model_ns, src->model_ns);
    dst->excess_bytes = iot_sadd(dst->excess_bytes, src->excess_bytes);
    dst->excess_syncs = iot_sadd(dst->excess_syncs, src->excess_syncs);
    dst->excess_opens = iot_sadd(dst->excess_opens, src->excess_opens);
    dst->excess_calls = iot_sadd(dst->excess_calls, src->excess_calls);
    dst->handles = iot_sadd(dst->handles, src->handles);
}

/* x rounded to 4 significant decimals, so that reports stay short */
static double round4(double x)
{
    return (double)(int64_t)(x * 10000.0 + 0.5) / 10000.0;
}

static int severity(const struct issue_cost *c, double share)
{
    if (!c->known)
        return ISSUE_MEDIUM;
    if ((c->has_model && (c->model_ns >= HIGH_MODEL_NS ||
                          (share >= HIGH_IO_SHARE && c->model_ns >= HIGH_IO_SHARE_MIN_NS))) ||
        c->excess_bytes >= HIGH_EXCESS_BYTES)
        return ISSUE_HIGH;
    /* low needs a modelled cost that is known to be negligible */
    if (c->has_model && c->excess_bytes < LOW_EXCESS_BYTES &&
        ((c->model_ns < LOW_MODEL_NS && share < LOW_IO_SHARE) ||
         (c->model_ns < LOW_SLIVER_NS && share < LOW_SLIVER_SHARE)))
        return ISSUE_LOW;
    return ISSUE_MEDIUM;
}

void issue_judge(struct issue *issue, const struct issue_cost *c, int64_t proc_model_ns,
                 int timing)
{
    struct issue_impact *im = &issue->impact;
    double share = 0;

    if (c->has_model && proc_model_ns > 0) {
        share = (double)c->model_ns / (double)proc_model_ns;
        share = share > 1 ? 1 : share;
    }
    *im = (struct issue_impact){0};
    /* the measured time: evidence, shown beside what judges */
    if (c->known && c->has_time) {
        im->has |= ISSUE_IMPACT_TIME;
        im->time_known = timing;
        im->time_ms = timing ? round4((double)c->time_ns / 1e6) : 0;
    }
    if (c->has_model) {
        im->has |= ISSUE_IMPACT_MODEL;
        im->model_ms = round4((double)c->model_ns / 1e6);
    }
    if (c->has_model && proc_model_ns > 0) {
        im->has |= ISSUE_IMPACT_SHARE;
        im->io_share = round4(share);
    }
    /* the figures the rule stated, each shown when it is not 0 */
    im->has |= (c->excess_bytes ? ISSUE_IMPACT_EXCESS_BYTES : 0) |
               (c->excess_syncs ? ISSUE_IMPACT_EXCESS_SYNCS : 0) |
               (c->excess_opens ? ISSUE_IMPACT_EXCESS_OPENS : 0) |
               (c->excess_calls ? ISSUE_IMPACT_EXCESS_CALLS : 0) |
               (c->handles ? ISSUE_IMPACT_HANDLES : 0);
    im->excess_bytes = c->excess_bytes;
    im->excess_syncs = c->excess_syncs;
    im->excess_opens = c->excess_opens;
    im->excess_calls = c->excess_calls;
    im->handles = c->handles;
    issue->severity = severity(c, share);
    issue->has |= ISSUE_HAS_IMPACT | ISSUE_HAS_SEVERITY;
}
