/*
 * The analysis pipeline: config, inputs, engine, rules, issues
 * (analyze_collect() for diff, analyze_run() for the CLI).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_pipe.h"
#include "cli.h"
#include "config.h"
#include "input.h"
#include "issue.h"
#include "msg.h"
#include "progress.h"
#include "report.h"
#include "registry.h"
#include "scope.h"
#include "symbolize.h"
#include "text.h"

static int setup_config(struct config *cfg, const struct analyze_request *req,
                        const struct analyze_opts *o)
{
    char errbuf[256];

    for (size_t i = 0; o && i < o->nplugins; i++) {
        if (rules_load_plugin(o->plugins[i], errbuf) < 0) {
            iot_error("%s", errbuf);
            return -1;
        }
    }
    if (config_init(cfg) < 0) {
        iot_error("out of memory");
        return -1;
    }
    cfg->untimed = req->untimed;
    if (req->config_path && config_load_file(cfg, req->config_path, errbuf) < 0)
        goto fail;
    for (size_t i = 0; i < req->nsets; i++)
        if (config_set(cfg, req->sets[i], errbuf) < 0)
            goto fail;
    if (o && o->only_rules && config_select(cfg, o->only_rules, 1, errbuf) < 0)
        goto fail;
    if (o && o->disable_rules && config_select(cfg, o->disable_rules, 0, errbuf) < 0)
        goto fail;
    return 0;
fail:
    iot_error("%s", errbuf);
    config_release(cfg);
    return -1;
}

/* What each batch of events goes through: the observer's and the engine's turns. */
struct feed {
    const struct analyze_opts *o;
    struct engine *e;
    struct progress *pr;
};

static void feed_events(void *arg, const struct iot_event *const *evs, size_t n)
{
    const struct feed *f = arg;

    if (f->o && f->o->observe) {
        /* one at a time: an observer asks the engine about the fds of
           a call, which an open earlier in the same batch may have made */
        for (size_t i = 0; i < n; i++) {
            f->o->observe(f->o->observe_arg, f->e, &evs[i], 1);
            engine_events(f->e, &evs[i], 1);
        }
    } else {
        engine_events(f->e, evs, n);
    }
    progress_add(f->pr, (uint64_t)n);
}

/* Calls that stand for events (analyze_pipe), where no observer sees events. */
static void feed_calls(void *arg, const struct engine_call *c, size_t n)
{
    const struct feed *f = arg;

    engine_calls(f->e, c, n);
    progress_add(f->pr, (uint64_t)n);
}

/* what an issue's share of its process's modelled I/O cost is of (issues_finish) */
static int64_t proc_model_ns(void *e, int32_t pid)
{
    return engine_proc_model_ns_of(e, pid);
}

int analyze_run(const struct analyze_request *req, const struct analyze_opts *o,
                struct analyze_result *res)
{
    struct config cfg;
    struct iot_strtab *st = NULL;
    struct input *in = NULL;
    struct issues *is = NULL;
    struct symbolizer *sym = NULL;
    struct engine *e = NULL;
    const struct iot_event *ev;
    struct iot_trace *tr;
    char errbuf[IOT_ERRBUF_SIZE];
    int rc, ret = 2;
    struct progress progress_buf, *pr = NULL;
    struct feed feed;

    memset(res, 0, sizeof(*res));
    if (setup_config(&cfg, req, o) < 0) {
        res->setup_failed = 1;
        return 2;
    }
    st = iot_strtab_create();
    if (!st)
        goto oom;
    in = input_open(req->inputs, req->ninputs, st);
    if (!in)
        goto out;
    if (!o || o->want_issues) {
        is = issues_create(&cfg);
        if (!is)
            goto oom;
        if (!req->no_symbolize) {
            sym = symbolizer_create(req->debug_dirs, req->ndebug_dirs);
            if (!sym)
                goto oom;
            symbolizer_use_process_cache(sym);
            issues_set_symbolizer(is, sym);
        }
    }
    e = engine_create(&cfg, is, o ? o->profile : NULL);
    if (!e)
        goto oom;
    engine_set_strtab(e, st);
    /* a lone native trace is read without the input layer, a batch at a time:
       it is the hot loop */
    tr = input_lone_native(in);
    pr = progress_start(&progress_buf, o ? o->progress : NULL, in);
    feed = (struct feed){.o = o, .e = e, .pr = pr};

    if (tr && analyze_threads(req->jobs, tr) > 1) {
        /* an observer sees every event; the engine alone takes calls as they cross */
        struct pipe_sink to = {feed_events, o && o->observe ? NULL : feed_calls, &feed};

        /* the engine may intern a joined path while the reader interns */
        iot_strtab_share(st);
        rc = analyze_pipe(tr, &to, errbuf);
    } else {
        for (;;) {
            const struct iot_event *const *evs = &ev;

            rc = tr ? iot_trace_next_batch(tr, &evs, errbuf) : input_next_ref(in, &ev);
            if (rc <= 0)
                break;
            feed_events(&feed, evs, (size_t)rc);
        }
    }
    progress_end(pr);
    if (rc < 0 && tr)
        iot_error("%s", errbuf);
    if (rc < 0)
        goto out;
    engine_finish(e);
    engine_stats(e, &res->stats);
    res->no_timing = res->stats.calls_no_dur > 0;
    res->damaged = input_report_damage(in);
    if (res->damaged && req->strict) {
        iot_error("--strict: refusing a damaged input");
        goto out;
    }
    if (is) {
        if (issues_finish(is, !res->no_timing, proc_model_ns, e, &res->list) < 0)
            goto oom;
        issues_note_exe(&res->list, e);
        if (sym) {
            symbolizer_counts(sym, &res->frames, &res->unresolved);
            symbolizer_jit_hints(sym, res->jit_hints, sizeof(res->jit_hints));
            /* at each input's end: a fleet task that is killed keeps what it did */
            symbolizer_flush_cache(sym);
        }
        if (o && o->want_labels) {
            res->labels = issue_detail_to_json(issues_labels(is));
            if (!res->labels)
                goto oom;
        }
    }
    /* a pattern over its PCRE2 limits left paths unjudged or fingerprints
       unnormalised: no result rather than a wrong one (config.h) */
    if (config_failure(&cfg)) {
        iot_error("%s", config_failure(&cfg));
        goto out;
    }
    /* a caller not on records gets them as JSON, written by the one writer */
    if (is && !(o && o->records)) {
        res->issues = issue_list_to_json(&res->list);
        issue_list_release(&res->list);
        if (!res->issues)
            goto oom;
    }
    ret = 0;
    goto out;
oom:
    iot_error("out of memory");
out:
    if (ret != 0) {
        issue_list_release(&res->list);
        json_decref(res->labels);
        res->labels = NULL;
    }
    engine_free(e);
    issues_free(is);
    symbolizer_free(sym);
    input_close(in);
    iot_strtab_free(st);
    config_release(&cfg);
    return ret;
}

