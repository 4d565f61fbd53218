/*
 * --format text: the report a person reads in a terminal. The findings by
 * impact (report_findings: the issues of one cause as one), each with its
 * file, process, thread, figures, message, fix, symptoms and stack; then
 * where the I/O time went: per process, per file, and per op as `strace -c`
 * prints it. Written whole, then wrapped to the terminal's width
 * (text_wrap.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "figure_text.h"
#include "iotrace.h"
#include "issue.h"
#include "registry.h"
#include "report.h"
#include "rule.h"
#include "text.h"
#include "text_wrap.h"

#define TOP 10   /* rows of the per-process and per-file tables */

/* ANSI attributes, empty without color. */
struct paint {
    const char *bold, *dim, *warn, *head, *off;
};

static const struct paint colored = {"\033[1m", "\033[2m", "\033[1;33m", "\033[1;36m", "\033[0m"};
static const struct paint plain = {"", "", "", "", ""};

static const char *str(const char *s)
{
    return s ? s : "";
}

/* "1.234 s", "12.3 ms", "45 us": a duration in ns as people say it. */
static const char *dur_str(char *buf, size_t n, double ns)
{
    if (ns >= 1e9)
        snprintf(buf, n, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, n, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, n, "%.0f us", ns / 1e3);
    return buf;
}

