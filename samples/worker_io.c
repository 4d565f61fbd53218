/*
 * worker_io - slow I/O done right: on a worker thread.
 *
 * What it does: the same slow input as slow_main_read.c (a FIFO whose
 * producer sleeps 30 ms before each 4 KiB chunk, so every read() blocks for
 * about 30 ms), but the reading happens on a worker thread named "io-worker"
 * while the main thread only waits for the result and then writes one small
 * summary file. The worker also saves what it read to a file.
 *
 * Nothing is wrong here, and that is the point: the slow calls are on a
 * thread whose tid is not the pid, so the main_thread rule must stay quiet.
 * A tool that blamed every slow call on "the" thread would report it.
 *
 * Expected: no issue.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"

static char fifo_path[4096];
static char copy_path[4096];

/* Reads the slow input and keeps a copy; returns the byte count. */
static void *io_worker(void *arg)
{
    static char data[SAMPLE_SLOW_CHUNKS * SAMPLE_SLOW_CHUNK];
    long *total = arg;
    ssize_t n;
    int in, out;

    pthread_setname_np(pthread_self(), "io-worker");
    in = open(fifo_path, O_RDONLY);
    if (in < 0)
        sample_die("cannot open", fifo_path);
    while (*total < (long)sizeof data &&
           (n = read(in, data + *total, SAMPLE_SLOW_CHUNK)) > 0)
        *total += n;
    close(in);
    out = open(copy_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        sample_die("cannot open", copy_path);
    if (write(out, data, (size_t)*total) != (ssize_t)*total)
        sample_die("cannot write", copy_path);
    close(out);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "worker_io");
    char summary_path[4096], line[64];
    pthread_t prod, worker;
    long total = 0;
    int fd, len;

    sample_path(fifo_path, sizeof fifo_path, dir, "input.fifo");
    sample_path(copy_path, sizeof copy_path, dir, "input.copy");
    sample_path(summary_path, sizeof summary_path, dir, "summary.txt");
    unlink(fifo_path);
    if (mkfifo(fifo_path, 0600) < 0)
        sample_die("cannot create fifo", fifo_path);
    if (pthread_create(&prod, NULL, sample_slow_producer, fifo_path) != 0 ||
        pthread_create(&worker, NULL, io_worker, &total) != 0) {
        fprintf(stderr, "worker_io: cannot start threads\n");
        return 1;
    }
    /* The main thread stays free (a real program would keep drawing here). */
    pthread_join(worker, NULL);
    pthread_join(prod, NULL);

    /* One small, fast write on the main thread: normal, not reported. */
    len = snprintf(line, sizeof line, "bytes=%ld\n", total);
    fd = open(summary_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        sample_die("cannot open", summary_path);
    if (write(fd, line, (size_t)len) != len)
        sample_die("cannot write", summary_path);
    close(fd);
    printf("worker_io: the worker read %ld bytes\n", total);
    return total == (long)SAMPLE_SLOW_CHUNKS * SAMPLE_SLOW_CHUNK ? 0 : 1;
}
