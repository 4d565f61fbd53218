/* ioanalyze dump: every event in time order, as JSONL or aligned text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input.h"

/* One aligned, human-readable line per event. */
static void dump_text(FILE *f, const struct iot_event *ev)
{
    fprintf(f, "%16.9f %7d", ev->t / 1e9, (int)ev->pid);
    switch (ev->kind) {
    case IOT_EV_PROCESS:
        fprintf(f, "         process    ppid=%d exe=%s argv=[", (int)ev->ppid, ev->exe ? ev->exe : "?");
        for (int i = 0; i < ev->argc; i++)
            fprintf(f, "%s%s", i ? " " : "", ev->argv[i]);
        fprintf(f, "] start_unix_ns=%" PRId64 "\n", ev->start_unix_ns);
        return;
    case IOT_EV_THREAD:
        fprintf(f, "/%-7d thread     name=%s\n", (int)ev->tid, ev->name ? ev->name : "");
        return;
    case IOT_EV_EXIT:
        if (ev->has & IOT_HAS_SIGNAL)
            fprintf(f, "         exit       status=%d signal=%d\n", (int)ev->status, (int)ev->signal);
        else
            fprintf(f, "         exit       status=%d\n", (int)ev->status);
        return;
    default:
        break;
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
            fprintf(f, " %s=%s", fi->key, iot_field_str(ev, i) ? iot_field_str(ev, i) : "");
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
    if ((ev->has & IOT_HAS_PATH) && ev->path)
        fprintf(f, " %s", ev->path);
    if ((ev->has & IOT_HAS_STACK) && ev->stack && *ev->stack) {
        const char *nl = strchr(ev->stack, '\n');

        fprintf(f, " @ %.*s%s", nl ? (int)(nl - ev->stack) : (int)strlen(ev->stack), ev->stack,
                nl ? " ..." : "");
    }
    fputc('\n', f);
}

int cmd_dump(int argc, char **argv)
{
    const char **inputs = calloc((size_t)argc + 1, sizeof(char *));
    const char *format = "jsonl";
    size_t ninputs = 0;
    int ret = 2, rc, dashdash = 0;
    struct iot_strtab *st = NULL;
    struct input *in = NULL;
    const struct iot_event *ev;

    if (!inputs)
        return 2;
    for (int i = 1; i < argc; i++) {
        int r;

        if (dashdash || argv[i][0] != '-' || strcmp(argv[i], "-") == 0) {
            inputs[ninputs++] = argv[i];
        } else if (opt_flag(argv, i, "--")) {
            dashdash = 1;
        } else if (opt_flag(argv, i, "--help") || opt_flag(argv, i, "-h")) {
            printf("usage: ioanalyze dump [--format jsonl|text] INPUT...\n"
                   "Writes every event in time order: JSONL (the SPEC's interchange format,\n"
                   "readable by every ioanalyze command) or one aligned text line per event.\n");
            ret = 0;
            goto out;
        } else if ((r = opt_value(argc, argv, &i, "--format", &format))) {
            if (r < 0)
                goto out;
            if (strcmp(format, "jsonl") && strcmp(format, "text")) {
                fprintf(stderr, "ioanalyze: dump --format: expected jsonl or text, not '%s'\n", format);
                goto out;
            }
        } else {
            ret = opt_unknown("dump", argv[i]);
            goto out;
        }
    }
    if (!ninputs) {
        fprintf(stderr, "ioanalyze: no input given\n");
        goto out;
    }
    st = iot_strtab_create();
    if (!st || !(in = input_open(inputs, ninputs, st)))
        goto out;
    while ((rc = input_next_ref(in, &ev)) > 0) {
        if (format[0] == 'j') {
            if (iot_jsonl_write(stdout, ev) < 0)
                break;
        } else {
            dump_text(stdout, ev);
        }
    }
    if (rc < 0)
        goto out;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ioanalyze: cannot write the dump: %m\n");
        goto out;
    }
    ret = input_report_damage(in) ? 0 : 0;
out:
    input_close(in);
    iot_strtab_free(st);
    free(inputs);
    return ret;
}
