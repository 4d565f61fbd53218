/*
 * rec_cancel: read() is a cancellation point, recorded or not.
 *
 *   rec_cancel self    a single-threaded process cancels itself, then
 *                      reads: the read acts on it, so nothing is printed
 *                      and the process ends with status 0 (its last
 *                      thread exits). It reads __libc_single_threaded
 *                      itself, so that the program holds the variable
 *                      (a copy relocation), which glibc leaves at 1 here
 *   rec_cancel thread  a thread blocked in read() on an empty pipe is
 *                      cancelled: prints "cancelled"
 *
 * A recorder that made the read itself without libc's cancellation
 * handling would print "not cancelled" (self) or hang (thread).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pipe_fds[2];

static void say(const char *s)
{
    /* a raw write: no cancellation point, and no buffer lost to the unwind */
    syscall(SYS_write, 1, s, strlen(s));
}

static void *blocked_reader(void *arg)
{
    char c;

    (void)arg;
    if (read(pipe_fds[0], &c, 1) >= 0)
        say("read returned\n");
    return NULL;
}

int main(int argc, char **argv)
{
    char c;

    if (argc == 2 && strcmp(argv[1], "self") == 0) {
        int fd = open("/dev/zero", O_RDONLY);

        if (fd < 0)
            return 2;
        pthread_cancel(pthread_self());
        if (!*(volatile char *)&__libc_single_threaded)
            say("no longer single-threaded\n");
        read(fd, &c, 1);
        say("not cancelled\n");
        return 3;
    }
    if (argc == 2 && strcmp(argv[1], "thread") == 0) {
        pthread_t t;
        void *res;

        if (pipe(pipe_fds) != 0 || pthread_create(&t, NULL, blocked_reader, NULL) != 0)
            return 2;
        pthread_cancel(t);
        if (pthread_join(t, &res) != 0)
            return 2;
        say(res == PTHREAD_CANCELED ? "cancelled\n" : "not cancelled\n");
        return 0;
    }
    fprintf(stderr, "usage: rec_cancel self|thread\n");
    return 2;
}
