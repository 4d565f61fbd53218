/*
 * rec_forkstorm: a SIGCHLD handler that does file I/O while the main
 * thread forks. The main thread forks FORKS children one after another
 * (each writes nothing and _exits at once) and writes one byte to
 * /dev/null between forks; the handler opens DIR/handler, writes a byte,
 * closes it and reaps. An earlier child's SIGCHLD is mostly taken as a
 * fork returns in the parent, while libc's fork handlers have run and the
 * recorder's locks are held for the fork: the handler's open (which takes
 * a stack) must neither wait for them nor be recorded twice.
 * Usage: rec_forkstorm DIR FORKS ; appends "PID write COUNT" to DIR/counts
 * (raw syscalls: not recorded), prints "ok".
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "expect.h"

static char handler_path[4096];
static long handler_writes;   /* the handler's own: it does not nest */
static long reaped;

static void on_child(int sig)
{
    int saved = errno, fd;

    (void)sig;
    fd = open(handler_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        if (write(fd, "c", 1) == 1)
            handler_writes++;
        close(fd);
    }
    while (waitpid(-1, NULL, WNOHANG) > 0)
        reaped++;
    errno = saved;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    sigset_t chld;
    char counts[4096];
    long forks, own = 0;
    int nullfd;

    CHECK(argc == 3);
    forks = atol(argv[2]);
    snprintf(counts, sizeof(counts), "%s/counts", argv[1]);
    snprintf(handler_path, sizeof(handler_path), "%s/handler", argv[1]);
    nullfd = open("/dev/null", O_WRONLY);
    CHECK(nullfd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
    for (long i = 0; i < forks; i++) {
        pid_t pid = fork();

        CHECK(pid >= 0);
        if (pid == 0)
            _exit(0);
        if (write(nullfd, "m", 1) == 1)
            own++;
    }
    /* the last children: reaped here, with the handler kept out */
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    while (reaped < forks && waitpid(-1, NULL, 0) > 0)
        reaped++;
    CHECK(reaped == forks);
    note_writes(counts, own + handler_writes);
    puts("ok");
    return 0;
}
