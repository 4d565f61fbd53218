/*
 * rec_closeall: a program that tidies its descriptors like a daemon - a
 * close() loop over every fd, close_range() and closefrom() - and then
 * dup2()s onto every high fd up to the limit, does I/O and closes them all
 * again. The recorder's own trace fd must survive all of it, invisibly:
 * close() of it fails with EBADF as for any fd the program never opened.
 * Usage: rec_closeall DIR
 */
#include <errno.h>
#include <sys/resource.h>

#include "expect.h"

int main(int argc, char **argv)
{
    char path[4096];
    struct rlimit rl;
    int fd, lim, closed = 0;

    CHECK(argc == 2);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    lim = rl.rlim_cur > 4096 ? 4096 : (int)rl.rlim_cur;
    for (fd = 3; fd < lim; fd++)
        if (close(fd) == 0)
            closed++;
    CHECK(closed == 0);   /* nothing of ours was open: the trace fd hides */
    CHECK(close_range(3, ~0u, 0) == 0);
    closefrom(3);

    snprintf(path, sizeof(path), "%s/c.dat", argv[1]);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd == 3);
    for (int i = lim - 100; i < lim; i++)
        CHECK(dup2(fd, i) == i);
    for (int i = lim - 100; i < lim; i++)
        CHECK(write(i, "x", 1) == 1);
    for (int i = lim - 100; i < lim; i++)
        CHECK(close(i) == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(write(fd, "y", 1) == 1);
    CHECK(close(fd) == 0);
    CHECK(close_range(0, ~0u, CLOSE_RANGE_CLOEXEC) == 0);
    return 0;
}
