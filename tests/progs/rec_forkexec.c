/*
 * rec_forkexec: every way a process can make another one.
 *   parent: writes parent.dat, then
 *   fork   -> child writes forked.dat, execs "exec" -> writes exec.dat, exit(3)
 *   vfork  -> child execs "vexec" -> writes vexec.dat, _exit(4)
 *   posix_spawn "spawn" -> writes spawn.dat, returns 5 from main
 *   fork   -> child writes killed.dat and is killed by SIGKILL
 * and checks each child's status; exits 0.
 * Usage: rec_forkexec DIR [ROLE]
 */
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "expect.h"

extern char **environ;

static void touch(const char *dir, const char *name)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, name, strlen(name)) == (ssize_t)strlen(name));
    CHECK(close(fd) == 0);
}

static int wait_for(pid_t pid)
{
    int st;

    CHECK(waitpid(pid, &st, 0) == pid);
    return st;
}

int main(int argc, char **argv)
{
    char self[4096];
    ssize_t n;
    pid_t pid;
    int st;

    CHECK(argc >= 2);
    if (argc == 3 && strcmp(argv[2], "exec") == 0) {
        touch(argv[1], "exec.dat");
        exit(3);
    }
    if (argc == 3 && strcmp(argv[2], "vexec") == 0) {
        touch(argv[1], "vexec.dat");
        _exit(4);
    }
    if (argc == 3 && strcmp(argv[2], "spawn") == 0) {
        touch(argv[1], "spawn.dat");
        return 5;
    }
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0);
    self[n] = '\0';
    touch(argv[1], "parent.dat");

    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        touch(argv[1], "forked.dat");
        execl(self, self, argv[1], "exec", (char *)NULL);
        _exit(98);
    }
    st = wait_for(pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);

    pid = vfork();
    CHECK(pid >= 0);
    if (pid == 0) {
        execl(self, self, argv[1], "vexec", (char *)NULL);
        _exit(98);
    }
    st = wait_for(pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 4);

    {
        char *args[] = { self, argv[1], "spawn", NULL };

        CHECK(posix_spawn(&pid, self, NULL, NULL, args, environ) == 0);
    }
    st = wait_for(pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);

    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        touch(argv[1], "killed.dat");
        kill(getpid(), SIGKILL);
        _exit(98);
    }
    st = wait_for(pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    touch(argv[1], "parent-end.dat");
    return 0;
}
