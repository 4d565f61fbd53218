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
#include "dump_jsonl.h"
#include "opt_parse.h"
#include "perfetto.h"
#include "progress.h"
#include "text.h"

/* The progress line's label: none when the dump scrolls past on the same
   terminal (it would be drawn into the dump). */
static const char *dump_progress_label(void)
{
    return isatty(STDOUT_FILENO) ? NULL : "ioanalyze dump";
}

/* A string of the trace, shown safely (iot_text_write); NULL as def. */
static void put(FILE *f, const char *s, const char *def)
{
    if (!s)
        s = def;
    iot_text_write(f, s, strlen(s));
}

static void put_argv(FILE *f, const struct iot_event *ev, const char *def)
{
    fputc('[', f);
    for (int i = 0; i < ev->argc; i++) {
        fputs(i ? " " : "", f);
        put(f, ev->argv[i], def);
    }
    fputc(']', f);
}

/*
 * An event of another kind than a call (IOT_KIND_MEMBERS): its tid where
 * the kind must have one (a thread's), its kind, its members in table
 * order but the tid.
 */
static void dump_text_kind(FILE *f, const struct iot_event *ev)
{
    int tid_shown = 0;

#define TEXT_TID_SHOWN_REQ 1
#define TEXT_TID_SHOWN_OPT 0
#define TEXT_TID_SHOWN_TID 0
#define TEXT_TID_SHOWN_SIG 0
#define TEXT_TID_(KIND, m, type, k, tk, need, ph)                                     \
    if (ev->kind == IOT_EV_##KIND && offsetof(struct iot_event, m) == offsetof(struct iot_event, tid)) \
        tid_shown = TEXT_TID_SHOWN_##need;
    IOT_KIND_MEMBERS(TEXT_TID_)
#undef TEXT_TID_
    if (tid_shown)
        fprintf(f, "/%-7d", (int)ev->tid);
    else
        fputs("        ", f);
    fprintf(f, " %-10s", iot_kind_name(ev->kind));
#define TEXT_HAS_REQ 1
#define TEXT_HAS_OPT 1
#define TEXT_HAS_TID 1
#define TEXT_HAS_SIG (ev->has & IOT_HAS_SIGNAL)
#define TEXT_I32(m, ph)    fprintf(f, "%d", (int)ev->m)
#define TEXT_I64(m, ph)    fprintf(f, "%" PRId64, ev->m)
#define TEXT_UNIXNS(m, ph) fprintf(f, "%" PRId64, ev->m)
#define TEXT_U64(m, ph)    fprintf(f, "0x%" PRIx64, ev->m)
#define TEXT_STR(m, ph)    put(f, ev->m, ph)
#define TEXT_HEXID(m, ph)  put(f, ev->m && *ev->m ? ev->m : ph, ph)
#define TEXT_ARGV(m, ph)   put_argv(f, ev, ph)
#define TEXT_MEMBER_(KIND, m, type, k, tk, need, ph)                                  \
    if (ev->kind == IOT_EV_##KIND && TEXT_HAS_##need &&                               \
        offsetof(struct iot_event, m) != offsetof(struct iot_event, tid)) {           \
        fputs(" " tk "=", f);                                                         \
        TEXT_##type(m, ph);                                                           \
    }
    IOT_KIND_MEMBERS(TEXT_MEMBER_)
#undef TEXT_MEMBER_
    fputc('\n', f);
}

/* One aligned, human-readable line per event; every string from the trace
   goes through put(), so the line holds no control byte. */
static void dump_text(FILE *f, const struct iot_event *ev)
{
    fprintf(f, "%16.9f %7d", ev->t / 1e9, (int)ev->pid);
    if (ev->kind != IOT_EV_CALL && iot_kind_name(ev->kind)) {
        dump_text_kind(f, ev);
        return;
    }
    fprintf(f, "/%-7d %-10s", (int)ev->tid, iot_op_name(ev->op) ? iot_op_name(ev->op) : "?");
    /* the arguments, in field order; errno, path and stack follow the result, as in strace */
    for (unsigned i = 0; i < IOT_FIELD_COUNT; i++) {
        const struct iot_field_info *fi = &iot_fields[i];
        int64_t v = iot_field_int(ev, i);

        if (!(ev->has & fi->bit) ||
            (fi->bit & (IOT_HAS_ERRNO | IOT_HAS_PATH | IOT_HAS_STACK)))
            continue;
        switch (fi->type) {
        case IOT_FT_OCT:
            fprintf(f, " %s=0%" PRIo64, fi->key, (uint64_t)v);
            break;
        case IOT_FT_HEX:
            fprintf(f, " %s=%" PRIx64, fi->key, (uint64_t)v);
            break;
        case IOT_FT_STR:
            fprintf(f, " %s=", fi->key);
            put(f, iot_field_str(ev, i), "");
            break;
        case IOT_FT_BUFMODE:
            fprintf(f, " %s=%s", fi->key, iot_bufmode_name((unsigned)v) ? iot_bufmode_name((unsigned)v) : "?");
            break;
        default:
            fprintf(f, " %s=%" PRId64, fi->key, v);
            break;
        }
    }
    fprintf(f, " = %" PRId64, ev->ret);
    if (ev->has & IOT_HAS_ERRNO)
        fprintf(f, " errno=%d", (int)ev->err);
    if (!(ev->has & IOT_HAS_NO_DUR))
        fprintf(f, " <%.6f>", ev->dur / 1e9);
    if ((ev->has & IOT_HAS_PATH) && ev->path) {
        fputc(' ', f);
        put(f, ev->path, "");
    }
    if ((ev->has & IOT_HAS_STACK) && ev->stack && *ev->stack) {
        const char *nl = strchr(ev->stack, '\n');

        fputs(" @ ", f);
        iot_text_write(f, ev->stack, nl ? (size_t)(nl - ev->stack) : strlen(ev->stack));
        fputs(nl ? " ..." : "", f);
    }
    fputc('\n', f);
}

/* dump --format's choices, declared once. engine: the format needs the
   replay engine (which file a call touched, which process) and perhaps the
   issues, so the events go through the analysis rather than straight from
   the input. */
enum dump_format { DUMP_JSONL, DUMP_TEXT, DUMP_PERFETTO };
static const struct {
    const char *name;
    int engine;
} dump_formats[] = {
    [DUMP_JSONL] = {"jsonl", 1},
    [DUMP_TEXT] = {"text", 0},
    [DUMP_PERFETTO] = {"perfetto", 1},
};
#define NDUMP_FORMATS (sizeof(dump_formats) / sizeof(dump_formats[0]))

static int dump_format_of(const char *name)
{
    return opt_choice_of(dump_formats, NDUMP_FORMATS, sizeof(dump_formats[0]), name);
}

/* "jsonl|text|perfetto" (--help) */
static const char *dump_format_names(void)
{
    static char buf[64];

    return opt_choices(dump_formats, NDUMP_FORMATS, sizeof(dump_formats[0]), "|", "|", buf,
                       sizeof(buf));
}

/* --format takes one of the table's; another is refused where it is given. */
static int check_format(const char *format)
{
    char buf[96];

    if (dump_format_of(format) < 0) {
        iot_error("dump --format: expected %s, not '%s'",
                  opt_choices(dump_formats, NDUMP_FORMATS, sizeof(dump_formats[0]), ", ", " or ",
                              buf, sizeof(buf)),
                  format);
        return 2;
    }
    return 0;
}

/* The formats written through the analysis (jsonl, perfetto). 0, or 2. */
static int dump_analyzed(int fmt, const struct opt_list *inputs, int strict)
{
    struct analyze_request req = {.inputs = inputs->v, .ninputs = inputs->n, .strict = strict};
    struct analyze_opts o = {.progress = dump_progress_label(), .observe = dump_jsonl_observe,
                             .observe_arg = stdout};
    struct analyze_result res = {0};
    struct perfetto *pf = NULL;
    int ret = 2, rc;

    /* Perfetto marks the issues: the rules run too */
    if (fmt == DUMP_PERFETTO) {
        pf = perfetto_begin(stdout);
        if (!pf) {
            iot_error("out of memory");
            return 2;
        }
        o = (struct analyze_opts){.want_issues = 1, .progress = dump_progress_label(),
                                  .observe = perfetto_observe, .observe_arg = pf};
    }
    rc = analyze_run(&req, &o, &res);
    if (pf && perfetto_end(pf, res.issues) < 0)
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
    int ret = 2, rc, parsed, strict = 0, fmt;
    struct iot_strtab *st = NULL;
    struct input *in = NULL;
    const struct iot_event *ev;
    struct progress progress_buf, *pr;
    const struct opt_spec opts[] = {
        {"format", 'f', dump_format_names(), .value = &format, .check = check_format,
         .help = "JSONL (default), aligned text, or Chrome trace-event JSON (Perfetto)"},
        {"strict", 0, NULL, .flag = &strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
    };
    const struct opt_cmd cmd = {
        .name = "dump",
        .synopsis = "dump [--format FORMAT] [--strict] INPUT...",
        .about = "Writes every event in time order: JSONL (the SPEC's interchange format,\n"
                 "readable by every ioanalyze command), one aligned text line per event, or\n"
                 "a Perfetto / chrome://tracing timeline with the issues marked.",
        OPT_SPECS(opts),
        .needs_input = 1,
    };

    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    fmt = dump_format_of(format);
    if (dump_formats[fmt].engine) {
        ret = dump_analyzed(fmt, &inputs, strict);
        goto out;
    }
    st = iot_strtab_create();
    if (!st || !(in = input_open(inputs.v, inputs.n, st)))
        goto out;
    /* text: straight from the input */
    pr = progress_start(&progress_buf, dump_progress_label(), in);
    while ((rc = input_next_ref(in, &ev)) > 0) {
        dump_text(stdout, ev);
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
