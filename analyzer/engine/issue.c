/* Issues (issue.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "fold.h"
#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "issue.h"
#include "issue_cost.h"
#include "issue_detail.h"
#include "path.h"
#include "proc_labels.h"
#include "symbolize.h"
#include "text.h"

/*
 * Issues are de-duplicated as they come, so memory is bounded by distinct
 * fingerprints, not by the number of sessions that reported.
 */
struct issues {
    const struct config *cfg;
    json_t *list;
    struct hmap seen;       /* fingerprint value -> index in list + 1 */
    struct hmap fps;        /* raw_key() -> fingerprint value (raw_key) */
    struct symbolizer *sym; /* stacks to functions and lines, or NULL */
    struct issue_cost *costs; /* costs[i]: list[i]'s, over its occurrences */
    size_t costs_cap;
    struct proc_labels *labels; /* each process's labels */
    struct fold_made *made; /* the names made from templates, folded in fingerprints */
    /* late[i]: list[i]'s rule, fingerprint path, site and open stacks
       ("\0"-separated), when a stack had JIT frames no record named yet */
    char **late;
    size_t late_cap;
};

void issues_set_symbolizer(struct issues *is, struct symbolizer *sym)
{
    is->sym = sym;
}

void issues_module(struct issues *is, const char *path, const char *build_id)
{
    if (is->sym)
        symbolizer_module(is->sym, path, build_id);
}

void issues_jit_symbol(struct issues *is, int32_t pid, uint64_t start, uint64_t size,
                       const char *name)
{
    if (is->sym)
        symbolizer_jit_symbol(is->sym, pid, start, size, name);
}

void issues_py_code(struct issues *is, int32_t pid, uint64_t code, const char *file,
                    const char *qualname, int64_t first_line, const char *lines)
{
    if (is->sym)
        symbolizer_py_code(is->sym, pid, code, file, qualname, first_line, lines);
}

void issues_label(struct issues *is, int32_t pid, const char *key, const char *value)
{
    proc_labels_add(is->labels, pid, key, value);
}

void issues_template(struct issues *is, const char *path, size_t at, size_t n)
{
    fold_made_add(is->made, path, at, n);
}

const json_t *issues_labels(const struct issues *is)
{
    return proc_labels_first(is->labels);
}

/* The stack as issues show it, symbolized; NULL without a symbolizer. */
static const struct sym_stack *issue_stack(struct issues *is, const char *stack)
{
    return is->sym && stack && *stack ? symbolizer_stack(is->sym, stack) : NULL;
}

struct issues *issues_create(const struct config *cfg)
{
    struct issues *is = calloc(1, sizeof(*is));

    if (!is)
        return NULL;
    is->cfg = cfg;
    is->list = json_array();
    is->labels = proc_labels_create();
    is->made = fold_made_create();
    if (!is->list || !is->labels || !is->made) {
        json_decref(is->list);
        proc_labels_free(is->labels);
        fold_made_free(is->made);
        free(is);
        return NULL;
    }
    return is;
}

void issues_free(struct issues *is)
{
    if (!is)
        return;
    hmap_release(&is->seen);
    hmap_release(&is->fps);
    json_decref(is->list);
    proc_labels_free(is->labels);
    fold_made_free(is->made);
    for (size_t i = 0; i < is->late_cap; i++)
        free(is->late[i]);
    free(is->late);
    free(is->costs);
    free(is);
}

