/*
 * rec_longrun: one 1-byte write to /dev/null every millisecond, forever
 * (until killed), and after every 100 of them the count so far as a line on
 * stdout. For the kill -9 durability test, which reads the count to know
 * how far the program got by its own clock, whatever the machine's load.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "expect.h"

int main(void)
{
    struct timespec ms = { 0, 1000000 };
    int fd = open("/dev/null", O_WRONLY);
    char line[32];

    CHECK(fd >= 0);
    for (long n = 1;; n++) {
        CHECK(write(fd, "k", 1) == 1);
        if (n % 100 == 0) {
            int len = snprintf(line, sizeof(line), "%ld\n", n);

            CHECK(write(1, line, (size_t)len) == len);
        }
        nanosleep(&ms, NULL);
    }
}
