/*
 * rec_aslimit MB N FILE: what a program run under RLIMIT_AS does. Takes MB
 * MiB with malloc and touches it, makes N one-byte writes to FILE, forks a
 * child that makes 100 more, and prints
 *   ok W child S
 * (W: the writes that went through, S: the child's exit status), exit 0;
 * or "malloc failed", exit 5.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long mb, n, ok = 0;
    char *p;
    int fd, st;
    pid_t c;

    if (argc != 4)
        return 2;
    mb = atol(argv[1]);
    n = atol(argv[2]);
    p = malloc((size_t)mb << 20);
    if (mb > 0 && !p) {
        printf("malloc failed\n");
        return 5;
    }
    if (p)
        memset(p, 1, (size_t)mb << 20);
    fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (long i = 0; i < n; i++)
        ok += write(fd, "x", 1) == 1;
    c = fork();
    if (c == 0) {
        for (int i = 0; i < 100; i++)
            if (write(fd, "c", 1) != 1)
                _exit(1);
        _exit(0);
    }
    if (c < 0 || waitpid(c, &st, 0) != c)
        return 1;
    printf("ok %ld child %d\n", ok, WEXITSTATUS(st));
    free(p);
    return 0;
}
