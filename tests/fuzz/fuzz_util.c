/* fuzz_util.c - shared by the fuzz targets. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

static int memfd = -1;
static char path[64];

const char *fuzz_file(const uint8_t *data, size_t size)
{
    size_t off = 0;

    fuzz_file_close();
    memfd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (memfd < 0)
        return "";
    while (off < size) {
        ssize_t w = write(memfd, data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
    return path;
}

void fuzz_file_close(void)
{
    if (memfd >= 0)
        close(memfd);
    memfd = -1;
}
