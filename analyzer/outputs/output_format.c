/* The output formats, declared once (output_format.h). */
#include <stdarg.h>
#include <string.h>

#include "dump_jsonl.h"
#include "output_format.h"
#include "perfetto.h"
#include "report.h"

static int write_report_text(FILE *f, const struct output_issues *in)
{
    return report_text(f, in->report, in->list, in->color);
}

static int write_report_html(FILE *f, const struct output_issues *in)
{
    return report_html(f, in->report, in->list);
}

static void *perfetto_start(FILE *f)
{
    return perfetto_begin(f);
}

static int perfetto_finish(void *state, const struct issue_list *issues)
{
    return perfetto_end(state, issues);
}

static void dump_jsonl_call(void *arg, FILE *to, struct engine *e, const struct iot_event *ev)
{
    (void)arg;
    dump_jsonl_observe(to, e, &ev, 1);
}

static void dump_text_call(void *arg, FILE *to, struct engine *e, const struct iot_event *ev)
{
    (void)arg;
    (void)e;
    dump_text(to, ev);
}

static const struct output_format formats[] = {
    {OUTPUT_ANALYZE, "json", "the issues as one JSON array (the default into a pipe or file)",
     .write_issues = issues_write_json},
    {OUTPUT_ANALYZE, "jsonl", "the issues as JSON lines, one issue a line",
     .write_issues = issues_write_jsonl},
    {OUTPUT_ANALYZE, "sarif", "the issues as a SARIF 2.1.0 log for code-scanning tools",
     .write_issues = issues_write_sarif, .source_root = 1},
    {OUTPUT_ANALYZE, "codequality", "the issues as a GitLab Code Quality report (merge request widget)",
     .write_issues = issues_write_codequality, .source_root = 1},
    {OUTPUT_ANALYZE, "text", "a report to read, the issues with their figures (the default on a terminal)",
     .write_issues = write_report_text, .report = 1},
    {OUTPUT_ANALYZE, "html", "the report as one HTML page",
     .write_issues = write_report_html, .report = 1},
    {OUTPUT_DUMP, "jsonl", "the events as JSONL, the interchange format every command reads (the default)",
     .observe = dump_jsonl_observe, .write_call = dump_jsonl_call,
     .write_schema = dump_jsonl_schema},
    {OUTPUT_DUMP, "text", "one aligned text line per event",
     .write_event = dump_text, .write_call = dump_text_call},
    {OUTPUT_DUMP, "perfetto", "a timeline for Perfetto (Chrome trace-event JSON), the issues marked",
     .observe = perfetto_observe, .begin = perfetto_start, .end = perfetto_finish,
     .want_issues = 1, .write_call = perfetto_write_call, .put_element = perfetto_put_element},
    {OUTPUT_DIFF, "json", "{\"new\":[...],\"fixed\":[...],\"unchanged\":N} (the default)",
     .write_diff = diff_write_json},
    {OUTPUT_DIFF, "text", "the new issues first, then the fixed ones, a few lines each",
     .write_diff = diff_write_text},
    {OUTPUT_DIFF, "markdown", "a summary for a pull request or $GITHUB_STEP_SUMMARY",
     .write_diff = diff_write_markdown},
    {OUTPUT_DIFF, "junit", "JUnit XML, one test case per fingerprint, the new ones failed",
     .write_diff = diff_write_junit},
    {OUTPUT_DIFF, "sarif", "the new issues as a SARIF 2.1.0 log",
     .write_diff = diff_write_sarif, .source_root = 1},
    {OUTPUT_DIFF, "codequality", "the new issues as a GitLab Code Quality report",
     .write_diff = diff_write_codequality, .source_root = 1},
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const struct output_format *output_format_find(enum output_command c, const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].command == c && strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

/* Appends to buf (size bytes, holding len) as snprintf does; the new length. */
__attribute__((format(printf, 4, 5)))
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
    va_list ap;
    int w;

    if (len >= size)
        return len;
    va_start(ap, fmt);
    w = vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return w < 0 ? len : len + (size_t)w;
}

const char *output_format_names(enum output_command c, const char *sep, const char *last,
                                char *buf, size_t size)
{
    size_t len = 0, n = 0, total = 0;

    for (size_t i = 0; i < NFORMATS; i++)
        total += formats[i].command == c;
    buf[0] = 0;
    for (size_t i = 0; i < NFORMATS; i++) {
        if (formats[i].command != c)
            continue;
        len = append(buf, size, len, "%s%s", n == 0 ? "" : n + 1 == total ? last : sep,
                     formats[i].name);
        n++;
    }
    return buf;
}

const char *output_format_help(enum output_command c, char *buf, size_t size)
{
    size_t len = 0;
    int width = 0;

    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].command == c && (int)strlen(formats[i].name) > width)
            width = (int)strlen(formats[i].name);
    buf[0] = 0;
    len = append(buf, size, len, "Formats:\n");
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].command == c)
            len = append(buf, size, len, "  %-*s  %s\n", width, formats[i].name, formats[i].help);
    return buf;
}
