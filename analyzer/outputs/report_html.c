/*
 * --format html: one self-contained HTML report. The page holds its data as
 * one JSON object in a <script type="application/json"> element and draws it
 * with its own script and style (analyzer/outputs/report_html.js and .css, embedded
 * whole at build time): nothing is fetched, so it works from file:// and
 * offline. What the data holds is bounded whatever the trace's length
 * (report.h): each thread's timeline in REPORT_BINS bins, the REPORT_SLOW
 * slowest calls one by one, one row per file.
 */
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "registry.h"
#include "report.h"
#include "text.h"
#include "version.h"

/*
 * The page's script and style, as written in their own files (so that they
 * read, diff and lint as what they are), put in .rodata by the assembler
 * with a NUL after each. The Makefile makes this object depend on them.
 */
__asm__(".section .rodata\n"
        ".global report_html_js\n.hidden report_html_js\n"
        "report_html_js:\n.incbin \"analyzer/outputs/report_html.js\"\n.byte 0\n"
        ".global report_html_charts_js\n.hidden report_html_charts_js\n"
        "report_html_charts_js:\n.incbin \"analyzer/outputs/report_html_charts.js\"\n.byte 0\n"
        ".global report_html_css\n.hidden report_html_css\n"
        "report_html_css:\n.incbin \"analyzer/outputs/report_html.css\"\n.byte 0\n"
        ".previous\n");
extern const char report_html_js[], report_html_charts_js[], report_html_css[];

/* A JSON string of s; bytes that are not UTF-8 become U+FFFD (as in JSONL). */
static json_t *jstr(const char *s)
{
    json_t *v;
    char *copy;

    if (!s)
        return json_null();
    copy = iot_utf8_repaired(s);
    if (!copy)
        return json_null();
    v = json_string_nocheck(copy);
    free(copy);
    return v ? v : json_null();
}

static json_t *jint(int64_t v)
{
    return json_integer((json_int_t)v);
}

/* t on the page's clock (ns after the first event), saturated: absurd input
   must not overflow it */
static int64_t since_t0(const struct report *r, int64_t t)
{
    int64_t d;

    if (__builtin_sub_overflow(t, r->t0, &d))
        return t > r->t0 ? INT64_MAX : INT64_MIN;
    return d;
}

static json_t *sum_json(const struct report_sum *s)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "calls", jint((int64_t)s->calls), "errors",
                     jint((int64_t)s->errors), "reads", jint((int64_t)s->reads), "writes",
                     jint((int64_t)s->writes), "ns", jint(s->ns), "read_bytes", jint(s->read_bytes),
                     "write_bytes", jint(s->write_bytes));
}

/* Names are null where unknown (a process without its exe): the page says "pid N". */

/* The threads' bins, as [index, calls, ns, bytes, errors, reads, writes] for the non-empty ones. */
static json_t *bins_json(const struct report_thread *t)
{
    json_t *a = json_array();

    for (int i = 0; t->bins && i < REPORT_BINS; i++) {
        const struct report_bin *b = &t->bins[i];

        if (b->calls)
            json_array_append_new(a, json_pack("[i,I,I,I,I,I,I]", i, (json_int_t)b->calls,
                                               (json_int_t)b->ns, (json_int_t)b->bytes,
                                               (json_int_t)b->errors, (json_int_t)b->reads,
                                               (json_int_t)b->writes));
    }
    return a;
}

static int by_t(const void *a, const void *b)
{
    const struct report_call *x = a, *y = b;

    return x->t < y->t ? -1 : x->t > y->t;
}

/* The slow calls in time order as [thread, t, dur, op, path, size, ret, errno],
   thread and path as indexes into the data's lists. */
