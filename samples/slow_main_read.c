/*
 * slow_main_read - the main thread waits on slow reads.
 *
 * What it does wrong: the main thread reads its input from a source that
 * delivers slowly, so every read() blocks the thread for about 30 ms. In an
 * interactive program the main thread draws the UI; a call longer than 13 ms
 * (80% of a 16 ms frame, Matrix's threshold) is a dropped frame.
 *
 * How the slowness is made: the input is a FIFO fed by a producer thread that
 * sleeps 30 ms before each 4 KiB chunk. It stands in for a slow disk, a
 * network filesystem or another process, and it makes the call time certain:
 * each read() waits for the producer, whatever the machine's speed, where a
 * real large file read from the page cache would finish too fast to matter.
 *
 * Fix: do the read on a worker thread and hand the data to the main thread
 * when it is complete (worker_io.c does exactly this and is not reported).
 *
 * Expected: one main_thread issue (type 1) on input.fifo, repeat = 1 (bit 1: a
 * single call over 13 ms; the whole read takes about 120 ms, far below the
 * 500 ms continual limit of bit 2). 5 reads: 4 chunks and the end of file.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"

static char fifo_path[4096];

/* The mistake: a blocking read loop run directly on the main thread. */
static long read_input(const char *path)
{
    char buf[SAMPLE_SLOW_CHUNK];
    long total = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        sample_die("cannot open", path);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        total += n;
    if (n < 0)
        sample_die("cannot read", path);
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "slow_main_read");
    pthread_t thr;
    long got;

    sample_path(fifo_path, sizeof fifo_path, dir, "input.fifo");
    unlink(fifo_path);
    if (mkfifo(fifo_path, 0600) < 0)
        sample_die("cannot create fifo", fifo_path);
    if (pthread_create(&thr, NULL, sample_slow_producer, fifo_path) != 0) {
        fprintf(stderr, "slow_main_read: cannot start the producer thread\n");
        return 1;
    }
    got = read_input(fifo_path);
    pthread_join(thr, NULL);
    printf("slow_main_read: read %ld bytes on the main thread\n", got);
    return got == (long)SAMPLE_SLOW_CHUNKS * SAMPLE_SLOW_CHUNK ? 0 : 1;
}