int analyze_collect(const struct analyze_request *req, json_t **issues)
{
    struct analyze_opts o = {.want_issues = 1};
    struct analyze_result res;
    int rc = analyze_run(req, &o, &res);

    *issues = rc == 0 ? res.issues : NULL;
    return rc;
}

void analyze_summary(const struct issue_list *issues, const struct analyze_result *res,
                     size_t suppressed, size_t hidden, int min_severity)
{
    size_t nrules, n = issues->n;
    const struct rule *const *rules = rules_all(&nrules);
    int first = 1;

    char sev[96];

    /* by severity first (what to look at), then by rule (what was found) */
    if (n)
        fprintf(stderr, "ioanalyze: %zu issue%s (%s; ", n, n == 1 ? "" : "s",
                report_severity_counts(issues, sev, sizeof(sev)));
    else
        fprintf(stderr, "ioanalyze: no issues");
    for (size_t r = 0; n && r < nrules; r++) {
        size_t cnt = 0;

        for (size_t i = 0; i < n; i++)
            if (issues->v[i]->rule && strcmp(issues->v[i]->rule, rules[r]->name) == 0)
                cnt++;
        if (cnt) {
            fprintf(stderr, "%s%s %zu", first ? "" : ", ", rules[r]->name, cnt);
            first = 0;
        }
    }
    if (n)
        fprintf(stderr, ")");
    fprintf(stderr, " in %llu events from %llu process%s",
            (unsigned long long)res->stats.events, (unsigned long long)res->stats.processes,
            res->stats.processes == 1 ? "" : "es");
    if (hidden && min_severity == ISSUE_MEDIUM)
        fprintf(stderr, "; %zu low-impact issue%s not shown; --min-severity low shows them",
                hidden, hidden == 1 ? "" : "s");
    else if (hidden)
        fprintf(stderr, "; %zu issue%s below severity %s not shown; --min-severity low shows "
                        "them", hidden, hidden == 1 ? "" : "s", issue_severity_name(min_severity));
    if (suppressed)
        fprintf(stderr, "; %zu known issue%s suppressed by the baseline", suppressed,
                suppressed == 1 ? "" : "s");
    if (res->frames)
        fprintf(stderr, "; %zu of %zu stack frame%s unresolved", res->unresolved, res->frames,
                res->frames == 1 ? "" : "s");
    if (res->jit_hints[0])
        fprintf(stderr, "; frames missing, which the runtime shows when run with: %s",
                res->jit_hints);
    if (res->stats.unrecorded) {
        const struct engine_stats *st = &res->stats;
        char path[IOT_TEXT_MAX], why[256];

        fprintf(stderr, "; %llu process%s ran unrecorded:", (unsigned long long)st->unrecorded,
                st->unrecorded == 1 ? "" : "es");
        for (uint64_t i = 0; i < st->unrecorded && i < ENGINE_UNSEEN_NAMED; i++)
            fprintf(stderr, "%s %s (%s)", i ? "," : "",
                    iot_text_safe(path, sizeof(path), st->unrecorded_path[i]),
                    iot_text_safe(why, sizeof(why), st->unrecorded_why[i]));
        if (st->unrecorded > ENGINE_UNSEEN_NAMED)
            fprintf(stderr, ", ...");
    }
    if (res->stats.lost_records) {
        const struct engine_stats *st = &res->stats;
        char why[256];

        fprintf(stderr, "; the recorder lost:");
        for (size_t k = 0; k < st->nlost_why; k++) {
            fprintf(stderr, "%s %s ", k ? "," : "", iot_text_safe(why, sizeof(why), st->lost_why[k]));
            if (st->lost_why_uncounted[k] && !st->lost_why_calls[k])
                fprintf(stderr, "(uncounted)");
            else
                fprintf(stderr, "%s%llu", st->lost_why_uncounted[k] ? "at least " : "",
                        (unsigned long long)st->lost_why_calls[k]);
        }
        if (st->lost_more_why)
            fprintf(stderr, ", ...");
    }
    if (res->stats.async_calls)
        fprintf(stderr, "; async I/O (io_uring, aio) on %llu fd%s not analysed (%llu call%s)",
                (unsigned long long)res->stats.async_fds, res->stats.async_fds == 1 ? "" : "s",
                (unsigned long long)res->stats.async_calls,
                res->stats.async_calls == 1 ? "" : "s");
    if (res->no_timing)
        fprintf(stderr, "; the input has no call durations (strace without -T): "
                        "judged alike, no measured times shown");
    fputc('\n', stderr);
}