/* "12.5 MiB", "980 B": bytes in binary units. */
static const char *bytes_str(char *buf, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;

    while (b >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

/* An issue's severity's name; a record holds one of them. */
static const char *severity_name(const struct issue *is)
{
    const char *name = issue_severity_name(is->severity);

    return name ? name : issue_severity_name(ISSUE_MEDIUM);
}

/* A string from the trace or an issue file, shown safely (iot_text_write). */
static void put(FILE *f, const char *s)
{
    iot_text_write(f, s, s ? strlen(s) : 0);
}

/*
 * A detail value as the text report shows it: a list of records (the open
 * sites of a file, with their stacks) by its length, since each record is
 * a paragraph of its own that the JSON holds; any other value as
 * figure_text rounds it. Allocated; NULL when out of memory.
 */
static char *detail_text(const struct issue_value *v)
{
    char *val;

    if (v->type != ISSUE_V_LIST || !v->list->n || v->list->v[0].type != ISSUE_V_OBJECT)
        return figure_value_text(v);
    val = malloc(48);
    if (val)
        snprintf(val, 48, "%zu (listed in the JSON)", v->list->n);
    return val;
}

/* " key=value": a figure as the report lists it, its value as figure_text rounds it. */
static void put_figure(FILE *f, const char *lead, const char *key, const char *val)
{
    fputs(lead, f);
    iot_text_write(f, key, strlen(key));
    fputc('=', f);
    iot_text_write(f, val ? val : "?", val ? strlen(val) : 1);
}

/* The issue's figures: Matrix's keys that mean something for its rule, then detail. */
static void figures(FILE *f, const struct issue *is, const struct paint *c)
{
    const struct rule_detail *detail = is->detail;
    int col = 4;

    fprintf(f, "    %sfigures:%s op %" PRId64 ", opSize %" PRId64 ", buffer %" PRId64
               ", cost %" PRId64 " ms, repeat %" PRId64 "\n", c->dim, c->off,
            is->op, is->op_size, is->buffer, is->cost, is->repeat);
    if (!detail || !detail->n)
        return;
    fprintf(f, "    %sdetail:%s", c->dim, c->off);
    col = 11;
    for (size_t i = 0; i < detail->n; i++) {
        const char *key = detail->v[i].key;
        char *val = detail_text(&detail->v[i].v);
        int w = (int)(strlen(key) + (val ? strlen(val) : 0) + 3);

        /* items of a line two spaces apart, lines of at most 80 columns */
        if (col > 11 && col + w > 80) {
            fprintf(f, "\n           ");
            col = 11;
        }
        put_figure(f, col > 11 ? "  " : " ", key, val);
        col += w;
        free(val);
    }
    fputc('\n', f);
}

/* The impact's figures, each after lead (first: after first_lead). */
static void impact_figures(FILE *f, const struct issue *is, const char *first_lead,
                           const char *lead)
{
    struct issue_figure fig[ISSUE_IMPACT_NFIGURES];
    size_t n = is->has & ISSUE_HAS_IMPACT ? issue_impact_figures(&is->impact, fig) : 0;

    for (size_t i = 0; i < n; i++) {
        char *val = figure_value_text(&fig[i].v);

        put_figure(f, i ? lead : first_lead, fig[i].key, val);
        free(val);
    }
}

/* "severity high; impact: time_ms=13.6 io_share=0.8 excess_calls=24" (issue.h) */
static void impact_line(FILE *f, const struct issue *is, const struct paint *c)
{
    fprintf(f, "    %sseverity:%s %s", c->dim, c->off, severity_name(is));
    if ((is->has & ISSUE_HAS_IMPACT) && is->impact.has)
        fprintf(f, "  %simpact:%s", c->dim, c->off);
    impact_figures(f, is, " ", " ");
    fputc('\n', f);
}

/* How many frames of the open's stack "opened at:" shows: where the file
   came from, not the whole way there. */
#define OPEN_FRAMES_SHOWN 3

/* "label:" and the stack's frames under it, at most max of them (0: all). */
static void stack_lines(FILE *f, const char *label, const char *stack, int max,
                        const struct paint *c)
{
    fprintf(f, "    %s%s:%s\n", c->dim, label, c->off);
    for (int n = 0; *stack && (max == 0 || n < max); n++) {
        const char *nl = strchr(stack, '\n');
        int len = nl ? (int)(nl - stack) : (int)strlen(stack);

        fputs("      ", f);
        iot_text_write(f, stack, (size_t)len);
        fputc('\n', f);
        stack += len + (nl != NULL);
    }
}

/* A symptom: "high    sync_storm on PATH: time_ms=52.1 excess_syncs=245" */
static void symptom_line(FILE *f, const struct issue *is)
{
    const char *path = str(is->path);

    fprintf(f, "      %-7s ", severity_name(is));
    put(f, str(is->rule));
    fputs(" on ", f);
    put(f, *path ? path : "(no path)");
    impact_figures(f, is, ": ", " ");
    fputc('\n', f);
}

static void issue_block(FILE *f, const struct issue *is, const struct issue *const *symptoms,
                        size_t nsymptoms, const struct paint *c)
{
    const char *stack = str(is->stack), *fix = str(is->fix);
    const char *open_stack = str(is->open_stack);

    /* the issue's own advice, built from its evidence; else the rule's */
    if (!*fix)
        fix = rules_fix(str(is->rule));

    fprintf(f, "  %s", c->bold);
    put(f, *str(is->path) ? is->path : "(no path)");
    fprintf(f, "%s\n    process ", c->off);
    put(f, str(is->process));
    fprintf(f, " (pid %d), thread ", (int)is->pid);
    put(f, str(is->thread));
    fprintf(f, " (tid %d)\n", (int)is->tid);
    impact_line(f, is, c);
    figures(f, is, c);
    fputs("    ", f);
    put(f, str(is->message));
    fputc('\n', f);
    if (fix)
        fprintf(f, "    %sfix:%s %s\n", c->dim, c->off, fix);
    if (*str(is->hint)) {
        fprintf(f, "    %sframes missing:%s ", c->dim, c->off);
        put(f, str(is->hint));
        fputc('\n', f);
    }
    if (nsymptoms)
        fprintf(f, "    %ssymptoms of the same cause:%s\n", c->dim, c->off);
    for (size_t k = 0; k < nsymptoms; k++)
        symptom_line(f, symptoms[k]);
    /* the site of the harmful calls, then where the file was opened */
    if (*stack)
        stack_lines(f, "stack", stack, 0, c);
    if (*open_stack)
        stack_lines(f, "opened at", open_stack, OPEN_FRAMES_SHOWN, c);
    fputc('\n', f);
}

/*
 * The findings by impact, largest first: each its main issue under a
 * heading with its rank, severity and rule, and the issues of the same
 * cause as symptoms, one line each.
 */
static void issues_section(FILE *f, const struct issue_list *issues, const struct paint *c)
{
    size_t n = 0;
    struct report_finding *fv = report_findings(issues, &n);

    for (size_t i = 0; fv && i < n; i++) {
        const struct issue *is = fv[i].main;
        const struct rule *rule = rules_find(str(is->rule), strlen(str(is->rule)));

        fprintf(f, "%s== %zu. %s: ", c->warn, i + 1, severity_name(is));
        put(f, str(is->rule));
        if (rule)
            fprintf(f, " (type %d)", rule->type);
        fprintf(f, "%s\n", c->off);
        if (rule && rule->summary)
            fprintf(f, "%s%s%s\n", c->dim, rule->summary, c->off);
        fputc('\n', f);
        issue_block(f, is, fv[i].symptoms, fv[i].nsymptoms, c);
    }
    if (!issues->n)
        fprintf(f, "%sNo issues.%s\n\n", c->bold, c->off);
    report_findings_free(fv, n);
}

static void procs_section(FILE *f, const struct report *r, const struct paint *c)
{
    struct report_proc **v = report_procs_by_time(r);
    char a[32], b[32], d[32], name[IOT_TEXT_MAX];

    if (!v)
        return;
    fprintf(f, "%s== Processes by I/O time%s\n", c->head, c->off);
    fprintf(f, "%s%8s %-20s %10s %8s %12s %12s%s\n", c->dim, "pid", "process", "time", "calls",
            "read", "written", c->off);
    for (size_t i = 0; i < r->nproc && i < TOP; i++)
        fprintf(f, "%8d %-20s %10s %8" PRIu64 " %12s %12s\n", (int)v[i]->pid,
                iot_text_safe(name, sizeof(name), v[i]->name), dur_str(d, sizeof(d), (double)v[i]->sum.ns),
                v[i]->sum.calls, bytes_str(a, sizeof(a), (double)v[i]->sum.read_bytes),
                bytes_str(b, sizeof(b), (double)v[i]->sum.write_bytes));
    if (r->nproc > TOP)
        fprintf(f, "%s(%zu more)%s\n", c->dim, r->nproc - TOP, c->off);
    fputc('\n', f);
    free(v);
}

static void files_section(FILE *f, const struct report *r, const struct paint *c)
{
    struct report_file **v = report_files_by_time(r);
    char a[32], b[32], d[32];

    if (!v)
        return;
    fprintf(f, "%s== Files by I/O time%s\n", c->head, c->off);
    fprintf(f, "%s%10s %8s %8s %8s %10s %10s  %s%s\n", c->dim, "time", "calls", "reads", "writes",
            "read", "written", "path", c->off);
    for (size_t i = 0; i < r->nfile && i < TOP; i++) {
        fprintf(f, "%10s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10s %10s  ",
                dur_str(d, sizeof(d), (double)v[i]->sum.ns), v[i]->sum.calls, v[i]->sum.reads,
                v[i]->sum.writes, bytes_str(a, sizeof(a), (double)v[i]->sum.read_bytes),
                bytes_str(b, sizeof(b), (double)v[i]->sum.write_bytes));
        /* the empty path (mkdir("")) shows as "" rather than as nothing */
        put(f, v[i]->path && !*v[i]->path ? "\"\"" : v[i]->path);
        fputc('\n', f);
    }
    if (r->nfile > TOP)
        fprintf(f, "%s(%zu more)%s\n", c->dim, r->nfile - TOP, c->off);
    fputc('\n', f);
    free(v);
}

/* strace -c's table: % time, seconds, usecs/call, calls, errors, then bytes and the op. */
static void ops_section(FILE *f, const struct report *r, const struct paint *c)
{
    int order[IOT_OP_COUNT], n = 0;

    for (int op = 0; op < IOT_OP_COUNT; op++)
        if (r->ops[op].calls)
            order[n++] = op;
    /* by time, largest first (insertion sort: a few dozen ops) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && r->ops[order[j]].ns > r->ops[order[j - 1]].ns; j--) {
            int t = order[j];

            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    fprintf(f, "%s== Calls by op%s\n", c->head, c->off);
    fprintf(f, "%s%% time     seconds  usecs/call     calls    errors        bytes op%s\n", c->dim,
            c->off);
    fprintf(f, "------ ----------- ----------- --------- --------- ------------ ----------------\n");
    for (int i = 0; i < n; i++) {
        const struct report_sum *s = &r->ops[order[i]];
        char err[24] = "";

        /* as strace -c: no errors is a blank, not a 0 */
        if (s->errors)
            snprintf(err, sizeof(err), "%" PRIu64, s->errors);
        fprintf(f, "%6.2f %11.6f %11" PRIu64 " %9" PRIu64 " %9s %12" PRId64 " %s\n",
                r->total.ns ? 100.0 * (double)s->ns / (double)r->total.ns : 0.0, s->ns / 1e9,
                (uint64_t)(s->ns / 1000) / s->calls, s->calls, err, s->bytes,
                iot_op_name((unsigned)order[i]));
    }
    fprintf(f, "------ ----------- ----------- --------- --------- ------------ ----------------\n");
    fprintf(f, "100.00 %11.6f %11" PRIu64 " %9" PRIu64 " %9" PRIu64 " %12" PRId64 " total\n",
            r->total.ns / 1e9, r->total.calls ? (uint64_t)(r->total.ns / 1000) / r->total.calls : 0,
            r->total.calls, r->total.errors, r->total.bytes);
}

static void report_write(FILE *f, const struct report *r, const struct issue_list *issues,
                         int color)
{
    const struct paint *c = color ? &colored : &plain;
    char d[32], sev[96];
    size_t n = issues->n, nf = 0;
    struct report_finding *fv = report_findings(issues, &nf);

    report_findings_free(fv, nf);
    fprintf(f, "%sioscope report:%s %zu issue%s", c->bold, c->off, n, n == 1 ? "" : "s");
    if (n)
        fprintf(f, " (%s) as %zu finding%s", report_severity_counts(issues, sev, sizeof(sev)),
                nf, nf == 1 ? "" : "s");
    fprintf(f, " in %" PRIu64 " events from %zu process%s, "
               "%zu thread%s; %s of I/O calls\n\n", r->events, r->nproc,
            r->nproc == 1 ? "" : "es", r->nthr, r->nthr == 1 ? "" : "s",
            dur_str(d, sizeof(d), (double)r->total.ns));
    issues_section(f, issues, c);
    procs_section(f, r, c);
    files_section(f, r, c);
    ops_section(f, r, c);
}

int report_text(FILE *f, const struct report *r, const struct issue_list *issues, int color)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    if (!m)
        return -1;
    report_write(m, r, issues, color);
    if (fclose(m) != 0) {
        free(buf);
        return -1;
    }
    text_wrap_write(f, buf, len, text_wrap_width(f));
    free(buf);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
