/*
 * sample.h - the few helpers every sample program shares.
 *
 * The samples are ordinary programs with no ioscope code in them: they are
 * what a user would record with iorecord. Each takes one optional argument,
 * the directory to write its files in (created if missing); without it a
 * fresh directory is made under $TMPDIR (or /tmp), so a sample never writes
 * into the source tree. Each prints the directory it used on stdout.
 *
 * Everything here is static inline: each sample stays one translation unit
 * and the helpers a sample does not use cause no warning.
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *sample_name = "sample";

/* Print "NAME: MESSAGE 'SUBJECT': strerror(errno)" and exit 1. */
static inline void sample_die(const char *what, const char *subject)
{
    int err = errno;
    fprintf(stderr, "%s: %s '%s': %s\n", sample_name, what, subject, strerror(err));
    exit(1);
}

/*
 * The output directory: argv[1] (made if missing) or a new temporary one.
 * The returned string is static or argv's; it lives as long as the program.
 */
static inline const char *sample_dir(int argc, char **argv, const char *name)
{
    static char tmpl[4096];
    const char *tmp = getenv("TMPDIR");

    sample_name = name;
    if (argc > 2) {
        fprintf(stderr, "usage: %s [OUTPUT-DIR]\n", name);
        exit(2);
    }
    if (argc == 2) {
        if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
            sample_die("cannot create directory", argv[1]);
        printf("%s: writing in %s\n", name, argv[1]);
        return argv[1];
    }
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(tmpl, sizeof tmpl, "%s/ioscope-%s-XXXXXX", tmp, name);
    if (!mkdtemp(tmpl))
        sample_die("cannot create directory", tmpl);
    printf("%s: writing in %s\n", name, tmpl);
    return tmpl;
}

/* dir + "/" + file into out (PATH_MAX-sized buffers are plenty here). */
static inline void sample_path(char *out, size_t n, const char *dir, const char *file)
{
    if ((size_t)snprintf(out, n, "%s/%s", dir, file) >= n) {
        errno = ENAMETOOLONG;
        sample_die("path too long", dir);
    }
}

/* Sleep ms milliseconds, resuming after signals, so delays are at least ms. */
static inline void sample_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/*
 * A fixed pseudo-random sequence (Knuth's MMIX LCG): the "random" access
 * patterns are the same on every run, so the issue counts are exact.
 */
static unsigned long long sample_rand_state = 20261122ULL;
static inline unsigned sample_rand(unsigned bound)
{
    sample_rand_state = sample_rand_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((sample_rand_state >> 33) % bound);
}

/*
 * The slow input of slow_main_read and worker_io, a stand-in for slow
 * storage: a thread (named "producer") that opens the FIFO at `path` (a
 * char *) for writing and writes SAMPLE_SLOW_CHUNKS chunks of
 * SAMPLE_SLOW_CHUNK bytes, sleeping SAMPLE_SLOW_DELAY_MS before each. Every
 * read() of the other end then blocks that long, whatever the machine's
 * speed. A chunk of PIPE_BUF bytes reaches the reader whole.
 */
#define SAMPLE_SLOW_CHUNKS   4
#define SAMPLE_SLOW_CHUNK    4096
#define SAMPLE_SLOW_DELAY_MS 30

static inline void *sample_slow_producer(void *path)
{
    char chunk[SAMPLE_SLOW_CHUNK];
    int fd;

    pthread_setname_np(pthread_self(), "producer");
    memset(chunk, 'x', sizeof chunk);
    fd = open(path, O_WRONLY);
    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < SAMPLE_SLOW_CHUNKS; i++) {
        sample_sleep_ms(SAMPLE_SLOW_DELAY_MS);
        if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
            sample_die("cannot write", path);
    }
    close(fd);
    return NULL;
}

#endif /* SAMPLE_H */
