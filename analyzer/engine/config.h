/*
 * config.h - the analysis configuration: rule parameters, the continual gap,
 * main thread names, ignored paths and normalisation patterns (SPEC
 * "Configuration"). Every rule parameter comes from its rule's param table,
 * so `ioanalyze rules`, --set and config validation agree by construction.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "rule.h"

struct config_re;  /* a compiled PCRE2 pattern (+ replacement) */
struct config_run; /* the PCRE2 limits and the first limit failure (config.c) */

struct config {
    const struct rule *const *rules;
    size_t nrules;
    int *enabled;                 /* per rule */
    double (*params)[RULE_MAX_PARAMS];
    int64_t gap_ns;               /* continual_gap_ms */
    struct config_re *main_names; size_t nmain_names;
    struct config_re *ignore;     size_t nignore;
    struct config_re *normalize;  size_t nnormalize;  /* defaults first */
    size_t ndefault_normalize;
    /* --ci, kept so that existing pipelines run: it changes nothing, as no
       judgement rests on a duration (the cost model, cost_model.h). */
    int untimed;
    /* Mutable through a const config: matching records its first failure
       here while the engine and issues hold the config as const. */
    struct config_run *run;
};

/* The defaults for every registered rule. 0, or -1 out of memory. */
int config_init(struct config *c);
void config_release(struct config *c);

/* Apply a JSON config file. 0, or -1 with a message naming the key in errbuf. */
int config_load_file(struct config *c, const char *path, char *errbuf);
/* Apply a JSON config text (for tests). */
int config_load_string(struct config *c, const char *text, const char *name, char *errbuf);
/* Apply "RULE.PARAM=VALUE". 0, or -1 with a message in errbuf. */
int config_set(struct config *c, const char *assignment, char *errbuf);
/* Enable only the comma-separated rules in list (only=1), or disable them (only=0). */
int config_select(struct config *c, const char *list, int only, char *errbuf);

int config_rule_index(const struct config *c, const char *name, size_t len);
/*
 * Every pattern is matched under a PCRE2 match and depth limit. A pattern
 * that exceeds one (a nested repeat such as "(a+)+" backtracking
 * exponentially) makes the configuration fail: the first such match is
 * recorded for config_failure(), and from then on every pattern matches
 * nothing and normalises nothing, so the rest of the run costs no CPU.
 */
/* 1 when path matches an ignore_paths pattern. */
int config_ignored(const struct config *c, const char *path);
/* 1 when a thread name matches main_thread_names. */
int config_main_name(const struct config *c, const char *name);
/* s after every normalize pattern in order; malloc'd, NULL when out of memory. */
char *config_normalize(const struct config *c, const char *s);
/* NULL, or the one-line message of the first match that exceeded a PCRE2
   limit, naming the pattern, its config file and the text: the run's
   results are incomplete and the caller must fail (exit 2). */
const char *config_failure(const struct config *c);

/*
 * RULE_P_CHOICE parameters (rule.h): the index of word (len bytes) among
 * p's words, -1 when it is none of them; and the word of index v, as a
 * length (its bytes at *word, not terminated).
 */
int config_choice(const struct rule_param *p, const char *word, size_t len);
int config_choice_name(const struct rule_param *p, double v, const char **word);

/* The default normalize patterns as pattern/replacement pairs (for docs and `rules`). */
extern const char *const config_default_normalize[][2];
extern const size_t config_ndefault_normalize;
extern const char *const config_default_ignore[];
extern const size_t config_ndefault_ignore;

#endif /* CONFIG_H */