static json_t *calls_json(const struct report *r, json_t *paths, struct hmap *thr_index)
{
    struct report_call *v = malloc((r->nslow + 1) * sizeof(*v));
    struct hmap pidx = HMAP_INIT;
    json_t *a = json_array();

    if (!v)
        return a;
    if (r->nslow)   /* slow is NULL with none */
        memcpy(v, r->slow, r->nslow * sizeof(*v));
    qsort(v, r->nslow, sizeof(*v), by_t);
    for (size_t i = 0; i < r->nslow; i++) {
        const struct report_call *c = &v[i];
        intptr_t p = -1;

        if (c->path) {
            p = (intptr_t)hmap_get(&pidx, hmap_ptr_key(c->path)) - 1;
            if (p < 0) {
                p = (intptr_t)json_array_size(paths);
                json_array_append_new(paths, jstr(c->path));
                hmap_put(&pidx, hmap_ptr_key(c->path), (void *)(p + 1));
            }
        }
        json_array_append_new(a, json_pack("[I,I,I,i,I,I,I,i]",
                                           (json_int_t)(intptr_t)hmap_get(thr_index, (uint64_t)(uint32_t)c->tid) - 1,
                                           (json_int_t)since_t0(r, c->t), (json_int_t)c->dur, (int)c->op,
                                           (json_int_t)p, (json_int_t)c->size, (json_int_t)c->ret,
                                           (int)c->err));
    }
    hmap_release(&pidx);
    free(v);
    return a;
}

/* The request sizes as {"read": [[bucket, calls]...], "write": [...]},
   non-empty buckets only (report.h: bucket k is [2^k, 2^(k+1)) bytes). */
static json_t *sizes_json(const struct report *r)
{
    json_t *o = json_object();

    for (int w = 0; w < 2; w++) {
        json_t *a = json_array();

        for (int k = 0; k < REPORT_SIZE_BUCKETS; k++)
            if (r->sizes[w][k])
                json_array_append_new(a, json_pack("[i,I]", k, (json_int_t)r->sizes[w][k]));
        json_object_set_new(o, w ? "write" : "read", a);
    }
    return o;
}

/* The randomly accessed files' offsets over time: [{path, accesses, jumps,
   points: [[t, offset, length, write]...]}], the most jumps first. */
#define CHARTED_FILES 4
static json_t *offsets_json(const struct report *r)
{
    const struct report_file *v[CHARTED_FILES];
    size_t n = report_random_files(r, v, CHARTED_FILES);
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++) {
        json_t *pts = json_array();

        for (size_t k = 0; k < v[i]->offsets->n; k++) {
            const struct report_point *p = &v[i]->offsets->v[k];

            json_array_append_new(pts, json_pack("[I,I,i,i]", (json_int_t)since_t0(r, p->t),
                                                 (json_int_t)p->off, (int)p->len, p->write));
        }
        json_array_append_new(a, json_pack("{s:o,s:I,s:I,s:o}", "path", jstr(v[i]->path),
                                           "accesses", (json_int_t)v[i]->accesses, "jumps",
                                           (json_int_t)v[i]->jumps, "points", pts));
    }
    return a;
}

/* An issue as the page shows it: its JSON (issue_rec.h's writer) with its
   time on the timeline and its fix. */
static json_t *issue_json(const struct report *r, const struct issue *is)
{
    json_t *o = issue_to_json(is);
    const char *fix = is->fix;
    int64_t t;

    /* a record that keeps the JSON it was read from hands out that JSON:
       the page's keys go on a copy */
    if (o && is->raw) {
        json_t *copy = json_deep_copy(o);

        json_decref(o);
        o = copy;
    }
    if (!o)
        return json_object();
    if (!fix)
        fix = rules_fix(is->rule);
    if (report_issue_t(r, is, &t))
        json_object_set_new(o, "t", jint(since_t0(r, t)));
    if (fix)
        json_object_set_new(o, "fix", json_string(fix));
    return o;
}

