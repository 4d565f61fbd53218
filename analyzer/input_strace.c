/* strace text logs as an event source (see strace.h). Work in progress. */
#include <stdlib.h>
#include <string.h>

#include "strace.h"

struct strace_src {
    FILE *f;
    struct strace_info info;
};

int strace_detect(const char *buf, size_t len)
{
    (void)buf;
    (void)len;
    return 0;
}

struct strace_src *strace_open(FILE *f, const char *name, struct iot_strtab *st,
                               char *errbuf)
{
    struct strace_src *s = calloc(1, sizeof(*s));

    (void)name;
    (void)st;
    if (!s) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
        return NULL;
    }
    s->f = f;
    return s;
}

int strace_next(struct strace_src *s, struct iot_event *ev, char *errbuf)
{
    (void)s;
    (void)ev;
    (void)errbuf;
    return 0;
}

void strace_info(const struct strace_src *s, struct strace_info *out)
{
    *out = s->info;
}

void strace_close(struct strace_src *s)
{
    free(s);
}