static uint64_t fingerprint(const struct config *cfg, const char *rule, const char *path,
                            const char *stack)
{
    uint64_t h = IOT_FNV64_INIT;
    char shaped[4096];
    char *np;
    const char *f = stack ? stack : "";

    /* random-shaped components first, so that a config's patterns see the
       placeholders whatever the run's ids were */
    if (path && strlen(path) < sizeof(shaped)) {
        strcpy(shaped, path);
        fold_random(shaped);
        path = shaped;
    }
    np = config_normalize(cfg, path ? path : "");

    h = iot_fnv64_add(h, rule, strlen(rule) + 1);
    if (np) {
        h = iot_fnv64_add(h, np, strlen(np) + 1);
        free(np);
    }
    for (int i = 0; i < 4 && *f; i++) {
        size_t len = strcspn(f, "\n");
        char *frame = strndup(f, len), *nf, *plus;

        if (frame) {
            /* "func+0x1a (mod)" -> "func (mod)": offsets move between builds */
            while ((plus = strstr(frame, "+0x")) != NULL) {
                size_t k = 3;

                while (plus[k] && strchr("0123456789abcdefABCDEF", plus[k]))
                    k++;
                memmove(plus, plus + k, strlen(plus + k) + 1);
            }
            nf = config_normalize(cfg, frame);
            if (nf) {
                h = iot_fnv64_add(h, nf, strlen(nf) + 1);
                free(nf);
            }
            free(frame);
        }
        f += len;
        if (*f == '\n')
            f++;
    }
    return h;
}

void issue_fingerprint(const struct config *cfg, const char *rule, const char *path,
                       const char *stack, char *out)
{
    snprintf(out, 17, "%016llx", (unsigned long long)fingerprint(cfg, rule, path, stack));
}

/*
 * A hash of what a fingerprint is made from, as given. A session's path
 * and stack repeat across sessions (a file reopened in a loop), and working
 * out the fingerprint (several regular-expression substitutions) costs far
 * more than hashing them, so fingerprints are kept by this key.
 */
static uint64_t raw_key(const char *rule, const char *path, const char *stack)
{
    uint64_t h = IOT_FNV64_INIT;

    h = iot_fnv64_add(h, rule, strlen(rule) + 1);
    h = iot_fnv64_add(h, path ? path : "", strlen(path ? path : "") + 1);
    return iot_fnv64_add(h, stack ? stack : "", strlen(stack ? stack : ""));
}

static uint64_t fingerprint_cached(struct issues *is, const char *rule, const char *path,
                                   const char *stack)
{
    uint64_t key = raw_key(rule, path, stack);
    uint64_t fp = (uint64_t)(uintptr_t)hmap_get(&is->fps, key);

    /* 0 is "not kept": a fingerprint of 0 is merely worked out each time */
    if (!fp) {
        const struct sym_stack *st = issue_stack(is, stack);

        /* function and module names, which survive a rebuild */
        fp = fingerprint(is->cfg, rule, path, st ? st->key : stack);
        /* unnamed JIT frames may be named by a record still to come */
        if (!st || !st->unnamed_jit)
            hmap_put(&is->fps, key, (void *)(uintptr_t)fp);
    }
    return fp;
}

