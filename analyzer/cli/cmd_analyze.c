/* ioanalyze [analyze]: issues (JSON) on stdout. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "cli.h"
#include "msg.h"
#include "opt_parse.h"
#include "registry.h"
#include "report.h"
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

/* --format's choices, declared once: the option's help, its check and the
   writer follow this table. report: the format shows the collector's sums. */
enum format { FMT_JSON, FMT_JSONL, FMT_SARIF, FMT_TEXT, FMT_HTML };
static const struct {
    const char *name;
    int report;
} formats[] = {
    [FMT_JSON] = {"json", 0},
    [FMT_JSONL] = {"jsonl", 0},
    [FMT_SARIF] = {"sarif", 0},
    [FMT_TEXT] = {"text", 1},
    [FMT_HTML] = {"html", 1},
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static int format_of(const char *name)
{
    return opt_choice_of(formats, NFORMATS, sizeof(formats[0]), name);
}

/* "json|jsonl|sarif|text|html" (--help) */
static const char *format_names(void)
{
    static char buf[64];

    return opt_choices(formats, NFORMATS, sizeof(formats[0]), "|", "|", buf, sizeof(buf));
}

static int write_sarif(const json_t *issues, const char *source_root)
{
    size_t n, i;
    const struct rule *const *rules = rules_all(&n);
    struct sarif_rule *sr = calloc(n ? n : 1, sizeof(*sr));
    json_t *log;

    if (!sr)
        return -1;
    for (i = 0; i < n; i++)
        sr[i] = (struct sarif_rule){rules[i]->name, camel(rules[i]->name), rules[i]->summary,
                                    rules[i]->type, rules[i]->fix};
    log = sarif_render(issues, sr, n, source_root);
    for (i = 0; i < n; i++)
        free((char *)sr[i].name);
    free(sr);
    if (!log)
        return -1;
    json_dumpf(log, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(log);
    return 0;
}

/* Color in the text report: on a terminal, unless NO_COLOR is set (no-color.org). */
static int want_color(void)
{
    const char *nc = getenv("NO_COLOR");

    return isatty(STDOUT_FILENO) && !(nc && *nc);
}

static int write_issues(const json_t *issues, int format, const char *source_root,
                        const struct report *rep)
{
    size_t i;
    json_t *v;

    switch (format) {
    case FMT_JSONL:
        json_array_foreach(issues, i, v) {
            json_dumpf(v, stdout, JSON_COMPACT);
            fputc('\n', stdout);
        }
        break;
    case FMT_SARIF:
        if (write_sarif(issues, source_root) < 0)
            return -1;
        break;
    case FMT_TEXT:
        return report_text(stdout, rep, issues, want_color());
    case FMT_HTML:
        return report_html(stdout, rep, issues);
    default:
        json_dumpf(issues, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        break;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

/* --format takes one of the table's; another is refused where it is given. */
static int check_format(const char *format)
{
    char buf[96];

    if (format_of(format) < 0) {
        iot_error("--format: expected %s, not '%s'",
                  opt_choices(formats, NFORMATS, sizeof(formats[0]), ", ", " or ", buf, sizeof(buf)),
                  format);
        return 2;
    }
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    struct opt_list inputs = {0}, sets = {0}, plugins = {0}, debug_dirs = {0};
    const char *format = NULL, *csv = NULL, *baseline = NULL, *source_root = ".";
    char *root = NULL;
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 1, .progress = "ioanalyze analyze"};
    struct analyze_result res = {0};
    struct report *rep = NULL;
    int fmt, fail_on = 0, ret = 2, parsed;
    size_t suppressed = 0;
    FILE *cf = NULL;
    const struct opt_spec opts[] = {
        {"config", 'c', "FILE", .value = &req.config_path,
         .help = "JSON configuration (see docs/analyzer.md)"},
        {"set", 0, "RULE.PARAM=VALUE", .list = &sets, .help = "override one parameter (repeatable)"},
        {"rules", 0, "LIST", .value = &o.only_rules, .help = "run only these rules (comma-separated)"},
        {"disable", 0, "LIST", .value = &o.disable_rules, .help = "skip these rules"},
        {"format", 'f', format_names(), .value = &format, .check = check_format,
         .help = "issues as JSON (default into a pipe or file), JSONL, SARIF; or a report: "
                 "text (default on a terminal), html"},
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
    /* JSON is what a pipe or file wants (the SPEC's main job); a person at a
       terminal wants the report */
    fmt = format ? format_of(format) : isatty(STDOUT_FILENO) ? FMT_TEXT : FMT_JSON;
    if (formats[fmt].report) {
        rep = report_create();
        if (!rep) {
            iot_error("out of memory");
            goto out;
        }
        o.observe = report_observe;
        o.observe_arg = rep;
    }
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
    if (!root && fmt == FMT_SARIF) {
        iot_error("--source-root: cannot use '%s': %s", source_root, strerror(errno));
        goto out;
    }
    if (write_issues(res.issues, fmt, root, rep) < 0) {
        iot_error("cannot write the issues: %s", strerror(errno));
        goto out;
    }
    analyze_summary(res.issues, &res, suppressed);
    ret = fail_on && json_array_size(res.issues) ? 1 : 0;
out:
    json_decref(res.issues);
    report_free(rep);
    profile_free(o.profile);
    free(inputs.v);
    free(sets.v);
    free(plugins.v);
    free(debug_dirs.v);
    free(root);
    return ret;
}
