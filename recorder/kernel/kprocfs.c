/*
 * kprocfs.c - what the conversion reads of a traced process from /proc:
 * the files and links it names, its parent, a thread's name.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kconv_int.h"

/* /proc/PID/FILE read whole into buf (NUL-terminated): its length, or -1. */
ssize_t proc_read(int32_t pid, const char *file, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

int proc_hosts_preload(int32_t pid)
{
    static char env[64 * 1024];
    ssize_t n = proc_read(pid, "environ", env, sizeof(env));
    int launcher = 0, preload = 0;

    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(env + i) + 1) {
        if (strncmp(env + i, "VALGRIND_LAUNCHER=", 18) == 0)
            launcher = 1;
        else if (strncmp(env + i, "LD_PRELOAD=", 11) == 0 && strstr(env + i, "libiorecord"))
            preload = 1;
    }
    return launcher && preload;
}

void proc_link(int32_t pid, const char *file, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    n = readlink(path, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
}

int32_t proc_ppid(int32_t pid)
{
    char stat[512];
    const char *rp;

    if (proc_read(pid, "stat", stat, sizeof(stat)) < 0 || !(rp = strrchr(stat, ')')))
        return 0;
    return (int32_t)strtol(rp + 4, NULL, 10);   /* ") S PPID" */
}

/*
 * The name (comm) of thread tid of pid now, into name[KNAME]: "" when the
 * thread is gone.
 */
void proc_comm(int32_t pid, int32_t tid, char *name)
{
    char file[64], buf[64];
    ssize_t n;

    snprintf(file, sizeof(file), "task/%d/comm", tid);
    n = proc_read(pid, file, buf, sizeof(buf));
    /* the kernel ends it with a newline */
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    name_copy(name, n > 0 ? buf : "");
}

void name_copy(char *name, const char *from)
{
    snprintf(name, KNAME, "%s", from);
}
