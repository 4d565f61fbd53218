/*
 * small_writes - a log written one small record per write() call.
 *
 * What it does wrong: every 32-byte log record is its own write() system
 * call. 100000 records cost 100000 kernel entries (about 80 ms here) where
 * 49 writes of 64 KiB would move the same 3.2 MB in well under a millisecond.
 *
 * Fix: collect records in a buffer and write it when full (64 KiB is a good
 * size), or use a buffered stdio stream (fopen/fwrite without setvbuf
 * _IONBF): see clean.c.
 *
 * The writes happen on a "logger" thread, as in many servers. That also
 * keeps this sample about one thing: 100000 calls on the main thread would
 * give a busy machine 100000 chances to deschedule one of them past 13 ms,
 * which the main_thread rule would rightly report.
 *
 * Expected: one small_buffer issue (type 2) on app.log: op = 100000 writes,
 * buffer = opSize/op = 32 bytes, far below 4096, and a continual cost far
 * above 13 ms (each write costs about a microsecond, so 13 ms needs 13000 of
 * them: 100000 leaves a wide margin on fast machines).
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "sample.h"

#define RECORDS      100000
#define RECORD_BYTES 32

/* The mistake: one system call per record. */
static void log_record(int fd, const char *path, int i)
{
    char rec[RECORD_BYTES + 1];

    /* Always exactly 32 bytes, so the byte counts are exact. */
    snprintf(rec, sizeof rec, "%012d request handled ok\n", i);
    if (write(fd, rec, RECORD_BYTES) != RECORD_BYTES)
        sample_die("cannot write", path);
}

static void *logger(void *arg)
{
    const char *path = arg;
    int fd;

    pthread_setname_np(pthread_self(), "logger");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < RECORDS; i++)
        log_record(fd, path, i);
    if (close(fd) < 0)
        sample_die("cannot close", path);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "small_writes");
    char path[4096];
    pthread_t thr;

    sample_path(path, sizeof path, dir, "app.log");
    if (pthread_create(&thr, NULL, logger, path) != 0) {
        fprintf(stderr, "small_writes: cannot start the logger thread\n");
        return 1;
    }
    pthread_join(thr, NULL);
    printf("small_writes: wrote %d records of %d bytes\n", RECORDS, RECORD_BYTES);
    return 0;
}
