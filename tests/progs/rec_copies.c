/*
 * rec_copies.c - the copies between two fds that move bytes without a read
 * or write: writes 64 KiB to FILE, then copies it to FILE.out 16 KiB at a
 * time with copy_file_range (from the file position, then at an offset),
 * sendfile (likewise) and splice through a pipe (file to pipe, pipe to
 * file): 4 + 4 copy_file_range, 4 + 4 sendfile, 8 + 8 splice, each of which
 * copies its 16 KiB. Prints the counts it made; exit 0, or 2 + the step
 * that failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#define CHUNK (16 * 1024)
#define CHUNKS 4

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "rec_copies.dat";
    char out[4096], buf[CHUNK];
    int in, o, p[2], cfr = 0, sf = 0, sp = 0;

    snprintf(out, sizeof(out), "%s.out", path);
    memset(buf, 'c', sizeof(buf));
    in = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || pipe(p) != 0)
        return 2;
    for (int i = 0; i < CHUNKS; i++)
        if (write(in, buf, CHUNK) != CHUNK)
            return 3;
    lseek(in, 0, SEEK_SET);
    for (int i = 0; i < CHUNKS; i++, cfr++)
        if (copy_file_range(in, NULL, o, NULL, CHUNK, 0) != CHUNK)
            return 4;
    for (int i = 0; i < CHUNKS; i++, cfr++) {
        off64_t at = (off64_t)i * CHUNK;

        if (copy_file_range(in, &at, o, NULL, CHUNK, 0) != CHUNK)
            return 5;
    }
    lseek(in, 0, SEEK_SET);
    for (int i = 0; i < CHUNKS; i++, sf++)
        if (sendfile(o, in, NULL, CHUNK) != CHUNK)
            return 6;
    for (int i = 0; i < CHUNKS; i++, sf++) {
        off_t at = (off_t)i * CHUNK;

        if (sendfile(o, in, &at, CHUNK) != CHUNK)
            return 7;
    }
    lseek(in, 0, SEEK_SET);
    for (int i = 0; i < 2 * CHUNKS; i++, sp += 2) {
        loff_t at = (loff_t)(i % CHUNKS) * CHUNK;

        if (splice(in, i < CHUNKS ? NULL : &at, p[1], NULL, CHUNK, 0) != CHUNK ||
            splice(p[0], NULL, o, NULL, CHUNK, 0) != CHUNK)
            return 8;
    }
    close(in);
    close(o);
    printf("copy_file_range %d sendfile %d splice %d\n", cfr, sf, sp);
    return 0;
}
