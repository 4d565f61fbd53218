/*
 * fault_crash.c - a program with its own SIGSEGV and SIGABRT handlers that
 * crashes (tests/e2e/test_fault_crash.sh).
 *
 *   fault_crash DIR segv|abort|segv-exit CALLS
 *
 * Makes CALLS pwrite+pread pairs on DIR/data, sleeps 2.5 s (long enough for
 * a recorder to write out what it holds: "the last flush"), makes CALLS
 * more, then crashes: "segv" dereferences NULL and its handler re-raises the
 * signal with the default action (the process dies of SIGSEGV); "abort"
 * calls abort() and its handler reports and returns (the process dies of
 * SIGABRT); "segv-exit" crashes and its handler calls _exit(42).
 * Each handler writes "handler: SIG..." to stdout with write(2), so the test
 * sees that the program's own handler ran.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int exit_in_handler;

static void on_crash(int sig)
{
    const char *m = sig == SIGSEGV ? "handler: SIGSEGV\n" : "handler: SIGABRT\n";

    (void)!write(1, m, strlen(m));
    if (exit_in_handler)
        _exit(42);
    if (sig == SIGSEGV) {
        /* the default action on return: the faulting access repeats */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    /* SIGABRT: returning lets abort() go on to kill the process */
}

static void io(int fd, long calls)
{
    char buf[64];

    for (long i = 0; i < calls; i++) {
        memset(buf, (int)('a' + i % 26), sizeof(buf));
        (void)!pwrite(fd, buf, 1 + (size_t)(i % 64), (off_t)(i % 1000));
        (void)!pread(fd, buf, 1 + (size_t)(i % 64), (off_t)(i % 1000));
    }
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    struct timespec ts = {2, 500000000L};
    char path[4200];
    volatile int *volatile nowhere = NULL;
    long calls;
    int fd;

    if (argc != 4) {
        fprintf(stderr, "usage: fault_crash DIR segv|abort|segv-exit CALLS\n");
        return 2;
    }
    calls = atol(argv[3]);
    exit_in_handler = strcmp(argv[2], "segv-exit") == 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);

    snprintf(path, sizeof(path), "%s/data", argv[1]);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 2;
    io(fd, calls);
    printf("before the last flush: %ld calls\n", 2 * calls + 1);
    fflush(stdout);
    nanosleep(&ts, NULL);
    io(fd, calls);
    if (strcmp(argv[2], "abort") == 0)
        abort();
    return *nowhere;
}
