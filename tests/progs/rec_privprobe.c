/*
 * rec_privprobe - what a process can reach of the recorder's fds and
 * memory (tests/e2e/test_rec_privilege.sh).
 *
 * Both first close every fd from 3 up (closefrom), so that only the
 * recorder's can be left, and the probes touch nothing the caller holds.
 *
 *   rec_privprobe answers   the fds in 3..1099 that answer fstat, lseek,
 *                           write(fd, "", 0), read(fd, buf, 0), ftruncate,
 *                           mmap, fcntl(F_GETFD), fdopen or dprintf(fd,
 *                           "%s", "") through libc, one line per call:
 *                           what the program can notice
 *   rec_privprobe steal     as a process that dropped its privileges: the
 *                           recorder's memfd among its fds (raw syscalls:
 *                           what the kernel holds), whether it reads through
 *                           /proc/self/fd, whether it is mapped, and a raw
 *                           ftruncate of it to 0 (which, unsealed, would
 *                           SIGBUS every process of the run); the
 *                           recorder's variables in its environment
 *                           (IORECORD_*, the library in LD_PRELOAD); then
 *                           a few writes to stdout
 *   rec_privprobe threads   (as root) four threads write 1 byte at a time
 *                           to /dev/null while the main thread drops to
 *                           uid/gid 65534 with setresgid/setresuid; then
 *                           as 'steal', and each thread's count of writes
 *                           that did not return 1 (0 expected)
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LAST_FD 1100

extern char **environ;

static void answers(void)
{
    static const char *const calls[] = { "fstat", "lseek", "write", "read",
                                         "ftruncate", "mmap", "fcntl", "fdopen",
                                         "dprintf" };
    char buf[1];

    for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
        printf("%s:", calls[c]);
        for (int fd = 3; fd < LAST_FD; fd++) {
            struct stat st;
            long r = 0;
            void *m;

            errno = 0;
            switch (c) {
            case 0: r = fstat(fd, &st); break;
            case 1: r = lseek(fd, 0, SEEK_CUR); break;
            case 2: r = write(fd, "", 0); break;
            case 3: r = read(fd, buf, 0); break;
            case 4: r = ftruncate(fd, 1 << 30); break;
            case 5:
                m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
                r = m == MAP_FAILED ? -1 : 0;
                if (m != MAP_FAILED)
                    munmap(m, 4096);
                break;
            case 6: r = fcntl(fd, F_GETFD); break;
            case 7: {
                FILE *f = fdopen(fd, "r");

                r = f ? 0 : -1;   /* natively only on a closed fd: never closed here */
                break;
            }
            default: r = dprintf(fd, "%s", ""); break;
            }
            if (r != -1 || errno != EBADF)
                printf(" %d", fd);
        }
        printf("\n");
    }
}

static void steal(void)
{
    int memfds = 0, readable = 0, truncated = 0, mapped = 0, preload = 0;
    char link[64], target[256], line[512];
    FILE *maps;

    for (int fd = 3; fd < LAST_FD; fd++) {
        long n;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = syscall(SYS_readlink, link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (!strstr(target, "memfd:"))
            continue;
        memfds++;
        {
            int rfd = (int)syscall(SYS_openat, AT_FDCWD, link, O_RDONLY);
            char b[4096];

            if (rfd >= 0 && syscall(SYS_read, rfd, b, sizeof(b)) > 0)
                readable++;
            if (rfd >= 0)
                syscall(SYS_close, rfd);
        }
        if (syscall(SYS_ftruncate, fd, 0L) == 0)
            truncated++;
    }
    maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof(line), maps))
        if (strstr(line, "memfd:"))
            mapped++;
    if (maps)
        fclose(maps);
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "IORECORD_", 9) == 0 ||
            (strncmp(*e, "LD_PRELOAD=", 11) == 0 && strstr(*e, "libiorecord")))
            preload++;
    printf("memfds %d readable %d mapped %d truncated %d uid %d\n", memfds,
           readable, mapped, truncated, (int)getuid());
    printf("recorder variables %d\n", preload);
    for (int i = 0; i < 5; i++)
        printf("after %d\n", i);
}

static volatile int stop_writers;

static void *writer(void *arg)
{
    int fd = open("/dev/null", O_WRONLY), *bad = arg;

    while (!stop_writers)
        if (write(fd, "x", 1) != 1)
            (*bad)++;
    close(fd);
    return NULL;
}

static int threads(void)
{
    struct timespec ms50 = { 0, 50000000L };
    pthread_t th[4];
    int bad[4] = { 0 };

    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, writer, &bad[i]);
    nanosleep(&ms50, NULL);
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) {
        perror("rec_privprobe: dropping privileges");
        return 1;
    }
    nanosleep(&ms50, NULL);
    stop_writers = 1;
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    steal();
    printf("failed writes %d %d %d %d\n", bad[0], bad[1], bad[2], bad[3]);
    return 0;
}

int main(int argc, char **argv)
{
    closefrom(3);
    if (argc == 2 && strcmp(argv[1], "answers") == 0)
        answers();
    else if (argc == 2 && strcmp(argv[1], "steal") == 0)
        steal();
    else if (argc == 2 && strcmp(argv[1], "threads") == 0)
        return threads();
    else {
        fprintf(stderr, "usage: rec_privprobe answers|steal|threads\n");
        return 2;
    }
    return 0;
}
