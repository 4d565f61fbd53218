/*
 * rec_vforknull: a child whose stdout is replaced before its exec, as Rust's
 * Command and hyperfine send a child's output to /dev/null. The parent
 * writes "starting" to its stdout, opens /dev/null (close-on-exec), makes
 * the child, whose stdout becomes /dev/null, and which then execs PROG
 * ARG; then the parent writes "child done" to its own stdout.
 *
 *   vfork  the child is vfork()'s and calls dup2 itself (it shares the
 *          parent's memory, not its fd table, until the exec)
 *   spawn  posix_spawn with a dup2 file action (done inside libc)
 *
 * Usage: rec_vforknull vfork|spawn PROG ARG
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    char *cargv[] = { NULL, NULL, NULL };
    int null, st;
    pid_t pid;

    if (argc != 4 || (strcmp(argv[1], "vfork") && strcmp(argv[1], "spawn"))) {
        fprintf(stderr, "usage: rec_vforknull vfork|spawn PROG ARG\n");
        return 2;
    }
    cargv[0] = argv[2];
    cargv[1] = argv[3];
    printf("starting\n");
    fflush(stdout);
    null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0)
        return 1;
    if (!strcmp(argv[1], "vfork")) {
        pid = vfork();
        if (pid == 0) {
            dup2(null, 1);
            execv(cargv[0], cargv);
            _exit(127);
        }
    } else {
        posix_spawn_file_actions_t fa;

        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, null, 1);
        if (posix_spawn(&pid, cargv[0], &fa, NULL, cargv, environ) != 0)
            pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    close(null);
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 1;
    printf("child done\n");
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
