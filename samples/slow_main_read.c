/*
 * slow_main_read - an event loop that reads a large file on its own thread.
 *
 * What it does wrong: the program's main thread is its event loop: it waits
 * for events in poll() (here the ticks of a helper thread, standing in for
 * a UI's input or a server's requests) and, on the first one, loads an
 * 8 MiB asset with one read() on that same thread. Every event that comes
 * while the read lasts waits for it. The cost is the work, not the clock:
 * 8 MiB copied in one call is modelled at 2.5 ms (docs/analyzer.md, "The
 * cost model"), over main_thread's 1 ms, however fast this machine's page
 * cache served it.
 *
 * Fix: do the read on a worker thread and hand the data to the loop when it
 * is complete (worker_io.c does exactly this and is not reported).
 *
 * Expected: one main_thread issue (type 1) on input.dat, repeat = 1 (bit 1:
 * one call modelled over 1 ms); 2 reads on the loop: the asset and the end
 * of file.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "sample.h"

#define ASSET_BYTES (8 << 20)

static char asset_path[4096];
static int ticks[2];

/* The events: three ticks, 10 ms apart, then the end of the pipe. */
static void *ticker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        sample_sleep_ms(10);
        if (write(ticks[1], "t", 1) != 1)
            break;
    }
    close(ticks[1]);
    return NULL;
}

/* The mistake: the whole asset read in the loop's turn. */
static long load_asset(const char *path, char *buf)
{
    long total = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        sample_die("cannot open", path);
    while ((n = read(fd, buf + total, ASSET_BYTES + 1 - total)) > 0)
        total += n;
    if (n < 0)
        sample_die("cannot read", path);
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "slow_main_read");
    char *buf = malloc(ASSET_BYTES + 1);
    struct pollfd pfd;
    pthread_t thr;
    long got = 0;
    int fd;
    char c;

    if (!buf || pipe(ticks) < 0) {
        fprintf(stderr, "slow_main_read: out of memory or fds\n");
        return 1;
    }
    sample_path(asset_path, sizeof asset_path, dir, "input.dat");
    memset(buf, 'a', ASSET_BYTES);
    fd = open(asset_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, ASSET_BYTES) != ASSET_BYTES || close(fd) != 0)
        sample_die("cannot write", asset_path);
    if (pthread_create(&thr, NULL, ticker, NULL) != 0) {
        fprintf(stderr, "slow_main_read: cannot start the ticker thread\n");
        return 1;
    }
    pfd = (struct pollfd){.fd = ticks[0], .events = POLLIN};
    /* the event loop: each tick is an event; the first one loads the asset */
    while (poll(&pfd, 1, 1000) > 0 && read(ticks[0], &c, 1) == 1)
        if (!got)
            got = load_asset(asset_path, buf);
    pthread_join(thr, NULL);
    free(buf);
    printf("slow_main_read: read %ld bytes on the event loop\n", got);
    return got == ASSET_BYTES ? 0 : 1;
}