static json_int_t iget(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/*
 * The issue already reported under fingerprint key, or NULL; *occ and
 * *repeat become what one more occurrence makes of its figures (a rule
 * whose repeat is a bitmask, RULE_F_REPEAT_BITS, gets the union).
 */
static json_t *seen_issue(struct issues *is, const struct rule *rule, uint64_t key,
                          json_int_t *occ, json_int_t *repeat)
{
    void *v = hmap_get(&is->seen, key);
    json_t *prev;

    if (!v)
        return NULL;
    prev = json_array_get(is->list, (size_t)(uintptr_t)v - 1);
    *occ = iget(json_object_get(prev, "detail"), "occurrences") + 1;
    if (rule->flags & RULE_F_REPEAT_BITS)
        *repeat |= iget(prev, "repeat");
    return prev;
}

/*
 * The earliest occurrence stands for all: one at or after prev's time only
 * counts (returns 1); an earlier one takes its place (returns 0).
 */
static int count_later(json_t *prev, const struct rule *rule, int64_t time, json_int_t occ,
                       json_int_t repeat)
{
    if (iget(prev, "time") > time)
        return 0;
    json_object_set_new(json_object_get(prev, "detail"), "occurrences", json_integer(occ));
    if (rule->flags & RULE_F_REPEAT_BITS)
        json_object_set_new(prev, "repeat", json_integer(repeat));
    return 1;
}

/* How many bytes of path the directory dir (absolute, not "/") holds: its
   length without trailing slashes when path is dir or under it, else 0. */
static size_t under(const char *path, const char *dir)
{
    size_t n = dir && dir[0] == '/' ? strlen(dir) : 0;

    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n <= 1 || strncmp(path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0'))
        return 0;
    return n;
}

/*
 * The path a fingerprint is made from, what differs between two runs of
 * the same program folded (docs/analyzer.md, "Fingerprints"): the names
 * made from templates get their X's back (fold.h); then a path under the
 * process's working directory is taken relative to it ("./base/1/1259"
 * for the 1259 under a database's data directory), else one under the
 * process's $HOME as "~/..." (fingerprint() then folds the components of
 * random shape). The cwd and HOME are matched on the path as given, the
 * rest taken from the folded one (the template fold keeps every byte's
 * place), so that a working directory made by mkdtemp still counts; last,
 * the process's own pid in a name becomes "<pid>" (fold_pid). In buf;
 * s->path itself when it is too long for buf.
 */
static const char *fingerprint_path(const struct rule_ctx *ctx, const struct rule_session *s,
                                    char *buf, size_t cap)
{
    const struct issues *is = ((const struct issue_binding *)ctx->sink)->issues;
    size_t len = s->path ? strlen(s->path) : 0, n;
    char folded[4096];

    if (!s->path || len >= sizeof(folded) || len + 2 > cap)
        return s->path;
    memcpy(folded, s->path, len + 1);
    fold_made_apply(is->made, folded);
    if (ctx->engine && (n = under(s->path, engine_proc_cwd_of(ctx->engine, s->pid))) > 0)
        snprintf(buf, cap, ".%s", folded + n);
    else if (ctx->engine && (n = under(s->path, engine_proc_home_of(ctx->engine, s->pid))) > 0)
        snprintf(buf, cap, "~%s", folded + n);
    else
        memcpy(buf, folded, len + 1);
    fold_pid(buf, cap, s->pid);
    return buf;
}

/* rule_again, and the index of the issue it counted in *idx */
static int again(const struct rule_ctx *ctx, const struct rule_session *s, int64_t repeat,
                 int64_t time_unix_ms, size_t *idx)
{
    const struct issue_binding *b = ctx->sink;
    struct issues *is = b->issues;
    char fp_path[4096 + 2];
    json_int_t occ, rep = repeat;
    uint64_t key = fingerprint_cached(is, b->rule->name,
                                      fingerprint_path(ctx, s, fp_path, sizeof(fp_path)),
                                      s->stack);
    json_t *prev = seen_issue(is, b->rule, key, &occ, &rep);

    if (!prev || !count_later(prev, b->rule, time_unix_ms ? time_unix_ms : s->end_unix_ms, occ,
                              rep))
        return 0;
    *idx = (size_t)(uintptr_t)hmap_get(&is->seen, key) - 1;
    return 1;
}

int rule_again(const struct rule_ctx *ctx, const struct rule_session *s, int64_t repeat,
               int64_t time_unix_ms)
{
    size_t idx;

    return again(ctx, s, repeat, time_unix_ms, &idx);
}

/* The detail builder's fields of r, when the rule was built with that
   member (the report is then theirs to free). */
static struct rule_detail *report_fields(const struct rule *rule, const struct rule_report *r)
{
    size_t n = rule->report_size ? rule->report_size : RULE_REPORT_SIZE_FIRST;

    return n >= offsetof(struct rule_report, fields) + sizeof(r->fields) ? r->fields : NULL;
}

int rule_again_cost(const struct rule_ctx *ctx, const struct rule_report *r)
{
    const struct issue_binding *b = ctx->sink;
    struct issue_cost c;
    size_t idx;

    if (!again(ctx, r->s, r->repeat, r->time_unix_ms, &idx))
        return 0;
    issue_detail_free(report_fields(b->rule, r));
    issue_cost_of(b->rule, r, &c);
    issue_cost_add(&b->issues->costs[idx], &c);
    return 1;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/*
 * A string of the trace (a path, a process or thread name, a stack, a
 * message naming them) as JSON: jansson refuses bytes that are not UTF-8,
 * and an issue about a file named so was lost with them. Those bytes show as
 * U+FFFD, as in the JSONL dump; the path's own bytes stay in path_hex
 * (path_hex_of). NULL only out of memory.
 */
static json_t *trace_str(const char *s)
{
    json_t *j;
    char *fixed;

    if (!s)
        s = "";
    if ((j = json_string(s)) != NULL)
        return j;
    fixed = iot_utf8_repaired(s);
    j = fixed ? json_string(fixed) : NULL;
    free(fixed);
    return j;
}

/* The bytes of a path that is not UTF-8 in hex (JSONL's path_hex); NULL for
   a UTF-8 path, which "path" holds whole. */
static json_t *path_hex_of(const char *path)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = path ? strlen(path) : 0;
    json_t *j;
    char *h;

    if (!n || iot_utf8_valid(path, n) || !(h = malloc(2 * n + 1)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = hex[(unsigned char)path[i] >> 4];
        h[2 * i + 1] = hex[(unsigned char)path[i] & 0xf];
    }
    h[2 * n] = 0;
    j = json_string(h);
    free(h);
    return j;
}

/* The stack as objects (SPEC "frames"): [] without a stack or a symbolizer. */
static json_t *frames_json(const struct sym_stack *st)
{
    json_t *a = json_array();

    for (size_t i = 0; a && st && i < st->n; i++) {
        const struct sym_frame *f = &st->frames[i];

        json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:b}",
                                           "function", str_or_null(f->function),
                                           "file", str_or_null(f->file),
                                           "line", f->line ? json_integer(f->line) : json_null(),
                                           "module", str_or_null(f->module),
                                           "build_id", str_or_null(f->build_id),
                                           "offset", f->has_offset ? json_integer((json_int_t)f->offset)
                                                                   : json_null(),
                                           "inlined", f->inlined));
    }
    return a ? a : json_array();
}

