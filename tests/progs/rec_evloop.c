/* rec_evloop: an event loop or a command-line program making the same work.
   Waits in epoll_wait on a pipe (argv[2] "loop"; "cli": does not wait) and on
   each of 5 events appends a record to the log argv[1] and fsyncs it on the
   same thread, then prints "done". Both run a second thread that opens and
   closes /dev/null, as a server's helper threads (redis's bio threads) make
   calls of their own: the process is multithreaded either way (also to the
   kernel path, which sees a thread by its calls), and only the thread's
   waits tell the loop from the command line. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static void *helper(void *arg)
{
    int fd = open("/dev/null", O_RDONLY);

    if (fd >= 0)
        close(fd);
    return arg;
}

int main(int argc, char **argv)
{
    int p[2], ep, fd, loop = argc > 2 && strcmp(argv[2], "loop") == 0;
    struct epoll_event ev = {.events = EPOLLIN}, out;
    pthread_t th;
    char c;
    if (argc < 3 || pipe(p) < 0) return 2;
    if (pthread_create(&th, NULL, helper, NULL) != 0 || pthread_join(th, NULL) != 0) return 2;
    fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ep = epoll_create1(0);
    ev.data.fd = p[0];
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    for (int i = 0; i < 5; i++) {
        if (write(p[1], "x", 1) != 1) return 1;
        if (loop && epoll_wait(ep, &out, 1, 1000) != 1) return 1;
        if (read(p[0], &c, 1) != 1) return 1;
        if (write(fd, "record\n", 7) != 7 || fsync(fd) != 0) return 1;
    }
    close(fd);
    printf("done\n");
    return 0;
}
