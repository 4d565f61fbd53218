/*
 * rec_threads: 8 named threads x 100,000 one-byte reads of /dev/zero, all at
 * once; the trace must hold exactly 800,000 reads, 100,000 per thread.
 * Thread i names itself "worker-i" (pthread_setname_np for even i,
 * prctl(PR_SET_NAME) for odd i) before its first read, except the last one,
 * which the main thread names (pthread_setname_np of another thread) after
 * that thread's first read and before the others: its second read must be
 * the last one recorded under the old name.
 * Usage: rec_threads [CALLS_PER_THREAD]
 */
#include <pthread.h>
#include <sys/prctl.h>

#include "expect.h"

#define THREADS 8

static int fd;
static long calls = 100000;
static pthread_barrier_t start;

static void *worker(void *arg)
{
    long id = (long)arg;
    char name[16], c;

    snprintf(name, sizeof(name), "worker-%ld", id);
    if (id == THREADS - 1)
        ;   /* named by main */
    else if (id % 2 == 0)
        CHECK(pthread_setname_np(pthread_self(), name) == 0);
    else
        CHECK(prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0);
    CHECK(read(fd, &c, 1) == 1);
    pthread_barrier_wait(&start);   /* main renames the last one meanwhile */
    pthread_barrier_wait(&start);
    for (long i = 1; i < calls; i++)
        CHECK(read(fd, &c, 1) == 1);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[THREADS];

    if (argc > 1)
        calls = atol(argv[1]);
    fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0);
    pthread_barrier_init(&start, NULL, THREADS + 1);
    for (long i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);
    pthread_barrier_wait(&start);   /* every thread made its first read */
    CHECK(pthread_setname_np(t[THREADS - 1], "worker-7") == 0);
    pthread_barrier_wait(&start);
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(close(fd) == 0);
    return 0;
}
