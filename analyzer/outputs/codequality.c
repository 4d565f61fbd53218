/*
 * The issues as a GitLab Code Quality report (output_format.h): a JSON
 * array of objects with description, check_name, fingerprint, severity and
 * location {path, lines.begin}, the report artifacts:reports:codequality
 * publishes to a merge request's widget (GitLab compares it with the
 * target branch's). `diff` writes the new issues only.
 *
 * location.path is relative to the project (--source-root): the first frame
 * whose source file lies under it, with its line; else the module under it
 * that made the call, or the executable the process ran, at line 1; else
 * the data file when it lies under it; else the process name (GitLab needs
 * a path; the gate's own-code scope leaves few such findings).
 *
 * Everything the writer reads of an issue goes through the accessors
 * below (str_of, line_of, frame list), so that it follows the issue's
 * representation in one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "issue.h"
#include "output_format.h"

static const char *str_of(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static json_int_t line_of(const json_t *frame)
{
    return json_integer_value(json_object_get(frame, "line"));
}

static const json_t *frames_of(const json_t *issue)
{
    return json_object_get(issue, "frames");
}

/* path relative to root, or NULL when it does not lie under it. */
static const char *relative(const char *path, const char *root)
{
    size_t n = root ? strlen(root) : 0;

    while (n > 1 && root[n - 1] == '/')
        n--;
    if (!path || !n || strncmp(path, root, n) != 0 || path[n] != '/' || !path[n + 1])
        return NULL;
    return path + n + 1;
}

/* GitLab's severities: info, minor, major, critical, blocker. ioscope's
   low is minor, medium major and high critical: none blocks by itself. */
static const char *quality_severity(const json_t *issue)
{
    static const char *const name[ISSUE_NSEVERITIES] = {
        [ISSUE_LOW] = "minor", [ISSUE_MEDIUM] = "major", [ISSUE_HIGH] = "critical",
    };

    return name[issue_severity_of(issue)];
}

/* Where the finding is, relative to root (see the head of the file). */
static const char *quality_path(const json_t *issue, const char *root, json_int_t *line)
{
    const json_t *f;
    const char *rel = NULL, *proc;
    size_t i;

    *line = 1;
    json_array_foreach(frames_of(issue), i, f) {
        rel = relative(str_of(f, "file"), root);
        if (rel && line_of(f) > 0) {
            *line = line_of(f);
            return rel;
        }
    }
    json_array_foreach(frames_of(issue), i, f)
        if ((rel = relative(str_of(f, "module"), root)) != NULL)
            return rel;
    if ((rel = relative(str_of(issue, "exe"), root)) != NULL ||
        (rel = relative(str_of(issue, "path"), root)) != NULL)
        return rel;
    proc = str_of(issue, "process");
    return proc && *proc ? proc : "unknown";
}

static json_t *quality_entry(const json_t *issue, const char *root)
{
    const char *msg = str_of(issue, "message"), *path = str_of(issue, "path");
    const char *rule = str_of(issue, "rule"), *fp = issue_key(issue), *where;
    json_int_t line;
    char *text = NULL;
    json_t *e;

    where = quality_path(issue, root, &line);
    if (asprintf(&text, "%s%s%s%s", msg && *msg ? msg : rule ? rule : "I/O issue",
                 path && *path ? " (file " : "", path && *path ? path : "",
                 path && *path ? ")" : "") < 0)
        return NULL;
    /* GitLab keys its comparison on the fingerprint: an issue without one
       (an old file) is keyed on what it says */
    e = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:{s:I}}}",
                  "description", text,
                  "check_name", rule ? rule : "unknown",
                  "fingerprint", fp ? fp : text,
                  "severity", quality_severity(issue),
                  "location", "path", where, "lines", "begin", line);
    free(text);
    return e;
}

static int write_quality(FILE *f, const json_t *issues, const char *root)
{
    json_t *out = json_array(), *issue;
    size_t i;
    int rc;

    if (!out)
        return -1;
    json_array_foreach(issues, i, issue)
        if (json_array_append_new(out, quality_entry(issue, root)) < 0) {
            json_decref(out);
            return -1;
        }
    rc = json_dumpf(out, f, JSON_INDENT(2));
    json_decref(out);
    return rc < 0 || fputc('\n', f) == EOF ? -1 : 0;
}

int issues_write_codequality(FILE *f, const struct output_issues *in)
{
    return write_quality(f, in->issues, in->source_root);
}

/* Only the new issues, as diff's SARIF. */
int diff_write_codequality(FILE *f, const struct output_diff *in)
{
    return write_quality(f, in->added, in->source_root);
}
