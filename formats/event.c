/* event.c - comparing events (tests and round-trip checks). */
#include <string.h>

#include "codec.h"

int iot_str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b || (!a && !*b) || (!b && !*a);
    return strcmp(a, b) == 0;
}

static int within(int64_t v)
{
    return v > -IOT_PLAIN_LIMIT && v < IOT_PLAIN_LIMIT;
}

int iot_event_plain(const struct iot_event *ev)
{
    return ev->kind == IOT_EV_CALL && !(ev->has & (IOT_HAS_ERRNO | IOT_HAS_NO_DUR)) &&
           ev->tid >= 0 && ev->ret >= 0 && ev->dur >= 0 && within(ev->ret) && within(ev->dur) &&
           within(ev->size) && within(ev->offset) && within(ev->file_size);
}

int iot_event_equal(const struct iot_event *a, const struct iot_event *b)
{
    uint32_t has = a->has;

    if (a->kind != b->kind || a->pid != b->pid || a->t != b->t || a->has != b->has)
        return 0;
    switch (a->kind) {
    case IOT_EV_CALL:
        if (a->tid != b->tid || a->op != b->op || a->ret != b->ret)
            return 0;
        if (!(has & IOT_HAS_NO_DUR) && a->dur != b->dur) return 0;
#define IOT_EQ_FIELD_(name, bit, member, type, key) \
        if ((has & IOT_HAS_##name) && !IOT_EQ_##type(a, b, member)) return 0;
        IOT_FIELDS(IOT_EQ_FIELD_)
#undef IOT_EQ_FIELD_
        return 1;
    case IOT_EV_PROCESS:
        if (a->tid != b->tid || a->ppid != b->ppid || a->start_unix_ns != b->start_unix_ns ||
            !iot_str_eq(a->exe, b->exe) || a->argc != b->argc)
            return 0;
        for (int i = 0; i < a->argc; i++)
            if (!iot_str_eq(a->argv[i], b->argv[i]))
                return 0;
        return 1;
    case IOT_EV_THREAD:
        return a->tid == b->tid && iot_str_eq(a->name, b->name);
    case IOT_EV_EXIT:
        return a->tid == b->tid && a->status == b->status &&
               (!(has & IOT_HAS_SIGNAL) || a->signal == b->signal);
    }
    return 0;
}
