/*
 * dump_text.c - `ioanalyze dump --format text`: one aligned line per event,
 * read straight from the inputs (output_format.h).
 */
#include <inttypes.h>
#include <stddef.h>
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

/*
 * Whether the call's result is the stream it made (fopen, fdopen, tmpfile,
 * freopen): the stream id is then shown once, as the result, in the base
 * of every stream id (hex), rather than as an argument and again in decimal.
 */
static int returns_stream(const struct iot_event *ev)
{
    const struct iot_op_info *op = ev->op < IOT_OP_COUNT ? &iot_ops[ev->op] : NULL;

    return op && op->api == IOT_API_STDIO && op->role == IOT_ROLE_OPEN &&
           (ev->has & IOT_HAS_STREAM) && ev->stream != 0 && (uint64_t)ev->ret == ev->stream;
}

/* One aligned, human-readable line per event; every string from the trace
   goes through put(), so the line holds no control byte. */
void dump_text(FILE *f, const struct iot_event *ev)
{
    int stream_result;

    fprintf(f, "%16.9f %7d", ev->t / 1e9, (int)ev->pid);
    if (ev->kind != IOT_EV_CALL && iot_kind_name(ev->kind)) {
        dump_text_kind(f, ev);
        return;
    }
    fprintf(f, "/%-7d %-10s", (int)ev->tid, iot_op_name(ev->op) ? iot_op_name(ev->op) : "?");
    stream_result = returns_stream(ev);
    /* the arguments, in field order; errno, path and stack follow the result, as in strace */
    for (unsigned i = 0; i < IOT_FIELD_COUNT; i++) {
        const struct iot_field_info *fi = &iot_fields[i];
        int64_t v = iot_field_int(ev, i);

        if (!(ev->has & fi->bit) ||
            (fi->bit & (IOT_HAS_ERRNO | IOT_HAS_PATH | IOT_HAS_STACK)) ||
            (stream_result && fi->bit == IOT_HAS_STREAM))
            continue;
        switch (fi->type) {
        case IOT_FT_OCT:
            fprintf(f, " %s=0%" PRIo64, fi->key, (uint64_t)v);
            break;
        case IOT_FT_HEX:
            fprintf(f, " %s=0x%" PRIx64, fi->key, (uint64_t)v);
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
    if (stream_result)
        fprintf(f, " = stream 0x%" PRIx64, ev->stream);
    else
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
