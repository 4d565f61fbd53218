/*
 * rec_smallio.c - 1000 one-byte writes to a file, then 200 reopens of it each
 * reading one byte: the calls the kernel path must record exactly, in C
 * (test_rec_kernel.sh builds it static too).
 */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "rec_smallio.dat";
    char c;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return 2;
    for (int i = 0; i < 1000; i++)
        if (write(fd, "x", 1) != 1)
            return 3;
    close(fd);
    for (int i = 0; i < 200; i++) {
        fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, &c, 1) != 1)
            return 4;
        close(fd);
    }
    return 0;
}
