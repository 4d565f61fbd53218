/*
 * ci_flip - a workload whose time-based judgements sit near their
 * thresholds, for the CI flip test (tests/e2e/test_ci_flip.sh,
 * tests/flip20.sh).
 *
 * A writer process feeds a named FIFO in 100-byte records, each after
 * WAIT_US microseconds of computing; the reader reads them one record per
 * read(). The reader's time inside read() is the writer's computing, about
 * RECORDS * WAIT_US (6 ms), plus whatever the scheduler adds on a busy
 * machine: small_buffer's time condition (13 ms of continual I/O below
 * min_ops_alone calls) is met on some runs and not on others. Then it does
 * what a count judges whatever the load: 30 opens of one file that each
 * write 10 bytes (repeat_open at min_opens 20, see the test's --set) and a
 * handle left open at exit (leak).
 *
 * usage: ci_flip DIR (DIR exists; the FIFO and files are made in it)
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RECORDS 500
#define RECORD_BYTES 100
#define WAIT_US 12

static void compute_for_us(long us)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static int feed(const char *fifo)
{
    char rec[RECORD_BYTES];
    int fd = open(fifo, O_WRONLY);

    if (fd < 0)
        return 1;
    memset(rec, 'r', sizeof(rec));
    for (int i = 0; i < RECORDS; i++) {
        compute_for_us(WAIT_US);
        if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec))
            return 1;
    }
    return close(fd) != 0;
}

static int drain(const char *fifo)
{
    char rec[RECORD_BYTES];
    int fd = open(fifo, O_RDONLY);
    ssize_t n;

    if (fd < 0)
        return 1;
    while ((n = read(fd, rec, sizeof(rec))) > 0)
        ;
    return close(fd) != 0 || n < 0;
}

int main(int argc, char **argv)
{
    char fifo[4096], log[4096], held[4096];
    pid_t child;
    int status, fd, rc;

    if (argc != 2) {
        fprintf(stderr, "usage: ci_flip DIR\n");
        return 2;
    }
    snprintf(fifo, sizeof(fifo), "%s/records.fifo", argv[1]);
    snprintf(log, sizeof(log), "%s/events.log", argv[1]);
    snprintf(held, sizeof(held), "%s/held.lock", argv[1]);
    unlink(fifo);
    if (mkfifo(fifo, 0600) != 0) {
        perror("ci_flip: mkfifo");
        return 1;
    }
    child = fork();
    if (child < 0)
        return 1;
    if (child == 0)
        _exit(feed(fifo));
    rc = drain(fifo);
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
        rc = 1;
    for (int i = 0; i < 30 && rc == 0; i++) {
        fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd < 0 || write(fd, "event ok\n", 9) != 9 || close(fd) != 0)
            rc = 1;
    }
    fd = open(held, O_WRONLY | O_CREAT, 0600);  /* held to exit: leak */
    if (fd < 0 || write(fd, "1\n", 2) != 2)
        rc = 1;
    printf("ci_flip: %s\n", rc ? "failed" : "done");
    return rc;
}
