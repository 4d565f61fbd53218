/* ioanalyze [analyze]: issues (JSON) on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "cli.h"
#include "issue.h"
#include "msg.h"
#include "opt_parse.h"
#include "output_format.h"
#include "report.h"
#include "scope.h"

/* Color in the text report: on a terminal, unless NO_COLOR is set (no-color.org). */
static int want_color(void)
{
    const char *nc = getenv("NO_COLOR");

    return isatty(STDOUT_FILENO) && !(nc && *nc);
}

static int write_issues(const struct output_format *fmt, const struct output_issues *in)
{
    if (fmt->write_issues(stdout, in) < 0)
        return -1;
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}

/* The format an --output value "FORMAT=FILE" names; NULL when it names none. */
static const struct output_format *output_of(const char *value, const char **file)
{
    const char *eq = strchr(value, '=');
    char name[32];

    if (!eq || eq == value || !eq[1] || (size_t)(eq - value) >= sizeof(name))
        return NULL;
    snprintf(name, sizeof(name), "%.*s", (int)(eq - value), value);
    *file = eq + 1;
    return output_format_find(OUTPUT_ANALYZE, name);
}

/* -o takes FORMAT=FILE, FORMAT one of analyze's formats. */
static int check_output(const char *value)
{
    const char *file;
    char buf[96];

    if (!output_of(value, &file)) {
        iot_error("--output: expected FORMAT=FILE with FORMAT %s, not '%s'",
                  output_format_names(OUTPUT_ANALYZE, ", ", " or ", buf, sizeof(buf)), value);
        return 2;
    }
    return 0;
}

/* Each --output FORMAT=FILE, the same issues as stdout gets. 0, or -1
   after printing the error. */
