/* ioanalyze [analyze]: issues (JSON) on stdout. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "cli.h"
#include "msg.h"
#include "opt_parse.h"
#include "rule.h"

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

static int write_issues(const json_t *issues, const char *format, const char *source_root)
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
                                        rules[i]->type, sarif_rule_fix(rules[i]->name)};
        log = sarif_render(issues, sr, n, source_root);
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
        iot_error("--format: expected json, jsonl or sarif, not '%s'", format);
        return 2;
    }
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    struct opt_list inputs = {0}, sets = {0}, plugins = {0}, debug_dirs = {0};
    const char *format = "json", *csv = NULL, *baseline = NULL, *source_root = ".";
    char *root = NULL;
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 1, .progress = 1};
    struct analyze_result res = {0};
    int fail_on = 0, ret = 2, parsed;
    size_t suppressed = 0;
    FILE *cf = NULL;
    const struct opt_spec opts[] = {
        {"config", 'c', "FILE", .value = &req.config_path,
         .help = "JSON configuration (see docs/analyzer.md)"},
        {"set", 0, "RULE.PARAM=VALUE", .list = &sets, .help = "override one parameter (repeatable)"},
        {"rules", 0, "LIST", .value = &o.only_rules, .help = "run only these rules (comma-separated)"},
        {"disable", 0, "LIST", .value = &o.disable_rules, .help = "skip these rules"},
        {"format", 'f', "json|jsonl|sarif", .value = &format, .check = check_format,
         .help = "a JSON array (default), one issue per line, SARIF 2.1.0"},
        {"csv", 0, "FILE", .value = &csv, .help = "also write the per-file profile (CSV)"},
        {"baseline", 0, "FILE", .value = &baseline,
         .help = "drop issues whose fingerprint is in FILE (an issues JSON)"},
        {"fail-on-issues", 0, NULL, .flag = &fail_on,
         .help = "exit 1 when at least one issue is reported"},
        {"strict", 0, NULL, .flag = &req.strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
        {"plugin", 0, "FILE.so", .list = &plugins, .help = "load extra rules (repeatable)"},
        {"source-root", 0, "DIR", .value = &source_root,
         .help = "where the program's sources are (SARIF locations; default .)"},
        {"debug-dir", 0, "DIR", .list = &debug_dirs,
         .help = "also look for debug info by build-id in DIR/.build-id/ (repeatable)"},
        {"no-symbolize", 0, NULL, .flag = &req.no_symbolize,
         .help = "show stacks as recorded (no functions or lines from debug info)"},
    };
    const struct opt_cmd cmd = {
        .name = "analyze",
        .synopsis = "[analyze] [OPTIONS] INPUT...",
        .about = "Replays the inputs through the rules and writes the issues on stdout.",
        OPT_SPECS(opts),
        .footer = "Exit: 0 done, 1 issues found with --fail-on-issues, 2 usage or input error.",
        .needs_input = 1,
    };

    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    req.inputs = inputs.v;
    req.ninputs = inputs.n;
    req.sets = sets.v;
    req.nsets = sets.n;
    req.debug_dirs = debug_dirs.v;
    req.ndebug_dirs = debug_dirs.n;
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
        char errbuf[IOT_ERRBUF_SIZE];

        if (issues_load(baseline, &base, errbuf) < 0) {
            iot_error("%s", errbuf);
            goto out;
        }
        suppressed = issues_drop_baseline(res.issues, base);
        json_decref(base);
    }
    if (csv) {
        cf = strcmp(csv, "-") == 0 ? stdout : fopen(csv, "w");
        if (!cf) {
            iot_error("cannot write '%s': %s", csv, strerror(errno));
            goto out;
        }
        if (profile_write_csv(o.profile, cf) < 0 || (cf != stdout && fclose(cf) != 0)) {
            iot_error("cannot write '%s': %s", csv, strerror(errno));
            goto out;
        }
    }
    root = realpath(source_root, NULL);
    if (!root && strcmp(format, "sarif") == 0) {
        iot_error("--source-root: cannot use '%s': %s", source_root, strerror(errno));
        goto out;
    }
    if (write_issues(res.issues, format, root) < 0) {
        iot_error("cannot write the issues: %s", strerror(errno));
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
    free(debug_dirs.v);
    free(root);
    return ret;
}
