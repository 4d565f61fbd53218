/*
 * an_hostile.c PATH - the I/O of the evil.c under whatever name the
 * test gives the file and the program: 2000 one-byte writes with an fsync
 * every 50 (small_buffer, sync_storm), then 150 opens each reading 8 bytes,
 * of which 4 are never closed (repeat_open, leak).
 */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char b[8];
    int fd;

    if (argc < 2 || (fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return 2;
    for (int i = 0; i < 2000; i++) {
        if (write(fd, "x", 1) != 1)
            return 3;
        if (i % 50 == 49)
            fsync(fd);
    }
    close(fd);
    for (int k = 0; k < 150; k++) {
        int f = open(argv[1], O_RDONLY);

        if (f < 0 || read(f, b, sizeof(b)) < 0)
            return 4;
        if (k % 40)
            close(f);
    }
    return 0;
}
