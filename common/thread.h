/*
 * thread.h - starting a helper thread with a small stack.
 */
#ifndef IOT_THREAD_H
#define IOT_THREAD_H

#include <pthread.h>

/*
 * pthread_create with a stack of 1 MiB rather than glibc's 8: the helper
 * threads (the analyzer's reader, the reader's decompression) need little,
 * and a process's address space may be capped (ulimit -v) just above what
 * one thread needs. 0, or -1 when the thread did not start.
 */
static inline int iot_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    pthread_attr_t at;
    int rc;

    if (pthread_attr_init(&at) != 0)
        return -1;
    rc = pthread_attr_setstacksize(&at, (size_t)1 << 20) == 0 &&
         pthread_create(th, &at, fn, arg) == 0 ? 0 : -1;
    pthread_attr_destroy(&at);
    return rc;
}

#endif /* IOT_THREAD_H */
