/*
 * dump_text.c - `ioanalyze dump --format text`: one aligned line per event,
 * read straight from the inputs (output_format.h).
 */
#include <inttypes.h>
#include <string.h>

#include "output_format.h"
#include "text.h"

/* A string of the trace, shown safely (iot_text_write); NULL as def. */
static void put(FILE *f, const char *s, const char *def)
{
    if (!s)
        s = def;
    iot_text_write(f, s, strlen(s));
}

/* One aligned, human-readable line per event; every string from the trace
   goes through put(), so the line holds no control byte. */
void dump_text(FILE *f, const struct iot_event *ev)
{
    fprintf(f, "%16.9f %7d", ev->t / 1e9, (int)ev->pid);
    switch (ev->kind) {
    case IOT_EV_PROCESS:
        fprintf(f, "         process    ppid=%d exe=", (int)ev->ppid);
        put(f, ev->exe, "?");
        fputs(" argv=[", f);
        for (int i = 0; i < ev->argc; i++) {
            fputs(i ? " " : "", f);
            put(f, ev->argv[i], "?");
        }
        fprintf(f, "] start_unix_ns=%" PRId64 "\n", ev->start_unix_ns);
        return;
    case IOT_EV_THREAD:
        fprintf(f, "/%-7d thread     name=", (int)ev->tid);
        put(f, ev->name, "");
        fputc('\n', f);
        return;
    case IOT_EV_EXIT:
        if (ev->has & IOT_HAS_SIGNAL)
            fprintf(f, "         exit       status=%d signal=%d\n", (int)ev->status, (int)ev->signal);
        else
            fprintf(f, "         exit       status=%d\n", (int)ev->status);
        return;
    case IOT_EV_MODULE:
        fputs("         module     path=", f);
        put(f, ev->path, "?");
        fprintf(f, " bias=0x%" PRIx64 " build_id=", ev->bias);
        put(f, ev->build_id && *ev->build_id ? ev->build_id : "-", "-");
        fputc('\n', f);
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
