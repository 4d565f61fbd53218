/*
 * line_reader - a file read line by line with read() and lseek().
 *
 * What it does wrong: next_line() reads 4 KiB, finds the end of the first
 * line in it and seeks back to just after it, so the next call reads the
 * same bytes again (the way a shell's `while read` loop reads a file it may
 * not read past). Each byte of the 64 KiB file is read about 64 times.
 *
 * Fix: read large blocks once and split the lines in memory (stdio's
 * getline does exactly that).
 *
 * Expected: one redundant_read issue (type 11) on lines.txt: 1024 lines of
 * 64 bytes, 1025 reads (the last at the end of the file) of 4065280 bytes
 * in all, repeat = 62 (the rounded factor). Not random_read: every jump goes back into the
 * bytes the previous read covered, a re-read.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define LINES 1024
#define LINE_BYTES 64

static void write_lines(const char *path)
{
    char line[LINE_BYTES];
    FILE *f = fopen(path, "w");

    if (!f)
        sample_die("cannot create", path);
    for (int i = 0; i < LINES; i++) {
        memset(line, 'x', sizeof line);
        line[LINE_BYTES - 1] = '\n';
        fwrite(line, 1, sizeof line, f);
    }
    fclose(f);
}

/* The mistake: read a block, keep one line, seek back for the rest. Returns
   the line's length, 0 at the end. */
static long next_line(int fd, off_t *pos)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    char *nl;

    if (n <= 0)
        return 0;
    nl = memchr(buf, '\n', (size_t)n);
    *pos += nl ? nl - buf + 1 : n;
    lseek(fd, *pos, SEEK_SET);
    return nl ? nl - buf + 1 : n;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "line_reader");
    char path[4096];
    off_t pos = 0;
    int fd, lines = 0;

    sample_path(path, sizeof path, dir, "lines.txt");
    write_lines(path);
    fd = open(path, O_RDONLY);
    if (fd < 0)
        sample_die("cannot open", path);
    while (next_line(fd, &pos) > 0)
        lines++;
    close(fd);
    printf("line_reader: %d lines\n", lines);
    return lines == LINES ? 0 : 1;
}
