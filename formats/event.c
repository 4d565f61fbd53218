/* event.c - comparing events (tests and round-trip checks). */
#include <string.h>

#include "iotrace.h"

static int str_eq(const char *a, const char *b)
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
        if ((has & IOT_HAS_ERRNO) && a->err != b->err) return 0;
        if ((has & IOT_HAS_FD) && a->fd != b->fd) return 0;
        if ((has & IOT_HAS_PATH) && !str_eq(a->path, b->path)) return 0;
        if ((has & IOT_HAS_FLAGS) && a->flags != b->flags) return 0;
        if ((has & IOT_HAS_MODE) && !str_eq(a->mode, b->mode)) return 0;
        if ((has & IOT_HAS_SIZE) && a->size != b->size) return 0;
        if ((has & IOT_HAS_OFFSET) && a->offset != b->offset) return 0;
        if ((has & IOT_HAS_WHENCE) && a->whence != b->whence) return 0;
        if ((has & IOT_HAS_NEWFD) && a->newfd != b->newfd) return 0;
        if ((has & IOT_HAS_STREAM) && a->stream != b->stream) return 0;
        if ((has & IOT_HAS_FILE_SIZE) && a->file_size != b->file_size) return 0;
        if ((has & IOT_HAS_STACK) && !str_eq(a->stack, b->stack)) return 0;
        if ((has & IOT_HAS_BUFMODE) && a->bufmode != b->bufmode) return 0;
        if ((has & IOT_HAS_IN_FD) && a->in_fd != b->in_fd) return 0;
        if ((has & IOT_HAS_LAST_FD) && a->last_fd != b->last_fd) return 0;
        return 1;
    case IOT_EV_PROCESS:
        if (a->tid != b->tid || a->ppid != b->ppid || a->start_unix_ns != b->start_unix_ns ||
            !str_eq(a->exe, b->exe) || a->argc != b->argc)
            return 0;
        for (int i = 0; i < a->argc; i++)
            if (!str_eq(a->argv[i], b->argv[i]))
                return 0;
        return 1;
    case IOT_EV_THREAD:
        return a->tid == b->tid && str_eq(a->name, b->name);
    case IOT_EV_EXIT:
        return a->tid == b->tid && a->status == b->status &&
               (!(has & IOT_HAS_SIGNAL) || a->signal == b->signal);
    }
    return 0;
}
