/*
 * rec_pidreuse K D W FILE: K children, one after the other, each taking one
 * of D pids again and again, as in a pid namespace or after pid_max wraps.
 * Run as root inside a new pid namespace (unshare -pf --mount-proc): before
 * each fork it writes /proc/sys/kernel/ns_last_pid so that child i gets pid
 * 100 + i % D. Each child opens FILE (append), makes W one-byte writes and
 * exits without closing it. Prints one line:
 *   children K pid_as_asked N distinct D bytes B
 * where N counts the children that got the pid asked for and B is FILE's
 * size at the end (K x W when every write went through).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void ask_pid(int pid)
{
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        dprintf(fd, "%d", pid - 1);
        close(fd);
    }
}

int main(int argc, char **argv)
{
    long k, d, w, asked = 0;
    struct stat st;

    if (argc != 5)
        return 2;
    k = atol(argv[1]);
    d = atol(argv[2]);
    w = atol(argv[3]);
    if (k < 1 || d < 1 || w < 0)
        return 2;
    for (long i = 0; i < k; i++) {
        int want = 100 + (int)(i % d), status;
        pid_t p;

        ask_pid(want);
        p = fork();
        if (p < 0)
            return 1;
        if (p == 0) {
            int fd = open(argv[4], O_WRONLY | O_CREAT | O_APPEND, 0644);

            for (long j = 0; j < w; j++)
                if (write(fd, "r", 1) != 1)
                    _exit(1);
            _exit(0);
        }
        if (waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
            return 1;
        asked += p == want;
    }
    if (stat(argv[4], &st) != 0)
        st.st_size = -1;
    printf("children %ld pid_as_asked %ld distinct %ld bytes %lld\n", k, asked, d,
           (long long)st.st_size);
    return 0;
}