/* The stacks a rule lists in detail.open_sites (per_file.h), shown as the
   issue's own stack is: symbolized when it can be. */
static void symbolize_sites(struct issues *is, json_t *detail)
{
    json_t *sites = json_object_get(detail, "open_sites"), *site;
    size_t i;

    json_array_foreach(sites, i, site) {
        const struct sym_stack *st =
            issue_stack(is, json_string_value(json_object_get(site, "stack")));

        if (st)
            json_object_set_new(site, "stack", json_string(st->text));
    }
}

/*
 * The process is named as it was invoked (argv[0]); when its executable is
 * called otherwise (redis-server runs /usr/bin/redis-check-rdb, a link's
 * target), detail.exe says which file ran.
 */
static void note_exe(const struct rule_ctx *ctx, const struct rule_session *s, json_t *detail)
{
    const char *exe = ctx->engine && s->process
                          ? engine_proc_exe_of(ctx->engine, s->pid) : NULL;

    if (exe && strcmp(iot_path_base(exe), s->process) != 0 &&
        s->process == engine_proc_name_of(ctx->engine, s->pid))
        json_object_set_new(detail, "exe", trace_str(exe));
}

/* The finding's own fix (struct rule_report's fix) when the rule was built
   with that member and set it, else NULL: the rule's fix stands. */
static const char *report_fix(const struct rule *rule, const struct rule_report *r)
{
    return rule->report_size >= offsetof(struct rule_report, fix) + sizeof(r->fix) && r->fix &&
                   *r->fix
               ? r->fix
               : NULL;
}

/* The stack of the calls the finding is about (the rule's r->stack, when
   its report has one), else its session's (the open's). */
