/* ioanalyze dump: every event in time order, or those the filters admit, as
   JSONL, aligned text or a Perfetto timeline. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "dump_filter.h"
#include "dump_top.h"
#include "input.h"
#include "msg.h"
#include "opt_parse.h"
#include "output_format.h"
#include "progress.h"

/* The progress line's label: none when the dump scrolls past on the same
   terminal (it would be drawn into the dump). */
static const char *dump_progress_label(void)
{
    return isatty(STDOUT_FILENO) ? NULL : "ioanalyze dump";
}

/* --format takes one of dump's formats; another is refused where it is given. */
static int check_format(const char *format)
{
    char buf[96];

    if (!output_format_find(OUTPUT_DUMP, format)) {
        iot_error("dump --format: expected %s, not '%s'",
                  output_format_names(OUTPUT_DUMP, ", ", " or ", buf, sizeof(buf)), format);
        return 2;
    }
    return 0;
}

/* The filters, declared once: the option, its value's name, its help. */
static const struct {
    const char *name, *arg, *help;
} filter_opts[] = {
    {"pid", "PID[,PID]", "the events of these processes only"},
    {"tid", "TID[,TID]", "the calls of these threads only"},
    {"path", "PATTERN", "the calls on files matching this glob (* matches / too)"},
    {"op", "NAME[,NAME]", "these calls only (read, write, openat, fsync, ...)"},
    {"since", "TIME", "from TIME: seconds from the trace's start, or a Unix time"},
    {"until", "TIME", "before TIME (as --since)"},
    {"min-dur", "DURATION", "the calls that took at least DURATION (5ms, 200us; ms alone)"},
    {"top", "N", "the N slowest calls, slowest first"},
};
#define NFILTERS (sizeof(filter_opts) / sizeof(filter_opts[0]))

/* What a filtered dump's observe hook works with. */
struct dump_run {
    const struct output_format *fmt;
    const struct dump_filter *flt;
    void *arg;                  /* the format's: its state, or the output FILE */
    struct dump_top *top;       /* --top */
    int failed;                 /* out of memory keeping the top calls */
};

/* The dump's observe hook when a filter is given: the events admitted go
   to the format (--top: the calls into the top's memory first). */
static void dump_filtered(void *arg, struct engine *e, const struct iot_event *const *evs,
                          size_t n)
{
    struct dump_run *r = arg;

    for (size_t i = 0; i < n; i++) {
        const struct iot_event *ev = evs[i];

        if (!dump_filter_admit(r->flt, e, ev, r->fmt->begin != NULL))
            continue;
        if (r->top && ev->kind == IOT_EV_CALL) {
            if (dump_top_wants(r->top, ev)) {
                r->fmt->write_call(r->arg, dump_top_begin(r->top), e, ev);
                if (dump_top_end(r->top, ev) < 0)
                    r->failed = 1;
            }
        } else if (r->fmt->observe) {
            r->fmt->observe(r->arg, e, &ev, 1);
        } else {
            r->fmt->write_event(r->arg, ev);
        }
    }
}

/* A kept call into stdout as it is (dump_top_finish's emit). */
static int put_bytes(void *arg, const char *s, size_t len)
{
    return fwrite(s, 1, len, arg) == len ? 0 : -1;
}

/* Keeps in list the issues the filters admit. */
static void filter_issues(const struct dump_filter *flt, struct issue_list *list)
{
    size_t i, n = 0;

    for (i = 0; i < list->n; i++)
        if (dump_filter_admit_issue(flt, list->v[i]))
            list->v[n++] = list->v[i];
        else
            issue_free(list->v[i]);
    list->n = n;
}

/* A dump written through the analysis (jsonl, perfetto, and every format
   when a filter is given): the engine says which file a call touched and
   which process, the rules mark the issues. 0, or 2. */
static int dump_analyzed(const struct output_format *fmt, const struct opt_list *inputs,
                         int strict, const char *config, const struct dump_filter *flt)
{
    struct analyze_request req = {.inputs = inputs->v, .ninputs = inputs->n, .strict = strict,
                                  .config_path = config};
    struct analyze_opts o = {.want_issues = fmt->want_issues, .progress = dump_progress_label(),
                             .observe = fmt->observe, .observe_arg = stdout,
                             .records = 1};
    struct analyze_result res = {0};
    struct dump_run run = {.fmt = fmt, .flt = flt, .arg = stdout};
    int ret = 2, rc;

    if (flt->top && !(run.top = dump_top_create(flt->top)))
        goto oom;
    if (fmt->begin) {
        run.arg = fmt->begin(stdout);
        if (!run.arg) {
            dump_top_free(run.top);
            goto oom;
        }
        o.observe_arg = run.arg;
    }
    if (dump_filter_any(flt)) {
        o.observe = dump_filtered;
        o.observe_arg = &run;
    }
    rc = analyze_run(&req, &o, &res);
    if (run.failed) {
        iot_error("out of memory keeping the --top calls");
        rc = 2;
    }
    if (run.top) {
        if (rc == 0 && dump_top_finish(run.top, fmt->put_element ? fmt->put_element : put_bytes,
                                       fmt->put_element ? run.arg : stdout) < 0)
            rc = -1;
        else if (rc != 0)
            dump_top_free(run.top);
    }
    /* no filter admits every issue */
    filter_issues(flt, &res.list);
    if (fmt->begin && fmt->end(run.arg, &res.list) < 0)
        rc = rc ? rc : -1;
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
        rc = -1;
    if (rc < 0)
        iot_error("cannot write the dump: %s", strerror(errno));
    else if (rc == 0)
        ret = 0;
    issue_list_release(&res.list);
    return ret;
oom:
    iot_error("out of memory");
    return 2;
}

