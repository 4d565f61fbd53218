/*
 * rec_emfile - open /dev/null until the fd limit says no (after closing
 * every fd from 3 up), then print how many opens succeeded, the last fd
 * and the error (tests/e2e/test_rec_launch_edges.sh: the same recorded as
 * natively under a low soft limit).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    int n = 0, last = -1, fd;

    closefrom(3);
    while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
        n++;
        last = fd;
    }
    printf("opens %d last fd %d then %s\n", n, last, strerror(errno));
    return 0;
}