static const char *report_stack(const struct rule *rule, const struct rule_report *r)
{
    size_t n = rule->report_size ? rule->report_size : RULE_REPORT_SIZE_FIRST;

    if (n >= offsetof(struct rule_report, stack) + sizeof(r->stack) && r->stack && *r->stack)
        return r->stack;
    return r->s->stack ? r->s->stack : "";
}

/* The open's stack as a related location: open_stack and open_frames, when
   the issue's stack is another one. */
static void note_open_site(struct issues *is, const struct rule_session *s, const char *site,
                           json_t *o)
{
    const struct sym_stack *st;

    if (!s->stack || !*s->stack || strcmp(s->stack, site) == 0)
        return;
    st = issue_stack(is, s->stack);
    json_object_set_new(o, "open_stack", trace_str(st ? st->text : s->stack));
    json_object_set_new(o, "open_frames", frames_json(st));
}

/*
 * The thread an issue names. A finding about the session's calls (its
 * rule names their site: struct rule_report's stack, even "") names the
 * thread that made most of them, where the engine says (calls_threads);
 * one about its opens (leak, repeat_open) or a rule's own choice
 * (main_thread) names the session's thread. With several threads, the
 * detail says how many shared the calls and how many the named one made.
 */
static int has_calls_thread(const struct rule *rule, const struct rule_report *r)
{
    size_t n = rule->report_size ? rule->report_size : RULE_REPORT_SIZE_FIRST;
    const struct rule_session *s = r->s;

    return n >= offsetof(struct rule_report, stack) + sizeof(r->stack) && r->stack &&
           RULE_HAS(struct rule_session, s, calls_threads) && s->calls_threads > 0 &&
           s->calls_thread;
}

static const char *calls_thread(const struct rule *rule, const struct rule_report *r)
{
    return has_calls_thread(rule, r) ? r->s->calls_thread : r->s->thread ? r->s->thread : "";
}

static int32_t calls_tid(const struct rule *rule, const struct rule_report *r)
{
    return has_calls_thread(rule, r) ? r->s->calls_tid : r->s->tid;
}

static void note_threads(const struct rule *rule, const struct rule_report *r, json_t *detail)
{
    const struct rule_session *s = r->s;

    if (has_calls_thread(rule, r) && s->calls_threads > 1) {
        json_object_set_new(detail, "threads", json_integer((json_int_t)s->calls_threads));
        json_object_set_new(detail, "thread_calls",
                            json_integer((json_int_t)s->calls_tid_calls));
    }
}

/*
 * A runtime that writes its perf map at exit (the JVM's
 * -XX:+DumpPerfMapAtExit) names its JIT frames after the issues found
 * before were made: the stacks of issue idx are kept when they hold an
 * unnamed JIT frame or a runtime's frames, and named again as the issues
 * are finished, when whether the process has a map is known.
 */
static void note_late(struct issues *is, size_t idx, const char *rule, const char *fpath,
                      const char *site, const char *open)
{
    const struct sym_stack *a = issue_stack(is, site), *b = issue_stack(is, open);
    size_t cap = is->late_cap;
    char *e;

    if (idx < is->late_cap) {
        free(is->late[idx]);
        is->late[idx] = NULL;
    }
    if (!(a && a->unnamed_jit) && !(b && b->unnamed_jit) && sym_stack_runtime(a) < 0 &&
        sym_stack_runtime(b) < 0)
        return;
    if (iot_grow(&is->late, &is->late_cap, idx + 1, sizeof(*is->late)) < 0)
        return;
    memset(is->late + cap, 0, (is->late_cap - cap) * sizeof(*is->late));
    open = open ? open : "";
    fpath = fpath ? fpath : "";
    if (asprintf(&e, "%s%c%s%c%s%c%s", rule, 0, fpath, 0, site, 0, open) >= 0)
        is->late[idx] = e;
}

