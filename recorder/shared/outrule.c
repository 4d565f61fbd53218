/*
 * outrule.c - the owner rule for a trace's output (outrule.h).
 *
 * Linked into the library and into iorecord: raw syscalls and no state.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "outrule.h"

const char *rec_output_refusal(const char *path, const struct stat *st, char *why, size_t cap)
{
    const char *slash = strrchr(path, '/');
    uid_t me = (uid_t)syscall(SYS_geteuid);
    char dir[4096];
    struct stat ds;

    if (S_ISLNK(st->st_mode))
        return "is a symbolic link: not writing the trace through it";
    if (st->st_uid == me)
        return NULL;
    if (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) {
        snprintf(why, cap, "is a %s of another user (uid %u): not writing the trace there",
                 S_ISFIFO(st->st_mode) ? "FIFO" : "socket", (unsigned)st->st_uid);
        return why;
    }
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else if ((size_t)(slash - path) < sizeof(dir))
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    else
        return NULL;    /* too long to name: the open that follows fails */
    if (syscall(SYS_newfstatat, AT_FDCWD, dir, &ds, AT_SYMLINK_NOFOLLOW) == 0 &&
        (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) && st->st_uid != ds.st_uid) {
        snprintf(why, cap, "belongs to another user (uid %u) in a sticky "
                 "world-writable directory: not writing the trace there", (unsigned)st->st_uid);
        return why;
    }
    return NULL;
}
