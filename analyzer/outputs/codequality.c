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
 * The writer reads the issues as records (issue_rec.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "issue.h"
#include "issue_rec.h"
#include "output_format.h"
#include "scope.h"

/* GitLab's severities: info, minor, major, critical, blocker. ioscope's
   low is minor, medium major and high critical: none blocks by itself. */
static const char *quality_severity(const struct issue *issue)
{
    static const char *const name[ISSUE_NSEVERITIES] = {
        [ISSUE_LOW] = "minor", [ISSUE_MEDIUM] = "major", [ISSUE_HIGH] = "critical",
    };

    return issue->severity >= 0 && issue->severity < ISSUE_NSEVERITIES
               ? name[issue->severity] : "major";
}

/* Where the finding is, relative to root (see the head of the file). */
static const char *quality_path(const struct issue *issue, const char *root, int64_t *line)
{
    const struct issue_frames *fr = &issue->frames;
    const char *rel;
    size_t i;

    *line = 1;
    for (i = 0; i < fr->n; i++) {
        rel = path_below(fr->v[i].file, root);
        if (rel && fr->v[i].line > 0) {
            *line = fr->v[i].line;
            return rel;
        }
    }
    for (i = 0; i < fr->n; i++)
        if ((rel = path_below(fr->v[i].module, root)) != NULL)
            return rel;
    if ((rel = path_below(issue->exe, root)) != NULL ||
        (rel = path_below(issue->path, root)) != NULL)
        return rel;
    return issue->process && *issue->process ? issue->process : "unknown";
}

static json_t *quality_entry(const struct issue *issue, const char *root)
{
    const char *msg = issue->message, *path = issue->path;
    const char *rule = issue->rule, *fp = issue->fingerprint, *where;
    int64_t line;
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
                  "location", "path", where, "lines", "begin", (json_int_t)line);
    free(text);
    return e;
}

static int write_quality(FILE *f, const struct issue_list *issues, const char *root)
{
    json_t *out = json_array();
    int rc;

    if (!out)
        return -1;
    for (size_t i = 0; issues && i < issues->n; i++)
        if (json_array_append_new(out, quality_entry(issues->v[i], root)) < 0) {
            json_decref(out);
            return -1;
        }
    rc = json_dumpf(out, f, JSON_INDENT(2));
    json_decref(out);
    return rc < 0 || fputc('\n', f) == EOF ? -1 : 0;
}

int issues_write_codequality(FILE *f, const struct output_issues *in)
{
    return write_quality(f, in->list, in->source_root);
}

/* Only the new issues, as diff's SARIF. */
int diff_write_codequality(FILE *f, const struct output_diff *in)
{
    return write_quality(f, in->added, in->source_root);
}
