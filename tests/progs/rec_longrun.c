/*
 * rec_longrun: one 1-byte write to /dev/null every millisecond, forever
 * (until killed). For the kill -9 durability test.
 */
#include <time.h>

#include "expect.h"

int main(void)
{
    struct timespec ms = { 0, 1000000 };
    int fd = open("/dev/null", O_WRONLY);

    CHECK(fd >= 0);
    for (;;) {
        CHECK(write(fd, "k", 1) == 1);
        nanosleep(&ms, NULL);
    }
}
