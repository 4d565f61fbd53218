/*
 * rec_signals: a SIGALRM handler that writes while the main thread is in
 * the middle of wrapped calls (reads of /dev/zero, then as many buffered
 * 16-byte fwrites, most of them untimed repeats) - and so, now and then,
 * in the middle of the recorder itself. The main thread's reads and
 * fwrites and every handler write must be recorded exactly, and the trace
 * must decode.
 * Usage: rec_signals [READS] ; prints the number of handler writes on stdout
 */
#include <signal.h>
#include <sys/time.h>

#include "expect.h"

static volatile sig_atomic_t writes;
static int nullfd;

static void on_alarm(int sig)
{
    (void)sig;
    if (write(nullfd, "s", 1) == 1)
        writes++;
}

int main(int argc, char **argv)
{
    long reads = argc > 1 ? atol(argv[1]) : 300000;
    struct itimerval it = { { 0, 50 }, { 0, 50 } };
    struct sigaction sa;
    char c, out[32], block[16] = "0123456789abcde";
    FILE *f;
    int fd;

    nullfd = open("/dev/null", O_WRONLY);
    fd = open("/dev/zero", O_RDONLY);
    CHECK(nullfd == 3 && fd == 4);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &it, NULL);
    for (long i = 0; i < reads; i++)
        CHECK(read(fd, &c, 1) == 1);
    f = fopen("/dev/null", "w");
    CHECK(f != NULL);
    for (long i = 0; i < reads; i++)
        CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
    memset(&it, 0, sizeof(it));
    setitimer(ITIMER_REAL, &it, NULL);
    CHECK(fclose(f) == 0);
    snprintf(out, sizeof(out), "%d\n", (int)writes);
    syscall(SYS_write, 1, out, strlen(out));
    return 0;
}
