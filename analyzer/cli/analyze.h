/*
 * analyze.h - the analyze pipeline as a function: inputs in, issues out.
 *
 * Used by `ioanalyze analyze` and by `ioanalyze diff` (which analyses inputs
 * that are not issue files before diffing them).
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include <stddef.h>
#include <jansson.h>

struct analyze_request {
    const char *const *inputs; size_t ninputs;   /* INPUT paths ("-" = stdin, dirs allowed) */
    const char *config_path;                      /* NULL = none */
    const char *const *sets; size_t nsets;        /* "RULE.PARAM=VALUE" strings */
    const char *const *debug_dirs; size_t ndebug_dirs;  /* --debug-dir: .build-id/ trees */
    int strict;
    int no_symbolize;                             /* stacks as recorded (--no-symbolize) */
    int untimed;                                  /* --ci: judge without durations (config.h) */
    int jobs;                                     /* -j: threads for a lone native trace
                                                     (analyze_threads; 0: the default) */
};

/* Analyze the inputs; *issues gets the final array (fingerprinted, de-duplicated, sorted). Prints its own
   errors and warnings ("ioanalyze: ..."). Returns 0, or 2 on usage/input error (*issues NULL). */
int analyze_collect(const struct analyze_request *req, json_t **issues);

#endif /* ANALYZE_H */
