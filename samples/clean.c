/*
 * clean - the well-behaved counterpart of the other samples.
 *
 * What it does: reads its settings once with one read() (and the
 * end-of-file read), writes 100000 log records of 32 bytes through its own
 * 64 KiB buffer (49 large sequential writes), reads a 1 MiB data file
 * sequentially in 64 KiB blocks, and closes every descriptor it opens. All
 * on the main thread, and every call short.
 *
 * Nothing is wrong here: it is the baseline that shows a normal program
 * gets no issue, and what the fixes suggested by the other samples look
 * like in code.
 *
 * Expected: no issue.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define RECORDS      100000
#define RECORD_BYTES 32
#define BLOCK        65536

static char block[BLOCK];

static void write_all(int fd, const char *buf, size_t len, const char *path)
{
    if (write(fd, buf, len) != (ssize_t)len)
        sample_die("cannot write", path);
}

/* Records go to a user-space buffer; the file sees only full 64 KiB writes. */
static void write_log(const char *path)
{
    char rec[RECORD_BYTES + 1];
    size_t used = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < RECORDS; i++) {
        if (used + RECORD_BYTES > sizeof block) {
            write_all(fd, block, used, path);
            used = 0;
        }
        snprintf(rec, sizeof rec, "%012d request handled ok\n", i);
        memcpy(block + used, rec, RECORD_BYTES);
        used += RECORD_BYTES;
    }
    write_all(fd, block, used, path);
    close(fd);
}

static void make_file(const char *path, const char *text, size_t len, int copies)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < copies; i++)
        write_all(fd, text, len, path);
    close(fd);
}

/* Whole file, sequentially, in large blocks; returns the bytes read. */
static long read_file(const char *path)
{
    long total = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        sample_die("cannot open", path);
    while ((n = read(fd, block, sizeof block)) > 0)
        total += n;
    if (n < 0)
        sample_die("cannot read", path);
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    static const char settings[] = "threads = 4\nlog = app.log\n";
    const char *dir = sample_dir(argc, argv, "clean");
    char settings_path[4096], log_path[4096], data_path[4096];
    long total;

    sample_path(settings_path, sizeof settings_path, dir, "settings.conf");
    sample_path(log_path, sizeof log_path, dir, "app.log");
    sample_path(data_path, sizeof data_path, dir, "data.bin");

    make_file(settings_path, settings, sizeof settings - 1, 1);
    memset(block, 'd', sizeof block);
    make_file(data_path, block, sizeof block, 16);

    total = read_file(settings_path);  /* once, kept for the whole run */
    write_log(log_path);
    total += read_file(data_path);
    printf("clean: read %ld bytes, wrote %d records\n", total, RECORDS);
    return 0;
}
