/*
 * rec_writeloop.c - a running process to attach to: opens its file, says "ready"
 * on stdout, then writes one byte to it every millisecond until killed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec ms = { 0, 1000000L };
    int fd = open(argc > 1 ? argv[1] : "writeloop.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return 2;
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        if (write(fd, "x", 1) != 1)
            return 3;
        nanosleep(&ms, NULL);
    }
}
