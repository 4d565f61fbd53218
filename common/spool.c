/* Piped inputs copied to a temporary file (spool.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"

uint64_t iot_spool_max(void)
{
    const char *s = getenv(IOT_SPOOL_MAX_ENV);
    char *end;
    unsigned long long v;
    unsigned shift = 0;
    int saved = errno, bad;   /* callers read it between a failed call and its message */

    if (!s || !*s || *s == '-')
        return IOT_SPOOL_MAX_DEFAULT;
    errno = 0;
    v = strtoull(s, &end, 10);
    bad = errno || end == s;
    errno = saved;
    if (bad)
        return IOT_SPOOL_MAX_DEFAULT;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v > (UINT64_MAX >> shift))
        return IOT_SPOOL_MAX_DEFAULT;
    return (uint64_t)v << shift;
}

void iot_spool_size_str(uint64_t bytes, char *buf, size_t size)
{
    static const char *const unit[] = {"GiB", "MiB", "KiB"};

    for (unsigned i = 0; i < 3; i++) {
        unsigned shift = 30 - 10 * i;

        if (bytes >= ((uint64_t)1 << shift) && bytes % ((uint64_t)1 << shift) == 0) {
            snprintf(buf, size, "%llu %s", (unsigned long long)(bytes >> shift), unit[i]);
            return;
        }
    }
    snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
}

/* An unnamed file in dir: O_TMPFILE, or a mkstemp name removed at once. */
static int unnamed_file(const char *dir)
{
    char *tmpl;
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    if (asprintf(&tmpl, "%s/ioscope-spool-XXXXXX", dir) < 0)
        return -1;
    fd = mkostemp(tmpl, O_CLOEXEC);
    if (fd >= 0)
        unlink(tmpl);
    free(tmpl);
    return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int iot_spool_file(void)
{
    const char *dir = getenv("TMPDIR");

    return unnamed_file(dir && *dir ? dir : "/tmp");
}

int iot_spool(int src, const void *head, size_t nhead, uint64_t cap)
{
    const char *dir = getenv("TMPDIR");
    char buf[1 << 16];
    uint64_t total = nhead;
    int fd, err;

    if (total > cap) {
        errno = EFBIG;
        return -1;
    }
    fd = unnamed_file(dir && *dir ? dir : "/tmp");
    if (fd < 0)
        return -1;
    if (write_all(fd, head, nhead) < 0)
        goto fail;
    for (;;) {
        ssize_t n = read(src, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        total += (uint64_t)n;
        if (total > cap) {
            errno = EFBIG;
            goto fail;
        }
        if (write_all(fd, buf, (size_t)n) < 0)
            goto fail;
    }
    if (lseek(fd, 0, SEEK_SET) < 0)
        goto fail;
    return fd;
fail:
    err = errno;  /* the caller names the read or write error, not close's */
    close(fd);
    errno = err;
    return -1;
}

void iot_spool_too_big(char *buf, size_t size, const char *name, const char *what)
{
    char cap[32];

    iot_spool_size_str(iot_spool_max(), cap, sizeof(cap));
    snprintf(buf, size, "'%s': %s is copied to a temporary file first, and this one is "
             "larger than %s (%s): give it as a file", name, what, cap, IOT_SPOOL_MAX_ENV);
}
