/*
 * rec_writeloop.c - a running process to attach to: opens its file, says "ready"
 * on stdout, then writes one byte to it every millisecond until killed.
 *
 *   rec_writeloop [FILE [FILE2]]
 *
 * With FILE2, a second thread, started before "ready", does the same to
 * FILE2: a thread that was there before a recorder attached.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static void *write_loop(void *arg)
{
    struct timespec ms = { 0, 1000000L };
    int fd = (int)(long)arg;

    for (;;) {
        if (write(fd, "x", 1) != 1)
            _exit(3);
        nanosleep(&ms, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int fd = open(argc > 1 ? argv[1] : "writeloop.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pthread_t second;

    if (fd < 0)
        return 2;
    if (argc > 2) {
        int fd2 = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if (fd2 < 0 || pthread_create(&second, NULL, write_loop, (void *)(long)fd2) != 0)
            return 2;
    }
    printf("ready\n");
    fflush(stdout);
    write_loop((void *)(long)fd);
    return 0;
}
