/*
 * The diff as JUnit XML (output_format.h), which CI dashboards (GitLab's
 * test reports, Jenkins, GitHub test-report actions) read: one test case
 * per fingerprint of either side, named by rule, file (relative to the
 * source root when it lies under it, as the project's files are named in
 * the dashboard) and fingerprint; a
 * new issue's case fails, an unchanged or fixed one passes (a fixed one
 * says so in its output). Issues sharing a fingerprint are one case; one
 * without a fingerprint is a case of its own.
 */
#include <string.h>

#include "ci.h"
#include "issue.h"
#include "output_format.h"
#include "scope.h"
#include "text.h"

/*
 * s as XML character data or attribute text: escaped as text shows it
 * (text.h: no control character is left, which XML 1.0 could not hold),
 * then the five markup characters as entities.
 */
static void xml_text(FILE *f, const char *s)
{
    char buf[IOT_TEXT_MAX];

    for (const char *p = iot_text_safe(buf, sizeof(buf), s ? s : ""); *p; p++)
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(*p, f);
        }
}

/* path relative to root when it lies under it, else path. */
static const char *project_path(const char *path, const char *root)
{
    const char *rel = path_below(path, root);

    return rel ? rel : path;
}

enum outcome { CASE_NEW, CASE_UNCHANGED, CASE_FIXED };

/* One case per fingerprint: seen holds the fingerprints written. 1 when
   issue's case is written now, 0 when its fingerprint already had one. */
static int junit_case(FILE *f, const struct issue *issue, enum outcome outcome, json_t *seen,
                      const char *root)
{
    const char *path = project_path(issue->path, root);
    const char *key = issue->fingerprint;
    char top[1024];

    if (key) {
        if (json_object_get(seen, key))
            return 0;
        json_object_set_new(seen, key, json_true());
    }
    fputs("    <testcase classname=\"ioscope.", f);
    xml_text(f, issue->rule);
    fputs("\" name=\"", f);
    xml_text(f, path);
    fputs(" [", f);
    xml_text(f, key ? key : "no fingerprint");
    fputs("]\"", f);
    if (outcome == CASE_UNCHANGED) {
        fputs("/>\n", f);
        return 1;
    }
    fputs(">\n", f);
    if (outcome == CASE_NEW) {
        fprintf(f, "      <failure type=\"new I/O issue\" message=\"%s: ",
                issue_severity_name(issue->severity));
        xml_text(f, issue->message);
        fputs("\">", f);
        xml_text(f, issue->rule);
        fputs(" on ", f);
        xml_text(f, path);
        if (*issue_top_frame(issue, top, sizeof(top))) {
            fputs(" at ", f);
            xml_text(f, top);
        }
        fputs("</failure>\n", f);
    } else {
        fputs("      <system-out>fixed: no longer found</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
    return 1;
}

/* How many cases the issues of a list make, fingerprints in seen counted once. */
static size_t count_cases(const struct issue_list *issues, json_t *seen)
{
    size_t n = 0;

    for (size_t i = 0; i < issues->n; i++) {
        const char *key = issues->v[i]->fingerprint;

        if (key && json_object_get(seen, key))
            continue;
        if (key)
            json_object_set_new(seen, key, json_true());
        n++;
    }
    return n;
}

int diff_write_junit(FILE *f, const struct output_diff *in)
{
    const struct issue_list *lists[] = {in->added, in->kept, in->near, in->fixed};
    const enum outcome outcomes[] = {CASE_NEW, CASE_UNCHANGED, CASE_UNCHANGED, CASE_FIXED};
    json_t *seen = json_object();
    size_t tests = 0, failures;

    if (!seen)
        return -1;
    failures = count_cases(in->added, seen);
    tests = failures;
    for (size_t l = 1; l < sizeof(lists) / sizeof(lists[0]); l++)
        tests += count_cases(lists[l], seen);
    json_object_clear(seen);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"ioscope\" tests=\"%zu\" failures=\"%zu\">\n", tests, failures);
    fprintf(f, "  <testsuite name=\"ioscope diff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
               "skipped=\"0\">\n", tests, failures);
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
        for (size_t i = 0; i < lists[l]->n; i++)
            junit_case(f, lists[l]->v[i], outcomes[l], seen, in->source_root);
    fputs("  </testsuite>\n</testsuites>\n", f);
    json_decref(seen);
    return ferror(f) ? -1 : 0;
}