/*
 * The late-named stacks of issue o (note_late's e): its stack, frames and
 * fingerprint; and, where JIT frames stay unnamed, the flag that names
 * them as the issue's hint.
 */
static void name_late(struct issues *is, json_t *o, const char *e)
{
    const char *rule = e, *fpath = rule + strlen(rule) + 1, *site = fpath + strlen(fpath) + 1;
    const char *open = site + strlen(site) + 1;
    const struct sym_stack *st = issue_stack(is, site), *ost;
    char fp[17], hint[256];
    int32_t pid;

    if (st) {
        json_object_set_new(o, "stack", trace_str(st->text));
        json_object_set_new(o, "frames", frames_json(st));
    }
    ost = issue_stack(is, open);
    if (ost && json_object_get(o, "open_stack")) {
        json_object_set_new(o, "open_stack", trace_str(ost->text));
        json_object_set_new(o, "open_frames", frames_json(ost));
    }
    snprintf(fp, sizeof(fp), "%016llx",
             (unsigned long long)fingerprint(is->cfg, rule, *fpath ? fpath : NULL,
                                             ost ? ost->key : open));
    json_object_set_new(o, "fingerprint", json_string(fp));
    pid = (int32_t)iget(o, "pid");
    if (symbolizer_hint(is->sym, pid, st, hint, sizeof(hint)) ||
        symbolizer_hint(is->sym, pid, ost, hint, sizeof(hint)))
        json_object_set_new(o, "hint", json_string(hint));
}

/* A process's hint is said once: by its first issue. */
static void hint_once(json_t **v, size_t n)
{
    struct hmap said = HMAP_INIT;

    for (size_t i = 0; i < n; i++) {
        uint64_t pid = (uint64_t)(uint32_t)iget(v[i], "pid") + 1;

        if (!json_object_get(v[i], "hint"))
            continue;
        if (hmap_get(&said, pid))
            json_object_del(v[i], "hint");
        else
            (void)hmap_put(&said, pid, v[i]);   /* out of memory: said again */
    }
    hmap_release(&said);
}

