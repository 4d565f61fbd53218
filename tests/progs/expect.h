/*
 * expect.h - for the recorder's test programs (no ioscope code).
 *
 * A program states every libc call it makes, with what it saw, as one line
 * "op=read fd=3 size=5 ret=5" per call through expect(); the lines go to the
 * file named by $EXPECT_OUT at the end, written with raw syscalls so the
 * expectations themselves are never recorded (the syscall instruction
 * itself: the recorder records libc's syscall() like the calls it makes). The recorder's unit test
 * compares them field by field with the trace, and compares the file of a
 * recorded run with that of a plain run (transparency: same results).
 * CHECK() fails the program (exit 99) when a call does not behave as Linux
 * documents it.
 */
#ifndef EXPECT_H
#define EXPECT_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rawsys.h"

static char expect_buf[1 << 22];
static size_t expect_len;

__attribute__((format(printf, 1, 2), unused)) static void
expect(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(expect_buf + expect_len, sizeof(expect_buf) - expect_len - 1,
                  fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof(expect_buf) - expect_len - 1) {
        expect_len += (size_t)n;
        expect_buf[expect_len++] = '\n';
    }
}

static void expect_raw_msg(const char *s)
{
    raw_sys(SYS_write, 2, (long)s, (long)strlen(s), 0);
}

__attribute__((unused)) static void expect_flush(void)
{
    const char *out = getenv("EXPECT_OUT");
    long fd;

    if (!out)
        return;
    fd = raw_sys(SYS_openat, AT_FDCWD, (long)out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    raw_sys(SYS_write, fd, (long)expect_buf, (long)expect_len, 0);
    raw_sys(SYS_close, fd, 0, 0, 0);
}

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            char m_[256];                                                      \
            snprintf(m_, sizeof(m_), "%s:%d: check failed: %s\n", __FILE__,    \
                     __LINE__, #cond);                                         \
            expect_raw_msg(m_);                                                \
            raw_sys(SYS_exit_group, 99, 0, 0, 0);                           \
        }                                                                      \
    } while (0)

/*
 * Append "PID write COUNT" to the file at counts, with raw syscalls (not
 * recorded): what a process says it wrote, for the test to compare with
 * its trace.
 */
__attribute__((unused)) static void note_writes(const char *counts, long count)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "%ld write %ld\n",
                     (long)raw_sys(SYS_getpid, 0, 0, 0, 0), count);
    long fd = raw_sys(SYS_openat, AT_FDCWD, (long)counts,
                      O_WRONLY | O_CREAT | O_APPEND, 0644);

    CHECK(fd >= 0);
    CHECK(raw_sys(SYS_write, fd, (long)line, n, 0) == n);
    raw_sys(SYS_close, fd, 0, 0, 0);
}

#endif
