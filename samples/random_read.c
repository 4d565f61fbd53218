/*
 * random_read - a lookup table read one random 4 KiB page at a time.
 *
 * What it does wrong: the program answers 200 lookups against a 1 MiB index
 * file by pread()ing the 4 KiB page each key falls in, in the order the
 * lookups arrive. On a cold cache every such read is a separate device
 * request (a seek on a disk, a full page read on flash), and readahead, which
 * makes sequential reads cheap, never kicks in.
 *
 * Fix: when most of the file is going to be read anyway, read it
 * sequentially in large blocks (or mmap it with MADV_SEQUENTIAL) once; for
 * batches of lookups, sort them by offset first; keep hot pages cached.
 *
 * Expected: one random_read issue (type 8) on index.dat: 200 reads of 4 KiB,
 * almost all not at the end of the previous read (fixed pseudo-random page
 * order, so the counts are the same on every run). The file is created with
 * 16 sequential 64 KiB writes, which are fine and not reported.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define PAGE    4096
#define PAGES   256
#define LOOKUPS 200
#define BLOCK   65536

static void create_index(const char *path)
{
    static char block[BLOCK];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    for (int b = 0; b < PAGES * PAGE / BLOCK; b++) {
        memset(block, 'A' + b, sizeof block);
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
            sample_die("cannot write", path);
    }
    close(fd);
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "random_read");
    char path[4096], page[PAGE];
    long found = 0;
    int fd;

    sample_path(path, sizeof path, dir, "index.dat");
    create_index(path);
    fd = open(path, O_RDONLY);
    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < LOOKUPS; i++) {
        /* The mistake: one small read per lookup, wherever it falls. */
        off_t off = (off_t)sample_rand(PAGES) * PAGE;

        if (pread(fd, page, PAGE, off) != PAGE)
            sample_die("cannot read", path);
        found += page[0] != 0;
    }
    close(fd);
    printf("random_read: %ld lookups answered\n", found);
    return 0;
}
