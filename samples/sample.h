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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

#endif /* SAMPLE_H */
