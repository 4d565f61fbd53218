/*
 * rec_spawnfds: posix_spawn PROG ARG, wait for it, then print the child's
 * exit status and the sockets this process holds (the lines of
 * /proc/self/fd that name one): what a program sees of the recorder's
 * question to iorecord for its kernel path, which must be nothing.
 * Usage: rec_spawnfds PROG ARG
 */
#include <dirent.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    char *args[] = { argv[1], argv[2], NULL };
    char link[300], target[256];
    struct dirent *de;
    int st, sockets = 0;
    pid_t pid;
    DIR *d;

    if (argc != 3 || posix_spawn(&pid, argv[1], NULL, NULL, args, environ) != 0 ||
        waitpid(pid, &st, 0) != pid)
        return 99;
    d = opendir("/proc/self/fd");
    if (!d)
        return 99;
    while ((de = readdir(d)) != NULL) {
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
        n = readlink(link, target, sizeof(target) - 1);
        if (n > 0 && (target[n] = '\0', strncmp(target, "socket:", 7) == 0))
            sockets++;
    }
    closedir(d);
    printf("status %d sockets %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, sockets);
    return 0;
}
