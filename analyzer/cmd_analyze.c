/* ioanalyze [analyze]: issues (JSON) on stdout. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "cli.h"
#include "opt_parse.h"
#include "rule.h"

static void analyze_usage(FILE *f)
{
    fputs("usage: ioanalyze [analyze] [OPTIONS] INPUT...\n"
          "Replays the inputs through the rules and writes the issues on stdout.\n\n"
          "  --config FILE          JSON configuration (see docs/analyzer.md)\n"
          "  --set RULE.PARAM=VALUE override one parameter (repeatable)\n"
          "  --rules LIST           run only these rules (comma-separated)\n"
          "  --disable LIST         skip these rules\n"
          "  --format json|jsonl|sarif  a JSON array (default), one issue per line, SARIF 2.1.0\n"
          "  --csv FILE             also write the per-file profile (CSV)\n"
          "  --baseline FILE        drop issues whose fingerprint is in FILE (an issues JSON)\n"
          "  --fail-on-issues       exit 1 when at least one issue is reported\n"
          "  --strict               exit 2 on a damaged trace instead of a warning\n"
          "  --plugin FILE.so       load extra rules (repeatable)\n\n"
          "Exit: 0 done, 1 issues found with --fail-on-issues, 2 usage or input error.\n", f);
}

/* "small_buffer" -> "SmallBuffer" (SARIF's rule names) */
static char *camel(const char *s)
{
    char *out = malloc(strlen(s) + 1), *p = out;
    int up = 1;

    if (!out)
        return NULL;
    for (; *s; s++) {
        if (*s == '_') {
            up = 1;
            continue;
        }
        *p++ = up ? (char)toupper((unsigned char)*s) : *s;
        up = 0;
    }
    *p = 0;
    return out;
}

static int write_issues(const json_t *issues, const char *format)
{
    size_t i;
    json_t *v;

    if (strcmp(format, "jsonl") == 0) {
        json_array_foreach(issues, i, v) {
            json_dumpf(v, stdout, JSON_COMPACT);
            fputc('\n', stdout);
        }
    } else if (strcmp(format, "sarif") == 0) {
        size_t n;
        const struct rule *const *rules = rules_all(&n);
        struct sarif_rule *sr = calloc(n ? n : 1, sizeof(*sr));
        json_t *log;

        if (!sr)
            return -1;
        for (i = 0; i < n; i++)
            sr[i] = (struct sarif_rule){rules[i]->name, camel(rules[i]->name), rules[i]->summary,
                                        rules[i]->type};
        log = sarif_render(issues, sr, n);
        for (i = 0; i < n; i++)
            free((char *)sr[i].name);
        free(sr);
        if (!log)
            return -1;
        json_dumpf(log, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(log);
    } else {
        json_dumpf(issues, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

/* --format takes one of three; another is refused where it is given. */
static int check_format(const char *format)
{
    if (strcmp(format, "json") && strcmp(format, "jsonl") && strcmp(format, "sarif")) {
        fprintf(stderr, "ioanalyze: --format: expected json, jsonl or sarif, not '%s'\n", format);
        return 2;
    }
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    struct opt_list inputs = {0}, sets = {0}, plugins = {0};
    const char *format = "json", *csv = NULL, *baseline = NULL;
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 1, .progress = 1};
    struct analyze_result res = {0};
    int fail_on = 0, ret = 2, parsed;
    size_t suppressed = 0;
    FILE *cf = NULL;
    const struct opt_spec opts[] = {
        {"--fail-on-issues", .flag = &fail_on},
        {"--strict", .flag = &req.strict},
        {"--config", .value = &req.config_path},
        {"--set", .list = &sets},
        {"--rules", .value = &o.only_rules},
        {"--disable", .value = &o.disable_rules},
        {"--format", .value = &format, .check = check_format},
        {"--csv", .value = &csv},
        {"--baseline", .value = &baseline},
        {"--plugin", .list = &plugins},
    };

    parsed = opt_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), analyze_usage, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    req.inputs = inputs.v;
    req.ninputs = inputs.n;
    req.sets = sets.v;
    req.nsets = sets.n;
    o.plugins = plugins.v;
    o.nplugins = plugins.n;
    if (csv) {
        o.profile = profile_create();
        if (!o.profile)
            goto out;
    }
    if (analyze_run(&req, &o, &res) != 0)
        goto out;
    if (baseline) {
        json_t *base;
        char errbuf[256];

        if (issues_load(baseline, &base, errbuf) < 0) {
            fprintf(stderr, "ioanalyze: %s\n", errbuf);
            goto out;
        }
        suppressed = issues_drop_baseline(res.issues, base);
        json_decref(base);
    }
    if (csv) {
        cf = strcmp(csv, "-") == 0 ? stdout : fopen(csv, "w");
        if (!cf) {
            fprintf(stderr, "ioanalyze: cannot write '%s': %m\n", csv);
            goto out;
        }
        if (profile_write_csv(o.profile, cf) < 0 || (cf != stdout && fclose(cf) != 0)) {
            fprintf(stderr, "ioanalyze: cannot write '%s': %m\n", csv);
            goto out;
        }
    }
    if (write_issues(res.issues, format) < 0) {
        fprintf(stderr, "ioanalyze: cannot write the issues: %m\n");
        goto out;
    }
    analyze_summary(res.issues, &res, suppressed);
    ret = fail_on && json_array_size(res.issues) ? 1 : 0;
out:
    json_decref(res.issues);
    profile_free(o.profile);
    free(inputs.v);
    free(sets.v);
    free(plugins.v);
    return ret;
}
