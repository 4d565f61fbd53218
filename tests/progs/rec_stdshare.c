/*
 * rec_stdshare: 4 threads write one stream at once (50,000 64-byte fwrites
 * and 5,000 fputs of 2 bytes each), then 4 threads read it back with fread
 * of 64 bytes until it ends. The recorder must see only those calls: no
 * inline getc/putc bytes (none were made), every call with its bytes, the
 * writes adding up to the file's size and the reads too.
 * Usage: rec_stdshare DIR
 */
#include <pthread.h>

#include "expect.h"

#define THREADS 4
#define WRITES 50000
#define LINES 5000

static FILE *f;
static long got[THREADS];

static void *writer(void *arg)
{
    char block[64];

    memset(block, 'w', sizeof(block));
    for (int i = 0; i < WRITES; i++) {
        CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
        if (i % (WRITES / LINES) == 0)
            CHECK(fputs("l\n", f) >= 0);
    }
    return arg;
}

static void *reader(void *arg)
{
    long id = (long)arg;
    char block[64];
    size_t n;

    while ((n = fread(block, 1, sizeof(block), f)) > 0)
        got[id] += (long)n;
    return arg;
}

static void run(void *(*fn)(void *))
{
    pthread_t t[THREADS];

    for (long i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, fn, (void *)i) == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

int main(int argc, char **argv)
{
    char path[4096];
    long total = 0;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(path, sizeof(path), "%s/shared.dat", argv[1]);
    f = fopen(path, "w");
    CHECK(f != NULL);
    run(writer);
    CHECK(fclose(f) == 0);
    f = fopen(path, "r");
    CHECK(f != NULL);
    run(reader);
    CHECK(fclose(f) == 0);
    for (int i = 0; i < THREADS; i++)
        total += got[i];
    CHECK(total == (long)THREADS * (WRITES * 64 + LINES * 2));
    return 0;
}
