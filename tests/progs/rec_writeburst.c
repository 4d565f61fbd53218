/*
 * rec_writeburst.c - a running process to attach to that makes a known
 * number of calls and then waits without making any: opens FILE, says
 * "ready" on stdout, and at each SIGUSR1 writes N single bytes to FILE and
 * says "done" on stdout; between bursts it waits in sigwait(), which is no
 * file call. A recorder that keeps a thread's last calls back until it
 * makes another (the kernel path's batches) must still hand them over
 * when it detaches.
 *
 *   rec_writeburst FILE N
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    sigset_t usr1;
    int fd, sig, n;

    if (argc != 3 || (n = atoi(argv[2])) <= 0)
        return 2;
    fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 2;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        if (sigwait(&usr1, &sig) != 0)
            return 3;
        for (int i = 0; i < n; i++)
            if (write(fd, "x", 1) != 1)
                return 3;
        printf("done\n");
        fflush(stdout);
    }
}
