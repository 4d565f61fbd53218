/*
 * rec_sigstorm: signal handlers that make many calls each, nesting. SIGALRM
 * every 20 us and SIGUSR1 sent by a second thread every 100 us or so, both
 * to the main thread, whose handlers each write 20 bytes one at a time
 * while the main thread writes too: handlers interrupt the recorder, each
 * other (SIGUSR1 inside SIGALRM and the reverse), and their calls pile up.
 * Every write the process made must be in the trace, or counted lost. The
 * storm lasts 2 s at most, however little the main thread gets to run.
 * Usage: rec_sigstorm DIR WRITES [a|u|au] ; appends "PID write COUNT" to
 * DIR/counts (raw syscalls: not recorded), prints "ok". The third argument
 * picks the signals: a (SIGALRM), u (SIGUSR1); both by default.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "expect.h"

#define HANDLER_WRITES 20

static int nullfd;
static long handler_writes;            /* by any handler: atomic adds */
static int done;
static pthread_t main_thread;

static struct timespec deadline;   /* the storm ends then, at the latest */

static void on_signal(int sig)
{
    int saved = errno;
    struct timespec now;

    (void)sig;
    for (int i = 0; i < HANDLER_WRITES; i++)
        if (write(nullfd, "s", 1) == 1)
            __atomic_add_fetch(&handler_writes, 1, __ATOMIC_RELAXED);
    /* handlers that take longer than the timer's period would leave the
       main thread no time at all: the storm stops by itself */
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > deadline.tv_sec ||
        (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
        struct itimerval off;

        memset(&off, 0, sizeof(off));
        setitimer(ITIMER_REAL, &off, NULL);
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    errno = saved;
}

static void *sender(void *arg)
{
    struct timespec ts = { 0, 100000 };

    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        if (!arg || strchr(arg, 'u'))
            pthread_kill(main_thread, SIGUSR1);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct itimerval it = { { 0, 20 }, { 0, 20 } };
    struct sigaction sa;
    sigset_t both;
    pthread_t th;
    char counts[4096];
    long n, own = 0;

    CHECK(argc == 3 || argc == 4);
    n = atol(argv[2]);
    snprintf(counts, sizeof(counts), "%s/counts", argv[1]);
    nullfd = open("/dev/null", O_WRONLY);
    CHECK(nullfd >= 0);
    main_thread = pthread_self();
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += 2;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    /* the sender thread takes neither signal: both land on main */
    sigemptyset(&both);
    sigaddset(&both, SIGALRM);
    sigaddset(&both, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &both, NULL);
    CHECK(pthread_create(&th, NULL, sender, argv[3]) == 0);
    pthread_sigmask(SIG_UNBLOCK, &both, NULL);
    if (argc == 3 || strchr(argv[3], 'a'))
        CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    for (long i = 0; i < n && !__atomic_load_n(&done, __ATOMIC_ACQUIRE); i++)
        if (write(nullfd, "m", 1) == 1)
            own++;
    memset(&it, 0, sizeof(it));
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(th, NULL) == 0);
    /* a signal still on its way is taken before the count is read */
    pthread_sigmask(SIG_BLOCK, &both, NULL);
    note_writes(counts, own + __atomic_load_n(&handler_writes, __ATOMIC_RELAXED));
    puts("ok");
    return 0;
}
