/*
 * rec_stdbufs: stdio buffers as glibc sets them, for the buffer model.
 * Usage: rec_stdbufs CASE N FILE
 *   stderr       N fprintf(stderr) lines (stderr is unbuffered: a write each)
 *   stderr_write the same N lines by write(2)
 *   buf0         setvbuf(f, buf, _IOFBF, 0) on FILE, then N 100-byte fwrites
 *                (glibc: a 0-byte buffer makes the stream unbuffered)
 *   null0        setvbuf(f, NULL, _IOFBF, 0), then N fwrites (glibc keeps
 *                its own st_blksize buffer: the size is ignored)
 *   null64k      setvbuf(f, NULL, _IOFBF, 65536), then N fwrites (likewise)
 */
#include "expect.h"

static int (*volatile p_fprintf)(FILE *, const char *, ...) = fprintf;
static size_t (*volatile p_fwrite)(const void *, size_t, size_t, FILE *) = fwrite;

int main(int argc, char **argv)
{
    static char own[65536];
    char line[100];
    const char *what;
    FILE *f;
    int n, i;

    CHECK(argc == 4);
    what = argv[1];
    n = atoi(argv[2]);
    if (strcmp(what, "stderr") == 0 || strcmp(what, "stderr_write") == 0) {
        for (i = 0; i < n; i++) {
            if (what[6]) {
                int len = snprintf(line, sizeof(line), "line %d\n", i);

                CHECK(write(2, line, (size_t)len) == len);
            } else {
                CHECK(p_fprintf(stderr, "line %d\n", i) > 0);
            }
        }
        return 0;
    }
    f = fopen(argv[3], "w");
    CHECK(f != NULL);
    if (strcmp(what, "buf0") == 0)
        CHECK(setvbuf(f, own, _IOFBF, 0) == 0);
    else if (strcmp(what, "null0") == 0)
        CHECK(setvbuf(f, NULL, _IOFBF, 0) == 0);
    else if (strcmp(what, "null64k") == 0)
        CHECK(setvbuf(f, NULL, _IOFBF, sizeof(own)) == 0);
    else
        return 2;
    memset(line, 'x', sizeof(line));
    for (i = 0; i < n; i++)
        CHECK(p_fwrite(line, 1, sizeof(line), f) == sizeof(line));
    CHECK(fclose(f) == 0);
    return 0;
}
