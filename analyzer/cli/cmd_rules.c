/* ioanalyze rules: every rule with its type, parameters and defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "msg.h"
#include "opt_parse.h"
#include "registry.h"
#include "rule.h"

static void print_value(const struct rule_param *p, double v)
{
    enum rule_ptype t = p->type;

    if (t == RULE_P_CHOICE) {
        const char *w;
        int len = config_choice_name(p, v, &w);

        printf("\"%.*s\"", len, w);
    } else if (t == RULE_P_BOOL)
        printf("%s", v ? "true" : "false");
    else if (t == RULE_P_INT)
        printf("%lld", (long long)v);
    else
        printf("%g", v);
}

/* As a config file takes it: the list is pasted into JSON, so '\\' and '"' are escaped. */
static void print_json_string(const char *sep, const char *s)
{
    fputs(sep, stdout);
    putchar('"');
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

int cmd_rules(int argc, char **argv)
{
    struct opt_list args = {0}, plugins = {0};
    size_t n;
    const struct rule *const *rules;
    int ret = 2, parsed;
    const struct opt_spec opts[] = {
        {"plugin", 0, "FILE.so", .list = &plugins, .help = "list the rules of a plugin too (repeatable)"},
    };
    const struct opt_cmd cmd = {
        .name = "rules",
        .synopsis = "rules [--plugin FILE.so]...",
        .about = "Lists every rule: name, issue type, parameters with their defaults.\n"
                 "Change a parameter with --set RULE.PARAM=VALUE or a --config file.",
        OPT_SPECS(opts),
    };

    parsed = opt_parse(&cmd, argc, argv, &args);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    if (args.n) {
        opt_usage_error(&cmd, "unexpected argument '%s'", args.v[0]);
        goto out;
    }
    for (size_t i = 0; i < plugins.n; i++) {
        char errbuf[256];

        if (rules_load_plugin(plugins.v[i], errbuf) < 0) {
            iot_error("%s", errbuf);
            goto out;
        }
    }
    rules = rules_all(&n);
    for (size_t i = 0; i < n; i++) {
        const struct rule *r = rules[i];

        printf("%s (type %d): %s\n", r->name, r->type, r->summary ? r->summary : "");
        printf("  %s.%-20s = true  (bool) run this rule\n", r->name, "enabled");
        for (size_t j = 0; j < r->nparams; j++) {
            const struct rule_param *p = &r->params[j];

            printf("  %s.%-20s = ", r->name, p->name);
            print_value(p, p->def);
            printf("  (%s) %s\n",
                   p->type == RULE_P_INT ? "int" : p->type == RULE_P_BOOL ? "bool"
                   : p->type == RULE_P_CHOICE ? "choice" : "number",
                   p->help);
        }
    }
    printf("global settings (config file keys):\n");
    printf("  continual_gap_ms = 8  calls closer than this (end to start) form one continual run\n");
    printf("  main_thread_names = []  PCRE2 patterns: threads with these names count as main\n");
    printf("  ignore_paths = [");
    for (size_t i = 0; i < config_ndefault_ignore; i++)
        print_json_string(i ? ", " : "", config_default_ignore[i]);
    printf("]  PCRE2: sessions on matching paths are not judged\n");
    printf("  normalize: always applied first, before the config's own patterns:\n");
    for (size_t i = 0; i < config_ndefault_normalize; i++)
        printf("    \"%s\" -> \"%s\"\n", config_default_normalize[i][0], config_default_normalize[i][1]);
    ret = 0;
out:
    free(args.v);
    free(plugins.v);
    return ret;
}
