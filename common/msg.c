/* msg.c - see msg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"
#include "msg.h"

static const char *prog = "ioscope";
static void (*before)(void);
static const char *error_suffix;
static void (*sink)(void *arg, int error, const char *text);
static void *sink_arg;

void iot_msg_prog(const char *name)
{
    prog = name;
}

void iot_msg_before(void (*fn)(void))
{
    before = fn;
}

void iot_msg_error_suffix(const char *suffix)
{
    error_suffix = suffix;
}

void iot_msg_sink(void (*fn)(void *arg, int error, const char *text), void *arg)
{
    sink = fn;
    sink_arg = arg;
}

static void say(const char *kind, const char *suffix, const char *fmt, va_list ap)
{
    /* one fprintf per part, but stderr is unbuffered: build the line first
       so that two processes writing at once do not interleave mid-line.
       A message may name a path or a process from a trace: the line is
       shown through iot_text_safe, so no byte of it acts on the terminal. */
    char line[1024], shown[4 * sizeof(line)];
    int n;

    if (sink) {
        vsnprintf(line, sizeof(line), fmt, ap);
        sink(sink_arg, *kind == '\0', line);
        return;
    }
    n = snprintf(line, sizeof(line), "%s: %s", prog, kind);
    if (n < 0 || (size_t)n >= sizeof(line))
        n = 0;
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    if (suffix)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s", suffix);
    if (before)
        before();
    fprintf(stderr, "%s\n", iot_text_safe(shown, sizeof(shown), line));
}

int iot_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say("", error_suffix, fmt, ap);
    va_end(ap);
    return -1;
}

void iot_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say("warning: ", NULL, fmt, ap);
    va_end(ap);
}
