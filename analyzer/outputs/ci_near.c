/*
 * ci_near.c - which findings `diff --ci` counts as unchanged however they
 * moved (ci.h): those whose judgement the machine's load can move. Two
 * runs of one workload on a loaded machine differ in every duration and
 * in the gaps between calls, never in counts, bytes, syncs or opens. A
 * finding that rests on a duration or a time window is "near its
 * threshold" when its figures leave less than a factor of two of margin;
 * one judged on a duration alone, or on a ratio of times the issue does
 * not state, always is. The table below is the whole
 * list; docs/ci.md states it for users.
 */
#include <string.h>

#include "ci.h"
#include "config.h"

/* The value of rule's param in cfg, or def when either is unknown. */
static double param_of(const struct config *cfg, const char *rule, const char *param, double def)
{
    int ri = cfg ? config_rule_index(cfg, rule, strlen(rule)) : -1;

    if (ri < 0)
        return def;
    for (size_t j = 0; j < cfg->rules[ri]->nparams; j++)
        if (strcmp(cfg->rules[ri]->params[j].name, param) == 0)
            return cfg->params[ri][j];
    return def;
}

/* An integer of the issue's detail; 0 when it has none (or not an integer). */
static int64_t detail_int(const struct issue *issue, const char *key)
{
    const struct issue_value *v = issue_detail_get(issue->detail, key);

    return !v ? 0 : v->type == ISSUE_V_INT ? v->i : v->type == ISSUE_V_UINT ? (int64_t)v->u : 0;
}

/* The margin every count judged within a time window must clear. */
#define NEAR_FACTOR 2

/* main_thread: a call's or a run's duration, nothing else. */
static int main_thread_near(const struct issue *issue, const struct config *cfg)
{
    (void)issue;
    (void)cfg;
    return 1;
}

/* small_buffer: below min_ops_alone calls the time conditions decided it,
   unless the input had no durations (then "timing" says they were waived). */
static int small_buffer_near(const struct issue *issue, const struct config *cfg)
{
    return !issue_detail_get(issue->detail, "timing") &&
           (double)detail_int(issue, "syscalls") <
               param_of(cfg, "small_buffer", "min_ops_alone", 1000);
}

/* sync_storm: with enough bytes per sync it was the syncs' share of the
   file's I/O time that made it. */
static int sync_storm_near(const struct issue *issue, const struct config *cfg)
{
    return (double)detail_int(issue, "bytes_per_sync") >=
           param_of(cfg, "sync_storm", "max_bytes_per_sync", 65536);
}

/* repeat_read: re-reads count within window_ms of each other, so a slower
   run splits a run of re-reads in two; its first session was also judged
   on its continual time. */
static int repeat_read_near(const struct issue *issue, const struct config *cfg)
{
    return (double)detail_int(issue, "repeat_count") <
           NEAR_FACTOR * param_of(cfg, "repeat_read", "threshold", 5);
}

/* leak: handles abandoned in a loop are judged by how far their opens
   spread over the process's history to its last call on a file. Counted in
   calls (detail "spread_in"), load does not move it: near only when it is
   less than halfway from spread_pct to 100 (a program that opens a few
   more or fewer files in another run). In time (an issue file from an
   ioanalyze before), load moves it and the issue does not state it: always
   near. One handle, or a file opened again while held, is a count. */
static int leak_near(const struct issue *issue, const struct config *cfg)
{
    const char *shape = issue_detail_str(issue->detail, "shape");
    const char *in = issue_detail_str(issue->detail, "spread_in");
    double min = param_of(cfg, "leak", "spread_pct", 50);

    if (!shape || strcmp(shape, "abandoned") != 0 || detail_int(issue, "leaked") <= 1)
        return 0;
    return !in || strcmp(in, "calls") != 0 ||
           (double)detail_int(issue, "spread_pct") < min + (100 - min) / 2;
}

static const struct {
    const char *rule;
    int (*near)(const struct issue *issue, const struct config *cfg);
} near_rules[] = {
    {"main_thread", main_thread_near},
    {"small_buffer", small_buffer_near},
    {"sync_storm", sync_storm_near},
    {"repeat_read", repeat_read_near},
    {"leak", leak_near},
};

int issue_near_threshold(const struct issue *issue, const struct config *cfg)
{
    const char *rule = issue->rule;

    for (size_t i = 0; rule && i < sizeof(near_rules) / sizeof(near_rules[0]); i++)
        if (strcmp(near_rules[i].rule, rule) == 0)
            return near_rules[i].near(issue, cfg);
    return 0;
}

/* Moves the issues of from that are near their threshold to the end of to,
   keeping from's order. -1 out of memory: the issue that could not move is
   freed, the others are in from or to. */
static int move_near(struct issue_list *from, struct issue_list *to, const struct config *cfg)
{
    size_t kept = 0;
    int rc = 0;

    for (size_t i = 0; i < from->n; i++) {
        if (rc < 0 || !issue_near_threshold(from->v[i], cfg))
            from->v[kept++] = from->v[i];
        else if (issue_list_add(to, from->v[i]) < 0)
            rc = -1;
    }
    from->n = kept;
    return rc;
}

int issues_diff_near(struct issue_list *added, struct issue_list *fixed, struct issue_list *near,
                     const struct config *cfg)
{
    return move_near(added, near, cfg) < 0 || move_near(fixed, near, cfg) < 0 ? -1 : 0;
}