static json_t *build(const struct report *r, const struct issue_list *issues)
{
    json_t *d = json_object(), *procs = json_array(), *threads = json_array(), *files = json_array();
    json_t *ops = json_array(), *opnames = json_array(), *iss = json_array(), *paths = json_array();
    struct hmap thr_index = HMAP_INIT;
    struct report_finding *fv;
    size_t i, nf = 0;
    char sev[96];

    json_object_set_new(d, "version", json_string(IOSCOPE_VERSION));
    json_object_set_new(d, "events", jint((int64_t)r->events));
    json_object_set_new(d, "t_end", jint(r->have_t ? since_t0(r, r->t1) : 0));
    json_object_set_new(d, "bin_ns", jint(r->bin_ns));
    json_object_set_new(d, "slow_max", jint(REPORT_SLOW));
    json_object_set_new(d, "total", sum_json(&r->total));
    for (i = 0; i < r->nproc; i++) {
        const struct report_proc *p = r->procv[i];
        json_t *o = json_pack("{s:i,s:i,s:o,s:o}", "pid", (int)p->pid, "ppid", (int)p->ppid, "name",
                              jstr(p->name), "sum", sum_json(&p->sum));

        if (p->exited)
            json_object_set_new(o, "exit", p->exit_signal ? json_pack("{s:i}", "signal", p->exit_signal)
                                                          : json_pack("{s:i}", "status", p->exit_status));
        json_array_append_new(procs, o);
    }
    /* threads of a process together, in pid then tid order: the timeline's rows */
    for (i = 0; i < r->nthr; i++) {
        const struct report_thread *t = r->thrv[i];
        const struct report_proc *p = report_proc(r, t->pid);

        json_array_append_new(threads, json_pack("{s:i,s:i,s:o,s:o,s:o}", "pid", (int)t->pid, "tid",
                                                 (int)t->tid, "name",
                                                 jstr(t->name ? t->name : p ? p->name : NULL),
                                                 "sum", sum_json(&t->sum), "bins", bins_json(t)));
        hmap_put(&thr_index, (uint64_t)(uint32_t)t->tid, (void *)(intptr_t)(i + 1));
    }
    for (i = 0; i < r->nfile; i++) {
        const struct report_file *f = r->filev[i];
        json_t *o = sum_json(&f->sum);

        json_object_set_new(o, "path", jstr(f->path));
        json_object_set_new(o, "opens", jint((int64_t)f->opens));
        json_object_set_new(o, "processes", jint(f->nprocs));
        json_array_append_new(files, o);
    }
    for (int op = 0; op < IOT_OP_COUNT; op++) {
        json_array_append_new(opnames, json_string(iot_op_name((unsigned)op)));
        if (r->ops[op].calls) {
            json_t *o = sum_json(&r->ops[op]);

            json_object_set_new(o, "op", json_string(iot_op_name((unsigned)op)));
            json_object_set_new(o, "bytes", jint(r->ops[op].bytes));
            json_array_append_new(ops, o);
        }
    }
    fv = report_findings(issues, &nf);
    /* a finding per cause, by impact: its main issue with its symptoms */
    for (i = 0; fv && i < nf; i++) {
        json_t *o = issue_json(r, fv[i].main), *sym = json_array();

        for (size_t k = 0; k < fv[i].nsymptoms; k++)
            json_array_append_new(sym, issue_json(r, fv[i].symptoms[k]));
        json_object_set_new(o, "symptoms", sym);
        json_array_append_new(iss, o);
    }
    report_findings_free(fv, nf);
    json_object_set_new(d, "nissues", jint((int64_t)issues->n));
    json_object_set_new(d, "severities",
                        json_string(report_severity_counts(issues, sev, sizeof(sev))));
    json_object_set_new(d, "calls", calls_json(r, paths, &thr_index));
    json_object_set_new(d, "paths", paths);
    json_object_set_new(d, "procs", procs);
    json_object_set_new(d, "threads", threads);
    json_object_set_new(d, "files", files);
    json_object_set_new(d, "ops", ops);
    json_object_set_new(d, "sizes", sizes_json(r));
    json_object_set_new(d, "offsets", offsets_json(r));
    json_object_set_new(d, "opnames", opnames);
    json_object_set_new(d, "issues", iss);
    hmap_release(&thr_index);
    return d;
}

/*
 * JSON inside a <script> element: a "</script" or "<!--" in a path would end
 * or confuse it. '<' only occurs inside JSON strings, where \u003c means
 * the same.
 */
static void put_script_json(FILE *f, const char *s)
{
    for (const char *lt; (lt = strchr(s, '<')); s = lt + 1) {
        fwrite(s, 1, (size_t)(lt - s), f);
        fputs("\\u003c", f);
    }
    fputs(s, f);
}

int report_html(FILE *f, const struct report *r, const struct issue_list *issues)
{
    json_t *d = build(r, issues);
    char *text = d ? json_dumps(d, JSON_COMPACT) : NULL;

    json_decref(d);
    if (!text)
        return -1;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>ioscope report</title>\n<style>\n", f);
    fputs(report_html_css, f);
    fputs("</style>\n</head>\n<body>\n<noscript>This report draws itself with JavaScript; "
          "the data is in the element #ioscope-data.</noscript>\n"
          "<script id=\"ioscope-data\" type=\"application/json\">", f);
    put_script_json(f, text);
    fputs("</script>\n<script>\n", f);
    fputs(report_html_js, f);
    fputs(report_html_charts_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
    free(text);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
