/*
 * The rule registry: every built-in rule, listed once, then rules loaded
 * from plugins (--plugin FILE.so). Adding a rule: one file + one line here.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "rule.h"

#define BUILTIN_RULES(X) \
    X(main_thread)       \
    X(small_buffer)      \
    X(repeat_read)       \
    X(leak)              \
    X(random_write)      \
    X(random_read)

#define RULE_DECL_(n) extern const struct rule rule_##n;
BUILTIN_RULES(RULE_DECL_)
#undef RULE_DECL_

#define MAX_RULES 64

/* The registry is a list of const rules, not rule state: one per program. */
static const struct rule *registry[MAX_RULES] = {
#define RULE_ENTRY_(n) &rule_##n,
    BUILTIN_RULES(RULE_ENTRY_)
#undef RULE_ENTRY_
};
static size_t nregistry = 0
#define RULE_COUNT_(n) + 1
    BUILTIN_RULES(RULE_COUNT_)
#undef RULE_COUNT_
    ;

const struct rule *const *rules_all(size_t *n)
{
    *n = nregistry;
    return registry;
}

const struct rule *rules_find(const char *name, size_t len)
{
    for (size_t i = 0; i < nregistry; i++)
        if (strlen(registry[i]->name) == len && memcmp(registry[i]->name, name, len) == 0)
            return registry[i];
    return NULL;
}

int rules_load_plugin(const char *path, char *errbuf)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const struct rule *const *list;

    if (!h) {
        snprintf(errbuf, 256, "cannot load plugin '%s': %s", path, dlerror());
        return -1;
    }
    list = (const struct rule *const *)dlsym(h, "ioscope_rules");
    if (!list) {
        snprintf(errbuf, 256, "plugin '%s' has no ioscope_rules[] table", path);
        dlclose(h);
        return -1;
    }
    for (size_t i = 0; list[i]; i++) {
        const struct rule *r = list[i];

        if (r->abi != RULE_ABI_VERSION) {
            snprintf(errbuf, 256, "plugin '%s': rule ABI version %u, this ioanalyze needs %u",
                     path, r->abi, RULE_ABI_VERSION);
            return -1;
        }
        if (!r->name || !r->on_session || r->nparams > RULE_MAX_PARAMS) {
            snprintf(errbuf, 256, "plugin '%s': malformed rule #%zu", path, i);
            return -1;
        }
        if (rules_find(r->name, strlen(r->name))) {
            snprintf(errbuf, 256, "plugin '%s': rule '%s' already exists", path, r->name);
            return -1;
        }
        if (nregistry == MAX_RULES) {
            snprintf(errbuf, 256, "plugin '%s': too many rules", path);
            return -1;
        }
        registry[nregistry++] = r;
    }
    /* The handle stays open: the rules live in it until the program ends. */
    return 0;
}
