/*
 * The rule registry: every built-in rule, listed once, then rules loaded
 * from plugins (--plugin FILE.so). Adding a built-in rule: one file, one
 * line in BUILTIN_RULES, then its documentation and tests (the checklist
 * in rules/TEMPLATE.md).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"

#define BUILTIN_RULES(X) \
    X(main_thread)       \
    X(small_buffer)      \
    X(repeat_read)       \
    X(leak)              \
    X(random_write)      \
    X(random_read)       \
    X(sync_storm)        \
    X(repeat_open)       \
    X(redundant_read)    \
    X(write_amplification) \
    X(metadata_storm)    \
    X(unobserved)

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

/* Plugins' rules, copied at load (see plugin_rule()); registry[] points here. */
static struct rule plugin_rules[MAX_RULES];
static size_t nplugin_rules;

/* 1 when plugin_rules[from..to) has a rule called name. */
static int plugin_named(size_t from, size_t to, const char *name)
{
    for (size_t i = from; i < to; i++)
        if (strcmp(plugin_rules[i].name, name) == 0)
            return 1;
    return 0;
}

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

const char *rules_fix(const char *name)
{
    const struct rule *r = name ? rules_find(name, strlen(name)) : NULL;

    return r ? r->fix : NULL;
}

/*
 * Plugin rule r as this ioanalyze sees it, in *out: the members r's size
 * covers, zero past them (rule.h, "The plugin ABI"). 0, or -1 with errbuf.
 */
static int plugin_rule(const char *path, size_t i, const struct rule *r, struct rule *out,
                       char *errbuf)
{
    const unsigned char *p, *end;

    if (r->abi != RULE_ABI_VERSION) {
        snprintf(errbuf, 256, "plugin '%s': rule ABI version %u, this ioanalyze needs %u",
                 path, r->abi, RULE_ABI_VERSION);
        return -1;
    }
    if (r->size < RULE_SIZE_FIRST) {
        snprintf(errbuf, 256, "plugin '%s': rule #%zu declares a size of %u bytes, less than "
                 "the first rule layout (%zu bytes)", path, i, r->size, (size_t)RULE_SIZE_FIRST);
        return -1;
    }
    memset(out, 0, sizeof(*out));
    memcpy(out, r, r->size < RULE_SIZE_KNOWN ? r->size : RULE_SIZE_KNOWN);
    end = (const unsigned char *)r + r->size;
    for (p = (const unsigned char *)r + RULE_SIZE_KNOWN; p < end; p++) {
        if (*p) {
            snprintf(errbuf, 256, "plugin '%s': rule '%.40s' sets members this ioanalyze "
                     "does not know (built for a newer one: %u bytes, this one knows %zu)",
                     path, out->name ? out->name : "?", r->size, (size_t)RULE_SIZE_KNOWN);
            return -1;
        }
    }
    if (!out->name || (!out->on_session && !out->on_path_call && !out->on_main_call &&
                        !out->on_unobserved) ||
        out->nparams > RULE_MAX_PARAMS) {
        snprintf(errbuf, 256, "plugin '%s': malformed rule #%zu", path, i);
        return -1;
    }
    return 0;
}

int rules_load_plugin(const char *path, char *errbuf)
{
    const struct rule *const *list;
    char here[4096];
    size_t n = 0;
    void *h;

    /* dlopen searches the library path for a name without a slash; a user
       who names a plugin means the file, so an existing one is loaded from
       where it is ("slow_file.so" in the current directory) */
    if (!strchr(path, '/') && access(path, F_OK) == 0 &&
        (size_t)snprintf(here, sizeof(here), "./%s", path) < sizeof(here))
        h = dlopen(here, RTLD_NOW | RTLD_LOCAL);
    else
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (!h) {
        snprintf(errbuf, 256, "cannot load plugin '%s': %s", path, dlerror());
        return -1;
    }
    list = (const struct rule *const *)dlsym(h, "ioscope_rules");
    if (!list) {
        snprintf(errbuf, 256, "plugin '%s' has no ioscope_rules[] table", path);
        goto fail;
    }
    /* every rule is checked before any is registered: a refused plugin adds none */
    for (; list[n]; n++) {
        struct rule *r;

        if (nregistry + n == MAX_RULES) {
            snprintf(errbuf, 256, "plugin '%s': too many rules", path);
            goto fail;
        }
        r = &plugin_rules[nplugin_rules + n];
        if (plugin_rule(path, n, list[n], r, errbuf) < 0)
            goto fail;
        if (rules_find(r->name, strlen(r->name)) ||
            plugin_named(nplugin_rules, nplugin_rules + n, r->name)) {
            snprintf(errbuf, 256, "plugin '%s': rule '%s' already exists", path, r->name);
            goto fail;
        }
    }
    for (size_t i = 0; i < n; i++)
        registry[nregistry++] = &plugin_rules[nplugin_rules++];
    /* The handle stays open: the rules' code lives in it until the program ends. */
    return 0;
fail:
    dlclose(h);
    return -1;
}
