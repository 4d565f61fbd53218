/*
 * abspath.c - the absolute form of a path a call was given relative to a
 * directory fd or the cwd (path_from_dirfd, wrap.h), for every wrapper that
 * records a path: the directory comes from raw syscalls, or from what
 * wrap_cwd.c follows where a seccomp filter may stand.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

/* The directory of dirfd joined with path (errno: whatever it becomes). */
static const char *dir_join(int dirfd, const char *path, char *buf, size_t cap)
{
    size_t n;
    long r;

    if (!path)
        return NULL;
    if (path[0] == '/' || path[0] == '\0')
        return path;
    if (rec_filter_may_stand()) {
        /* getcwd and readlink are not the program's to make here: the
           cwd as wrap_cwd.c follows it, else the path as given */
        n = dirfd == AT_FDCWD ? rec_cwd_cached(buf, cap) : 0;
        if (n == 0) {
            rec_skipped(dirfd == AT_FDCWD ? REC_SKIP_CWD : REC_SKIP_DIRFD);
            return path;
        }
    } else if (dirfd == AT_FDCWD) {
        r = syscall(SYS_getcwd, buf, cap);
        if (r <= 0)
            return path;
        n = strlen(buf);
    } else {
        char link[64];

        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        r = syscall(SYS_readlink, link, buf, cap - 1);
        if (r <= 0 || buf[0] != '/')
            return path;
        n = (size_t)r;
    }
    /* too long to join: recorded as given, less its leading "./" */
    if (iot_path_join(buf, cap, n, path) == 0)
        return iot_path_skip_dot(path);
    return buf;
}

/* wrap.h: the absolute form of a path given relative to dirfd. */
const char *path_from_dirfd(int dirfd, const char *path, char *buf, size_t cap)
{
    const char *abs;
    int saved = errno;

    abs = dir_join(dirfd, path, buf, cap);
    errno = saved;   /* getcwd and readlink failing must not change it */
    return abs;
}
