/*
 * stdio_unbuf - the same log written through an unbuffered and a buffered
 * stdio stream.
 *
 * What it does wrong: unbuffered.log is switched to unbuffered mode with
 * setvbuf(f, NULL, _IONBF, 0) (often done "so nothing is lost on a crash"),
 * which turns every fwrite() of a 32-byte record into its own write()
 * system call: 100000 of them. buffered.log gets exactly the same fwrite()
 * calls with the default buffer (st_blksize, usually 4 KiB), so the C
 * library issues one write() per 4 KiB instead.
 *
 * The recorder sees the fwrite() calls as the program made them; the
 * small_buffer rule judges a stream by the size of the system calls it
 * really causes (the stream buffer, or each call when unbuffered), so only
 * the unbuffered stream is reported.
 *
 * Fix: keep the default buffering (or a larger one of your own: setvbuf(f,
 * buf, _IOFBF, 65536); glibc ignores the size when buf is NULL) and
 * fflush() at the points where durability matters.
 *
 * Both logs are written by a "logger" thread, so that 200000 calls do not
 * give a busy machine as many chances to stall the main thread past 13 ms
 * (which the main_thread rule would report; see small_writes.c).
 *
 * Expected: one small_buffer issue (type 2) on unbuffered.log: 100000
 * fwrite calls of 32 bytes. Nothing on buffered.log.
 */
#include <pthread.h>

#include "sample.h"

#define RECORDS      100000
#define RECORD_BYTES 32

static void write_log(const char *path, int unbuffered)
{
    char rec[RECORD_BYTES + 1];
    FILE *f = fopen(path, "w");

    if (!f)
        sample_die("cannot open", path);
    if (unbuffered && setvbuf(f, NULL, _IONBF, 0) != 0)
        sample_die("cannot set buffering of", path);
    for (int i = 0; i < RECORDS; i++) {
        snprintf(rec, sizeof rec, "%012d request handled ok\n", i);
        if (fwrite(rec, 1, RECORD_BYTES, f) != RECORD_BYTES)
            sample_die("cannot write", path);
    }
    if (fclose(f) != 0)
        sample_die("cannot close", path);
}

static void *logger(void *arg)
{
    const char *dir = arg;
    char path[4096];

    pthread_setname_np(pthread_self(), "logger");
    sample_path(path, sizeof path, dir, "unbuffered.log");
    write_log(path, 1);
    sample_path(path, sizeof path, dir, "buffered.log");
    write_log(path, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "stdio_unbuf");
    pthread_t thr;

    if (pthread_create(&thr, NULL, logger, (void *)dir) != 0) {
        fprintf(stderr, "stdio_unbuf: cannot start the logger thread\n");
        return 1;
    }
    pthread_join(thr, NULL);
    printf("stdio_unbuf: wrote %d records to each log\n", RECORDS);
    return 0;
}
