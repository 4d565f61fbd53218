/*
 * `ioanalyze analyze --each`: every input analysed on its own, as if by its
 * own `ioanalyze analyze --format json`, in one process, one JSON line per
 * input. A fleet task (fleet/fleet_task.py) runs it over a batch of traces:
 * one process start for the batch rather than one (and a dump for the
 * labels of a trace with no issue) per trace. A directory INPUT stands for
 * the files in it that `ioanalyze DIR` would read: a line for each.
 *
 * An input's errors and warnings are filed in its own line (msg.h's sink),
 * so one input's failure is never another's and stderr says only what is
 * wrong with the run itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ci.h"
#include "cli.h"
#include "input.h"
#include "msg.h"
#include "registry.h"

/* Reals as the json format writes them (issues_json.c): the same numbers. */
#define EACH_REALS JSON_REAL_PRECISION(15)

/* One input's messages. */
struct each_msgs {
    json_t *errors;     /* array of strings */
    json_t *warnings;   /* array of strings */
};

static void each_collect(void *arg, int error, const char *text)
{
    struct each_msgs *m = arg;

    json_array_append_new(error ? m->errors : m->warnings, json_string(text));
}

/* The errors of an input that could not be analysed, in one string. */
static json_t *joined(const json_t *lines)
{
    char buf[2048];
    size_t i, len = 0;
    const json_t *v;

    buf[0] = '\0';
    json_array_foreach(lines, i, v) {
        int n = snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "; " : "",
                         json_string_value(v));

        if (n < 0 || (size_t)n >= sizeof(buf) - len)
            break;
        len += (size_t)n;
    }
    return json_string(len ? buf : "not analysed");
}

/* The line of one input: {"input", "ok", "damaged", "labels", "issues",
   "warnings"}, or {"input", "ok": false, "error", "warnings"}. */
static json_t *each_line(const char *input, int rc, struct analyze_result *res,
                         const struct issue_list *issues, struct each_msgs *m)
{
    json_t *line = json_object();

    json_object_set_new(line, "input", json_string(input));
    json_object_set_new(line, "ok", json_boolean(rc == 0));
    if (rc == 0) {
        json_object_set_new(line, "damaged", json_boolean(res->damaged));
        json_object_set(line, "labels", res->labels);
        json_object_set_new(line, "issues", issue_list_to_json(issues));
    } else {
        json_object_set_new(line, "error", joined(m->errors));
    }
    json_object_set(line, "warnings", m->warnings);
    return line;
}

/* One file's line; 0, or 2 when the run must stop (said on stderr). */
static int each_file(const struct analyze_request *req, const char *input,
                     const struct analyze_opts *each, int min_severity,
                     const struct issue_list *baseline, int *shown)
{
    struct analyze_request one = *req;
    struct analyze_result res;
    struct each_msgs m = {json_array(), json_array()};
    struct issue_list issues = {0};
    json_t *line;
    int rc, oom;

    if (!m.errors || !m.warnings) {
        json_decref(m.errors);
        json_decref(m.warnings);
        iot_error("out of memory");
        return 2;
    }
    one.inputs = &input;
    one.ninputs = 1;
    iot_msg_sink(each_collect, &m);
    rc = analyze_run(&one, each, &res);
    iot_msg_sink(NULL, NULL);
    /* the issues as records: what the severity cut and the baseline read */
    oom = rc == 0 && issue_list_from_json(&issues, res.issues) < 0;
    if (rc == 0 && !oom) {
        issues_drop_below(&issues, min_severity);
        if (baseline)
            issues_drop_baseline(&issues, baseline);
        *shown |= issues.n > 0;
    } else if (rc != 0 && res.setup_failed) {
        /* the configuration, not this input: said once, the run refused */
        size_t k;
        json_t *v;

        json_array_foreach(m.errors, k, v)
            iot_error("%s", json_string_value(v));
    }
    line = !oom && (rc == 0 || !res.setup_failed) ? each_line(input, rc, &res, &issues, &m)
                                                  : NULL;
    issue_list_release(&issues);
    json_decref(res.issues);
    json_decref(res.labels);
    json_decref(m.errors);
    json_decref(m.warnings);
    if (oom)
        iot_error("out of memory");
    if (!line)
        return 2;
    /* a line at a time: a task that reads them loses nothing written
       before a crash on a later input */
    rc = json_dumpf(line, stdout, JSON_COMPACT | EACH_REALS);
    json_decref(line);
    if (rc < 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
        iot_error("cannot write the results: %s", strerror(errno));
        return 2;
    }
    return 0;
}

int analyze_each(const struct analyze_request *req, struct analyze_opts *o, int min_severity,
                 const struct issue_list *baseline, int fail_on)
{
    struct analyze_opts each = *o;
    char errbuf[256];
    char **files;
    size_t nfiles;
    int shown = 0, rc = 0;

    /* a plugin registers its rules once for the whole run */
    for (size_t i = 0; i < o->nplugins; i++) {
        if (rules_load_plugin(o->plugins[i], errbuf) < 0) {
            iot_error("%s", errbuf);
            return 2;
        }
    }
    each.plugins = NULL;
    each.nplugins = 0;
    each.want_issues = 1;
    each.want_labels = 1;
    files = input_list_files(req->inputs, req->ninputs, &nfiles);
    if (!files)
        return 2;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = each_file(req, files[i], &each, min_severity, baseline, &shown);
    input_list_free(files, nfiles);
    if (rc)
        return rc;
    return fail_on && shown ? 1 : 0;
}
