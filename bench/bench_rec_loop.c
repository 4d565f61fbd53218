/*
 * bench_rec_loop - the loops bench_recorder.sh measures, natively, under the
 * recorder and under strace. No ioscope code is used.
 *
 *   bench_rec_loop LOOP CALLS FILE
 *
 * read1: 1-byte read() from /dev/zero. pread4k: 4 KiB pread() of FILE.
 * fwrite64: 64-byte fwrite() to FILE; fwrite64u: the same with
 * fwrite_unlocked(); fwrite64t: fwrite() while a second thread waits (a
 * multi-threaded process: stdio takes the FILE's lock, and so does the
 * recorder's path).
 * open: one open + close of FILE per iteration (stack capture cost).
 * write64: 64-byte write() to FILE; fsync: fsync() of FILE (open for
 * writing, nothing dirty): loops of one call site, whose calls carry a stack
 * only at the site's 1st, 2nd, 4th ... call (docs/recorder.md, "Call-site
 * stacks").
 * spawn: fork, exec of /bin/true and waitpid per iteration (the cost of
 * each recorded process's start-up and exit).
 * fork64: fork, _exit and waitpid per iteration while 64 other threads do
 * I/O (bursts of 100 1-byte reads, each followed by a sleep 128 times its
 * length and 1 ms at least, so that the 64 use about half a CPU whatever a
 * read costs on the machine and the forking thread is not starved of the
 * CPU): what the recorder's threads and buffers cost a fork.
 * clock2: two back-to-back reads of the clock the recorder stamps a call
 * with (rdtsc where there is one, else CLOCK_MONOTONIC), no call: the floor
 * under what the recorder can add to a call it times (FILE unused).
 *
 * Runs CALLS calls in 50 batches and prints one line:
 *   median_ns_per_call thread_cpu_ns_per_call process_cpu_ns_per_call
 * where the median is over the batches' wall time per call, thread CPU is
 * the calling thread's, and process CPU (user + system of every thread)
 * is what the whole process paid.
 *
 * read1pair (x86-64): the same 1-byte read of /dev/zero made two ways in
 * turns, AB_CALLS at a time: by read(), which a preloaded recorder wraps,
 * and by the syscall instruction, which no wrapper sees. Prints
 *   wall_ns thread_cpu_ns
 * per call, each the median over the pairs of turns of read()'s time less
 * the syscall instruction's: what read() adds to the kernel's work, in one
 * process, so that the run-to-run drift of a syscall's own cost (larger
 * than a recorder's whole cost on some VMs) falls on both alike.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 50
/* read1pair: calls per turn (a turn takes well under a scheduler tick) */
#define AB_CALLS 200

static int64_t ns(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

enum loop { READ1, PREAD4K, FWRITE64, FWRITE64U, FWRITE64T, OPEN, SPAWN, FORK64, WRITE64, FSYNC,
            CLOCK2, NLOOPS };

static const char *const loop_names[NLOOPS] = {
    "read1", "pread4k", "fwrite64", "fwrite64u", "fwrite64t", "open", "spawn",
    "fork64", "write64", "fsync", "clock2",
};

/* One read of the recorder's clock (recorder/preload/rec.h, rec_stamp). */
static inline uint64_t stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return (uint64_t)ns(CLOCK_MONOTONIC);
#endif
}

static volatile uint64_t stamps;

#if defined(__x86_64__)
/* read(2) by the syscall instruction: no libc, so no wrapper of a preload */
static long raw_read(int fd, void *buf, size_t n)
{
    long r;

    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(n)
                     : "rcx", "r11", "memory");
    return r;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* read1pair: see the top of the file. 0, or 1 when a read failed. */
static int read1_pair(long calls)
{
    long pairs = calls / (2 * AB_CALLS) > 0 ? calls / (2 * AB_CALLS) : 1;
    double *wall = malloc(sizeof(*wall) * (size_t)pairs);
    double *cpu = malloc(sizeof(*cpu) * (size_t)pairs);
    int fd = open("/dev/zero", O_RDONLY);
    char c;

    if (!wall || !cpu || fd < 0)
        return 1;
    for (long p = 0; p < pairs; p++) {
        int64_t w[3], t[3];

        w[0] = ns(CLOCK_MONOTONIC);
        t[0] = ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < AB_CALLS; i++)
            if (read(fd, &c, 1) != 1)
                return 1;
        w[1] = ns(CLOCK_MONOTONIC);
        t[1] = ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < AB_CALLS; i++)
            if (raw_read(fd, &c, 1) != 1)
                return 1;
        w[2] = ns(CLOCK_MONOTONIC);
        t[2] = ns(CLOCK_THREAD_CPUTIME_ID);
        wall[p] = (double)((w[1] - w[0]) - (w[2] - w[1])) / AB_CALLS;
        cpu[p] = (double)((t[1] - t[0]) - (t[2] - t[1])) / AB_CALLS;
    }
    qsort(wall, (size_t)pairs, sizeof(*wall), cmp_dbl);
    qsort(cpu, (size_t)pairs, sizeof(*cpu), cmp_dbl);
    printf("%.1f %.1f\n", wall[pairs / 2], cpu[pairs / 2]);
    free(wall);
    free(cpu);
    close(fd);
    return 0;
}
#endif

static volatile int stop;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;

