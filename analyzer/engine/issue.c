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
#include "issue_late.h"
#include "issue_text.h"
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
    struct issue_list list; /* the issues so far, one per fingerprint */
    struct hmap seen;       /* fingerprint value -> index in list + 1 */
    struct hmap fps;        /* raw_key() -> fingerprint value (raw_key) */
    struct hmap sites;      /* an interned stack's address -> rule_stack_site() */
    struct symbolizer *sym; /* stacks to functions and lines, or NULL */
    struct issue_cost *costs; /* costs[i]: list[i]'s, over its occurrences */
    size_t costs_cap;
    struct proc_labels *labels; /* each process's labels */
    struct fold_made *made; /* the names made from templates, folded in fingerprints */
    /* late[i]: list[i]'s raw stacks, when a record read later could
       name a frame of them (NULL: none) */
    struct late_stacks **late;
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

void issues_process_args(struct issues *is, int32_t pid, const char *const *argv, int argc)
{
    if (is->sym)
        symbolizer_process_args(is->sym, pid, argv, argc);
}

void issues_runtime_env(struct issues *is, int32_t pid, const char *options)
{
    if (is->sym)
        symbolizer_runtime_env(is->sym, pid, options);
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

const struct rule_detail *issues_labels(const struct issues *is)
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
    is->labels = proc_labels_create();
    is->made = fold_made_create();
    if (!is->labels || !is->made) {
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
    hmap_release(&is->sites);
    issue_list_release(&is->list);
    proc_labels_free(is->labels);
    fold_made_free(is->made);
    for (size_t i = 0; i < is->late_cap; i++)
        late_stacks_free(is->late[i]);
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

/*
 * The issue already reported under fingerprint key, or NULL; *occ and
 * *repeat become what one more occurrence makes of its figures (a rule
 * whose repeat is a bitmask, RULE_F_REPEAT_BITS, gets the union).
 */
static struct issue *seen_issue(struct issues *is, const struct rule *rule, uint64_t key,
                                int64_t *occ, int64_t *repeat)
{
    void *v = hmap_get(&is->seen, key);
    struct issue *prev;

    if (!v)
        return NULL;
    prev = is->list.v[(size_t)(uintptr_t)v - 1];
    *occ = issue_detail_int(prev->detail, "occurrences", 0) + 1;
    if (rule->flags & RULE_F_REPEAT_BITS)
        *repeat |= prev->repeat;
    return prev;
}

/*
 * The earliest occurrence stands for all: one at or after prev's time only
 * counts (returns 1); an earlier one takes its place (returns 0).
 */
static int count_later(struct issue *prev, const struct rule *rule, int64_t time, int64_t occ,
                       int64_t repeat)
{
    if (prev->time > time)
        return 0;
    issue_detail_set_int(prev->detail, "occurrences", occ);
    if (rule->flags & RULE_F_REPEAT_BITS)
        prev->repeat = repeat;
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
    int64_t occ, rep = repeat;
    uint64_t key = fingerprint_cached(is, b->rule->name,
                                      fingerprint_path(ctx, s, fp_path, sizeof(fp_path)),
                                      s->stack);
    struct issue *prev = seen_issue(is, b->rule, key, &occ, &rep);

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

uint64_t rule_stack_site(const struct rule_ctx *ctx, const char *stack)
{
    struct issues *is;
    uint64_t site;

    /* no stack, no site: nothing of ctx is needed */
    if (!stack || !*stack)
        return 0;
    is = ((const struct issue_binding *)ctx->sink)->issues;
    /* rules hand over the engine's interned stacks: one per address */
    site = (uint64_t)(uintptr_t)hmap_get(&is->sites, (uint64_t)(uintptr_t)stack);
    if (!site) {
        /* never 0, which says "no stack" (and "not kept" to the map) */
        site = iot_fnv64_add(IOT_FNV64_INIT, stack, sym_site_len(stack)) | 1;
        /* out of memory: worked out again next time */
        hmap_put(&is->sites, (uint64_t)(uintptr_t)stack, (void *)(uintptr_t)site);
    }
    return site;
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

/*
 * The process is named as it was invoked (argv[0]); when its executable is
 * called otherwise (redis-server runs /usr/bin/redis-check-rdb, a link's
 * target), detail.exe says which file ran.
 */
static void note_exe(const struct rule_ctx *ctx, const struct rule_session *s,
                     struct rule_detail *detail)
{
    const char *exe = ctx->engine && s->process
                          ? engine_proc_exe_of(ctx->engine, s->pid) : NULL;

    if (exe && strcmp(iot_path_base(exe), s->process) != 0 &&
        s->process == engine_proc_name_of(ctx->engine, s->pid))
        issue_detail_set(detail, "exe", (struct issue_value){.type = ISSUE_V_STRING,
                                                             .s = issue_trace_text(exe)});
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
static int note_open_site(struct issues *is, const struct rule_session *s, const char *site,
                          struct issue *o)
{
    const struct sym_stack *st;

    if (!s->stack || !*s->stack || strcmp(s->stack, site) == 0)
        return 0;
    st = issue_stack(is, s->stack);
    o->has |= ISSUE_HAS_OPEN_SITE;
    if (!(o->open_stack = issue_trace_text(st ? st->text : s->stack)))
        return -1;
    return issue_frames_of(st, &o->open_frames);
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

static void note_threads(const struct rule *rule, const struct rule_report *r,
                         struct rule_detail *detail)
{
    const struct rule_session *s = r->s;

    if (has_calls_thread(rule, r) && s->calls_threads > 1) {
        issue_detail_set_int(detail, "threads", (int64_t)s->calls_threads);
        issue_detail_set_int(detail, "thread_calls", (int64_t)s->calls_tid_calls);
    }
}

/*
 * The finding's detail: what a rule built before the detail builder stated
 * in jansson (r->detail, taken), then the builder's fields (taken), each as
 * its JSON issue holds it. NULL out of memory.
 */
static struct rule_detail *report_detail(const struct rule *rule, const struct rule_report *r)
{
    struct rule_detail *fields = report_fields(rule, r), *d;

    d = json_is_object(r->detail) ? issue_detail_from_json(r->detail) : issue_detail_new();
    json_decref(r->detail);
    if (!d) {
        issue_detail_free(fields);
        return NULL;
    }
    issue_detail_update(d, fields);
    return d;
}

/* The opener, when another process opened the file (opened_by); the stack
   of its open as the trace gives it (late_stacks_rename_detail shows it). */
static void note_opener(const struct rule_session *s, struct rule_detail *detail)
{
    struct issue_value v = {.type = ISSUE_V_OBJECT, .obj = issue_detail_new()};

    if (!s->opener_process || !v.obj)
        goto out;
    if (issue_detail_set(v.obj, "process", (struct issue_value){
                                                .type = ISSUE_V_STRING,
                                                .s = issue_trace_text(s->opener_process)}) < 0 ||
        issue_detail_set_int(v.obj, "pid", (int64_t)s->opener_pid) < 0 ||
        issue_detail_set(v.obj, "stack", (struct issue_value){.type = ISSUE_V_STRING,
                                                              .s = issue_trace_text(s->stack)}) < 0)
        goto out;
    issue_detail_set(detail, "opened_by", v);
    return;
out:
    issue_value_free(&v);
}

/*
 * The record of the finding r of rule (detail: its detail, taken; site:
 * the stack of its calls, st that stack symbolized); NULL out of memory,
 * or when the rule's name is not UTF-8 (no JSON issue can name it).
 */
static struct issue *make_issue(struct issues *is, const struct rule *rule,
                                const struct rule_report *r, struct rule_detail *detail,
                                const char *site, const struct sym_stack *st)
{
    const struct rule_session *s = r->s;
    struct issue *o = calloc(1, sizeof(*o));
    int ok;

    if (!o || !issue_utf8_or_null(rule->name)) {
        issue_detail_free(detail);
        free(o);
        return NULL;
    }
    o->detail = detail;
    o->type = rule->type;
    o->time = r->time_unix_ms ? r->time_unix_ms : s->end_unix_ms;
    o->size = s->file_size;
    o->op = s->op;
    o->buffer = s->buffer;
    o->cost = s->cost_ns / 1000000;
    o->op_type = s->op_type;
    o->op_size = s->op_size;
    o->repeat = r->repeat;
    o->pid = s->pid;
    o->tid = calls_tid(rule, r);
    o->has = ISSUE_HAS_FRAMES;
    ok = (o->process = issue_trace_text(s->process ? s->process : "unknown")) &&
         (o->path = issue_trace_text(s->path)) && (o->thread = issue_trace_text(calls_thread(rule, r))) &&
         (o->stack = issue_trace_text(st ? st->text : site)) && (o->rule = strdup(rule->name)) &&
         (o->fingerprint = malloc(17)) && (o->message = issue_trace_text(r->message)) &&
         issue_frames_of(st, &o->frames) == 0 && note_open_site(is, s, site, o) == 0;
    if (ok && (o->path_hex = issue_path_hex(s->path)) != NULL)
        o->has |= ISSUE_HAS_PATH_HEX;
    if (ok && issue_utf8_or_null(report_fix(rule, r))) {
        o->has |= ISSUE_HAS_FIX;
        ok = (o->fix = strdup(report_fix(rule, r))) != NULL;
    }
    if (!ok) {
        issue_free(o);
        return NULL;
    }
    return o;
}

/*
 * A runtime that writes its perf map at exit (the JVM's
 * -XX:+DumpPerfMapAtExit) names its JIT frames after the issues found
 * before were made: issue idx's raw stacks (l, taken) are kept when a
 * frame of them could be named later, and named again as the issues are
 * finished, when whether the process has a map is known.
 */
static void note_late(struct issues *is, size_t idx, struct late_stacks *l)
{
    size_t cap = is->late_cap;

    if (idx < is->late_cap) {
        late_stacks_free(is->late[idx]);
        is->late[idx] = NULL;
    }
    if (!l || !late_stacks_pending(l, is->sym) ||
        iot_grow(&is->late, &is->late_cap, idx + 1, sizeof(*is->late)) < 0) {
        late_stacks_free(l);
        return;
    }
    memset(is->late + cap, 0, (is->late_cap - cap) * sizeof(*is->late));
    is->late[idx] = l;
}

/* Replaces *text and *frames with st's (kept as they are out of memory). */
static void rename_stack(const struct sym_stack *st, char **text, struct issue_frames *frames)
{
    struct issue_frames f = {0};
    char *t = issue_trace_text(st->text);

    if (!t || issue_frames_of(st, &f) < 0) {
        free(t);
        issue_frames_release(&f);
        return;
    }
    free(*text);
    *text = t;
    issue_frames_release(frames);
    *frames = f;
}

/*
 * The late-named stacks of issue o (note_late's l): its stack, frames and
 * fingerprint, its detail's stacks; and, where frames stay missing, the
 * flags that show them as the issue's hint.
 */
static void name_late(struct issues *is, struct issue *o, const struct late_stacks *l)
{
    const char *fpath = l->fpath, *open = l->open;
    const struct sym_stack *st = issue_stack(is, l->site), *ost;
    char hint[256];

    if (st)
        rename_stack(st, &o->stack, &o->frames);
    ost = issue_stack(is, open);
    if (ost && (o->has & ISSUE_HAS_OPEN_SITE))
        rename_stack(ost, &o->open_stack, &o->open_frames);
    if (o->fingerprint)
        snprintf(o->fingerprint, 17, "%016llx",
                 (unsigned long long)fingerprint(is->cfg, l->rule, *fpath ? fpath : NULL,
                                                 ost ? ost->key : open));
    late_stacks_rename_detail(l, is->sym, o->detail);
    if ((symbolizer_hint(is->sym, o->pid, st, hint, sizeof(hint)) ||
         symbolizer_hint(is->sym, o->pid, ost, hint, sizeof(hint))) &&
        issue_utf8_or_null(hint)) {
        free(o->hint);
        if ((o->hint = strdup(hint)) != NULL)
            o->has |= ISSUE_HAS_HINT;
    }
}

/* A process's hint is said once: by its first issue. */
static void hint_once(struct issue_list *l)
{
    struct hmap said = HMAP_INIT;

    for (size_t i = 0; i < l->n; i++) {
        struct issue *o = l->v[i];
        uint64_t pid = (uint64_t)(uint32_t)o->pid + 1;

        if (!(o->has & ISSUE_HAS_HINT))
            continue;
        if (hmap_get(&said, pid)) {
            free(o->hint);
            o->hint = NULL;
            o->has &= ~(unsigned)ISSUE_HAS_HINT;
        } else {
            (void)hmap_put(&said, pid, o);   /* out of memory: said again */
        }
    }
    hmap_release(&said);
}

void rule_report(const struct rule_ctx *ctx, const struct rule_report *r)
{
    const struct issue_binding *b = ctx->sink;
    struct issues *is = b->issues;
    const struct rule_session *s = r->s;
    char fp_path[4096 + 2];
    struct rule_detail *detail = report_detail(b->rule, r);
    struct issue *o, *prev;
    const struct sym_stack *st;
    const char *site;
    int64_t time = r->time_unix_ms ? r->time_unix_ms : s->end_unix_ms;
    uint64_t key;
    int64_t occ = 1, repeat = r->repeat;
    struct issue_cost cost;
    struct late_stacks *late;
    size_t idx = 0;

    if (!detail)
        return;
    issue_cost_of(b->rule, r, &cost);
    site = report_stack(b->rule, r);
    st = issue_stack(is, site);
    key = fingerprint_cached(is, b->rule->name,
                             fingerprint_path(ctx, s, fp_path, sizeof(fp_path)), s->stack);
    prev = seen_issue(is, b->rule, key, &occ, &repeat);
    if (prev) {
        /* the impact is over every occurrence, whichever stands for them */
        idx = (size_t)(uintptr_t)hmap_get(&is->seen, key) - 1;
        issue_cost_add(&is->costs[idx], &cost);
        if (count_later(prev, b->rule, time, occ, repeat)) {
            issue_detail_free(detail);
            return;
        }
        is->costs[idx].pid = cost.pid;
    }
    issue_detail_set_int(detail, "occurrences", occ);
    late = late_stacks_new(b->rule->name, fingerprint_path(ctx, s, fp_path, sizeof(fp_path)),
                           site, s->stack, detail);
    note_exe(ctx, s, detail);
    note_threads(b->rule, r, detail);
    note_opener(s, detail);
    /* the detail's stacks shown as the issue's own is: symbolized where
       they can be (out of memory, as the trace gives them) */
    if (late)
        late_stacks_rename_detail(late, is->sym, detail);
    if (!(o = make_issue(is, b->rule, r, detail, site, st))) {
        late_stacks_free(late);
        return;
    }
    o->repeat = repeat;
    snprintf(o->fingerprint, 17, "%016llx", (unsigned long long)key);
    if (!prev)
        idx = is->list.n;
    note_late(is, idx, late);
    if (prev) {
        issue_free(prev);
        is->list.v[idx] = o;
        return;
    }
    if (iot_grow(&is->costs, &is->costs_cap, idx + 1, sizeof(*is->costs)) < 0) {
        issue_free(o);
        return;
    }
    if (issue_list_add(&is->list, o) < 0)
        return;
    is->costs[idx] = cost;
    hmap_put(&is->seen, key, (void *)(uintptr_t)is->list.n);
}

/* The JSON issues' order: time, then type, then (stable and deterministic
   beyond the SPEC's keys) fingerprint. */
static int issue_cmp(const void *a, const void *b)
{
    const struct issue *x = *(const struct issue *const *)a, *y = *(const struct issue *const *)b;

    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return strcmp(x->fingerprint, y->fingerprint);
}

int issues_finish(struct issues *is, int timing, int64_t (*proc_model_ns)(void *arg, int32_t pid),
                  void *arg, struct issue_list *out)
{
    struct issue_list *l = &is->list;
    int rc = 0;

    for (size_t i = 0; i < l->n; i++) {
        const struct issue_cost *c = &is->costs[i];
        struct issue *o = l->v[i];

        if (i < is->late_cap && is->late[i])
            name_late(is, o, is->late[i]);
        issue_judge(o, c, proc_model_ns ? proc_model_ns(arg, c->pid) : 0, timing);
        /* the labels of the trace the issue came from: its process's */
        if ((o->labels = issue_detail_copy(proc_labels_of(is->labels, c->pid))) != NULL)
            o->has |= ISSUE_HAS_LABELS;
        else
            rc = -1;
    }
    if (l->n)
        qsort(l->v, l->n, sizeof(*l->v), issue_cmp);
    hint_once(l);
    issues_group(l);
    for (size_t i = 0; i < l->n; i++)
        if (rc == 0 && issue_list_add(out, l->v[i]) < 0)
            rc = -1;
        else if (rc < 0)
            issue_free(l->v[i]);
    free(l->v);
    *l = (struct issue_list){0};
    hmap_release(&is->seen);
    return rc;
}
