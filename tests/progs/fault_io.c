/*
 * fault_io.c - a program whose trace output is sabotaged while it runs
 * (tests/e2e/test_fault_output.sh): it does I/O in phases and, between
 * phases, waits for the test to inject a fault (fill the disk, remove the
 * output directory, ...), so "before the fault" is well defined.
 *
 *   fault_io DIR PHASES CALLS
 *
 * Each phase makes CALLS pwrite+pread pairs on DIR/data (a 4 KiB file, so
 * the program's own files never fill a small disk or pass a file size
 * limit; offsets vary so the trace compresses poorly), runs one exec'd child
 * (this program with PHASES 0, which does one phase of its own I/O and
 * exits), then, unless it is the last phase, creates DIR/ready.N and waits
 * for DIR/go.N (at most 60 s). With FAULT_NOWAIT=1 it does not wait.
 *
 * Output: one line per phase saying whether the data read back as written,
 * and "done". Exit 0 when every phase held. Nothing here depends on the
 * recorder, so the output is the same with it, without it, and with its
 * output broken.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILE_BYTES 4096

static int phase_io(int fd, long calls, unsigned seed)
{
    unsigned char buf[256], back[256];
    int ok = 1;

    for (long i = 0; i < calls; i++) {
        size_t n = 1 + (seed = seed * 1103515245u + 12345u) % sizeof(buf);
        off_t off = (off_t)((seed >> 8) % (FILE_BYTES - n));

        for (size_t j = 0; j < n; j++)
            buf[j] = (unsigned char)(seed >> (j % 24));
        if (pwrite(fd, buf, n, off) != (ssize_t)n ||
            pread(fd, back, n, off) != (ssize_t)n || memcmp(buf, back, n) != 0)
            ok = 0;
    }
    return ok;
}

static void wait_for(const char *dir, int phase)
{
    char path[4200];
    struct timespec ts = {0, 20 * 1000000L};
    int fd;

    if (getenv("FAULT_NOWAIT"))
        return;
    snprintf(path, sizeof(path), "%s/ready.%d", dir, phase);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
    snprintf(path, sizeof(path), "%s/go.%d", dir, phase);
    for (int i = 0; i < 3000 && access(path, F_OK) != 0; i++)
        nanosleep(&ts, NULL);
}

static int run_child(const char *self, const char *dir, const char *calls)
{
    char *argv[] = {(char *)self, (char *)dir, "0", (char *)calls, NULL};
    int st;
    pid_t pid = fork();

    if (pid < 0)
        return 0;
    if (pid == 0) {
        execv(self, argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
    char path[4200], self[4096];
    int fd, status = 0;
    long phases, calls;
    ssize_t n;

    if (argc != 4) {
        fprintf(stderr, "usage: fault_io DIR PHASES CALLS\n");
        return 2;
    }
    phases = atol(argv[2]);
    calls = atol(argv[3]);
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n < 0)
        return 2;
    self[n] = '\0';
    snprintf(path, sizeof(path), "%s/data.%d", argv[1], (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "fault_io: cannot create '%s': %s\n", path, strerror(errno));
        return 2;
    }
    if (phases == 0) {  /* a child: one phase of I/O, nothing printed */
        int ok = phase_io(fd, calls, (unsigned)getpid());

        close(fd);
        unlink(path);
        return ok ? 0 : 1;
    }
    for (int p = 1; p <= phases; p++) {
        int ok = phase_io(fd, calls, (unsigned)p) && run_child(self, argv[1], argv[3]);

        printf("phase %d: %s\n", p, ok ? "ok" : "FAILED");
        fflush(stdout);
        if (!ok)
            status = 1;
        if (p < phases)
            wait_for(argv[1], p);
    }
    close(fd);
    unlink(path);
    printf("done\n");
    return status;
}
