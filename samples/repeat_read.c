/*
 * repeat_read - the same settings file read again and again.
 *
 * What it does wrong: five modules each look up their own setting by opening
 * settings.conf and reading all 128 KiB of it, one after the other, from the
 * same code path. The file does not change in between, so four of the five
 * reads are pure waste; with more modules or a bigger file it adds up.
 *
 * Fix: read and parse the file once and give every module the parsed result
 * (or cache it keyed by the file's mtime if it may change).
 *
 * Why there is also a byte-at-a-time pass: like Matrix IOCanary, ioscope
 * watches a path for repeated reads only once one session on it has cost at
 * least 13 ms of continual I/O (repeat_read.min_continual_ms), so cheap files
 * read twice are not noise. A whole read of a 128 KiB file from the page cache
 * takes a few microseconds, far too fast to be noticed; the program's startup
 * "validation" reads the file one byte per read() call instead, which costs
 * 131073 system calls (about 60 ms) and is itself a real problem.
 *
 * Start-up runs on a "loader" thread: the 131073 calls of the validation
 * pass would otherwise give a busy machine as many chances to stall the main
 * thread past 13 ms (reported, rightly, by main_thread; see small_writes.c).
 *
 * Expected, all on settings.conf:
 *   - small_buffer (type 2): the validation pass, 131073 reads of 1 byte
 *     (131072 bytes and the end-of-file read);
 *   - repeat_read (type 3), repeat = 5: the five module reads (each: two
 *     64 KiB reads and the end-of-file read), all within 17 ms of each other;
 *   - redundant_read (type 11), repeat = 6: the 128 KiB file read whole six
 *     times (786432 bytes) by one process, whatever the timing.
 */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "sample.h"

#define LINES      4096
#define LINE_BYTES 32    /* settings.conf is LINES * LINE_BYTES = 128 KiB */
#define MODULES    5

static char file[LINES * LINE_BYTES + 1];

static void write_defaults(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < LINES; i++)
        snprintf(file + i * LINE_BYTES, LINE_BYTES + 1, "opt%05d = value%015d\n", i, i * 7);
    if (write(fd, file, LINES * LINE_BYTES) != LINES * LINE_BYTES)
        sample_die("cannot write", path);
    close(fd);
}

/* Checks every byte is printable text; one read() per byte (slow). */
static int validate(const char *path)
{
    int fd = open(path, O_RDONLY), ok = 1;
    ssize_t n;
    char c;

    if (fd < 0)
        sample_die("cannot open", path);
    while ((n = read(fd, &c, 1)) == 1)
        if (c != '\n' && (c < ' ' || c > '~'))
            ok = 0;
    if (n < 0)
        sample_die("cannot read", path);
    close(fd);
    return ok;
}

/* Reads the whole file into `file`; returns its length. */
static size_t read_whole(const char *path)
{
    size_t len = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        sample_die("cannot open", path);
    while ((n = read(fd, file + len, 65536)) > 0)
        len += (size_t)n;
    if (n < 0)
        sample_die("cannot read", path);
    close(fd);
    file[len] = '\0';
    return len;
}

/* The mistake: every lookup re-reads the whole file. */
static long module_setting(const char *path, int module)
{
    char key[16];
    const char *p;

    read_whole(path);
    snprintf(key, sizeof key, "opt%05d = ", module * 100);
    p = strstr(file, key);
    return p ? strtol(p + strlen(key) + 5, NULL, 10) : -1;
}

static long checksum = -1;

/* Start-up: write the defaults, check them, configure every module. */
static void *loader(void *arg)
{
    const char *path = arg;
    long sum = 0;

    pthread_setname_np(pthread_self(), "loader");
    write_defaults(path);
    if (!validate(path)) {
        fprintf(stderr, "repeat_read: '%s' is not valid\n", path);
        return NULL;
    }
    for (int m = 0; m < MODULES; m++)
        sum += module_setting(path, m);
    checksum = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "repeat_read");
    char path[4096];
    pthread_t thr;

    sample_path(path, sizeof path, dir, "settings.conf");
    if (pthread_create(&thr, NULL, loader, path) != 0) {
        fprintf(stderr, "repeat_read: cannot start the loader thread\n");
        return 1;
    }
    pthread_join(thr, NULL);
    if (checksum < 0)
        return 1;
    printf("repeat_read: %d modules configured (checksum %ld)\n", MODULES, checksum);
    return 0;
}
