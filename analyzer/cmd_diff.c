/*
 * ioanalyze diff [--config FILE] [--set R.P=V]... BASE NEW
 *
 * Compares two issue sets by fingerprint: an issue of NEW whose fingerprint
 * BASE lacks is new, one of BASE that NEW lacks is fixed, the rest are
 * unchanged. A problem that moved (another stack, another file) has another
 * fingerprint, so it counts as one new and one fixed. BASE and NEW are issue
 * files (JSON array or JSONL) or inputs, which are analysed first with the
 * given configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ci.h"
#include "cli.h"
#include "iotrace.h"

static void diff_usage(FILE *f)
{
    fputs("usage: ioanalyze diff [OPTIONS] BASE NEW\n"
          "Compares two issue sets by fingerprint and writes\n"
          "{\"new\":[...],\"fixed\":[...],\"unchanged\":N} on stdout.\n"
          "BASE and NEW are issue files written by 'ioanalyze analyze' (JSON or JSONL,\n"
          "'-' reads one from standard input) or inputs (trace, strace log, JSONL events,\n"
          "directory), which are analysed first.\n\n"
          "  --config FILE          configuration for analysing inputs\n"
          "  --set RULE.PARAM=VALUE override one parameter (repeatable)\n\n"
          "Exit: 0 nothing new, 1 something new, 2 usage or input error.\n", f);
}

/* 1 when path names an issues file rather than an input, -1 on error. */
static int is_issue_file(const char *path)
{
    char buf[4096];
    struct stat sb;
    size_t n;
    FILE *f;

    if (strcmp(path, "-") == 0)
        return 1;
    if (stat(path, &sb) < 0) {
        fprintf(stderr, "ioanalyze: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(sb.st_mode))
        return 0;
    if (!(f = fopen(path, "rb"))) {
        fprintf(stderr, "ioanalyze: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    return issues_detect(buf, n);
}

/* The issues of one side: 0, or 2 after printing the error. */
static int load_side(const char *path, const char *config, const char *const *sets,
                     size_t nsets, json_t **issues)
{
    char errbuf[IOT_ERRBUF_SIZE];
    int kind = is_issue_file(path);

    if (kind < 0)
        return 2;
    if (kind) {
        if (issues_load(path, issues, errbuf) < 0) {
            fprintf(stderr, "ioanalyze: %s\n", errbuf);
            return 2;
        }
        return 0;
    } else {
        struct analyze_request req = { 0 };
        req.inputs = &path;
        req.ninputs = 1;
        req.config_path = config;
        req.sets = sets;
        req.nsets = nsets;
        return analyze_collect(&req, issues) == 0 && *issues ? 0 : 2;
    }
}

/* "small_buffer 2, leak 1": counts of issues per rule, in first-seen order. */
static void print_rules(const json_t *issues)
{
    json_t *counts = json_object();
    const char *rule;
    json_t *v;
    size_t i;
    int first = 1;

    json_array_foreach(issues, i, v) {
        rule = json_string_value(json_object_get(v, "rule"));
        if (!rule)
            rule = "unknown";
        json_object_set_new(counts, rule,
                            json_integer(json_integer_value(json_object_get(counts, rule)) + 1));
    }
    json_object_foreach(counts, rule, v) {
        fprintf(stderr, "%s%s %lld", first ? "" : ", ", rule, (long long)json_integer_value(v));
        first = 0;
    }
    json_decref(counts);
}

int cmd_diff(int argc, char **argv)
{
    const char *config = NULL, *pos[2] = { NULL, NULL }, *val;
    const char **sets = calloc((size_t)argc + 1, sizeof(*sets));
    json_t *base = NULL, *next = NULL, *out = NULL;
    size_t nsets = 0, nnew = 0;
    int npos = 0, ret = 2, r, opts = 1;

    if (!sets) {
        fprintf(stderr, "ioanalyze: out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            diff_usage(stdout);
            ret = 0;
            goto out;
        } else if (opts && strcmp(a, "--") == 0) {
            opts = 0;
        } else if (opts && (r = opt_value(argc, argv, &i, "--config", &val))) {
            if (r < 0)
                goto out;
            config = val;
        } else if (opts && (r = opt_value(argc, argv, &i, "--set", &val))) {
            if (r < 0)
                goto out;
            sets[nsets++] = val;
        } else if (opts && a[0] == '-' && a[1]) {
            ret = opt_unknown("diff", a);
            goto out;
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "ioanalyze: diff takes two sets, BASE and NEW; '%s' is a third\n", a);
            goto out;
        }
    }
    if (npos != 2) {
        diff_usage(stderr);
        goto out;
    }
    if (strcmp(pos[0], "-") == 0 && strcmp(pos[1], "-") == 0) {
        fprintf(stderr, "ioanalyze: diff: only one of BASE and NEW can be standard input\n");
        goto out;
    }
    if (load_side(pos[0], config, sets, nsets, &base) || load_side(pos[1], config, sets, nsets, &next))
        goto out;
    if (!(out = json_object()) || issues_diff(base, next, out, &nnew) < 0) {
        fprintf(stderr, "ioanalyze: out of memory\n");
        goto out;
    }
    json_dumpf(out, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "ioanalyze: cannot write the diff: %s\n", strerror(errno));
        goto out;
    }
    fprintf(stderr, "diff: %zu new, %zu fixed, %lld unchanged", nnew,
            json_array_size(json_object_get(out, "fixed")),
            (long long)json_integer_value(json_object_get(out, "unchanged")));
    if (nnew) {
        fputs(" (new: ", stderr);
        print_rules(json_object_get(out, "new"));
        fputc(')', stderr);
    }
    fputc('\n', stderr);
    ret = nnew ? 1 : 0;
out:
    json_decref(base);
    json_decref(next);
    json_decref(out);
    free(sets);
    return ret;
}
