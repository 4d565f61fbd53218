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

static int argv_eq(const struct iot_event *a, const struct iot_event *b)
{
    if (a->argc != b->argc)
        return 0;
    for (int i = 0; i < a->argc; i++)
        if (!iot_str_eq(a->argv[i], b->argv[i]))
            return 0;
    return 1;
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
    default:
        break;
    }
    if (a->kind >= IOT_KIND_COUNT)
        return 0;
#define IOT_EQ_UNIXNS(a, b, m) ((a)->m == (b)->m)
#define IOT_EQ_U64(a, b, m)    ((a)->m == (b)->m)
#define IOT_EQ_HEXID(a, b, m)  iot_str_eq((a)->m, (b)->m)
#define IOT_EQ_ARGV(a, b, m)   argv_eq(a, b)
#define IOT_EQ_HAS_REQ 1
#define IOT_EQ_HAS_OPT 1
#define IOT_EQ_HAS_TID 1
#define IOT_EQ_HAS_SIG (has & IOT_HAS_SIGNAL)
#define IOT_EQ_MEMBER_(KIND, m, type, k, tk, need, ph) \
    if (a->kind == IOT_EV_##KIND && IOT_EQ_HAS_##need && !IOT_EQ_##type(a, b, m)) return 0;
    IOT_KIND_MEMBERS(IOT_EQ_MEMBER_)
#undef IOT_EQ_MEMBER_
    return 1;
}
