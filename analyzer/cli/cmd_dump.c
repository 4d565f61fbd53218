/* ioanalyze dump: every event in time order, as JSONL or aligned text. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

/* A format written through the analysis (jsonl, perfetto): the engine says
   which file a call touched and which process, the rules mark the issues. 0, or 2. */
static int dump_analyzed(const struct output_format *fmt, const struct opt_list *inputs,
                         int strict)
{
    struct analyze_request req = {.inputs = inputs->v, .ninputs = inputs->n, .strict = strict};
    struct analyze_opts o = {.want_issues = fmt->want_issues, .progress = dump_progress_label(),
                             .observe = fmt->observe, .observe_arg = stdout};
    struct analyze_result res = {0};
    void *state = NULL;
    int ret = 2, rc;

    if (fmt->begin) {
        state = fmt->begin(stdout);
        if (!state) {
            iot_error("out of memory");
            return 2;
        }
        o.observe_arg = state;
    }
    rc = analyze_run(&req, &o, &res);
    if (state && fmt->end(state, res.issues) < 0)
        rc = -1;
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
        rc = -1;
    if (rc < 0)
        iot_error("cannot write the dump: %s", strerror(errno));
    else if (rc == 0)
        ret = 0;
    json_decref(res.issues);
    return ret;
}

int cmd_dump(int argc, char **argv)
{
    struct opt_list inputs = {0};
    const char *format = "jsonl";
    int ret = 2, rc, parsed, strict = 0;
    const struct output_format *fmt;
    char names[64], help[512];
    struct iot_strtab *st = NULL;
    struct input *in = NULL;
    const struct iot_event *ev;
    struct progress progress_buf, *pr;
    const struct opt_spec opts[] = {
        {"format", 'f', output_format_names(OUTPUT_DUMP, "|", "|", names, sizeof(names)),
         .value = &format, .check = check_format, .help = "how the events are written (below)"},
        {"strict", 0, NULL, .flag = &strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
    };
    const struct opt_cmd cmd = {
        .name = "dump",
        .synopsis = "dump [--format FORMAT] [--strict] INPUT...",
        .about = "Writes every event in time order: JSONL (the interchange format,\n"
                 "readable by every ioanalyze command), one aligned text line per event, or\n"
                 "a Perfetto / chrome://tracing timeline with the issues marked.",
        OPT_SPECS(opts),
        .footer = output_format_help(OUTPUT_DUMP, help, sizeof(help)),
        .needs_input = 1,
    };

    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    fmt = output_format_find(OUTPUT_DUMP, format);
    if (!fmt->write_event) {
        ret = dump_analyzed(fmt, &inputs, strict);
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
    free(inputs.v);
    return ret;
}