int cmd_dump(int argc, char **argv)
{
    struct opt_list inputs = {0};
    const char *format = "jsonl", *config = NULL, *filter_values[NFILTERS] = {0};
    int ret = 2, rc, parsed, strict = 0, schema = 0;
    const struct output_format *fmt;
    char names[64], help[512], err[256];
    struct iot_strtab *st = NULL;
    struct input *in = NULL;
    struct config cfg;
    int have_cfg = 0;
    struct dump_filter flt = {0};
    const struct iot_event *ev;
    struct progress progress_buf, *pr;
    struct opt_spec opts[4 + NFILTERS] = {
        {"format", 'f', output_format_names(OUTPUT_DUMP, "|", "|", names, sizeof(names)),
         .value = &format, .check = check_format, .help = "how the events are written (below)"},
        {"strict", 0, NULL, .flag = &strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
        {"config", 'c', "FILE", .value = &config,
         .help = "leave out the calls on paths its ignore_paths match"},
        {"schema", 0, NULL, .flag = &schema,
         .help = "write the type of each JSONL column, for data tools (no INPUT)"},
    };
    const struct opt_cmd cmd = {
        .name = "dump",
        .synopsis = "dump [--format FORMAT] [FILTER...] [--strict] INPUT... (or: dump --schema)",
        .about = "Writes every event in time order: JSONL (the interchange format,\n"
                 "readable by every ioanalyze command), one aligned text line per event, or\n"
                 "a Perfetto / chrome://tracing timeline with the issues marked. The filters\n"
                 "keep the calls that all of them admit; other events (processes, threads,\n"
                 "exits) follow --pid, --since and --until while no other filter is given.",
        OPT_SPECS(opts),
        .footer = output_format_help(OUTPUT_DUMP, help, sizeof(help)),
    };

    for (size_t i = 0; i < NFILTERS; i++)
        opts[4 + i] = (struct opt_spec){filter_opts[i].name, 0, filter_opts[i].arg,
                                        .value = &filter_values[i], .help = filter_opts[i].help};
    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    fmt = output_format_find(OUTPUT_DUMP, format);
    if (schema) {
        /* what data tools need to type the columns; takes no input */
        if (!fmt->write_schema)
            iot_error("dump --schema: the %s format has no columns (jsonl has)", format);
        else if (inputs.n)
            iot_error("dump --schema takes no INPUT");
        else if (fmt->write_schema(stdout) < 0)
            iot_error("cannot write the schema: %s", strerror(errno));
        else
            ret = 0;
        goto out;
    }
    if (!inputs.n) {
        /* needs_input, but for --schema */
        opt_usage_error(&cmd, "no input given");
        goto out;
    }
    for (size_t i = 0; i < NFILTERS; i++)
        if (filter_values[i] &&
            dump_filter_set(&flt, filter_opts[i].name, filter_values[i], err, sizeof(err)) < 0) {
            iot_error("dump --%s: %s", filter_opts[i].name, err);
            goto out;
        }
    if (config) {
        /* its ignore patterns, matched as the analysis does */
        if (config_init(&cfg) < 0) {
            iot_error("out of memory");
            goto out;
        }
        have_cfg = 1;
        if (config_load_file(&cfg, config, err) < 0) {
            iot_error("%s", err);
            goto out;
        }
        flt.ignore = &cfg;
    }
    if (!fmt->write_event || dump_filter_any(&flt)) {
        ret = dump_analyzed(fmt, &inputs, strict, config, &flt);
        if (ret == 0 && have_cfg && config_failure(&cfg)) {
            iot_error("%s", config_failure(&cfg));
            ret = 2;
        }
        goto out;
    }
    st = iot_strtab_create();
    if (!st || !(in = input_open(inputs.v, inputs.n, st)))
        goto out;
    /* straight from the input */
    pr = progress_start(&progress_buf, dump_progress_label(), in);
    while ((rc = input_next_ref(in, &ev)) > 0) {
        fmt->write_event(stdout, ev);
        progress_add(pr, 1);
    }
    progress_end(pr);
    if (rc < 0)
        goto out;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        iot_error("cannot write the dump: %s", strerror(errno));
        goto out;
    }
    /* what was read is written, and the damage is said (SPEC: exit 0, 2 with --strict) */
    if (input_report_damage(in) && strict) {
        iot_error("--strict: refusing a damaged input");
        goto out;
    }
    ret = 0;
out:
    input_close(in);
    iot_strtab_free(st);
    if (have_cfg)
        config_release(&cfg);
    dump_filter_release(&flt);
    free(inputs.v);
    return ret;
}
