/*
 * ioanalyze diff [--config FILE] [--set R.P=V]... [--format F] BASE NEW
 *
 * Compares two issue sets by fingerprint: an issue of NEW whose fingerprint
 * BASE lacks is new, one of BASE that NEW lacks is fixed, the rest are
 * unchanged. A problem that moved (another stack, another file) has another
 * fingerprint, so it counts as one new and one fixed. BASE and NEW are issue
 * files (JSON array or JSONL) or inputs, which are analysed first with the
 * given configuration.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ci.h"
#include "config.h"
#include "issue.h"
#include "cli.h"
#include "iotrace.h"
#include "msg.h"
#include "opt_parse.h"
#include "output_format.h"
#include "scope.h"
#include "spool.h"
#include "text.h"

/* 1 when path names an issues file rather than an input, -1 on error. */
static int is_issue_file(const char *path)
{
    char buf[4096];
    struct stat sb;
    size_t n;
    FILE *f;

    if (strcmp(path, "-") == 0)
        return 1;
    if (stat(path, &sb) < 0)
        return iot_error("cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return 0;
    if (!(f = fopen(path, "rb")))
        return iot_error("cannot open '%s': %s", path, strerror(errno));
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    return issues_detect(buf, n);
}

/*
 * A side given as a pipe or FIFO (bash's <(...)) is read twice, to tell what
 * it is and then to load or analyse it, and a pipe can be read once: it is
 * copied to an unnamed file first (spool.h, capped), read as /dev/fd/N.
 * Returns the path to read, path itself when it needs no copy, or NULL
 * after printing the error; *fd is the copy's descriptor (-1: none).
 */
static const char *side_path(const char *path, char *copy, size_t size, int *fd)
{
    struct stat sb;
    int src;

    *fd = -1;
    if (strcmp(path, "-") == 0 || stat(path, &sb) < 0 || S_ISREG(sb.st_mode) ||
        S_ISDIR(sb.st_mode))
        return path;
    src = open(path, O_RDONLY | O_CLOEXEC);
    if (src < 0) {
        iot_error("cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    *fd = iot_spool(src, NULL, 0, iot_spool_max());
    if (*fd < 0) {
        int err = errno;   /* before the message's own calls */
        char msg[PATH_MAX + 256];

        if (err == EFBIG) {
            iot_spool_too_big(msg, sizeof(msg), path, "a pipe given to diff");
            iot_error("%s", msg);
        } else
            iot_error("cannot read '%s': %s", path, strerror(err));
    }
    close(src);
    if (*fd < 0)
        return NULL;
    snprintf(copy, size, "/dev/fd/%d", *fd);
    return copy;
}

/* The issues in the file, or of the inputs, at path, as records: 0, or 2
   after printing the error. */
static int load_path(const char *path, const char *config, const char *const *sets,
                     size_t nsets, int untimed, struct issue_list *issues)
{
    char errbuf[IOT_ERRBUF_SIZE];
    int kind = is_issue_file(path);

    if (kind < 0)
        return 2;
    if (kind) {
        if (issues_load_list(path, issues, errbuf) < 0) {
            iot_error("%s", errbuf);
            return 2;
        }
        return 0;
    } else {
        struct analyze_request req = { 0 };
        struct analyze_opts o = {.want_issues = 1, .progress = "ioanalyze diff", .records = 1};
        struct analyze_result res;

        req.inputs = &path;
        req.ninputs = 1;
        req.config_path = config;
        req.sets = sets;
        req.nsets = nsets;
        req.untimed = untimed;
        if (analyze_run(&req, &o, &res) != 0)
            return 2;
        *issues = res.list;
        return 0;
    }
}

/* The issues of one side: 0, or 2 after printing the error. */
static int load_side(const char *given, const char *config, const char *const *sets,
                     size_t nsets, int untimed, struct issue_list *issues)
{
    char copy[32];
    int fd, rc;
    const char *path = side_path(given, copy, sizeof(copy), &fd);

    if (!path)
        return 2;
    rc = load_path(path, config, sets, nsets, untimed, issues);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* "small_buffer 2, leak 1": counts of issues per rule, in first-seen order. */
static void print_rules(const struct issue_list *issues)
{
    json_t *counts = json_object();   /* rule -> count, in first-seen order */
    const char *rule;
    json_t *v;
    int first = 1;

    for (size_t i = 0; i < issues->n; i++) {
        rule = issues->v[i]->rule;
        if (!rule)
            rule = "unknown";
        json_object_set_new(counts, rule,
                            json_integer(json_integer_value(json_object_get(counts, rule)) + 1));
    }
    json_object_foreach(counts, rule, v) {
        char shown[256];

        /* an issue file's rule names are not ours: shown safely */
        fprintf(stderr, "%s%s %lld", first ? "" : ", ", iot_text_safe(shown, sizeof(shown), rule),
                (long long)json_integer_value(v));
        first = 0;
    }
    json_decref(counts);
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

/*
 * The diff as the output shows it: a new or fixed issue below min_severity
 * is left out. Each side was matched against every issue of the other,
 * whatever its severity, so an issue that merely crossed a threshold
 * between two runs is neither new nor fixed.
 */
static void diff_drop_below(struct issue_list *added, struct issue_list *fixed, int min_severity,
                            size_t *nnew)
{
    issues_drop_below(added, min_severity);
    issues_drop_below(fixed, min_severity);
    *nnew = added->n;
}

/*
 * --ci: the new and fixed issues near their threshold (ci.h) go to near,
 * judged with the thresholds --config and --set give. 0, or -1 after
 * printing the error.
 */
static int diff_near(struct issue_list *added, struct issue_list *fixed, struct issue_list *near,
                     const char *config, const struct opt_list *sets)
{
    struct config cfg;
    char errbuf[256];
    int rc = -1;

    if (config_init(&cfg) < 0) {
        iot_error("out of memory");
        return -1;
    }
    if (config && config_load_file(&cfg, config, errbuf) < 0)
        goto fail;
    for (size_t i = 0; i < sets->n; i++)
        if (config_set(&cfg, sets->v[i], errbuf) < 0)
            goto fail;
    rc = issues_diff_near(added, fixed, near, &cfg);
    if (rc < 0)
        iot_error("out of memory");
    config_release(&cfg);
    return rc;
fail:
    iot_error("%s", errbuf);
    config_release(&cfg);
    return -1;
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

/* --format takes one of diff's formats. */
static int check_format(const char *format)
{
    char buf[96];

    if (!output_format_find(OUTPUT_DIFF, format)) {
        iot_error("--format: expected %s, not '%s'",
                  output_format_names(OUTPUT_DIFF, ", ", " or ", buf, sizeof(buf)), format);
        return 2;
    }
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    const char *config = NULL, *pos[2] = { NULL, NULL }, *min_severity = "medium";
    const char *format = "json", *source_root = ".", *scope = "all";
    struct scope_outside base_out, outside = {0};
    char line[256] = "";
    struct opt_list args = { 0 }, sets = { 0 };
    struct issue_list lists[4] = {{0}};  /* new, fixed, kept, near */
    struct issue_list sides[2] = {{0}};  /* base, next */
    const struct output_format *fmt;
    char *root = NULL;
    char names[64], footer[1024];
    size_t nnew = 0;
    int ret = 2, parsed, ci = 0;
    const struct opt_spec opts[] = {
        {"config", 'c', "FILE", .value = &config, .help = "configuration for analysing inputs"},
        {"set", 0, "RULE.PARAM=VALUE", .list = &sets, .help = "override one parameter (repeatable)"},
        {"min-severity", 0, "low|medium|high", .value = &min_severity, .check = check_severity,
         .help = "list only new and fixed issues at least this severe (default medium)"},
        {"format", 'f', output_format_names(OUTPUT_DIFF, "|", "|", names, sizeof(names)),
         .value = &format, .check = check_format, .help = "how the diff is written (below)"},
        {"source-root", 0, "DIR", .value = &source_root,
         .help = "where the program's sources are (SARIF locations, --scope own; default .)"},
        {"scope", 0, "own|all", .value = &scope, .check = check_scope,
         .help = "own: compare only findings of programs built under --source-root or with "
                 "a frame there; all (the default): every finding"},
        {"ci", 0, NULL, .flag = &ci,
         .help = "a finding near its threshold is unchanged (analysis is the same with or without it)"},
    };
    const struct opt_cmd cmd = {
        .name = "diff",
        .synopsis = "diff [OPTIONS] BASE NEW",
        .about = "Compares two issue sets by fingerprint and writes the new, fixed and\n"
                 "unchanged issues on stdout (--format json: {\"new\":[...],\"fixed\":[...],\n"
                 "\"unchanged\":N}). BASE and NEW are issue files written by 'ioanalyze\n"
                 "analyze' (JSON or JSONL, '-' reads one from standard input) or inputs\n"
                 "(trace, strace log, JSONL events, directory), which are analysed first.",
        OPT_SPECS(opts),
        .footer = footer,
    };

    output_format_help(OUTPUT_DIFF, footer, sizeof(footer));
    snprintf(footer + strlen(footer), sizeof(footer) - strlen(footer),
             "\nExit: 0 nothing new, 1 something new, 2 usage or input error.");
    parsed = opt_parse(&cmd, argc, argv, &args);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    if (args.n > 2) {
        opt_usage_error(&cmd, "diff takes two sets, BASE and NEW: '%s' is a third", args.v[2]);
        goto out;
    }
    if (args.n != 2) {
        opt_usage_error(&cmd, args.n ? "diff takes two sets, BASE and NEW: only '%s' is given"
                                     : "diff takes two sets, BASE and NEW: none is given",
                        args.n ? args.v[0] : "");
        goto out;
    }
    pos[0] = args.v[0];
    pos[1] = args.v[1];
    if (strcmp(pos[0], "-") == 0 && strcmp(pos[1], "-") == 0) {
        opt_usage_error(&cmd, "only one of BASE and NEW can be standard input");
        goto out;
    }
    fmt = output_format_find(OUTPUT_DIFF, format);
    root = realpath(source_root, NULL);
    if (!root && (fmt->source_root || issue_scope_parse(scope) == SCOPE_OWN)) {
        iot_error("--source-root: cannot use '%s': %s", source_root, strerror(errno));
        goto out;
    }
    /* each side's issues as records, then matched by fingerprint */
    if (load_side(pos[0], config, sets.v, sets.n, ci, &sides[0]) ||
        load_side(pos[1], config, sets.v, sets.n, ci, &sides[1]))
        goto out;
    if (issue_scope_parse(scope) == SCOPE_OWN &&
        (issues_keep_own(&sides[0], root, &base_out) < 0 ||
         issues_keep_own(&sides[1], root, &outside) < 0)) {
        iot_error("out of memory");
        goto out;
    }
    scope_outside_line(&outside, line, sizeof(line));
    if (issues_diff(&sides[0], &sides[1], &lists[0], &lists[1], &lists[2]) < 0) {
        iot_error("out of memory");
        goto out;
    }
    if (ci && diff_near(&lists[0], &lists[1], &lists[3], config, &sets) < 0)
        goto out;
    diff_drop_below(&lists[0], &lists[1], issue_severity_parse(min_severity), &nnew);
    if (fmt->write_diff(stdout, &(struct output_diff){&lists[0], &lists[1], &lists[2], &lists[3],
                                                      root, line}) < 0 ||
        fflush(stdout) != 0 || ferror(stdout)) {
        iot_error("cannot write the diff: %s", strerror(errno));
        goto out;
    }
    fprintf(stderr, "diff: %zu new, %zu fixed, %zu unchanged", nnew, lists[1].n,
            lists[2].n + lists[3].n);
    if (nnew) {
        fputs(" (new: ", stderr);
        print_rules(&lists[0]);
        fputc(')', stderr);
    }
    fputc('\n', stderr);
    if (*line)
        fprintf(stderr, "diff: %s (--scope all lists them)\n", line);
    ret = nnew ? 1 : 0;
out:
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        issue_list_release(&lists[i]);
    issue_list_release(&sides[0]);
    issue_list_release(&sides[1]);
    free(root);
    free(args.v);
    free(sets.v);
    return ret;
}
