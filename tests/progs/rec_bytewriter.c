/*
 * rec_bytewriter: NTHREADS threads, each writing one byte per write() to a
 * file of its own (DIR/wN) until the process is killed. After a kill -9 at
 * any moment, each file's size is the number of writes that returned, so a
 * trace that lost nothing but the call in flight counts the same (+-1).
 * Prints "ready" once every thread has written its first byte.
 * Usage: rec_bytewriter DIR NTHREADS
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>

#include "expect.h"

static const char *dir;
static atomic_int started;

static void *writer(void *arg)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/w%ld", dir, (long)(intptr_t)arg);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "x", 1) == 1);
    atomic_fetch_add(&started, 1);
    for (;;)
        CHECK(write(fd, "x", 1) == 1);
    return NULL;
}

int main(int argc, char **argv)
{
    long n;

    CHECK(argc == 3);
    dir = argv[1];
    n = atol(argv[2]);
    CHECK(n >= 1 && n <= 64);
    for (long i = 1; i < n; i++) {
        pthread_t t;

        CHECK(pthread_create(&t, NULL, writer, (void *)(intptr_t)i) == 0);
    }
    while (atomic_load(&started) < n - 1)
        usleep(1000);
    printf("ready\n");
    fflush(stdout);
    writer((void *)(intptr_t)0);
    return 0;
}