static int write_outputs(const struct opt_list *outputs, const struct output_issues *in)
{
    for (size_t i = 0; i < outputs->n; i++) {
        const char *file;
        const struct output_format *fmt = output_of(outputs->v[i], &file);
        FILE *f = fopen(file, "w");
        struct output_issues plain = *in;

        plain.color = 0;  /* a file is no terminal */
        if (!f || fmt->write_issues(f, &plain) < 0 || ferror(f) || fclose(f) != 0) {
            iot_error("cannot write '%s': %s", file, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Whether a format in --output needs what writer fmt needs: the report or
   --source-root. */
static int outputs_need(const struct opt_list *outputs, int report)
{
    for (size_t i = 0; i < outputs->n; i++) {
        const char *file;
        const struct output_format *fmt = output_of(outputs->v[i], &file);

        if (report ? fmt->report : fmt->source_root)
            return 1;
    }
    return 0;
}

/* --min-severity takes a severity's name. */
static int check_severity(const char *level)
{
    if (issue_severity_parse(level) < 0) {
        iot_error("--min-severity: expected low, medium or high, not '%s'", level);
        return 2;
    }
    return 0;
}

/* --scope takes own or all. */
static int check_scope(const char *scope)
{
    if (issue_scope_parse(scope) < 0) {
        iot_error("--scope: expected own or all, not '%s'", scope);
        return 2;
    }
    return 0;
}

/* --jobs: a count of threads, 1 or more. */
static int check_jobs(const char *n)
{
    char *end;
    long v = strtol(n, &end, 10);

    if (end == n || *end || v < 1 || v > 1024) {
        iot_error("--jobs: expected a number of threads (1 or more), not '%s'", n);
        return 2;
    }
    return 0;
}

/* --format takes one of analyze's formats; another is refused where it is given. */
static int check_format(const char *format)
{
    char buf[96];

    if (!output_format_find(OUTPUT_ANALYZE, format)) {
        iot_error("--format: expected %s, not '%s'",
                  output_format_names(OUTPUT_ANALYZE, ", ", " or ", buf, sizeof(buf)), format);
        return 2;
    }
    return 0;
}

/* --each: its lines are JSON, and the per-run outputs have no place in it. */
static int run_each(const struct opt_cmd *cmd, const struct analyze_request *req,
                    struct analyze_opts *o, const char *format, const char *csv,
                    const struct opt_list *outputs, const char *baseline,
                    const char *min_severity, int fail_on)
{
    struct issue_list base = {0};
    char errbuf[IOT_ERRBUF_SIZE];
    int ret;

    if ((format && strcmp(format, "json") != 0) || csv || outputs->n) {
        opt_usage_error(cmd, "--each writes JSON lines on stdout: no --format but json, "
                             "no --output, no --csv");
        return 2;
    }
    if (baseline && issues_load_list(baseline, &base, errbuf) < 0) {
        issue_list_release(&base);
        iot_error("%s", errbuf);
        return 2;
    }
    ret = analyze_each(req, o, issue_severity_parse(min_severity), baseline ? &base : NULL,
                       fail_on);
    issue_list_release(&base);
    return ret;
}

int cmd_analyze(int argc, char **argv)
{
    struct opt_list inputs = {0}, sets = {0}, plugins = {0}, debug_dirs = {0}, outputs = {0};
    const char *format = NULL, *csv = NULL, *baseline = NULL, *source_root = ".";
    const char *min_severity = "medium", *scope = "all", *jobs = NULL;
    char *root = NULL, line[256];
    struct scope_outside outside = {0};
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 1, .progress = "ioanalyze analyze"};
    struct analyze_result res = {0};
    struct issue_list list = {0};
    struct report *rep = NULL;
    const struct output_format *fmt;
    char names[64], footer[1024];
    int fail_on = 0, each = 0, ret = 2, parsed;
    size_t suppressed = 0, hidden = 0;
    FILE *cf = NULL;
    const struct opt_spec opts[] = {
        {"config", 'c', "FILE", .value = &req.config_path,
         .help = "JSON configuration (see docs/analyzer.md)"},
        {"set", 0, "RULE.PARAM=VALUE", .list = &sets, .help = "override one parameter (repeatable)"},
        {"rules", 0, "LIST", .value = &o.only_rules, .help = "run only these rules (comma-separated)"},
        {"disable", 0, "LIST", .value = &o.disable_rules, .help = "skip these rules"},
        {"format", 'f', output_format_names(OUTPUT_ANALYZE, "|", "|", names, sizeof(names)),
         .value = &format, .check = check_format, .help = "how the issues are written (below)"},
        {"output", 'o', "FORMAT=FILE", .list = &outputs, .check = check_output,
         .help = "also write the issues in FORMAT to FILE (repeatable)"},
        {"csv", 0, "FILE", .value = &csv, .help = "also write the per-file profile (CSV)"},
        {"ci", 0, NULL, .flag = &req.untimed,
         .help = "accepted for existing pipelines: the judgement never rests on durations"},
        {"baseline", 0, "FILE", .value = &baseline,
         .help = "drop issues whose fingerprint is in FILE (an issues JSON)"},
        {"min-severity", 0, "low|medium|high", .value = &min_severity, .check = check_severity,
         .help = "show only issues at least this severe (default medium; the summary "
                 "counts the others)"},
        {"fail-on-issues", 0, NULL, .flag = &fail_on,
         .help = "exit 1 when at least one issue is shown"},
        {"strict", 0, NULL, .flag = &req.strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
        {"plugin", 0, "FILE.so", .list = &plugins, .help = "load extra rules (repeatable)"},
        {"source-root", 0, "DIR", .value = &source_root,
         .help = "where the program's sources are (SARIF locations, --scope own; default .)"},
        {"scope", 0, "own|all", .value = &scope, .check = check_scope,
         .help = "own: only findings of programs built under --source-root or with a frame "
                 "there, the others counted in one line; all (the default): every finding"},
        {"debug-dir", 0, "DIR", .list = &debug_dirs,
         .help = "also look for debug info by build-id in DIR/.build-id/ (repeatable)"},
        {"no-symbolize", 0, NULL, .flag = &req.no_symbolize,
         .help = "show stacks as recorded (no functions or lines from debug info)"},
        {"jobs", 'j', "N", .value = &jobs, .check = check_jobs,
         .help = "threads for a native trace: 1 reads and analyses on one; 2 or more "
                 "reads on one and analyses on another (default: 2 when 2 CPUs are free "
                 "by the load average, else 1); the output is the same"},
        {"each", 0, NULL, .flag = &each,
         .help = "analyse each INPUT on its own: one JSON line per input, its labels and "
                 "issues or why it could not be read"},
    };
    const struct opt_cmd cmd = {
        .name = "analyze",
        .synopsis = "[analyze] [OPTIONS] INPUT...",
        .about = "Replays the inputs through the rules and writes the issues on stdout.",
        OPT_SPECS(opts),
        .footer = footer,
        .needs_input = 1,
    };

    output_format_help(OUTPUT_ANALYZE, footer, sizeof(footer));
    snprintf(footer + strlen(footer), sizeof(footer) - strlen(footer),
             "\nExit: 0 done, 1 issues found with --fail-on-issues, 2 usage or input error.");
    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    req.inputs = inputs.v;
    req.ninputs = inputs.n;
    req.jobs = jobs ? atoi(jobs) : 0;
    req.sets = sets.v;
    req.nsets = sets.n;
    req.debug_dirs = debug_dirs.v;
    req.ndebug_dirs = debug_dirs.n;
    o.plugins = plugins.v;
    o.nplugins = plugins.n;
    if (each) {
        ret = run_each(&cmd, &req, &o, format, csv, &outputs, baseline, min_severity, fail_on);
        goto out;
    }
    /* JSON is what a pipe or file wants (the SPEC's main job); a person at a
       terminal wants the report */
    fmt = output_format_find(OUTPUT_ANALYZE,
                             format ? format : isatty(STDOUT_FILENO) ? "text" : "json");
    if (fmt->report || outputs_need(&outputs, 1)) {
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
    o.records = 1;
    if (analyze_run(&req, &o, &res) != 0)
        goto out;
    list = res.list;
    res.list = (struct issue_list){0};
    /* what the output does not show, the baseline and --fail-on-issues do
       not see either */
    hidden = issues_drop_below(&list, issue_severity_parse(min_severity));
    if (baseline) {
        struct issue_list base = {0};
        char errbuf[IOT_ERRBUF_SIZE];

        if (issues_load_list(baseline, &base, errbuf) < 0) {
            issue_list_release(&base);
            iot_error("%s", errbuf);
            goto out;
        }
        suppressed = issues_drop_baseline(&list, &base);
        issue_list_release(&base);
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
    if (!root && (fmt->source_root || outputs_need(&outputs, 0) ||
                  issue_scope_parse(scope) == SCOPE_OWN)) {
        iot_error("--source-root: cannot use '%s': %s", source_root, strerror(errno));
        goto out;
    }
    if (issue_scope_parse(scope) == SCOPE_OWN && issues_keep_own(&list, root, &outside) < 0) {
        iot_error("out of memory");
        goto out;
    }
    if (write_outputs(&outputs, &(struct output_issues){&list, rep, root, 0}) < 0)
        goto out;
    if (write_issues(fmt, &(struct output_issues){&list, rep, root, want_color()}) < 0) {
        iot_error("cannot write the issues: %s", strerror(errno));
        goto out;
    }
    analyze_summary(&list, &res, suppressed, hidden, issue_severity_parse(min_severity));
    if (outside.n)
        fprintf(stderr, "ioanalyze: %s (--scope all lists them)\n",
                scope_outside_line(&outside, line, sizeof(line)));
    ret = fail_on && list.n ? 1 : 0;
out:
    issue_list_release(&list);
    report_free(rep);
    profile_free(o.profile);
    free(inputs.v);
    free(sets.v);
    free(plugins.v);
    free(debug_dirs.v);
    free(outputs.v);
    free(root);
    return ret;
}