/* fwrite64t's second thread: waits until the loop is done. */
static void *idle(void *arg)
{
    pthread_mutex_lock(&idle_lock);
    pthread_mutex_unlock(&idle_lock);
    return arg;
}

static void *reader(void *arg)
{
    char c;
    int fd = open("/dev/zero", O_RDONLY);

    (void)arg;
    while (!stop) {
        int64_t t0 = ns(CLOCK_MONOTONIC), pause;

        for (int i = 0; i < 100; i++)
            if (read(fd, &c, 1) != 1)
                return NULL;
        pause = (ns(CLOCK_MONOTONIC) - t0) * 128 / 1000;
        usleep(pause > 1000 ? (useconds_t)pause : 1000);
    }
    close(fd);
    return NULL;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static char buf[4096];
    int64_t per[BATCHES], t0, c0;
    struct rusage ru;
    long calls, batch;
    pthread_t readers[64], idler;
    FILE *f = NULL;
    int fd = -1, mode = 0;

    if (argc == 4 && strcmp(argv[1], "read1pair") == 0) {
#if defined(__x86_64__)
        return read1_pair(atol(argv[2]));
#else
        fprintf(stderr, "bench_rec_loop: read1pair needs x86-64\n");
        return 3;
#endif
    }
    while (argc == 4 && mode < NLOOPS && strcmp(argv[1], loop_names[mode]))
        mode++;
    if (argc != 4 || mode == NLOOPS) {
        fprintf(stderr, "usage: bench_rec_loop read1|pread4k|fwrite64|fwrite64u|"
                        "fwrite64t|open|spawn|fork64|write64|fsync|clock2|read1pair CALLS FILE\n");
        return 2;
    }
    calls = atol(argv[2]);
    batch = calls / BATCHES > 0 ? calls / BATCHES : 1;
    if (mode == READ1 || mode == CLOCK2)
        fd = open("/dev/zero", O_RDONLY);
    else if (mode == FWRITE64 || mode == FWRITE64U || mode == FWRITE64T)
        f = fopen(argv[3], "w");
    else if (mode == WRITE64 || mode == FSYNC)
        fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    else
        fd = open(argv[3], O_RDONLY);
    if (fd < 0 && !f) {
        perror(argv[3]);
        return 1;
    }
    if (mode == FORK64)
        for (int i = 0; i < 64; i++)
            if (pthread_create(&readers[i], NULL, reader, NULL) != 0)
                return 1;
    if (mode == FWRITE64T) {
        pthread_mutex_lock(&idle_lock);
        if (pthread_create(&idler, NULL, idle, NULL) != 0)
            return 1;
    }
    c0 = ns(CLOCK_THREAD_CPUTIME_ID);
    for (int b = 0; b < BATCHES; b++) {
        t0 = ns(CLOCK_MONOTONIC);
        for (long i = 0; i < batch; i++) {
            if (mode == READ1) {
                if (read(fd, buf, 1) != 1)
                    return 1;
            } else if (mode == CLOCK2) {
                uint64_t a = stamp();

                stamps += stamp() - a;
            } else if (mode == PREAD4K) {
                if (pread(fd, buf, 4096, (off_t)((i & 255) * 4096)) != 4096)
                    return 1;
            } else if (mode == SPAWN) {
                pid_t p = fork();

                if (p == 0) {
                    execl("/bin/true", "true", (char *)NULL);
                    _exit(127);
                }
                if (p < 0 || waitpid(p, NULL, 0) != p)
                    return 1;
            } else if (mode == FORK64) {
                pid_t p = fork();

                if (p == 0)
                    _exit(0);
                if (p < 0 || waitpid(p, NULL, 0) != p)
                    return 1;
            } else if (mode == WRITE64) {
                if (write(fd, buf, 64) != 64)
                    return 1;
                if ((i & 4095) == 4095 && lseek(fd, 0, SEEK_SET) != 0)
                    return 1;   /* keep the file small: 256 KiB */
            } else if (mode == FSYNC) {
                if (fsync(fd) != 0)
                    return 1;
            } else if (mode == OPEN) {
                int o = open(argv[3], O_RDONLY);

                if (o < 0 || close(o) != 0)
                    return 1;
            } else {
                if ((mode == FWRITE64U ? fwrite_unlocked(buf, 1, 64, f)
                                       : fwrite(buf, 1, 64, f)) != 64)
                    return 1;
                if ((i & 4095) == 4095)
                    rewind(f);   /* keep the file small: 256 KiB */
            }
        }
        per[b] = (ns(CLOCK_MONOTONIC) - t0) / batch;
    }
    c0 = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (mode == FORK64) {
        stop = 1;
        for (int i = 0; i < 64; i++)
            pthread_join(readers[i], NULL);
    }
    if (mode == FWRITE64T) {
        pthread_mutex_unlock(&idle_lock);
        pthread_join(idler, NULL);
    }
    if (f)
        fclose(f);
    getrusage(RUSAGE_SELF, &ru);
    qsort(per, BATCHES, sizeof(per[0]), cmp64);
    printf("%lld %lld %lld\n", (long long)per[BATCHES / 2],
           (long long)(c0 / (batch * BATCHES)),
           (long long)(((int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec +
                        (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec) *
                       1000 / (batch * BATCHES)));
    return 0;
}
