/*
 * The diff as people read it (output_format.h): plain text for a log, and
 * markdown for a pull request comment or $GITHUB_STEP_SUMMARY. Both list
 * the new issues first, the most severe first, each with its severity,
 * rule, file and the top of its stack, then the fixed ones, then how many
 * are unchanged. The issues' strings come from a trace: text shows them
 * escaped (text.h); markdown also keeps them from making markup.
 */
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "issue.h"
#include "output_format.h"
#include "text.h"

static const char *str_of(const char *s)
{
    return s ? s : "";
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* ---- text ---- */

static void text_issue(FILE *f, const struct issue *issue)
{
    char buf[IOT_TEXT_MAX], top[1024];

    fprintf(f, "  [%s] %s", issue_severity_name(issue->severity),
            iot_text_safe(buf, sizeof(buf), str_of(issue->rule)));
    fprintf(f, " %s", iot_text_safe(buf, sizeof(buf), str_of(issue->path)));
    if (*issue_top_frame(issue, top, sizeof(top)))
        fprintf(f, " at %s", iot_text_safe(buf, sizeof(buf), top));
    fprintf(f, "\n      %s\n", iot_text_safe(buf, sizeof(buf), str_of(issue->message)));
}

/* The issues of one list, the most severe first, each list's order kept. */
static void by_severity(FILE *f, const struct issue_list *issues,
                        void (*each)(FILE *, const struct issue *))
{
    for (int sev = ISSUE_NSEVERITIES - 1; sev >= 0; sev--)
        for (size_t i = 0; i < issues->n; i++)
            if (issues->v[i]->severity == sev)
                each(f, issues->v[i]);
}

int diff_write_text(FILE *f, const struct output_diff *in)
{
    size_t nnew = in->added->n, nfixed = in->fixed->n, nnear = in->near->n;

    fprintf(f, "ioscope diff: %zu new, %zu fixed, %zu unchanged\n", nnew, nfixed,
            in->kept->n + nnear);
    if (nnew) {
        fprintf(f, "new:\n");
        by_severity(f, in->added, text_issue);
    }
    if (nfixed) {
        fprintf(f, "fixed:\n");
        by_severity(f, in->fixed, text_issue);
    }
    if (nnear) {
        fprintf(f, "near the threshold (--ci counts %s unchanged):\n",
                plural(nnear, "it", "them"));
        by_severity(f, in->near, text_issue);
    }
    return ferror(f) ? -1 : 0;
}

/* ---- markdown ---- */

/*
 * s in a table cell: escaped as text shows it, then every character that
 * could end the cell or make markup or HTML is a character reference, so
 * a path like "a|b" or "<img>" stays the text it is.
 */
static void md_cell(FILE *f, const char *s)
{
    char buf[IOT_TEXT_MAX];

    for (const char *p = iot_text_safe(buf, sizeof(buf), s); *p; p++)
        if (strchr("|<>&`*[]\\#!~", *p))
            fprintf(f, "&#%d;", (unsigned char)*p);
        else
            fputc(*p, f);
}

static void md_row(FILE *f, const struct issue *issue)
{
    char top[1024];

    fprintf(f, "| %s | ", issue_severity_name(issue->severity));
    md_cell(f, str_of(issue->rule));
    fputs(" | ", f);
    md_cell(f, str_of(issue->path));
    fputs(" | ", f);
    md_cell(f, *issue_top_frame(issue, top, sizeof(top)) ? top : "-");
    fputs(" | ", f);
    md_cell(f, str_of(issue->message));
    fputs(" |\n", f);
}

static void md_table(FILE *f, const char *title, const struct issue_list *issues)
{
    fprintf(f, "\n**%s**\n\n| severity | rule | file | stack top | what |\n"
               "|---|---|---|---|---|\n", title);
    by_severity(f, issues, md_row);
}

int diff_write_markdown(FILE *f, const struct output_diff *in)
{
    size_t nnew = in->added->n, nfixed = in->fixed->n;
    size_t nnear = in->near->n, nkept = in->kept->n + nnear;

    if (nnew)
        fprintf(f, "### ioscope: %zu new I/O %s\n", nnew, plural(nnew, "issue", "issues"));
    else
        fprintf(f, "### ioscope: no new I/O issues\n");
    fprintf(f, "\n%zu new, %zu fixed, %zu unchanged.\n", nnew, nfixed, nkept);
    if (in->outside && *in->outside) {
        fputs("\nNot counted: ", f);
        md_cell(f, in->outside);
        fputs(" (`--scope all` lists them).\n", f);
    }
    if (nnew)
        md_table(f, "New", in->added);
    if (nfixed)
        md_table(f, "Fixed", in->fixed);
    if (nnear)
        md_table(f, "Near the threshold (counted unchanged by --ci)", in->near);
    return ferror(f) ? -1 : 0;
}
