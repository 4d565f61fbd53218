/*
 * cli.h - what the ioanalyze subcommands share: their entry points (one file
 * each, dispatched from main.c's table) and the analysis they run. Their
 * options are parsed by opt_parse.h.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analyze.h"
#include "engine.h"
#include "issue_rec.h"
#include "profile.h"

/* The subcommands (argv[0] is the command's name); each returns its exit status. */
int cmd_analyze(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_fleet(int argc, char **argv);

/* The full analysis with what the CLI needs beyond analyze_collect(). */
struct analyze_opts {
    const char *const *plugins; size_t nplugins;
    const char *only_rules;     /* --rules LIST */
    const char *disable_rules;  /* --disable LIST */
    int want_issues;            /* run the rules */
    int want_labels;            /* with want_issues: fill res->labels */
    struct profile *profile;    /* when set, filled */
    const char *progress;       /* the label of the progress line while the
                                   inputs are read ("ioanalyze dump"; progress.h),
                                   NULL none */
    /* when set, called with every event just before the engine gets it
       (the reports: report.h); e answers engine_call_path() for it */
    void (*observe)(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n);
    void *observe_arg;
    int records;                /* with want_issues: the issues as records in
                                   res->list, res->issues NULL */
};

struct analyze_result {
    json_t *issues;             /* new reference (NULL when !want_issues) */
    json_t *labels;             /* the input's labels, an object (new reference;
                                   NULL unless want_labels) */
    struct engine_stats stats;
    int no_timing;              /* some calls had no durations */
    int damaged;                /* a native input was damaged */
    int setup_failed;           /* the failure was the configuration's or a
                                   plugin's, not the input's: every input would
                                   fail alike */
    size_t frames, unresolved;  /* distinct stack frames looked up, and those
                                   no function was found for */
    char jit_hints[512];        /* symbolizer_jit_hints' ("" for none) */
    /* The issues as the engine made them (records, issue_rec.h), when
       o->records: fingerprinted, de-duplicated, sorted; the caller
       releases it. Without o->records, res->issues holds them as JSON. */
    struct issue_list list;
};

/* 0, or 2 after printing the error. */
int analyze_run(const struct analyze_request *req, const struct analyze_opts *o,
                struct analyze_result *res);

/* `ioanalyze analyze --each`: each input analysed on its own, one JSON line
   per input on stdout (docs/analyzer.md, "Each input on its own"); an
   input that cannot be read is a line, not a failure. o's plugins are
   loaded here, once. Returns 0, 1 with fail_on when an issue is shown, 2
   after printing the error when the configuration or a plugin is refused
   or stdout cannot be written. */
int analyze_each(const struct analyze_request *req, struct analyze_opts *o, int min_severity,
                 const struct issue_list *baseline, int fail_on);

/* "3 issues (small_buffer 2, leak 1)"-style one-line summary on stderr;
   hidden: the issues below min_severity (issue.h) left out. */
void analyze_summary(const struct issue_list *issues, const struct analyze_result *res,
                     size_t suppressed, size_t hidden, int min_severity);

#endif /* CLI_H */
