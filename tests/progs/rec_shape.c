/*
 * rec_shape: what a program can see of its own shape, printed as one line
 * per fact, so that a recorded run can be compared with a native one: the
 * threads in /proc/self/task, the children it can wait for, its signal mask
 * and dispositions, and whether the calls that need a single-threaded
 * caller (unshare(CLONE_NEWUSER)) or that an extra thread breaks (the last
 * thread's pthread_exit ending the process, fork from a thread) behave.
 * Each mode does some file I/O so the recorder has something to record.
 * Usage: rec_shape shape|pthread_exit|fork_thread|unshare
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void some_io(void)
{
    char buf[64];
    FILE *f = fopen("/proc/self/stat", "r");

    if (f) {
        if (!fgets(buf, sizeof(buf), f))
            buf[0] = 0;
        fclose(f);
    }
}

static int tasks(void)
{
    char buf[4096];
    FILE *f;
    int n = 0;

    f = popen("ls /proc/$PPID/task | wc -l", "r");
    if (!f)
        return -1;
    if (fgets(buf, sizeof(buf), f))
        n = atoi(buf);
    pclose(f);
    return n;
}

/* "SigBlk:", "SigIgn:" and "SigCgt:" of /proc/self/status. */
static void signal_state(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");

    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "SigBlk:", 7) || !strncmp(line, "SigIgn:", 7) ||
            !strncmp(line, "SigCgt:", 7))
            fputs(line, stdout);
    if (f)
        fclose(f);
}

static void *worker(void *arg)
{
    (void)arg;
    some_io();
    usleep(100000);
    some_io();
    return NULL;
}

static void *forker(void *arg)
{
    pid_t pid = fork();
    int st = -1;

    (void)arg;
    if (pid == 0) {
        some_io();
        _exit(7);
    }
    waitpid(pid, &st, 0);
    printf("child of a thread: %s %d\n", pid > 0 ? "ran" : "failed",
           WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "shape";
    pthread_t th;

    some_io();
    if (!strcmp(mode, "shape")) {
        errno = 0;
        printf("threads: %d\n", tasks());
        printf("children to wait for: %s\n",
               waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD ? "none" : "some");
        signal_state();
    } else if (!strcmp(mode, "pthread_exit")) {
        /* the process ends when its last thread does */
        if (pthread_create(&th, NULL, worker, NULL) != 0)
            return 2;
        printf("main thread leaving\n");
        fflush(stdout);
        pthread_exit(NULL);
    } else if (!strcmp(mode, "fork_thread")) {
        if (pthread_create(&th, NULL, forker, NULL) != 0)
            return 2;
        pthread_join(th, NULL);
    } else if (!strcmp(mode, "unshare")) {
        int r = unshare(CLONE_NEWUSER);

        printf("unshare(CLONE_NEWUSER): %s\n", r == 0 ? "ok" : strerror(errno));
    } else {
        return 2;
    }
    some_io();
    return 0;
}