void rule_report(const struct rule_ctx *ctx, const struct rule_report *r)
{
    const struct issue_binding *b = ctx->sink;
    struct issues *is = b->issues;
    const struct rule_session *s = r->s;
    char fp_path[4096 + 2];
    char fp[17];
    struct rule_detail *fields = report_fields(b->rule, r);
    json_t *o, *detail = r->detail ? r->detail : json_object(), *prev;
    const struct sym_stack *st;
    const char *site;
    int64_t time = r->time_unix_ms ? r->time_unix_ms : s->end_unix_ms;
    uint64_t key;
    json_int_t occ = 1, repeat = r->repeat;
    struct issue_cost cost;
    size_t idx = 0;

    if (detail && fields) {
        json_t *more = issue_detail_to_json(fields);

        json_object_update(detail, more);
        json_decref(more);
    }
    issue_detail_free(fields);
    if (!detail)
        return;
    issue_cost_of(b->rule, r, &cost);
    site = report_stack(b->rule, r);
    st = issue_stack(is, site);
    key = fingerprint_cached(is, b->rule->name,
                             fingerprint_path(ctx, s, fp_path, sizeof(fp_path)), s->stack);
    snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)key);
    prev = seen_issue(is, b->rule, key, &occ, &repeat);
    if (prev) {
        /* the impact is over every occurrence, whichever stands for them */
        idx = (size_t)(uintptr_t)hmap_get(&is->seen, key) - 1;
        issue_cost_add(&is->costs[idx], &cost);
        if (count_later(prev, b->rule, time, occ, repeat)) {
            json_decref(detail);
            return;
        }
        is->costs[idx].pid = cost.pid;
    }
    json_object_set_new(detail, "occurrences", json_integer(occ));
    symbolize_sites(is, detail);
    note_exe(ctx, s, detail);
    note_threads(b->rule, r, detail);
    if (s->opener_process)
        json_object_set_new(detail, "opened_by",
                            json_pack("{s:o,s:i,s:o}", "process", trace_str(s->opener_process),
                                      "pid", (int)s->opener_pid, "stack", trace_str(s->stack)));
    o = json_pack("{s:s,s:i,s:o,s:I,s:o,s:I,s:I,s:I,s:I,s:i,s:I,s:o,s:o,s:I,"
                  "s:s,s:i,s:i,s:s,s:o,s:o}",
                  "tag", "io",
                  "type", b->rule->type,
                  "process", trace_str(s->process ? s->process : "unknown"),
                  "time", (json_int_t)time,
                  "path", trace_str(s->path),
                  "size", (json_int_t)s->file_size,
                  "op", (json_int_t)s->op,
                  "buffer", (json_int_t)s->buffer,
                  "cost", (json_int_t)(s->cost_ns / 1000000),
                  "opType", s->op_type,
                  "opSize", (json_int_t)s->op_size,
                  "thread", trace_str(calls_thread(b->rule, r)),
                  "stack", trace_str(st ? st->text : site),
                  "repeat", (json_int_t)repeat,
                  "rule", b->rule->name,
                  "pid", (int)s->pid,
                  "tid", (int)calls_tid(b->rule, r),
                  "fingerprint", fp,
                  "message", trace_str(r->message),
                  "detail", detail);
    if (!o)
        return;
    {
        json_t *hex = path_hex_of(s->path);

        if (hex)
            json_object_set_new(o, "path_hex", hex);
    }
    json_object_set_new(o, "frames", frames_json(st));
    if (report_fix(b->rule, r))
        json_object_set_new(o, "fix", json_string(report_fix(b->rule, r)));
    note_open_site(is, s, site, o);
    if (!prev)
        idx = json_array_size(is->list);
    note_late(is, idx, b->rule->name, fingerprint_path(ctx, s, fp_path, sizeof(fp_path)),
              site, s->stack);
    if (prev) {
        json_array_set_new(is->list, idx, o);
        return;
    }
    if (iot_grow(&is->costs, &is->costs_cap, idx + 1, sizeof(*is->costs)) < 0) {
        json_decref(o);
        return;
    }
    if (json_array_append_new(is->list, o) == 0) {
        is->costs[idx] = cost;
        hmap_put(&is->seen, key, (void *)(uintptr_t)json_array_size(is->list));
    }
}

static int issue_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t tx = iget(x, "time"), ty = iget(y, "time");

    if (tx != ty)
        return tx < ty ? -1 : 1;
    tx = iget(x, "type");
    ty = iget(y, "type");
    if (tx != ty)
        return tx < ty ? -1 : 1;
    /* stable and deterministic beyond the SPEC's keys */
    return strcmp(json_string_value(json_object_get(x, "fingerprint")),
                  json_string_value(json_object_get(y, "fingerprint")));
}

json_t *issues_finish(struct issues *is, int timing,
                      int64_t (*proc_model_ns)(void *arg, int32_t pid), void *arg)
{
    size_t n = json_array_size(is->list), i;
    json_t **v = calloc(n ? n : 1, sizeof(*v)), *out = json_array();

    if (!v || !out) {
        free(v);
        json_decref(out);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        const struct issue_cost *c = &is->costs[i];

        v[i] = json_array_get(is->list, i);
        if (i < is->late_cap && is->late[i])
            name_late(is, v[i], is->late[i]);
        issue_judge(v[i], c, proc_model_ns ? proc_model_ns(arg, c->pid) : 0, timing);
        /* the labels of the trace the issue came from: its process's */
        json_object_set_new(v[i], "labels", json_deep_copy(proc_labels_of(is->labels, c->pid)));
    }
    qsort(v, n, sizeof(*v), issue_cmp);
    hint_once(v, n);
    for (i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
    issues_group(out);
    hmap_release(&is->seen);
    json_array_clear(is->list);
    return out;
}
