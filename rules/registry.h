/*
 * registry.h - the rule registry (rules/registry.c), ioanalyze's own: not
 * part of the plugin interface (rule.h). Its functions are hidden, so that
 * ioanalyze, which exports its symbols to plugins (-rdynamic) for
 * rule_report, rule_again and rule_proc_threads, does not export these.
 */
#ifndef RULES_REGISTRY_H
#define RULES_REGISTRY_H

#include <stddef.h>

#include "rule.h"

#pragma GCC visibility push(hidden)

/* Built-in rules, then loaded plugins, in that order. */
const struct rule *const *rules_all(size_t *n);
const struct rule *rules_find(const char *name, size_t len);
/*
 * Load rules from a .so exporting `const struct rule *const ioscope_rules[]`
 * (NULL-terminated), under rule.h's ABI rules: each rule is copied, so the
 * registry holds full-size rules whatever size the plugin was built with.
 * 0, or -1 with a one-line message in errbuf (256 bytes); no rule of a
 * refused plugin is registered.
 */
int rules_load_plugin(const char *path, char *errbuf);
/* How to fix what rule `name` finds (struct rule's fix), or NULL. */
const char *rules_fix(const char *name);

#pragma GCC visibility pop

#endif /* RULES_REGISTRY_H */
