/*
 * launch_output.c - the output's edge cases the launcher settles before
 * the command starts.
 *
 * A FIFO is written in place. Opening one for writing blocks until a
 * reader opens it: with nobody reading, iorecord would hang before the
 * command ever ran. It is opened without blocking, retried for a few
 * seconds (a reader started just after iorecord, as `iorecord -o fifo cmd
 * & ioanalyze fifo` does, comes in that time), then refused.
 *
 * Two runs with one output would each rename their spool onto it, and the
 * later rename would silently drop the other trace. Each run holds an
 * exclusive flock on its spool for as long as iorecord runs (and its
 * collector, which writes through the same open file); a run that
 * finds another spool of the same output locked refuses to start. A spool
 * left by a killed run holds no lock and is no obstacle. Two runs started
 * at the same instant may both refuse; neither loses a trace unsaid.
 *
 * And after the command: a trace left empty is said, never taken for one.
 *
 * A trace holds the caller's command lines and paths: it goes only where
 * its owner alone can read it. An existing file at the output that another
 * user controls is refused by the owner rule the library applies too
 * (rec_output_refusal, outrule.h). The check is on lstat; the FIFO is then
 * opened without following a link and checked again on its fd, so a FIFO
 * swapped in between is refused too (a regular file is never opened: the
 * spool is renamed onto it, which replaces whatever is there).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "msg.h"

int launch_fifo_open(const char *path, const struct stat *seen)
{
    struct timespec tick = { 0, 10000000L };

    for (int waited = 0;; waited += 10) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;

        if (fd >= 0) {
            /* the FIFO that was judged, still the caller's */
            if (fstat(fd, &st) != 0 || st.st_dev != seen->st_dev ||
                st.st_ino != seen->st_ino || st.st_uid != seen->st_uid ||
                !S_ISFIFO(st.st_mode)) {
                close(fd);
                errno = ESTALE;
                return -1;
            }
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || waited >= LAUNCH_FIFO_WAIT_MS)
            return -1;
        nanosleep(&tick, NULL);
    }
}

/* Whether the spool dir/name is held by a running iorecord. */
static int held(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), busy;

    if (fd < 0)
        return 0;
    busy = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return busy;
}

int launch_spool_claim(int fd, const char *spool)
{
    const char *slash = strrchr(spool, '/');
    const char *mine = slash ? slash + 1 : spool;
    size_t plen = strlen(mine) - 6;     /* the prefix before mkostemp's XXXXXX */
    char dir[4096];
    struct dirent *de;
    DIR *d;
    int other = 0;

    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        return 0;   /* a file system without flock: nothing to learn */
    if (slash) {
        size_t dl = (size_t)(slash - spool);

        if (dl >= sizeof(dir))
            return 0;
        memcpy(dir, spool, dl);
        dir[dl] = '\0';
        if (dl == 0)
            strcpy(dir, "/");
    } else {
        strcpy(dir, ".");
    }
    d = opendir(dir);
    if (!d)
        return 0;
    while (!other && (de = readdir(d)) != NULL)
        if (strncmp(de->d_name, mine, plen) == 0 && strlen(de->d_name) == plen + 6 &&
            strcmp(de->d_name, mine) != 0)
            other = held(dirfd(d), de->d_name);
    closedir(d);
    return other ? -1 : 0;
}

/*
 * Every recorded process writes at least its process record: an empty
 * trace means none could record (no memory for the recorder under the
 * command's RLIMIT_AS, no fd for it).
 */
int launch_trace_empty(const char *output, const char *out, int warned)
{
    struct stat st;

    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 0)
        return 0;
    if (!warned)
        iot_error("cannot write trace '%s': nothing was recorded (the recorder "
                  "could not start in the command)", output);
    return 1;
}
