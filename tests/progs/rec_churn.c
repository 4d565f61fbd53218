/*
 * rec_churn: short-lived threads - 50 waves of 8 threads, each doing 2,000
 * one-byte reads and exiting - so thread streams start, end (flushed by the
 * thread-exit path) and their slots and buffers are reused while other
 * threads write the queue. The trace must hold exactly 800,000 reads.
 */
#include <pthread.h>

#include "expect.h"

static int fd;

static void *worker(void *arg)
{
    char c;

    (void)arg;
    for (int i = 0; i < 2000; i++)
        CHECK(read(fd, &c, 1) == 1);
    return NULL;
}

int main(void)
{
    pthread_t t[8];

    fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0);
    for (int wave = 0; wave < 50; wave++) {
        for (int i = 0; i < 8; i++)
            CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
        for (int i = 0; i < 8; i++)
            CHECK(pthread_join(t[i], NULL) == 0);
    }
    CHECK(close(fd) == 0);
    return 0;
}
