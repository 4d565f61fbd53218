/*
 * sync_per_write - a journal made durable after every small record.
 *
 * What it does wrong: append_record() writes a 100-byte record to the
 * journal and calls fdatasync() before returning, 200 times. Each sync
 * waits for the device to flush its cache (milliseconds on real storage),
 * so the device, not the program, sets the pace: this is what sqlite3 does
 * for every INSERT run outside a transaction.
 *
 * Fix: make a batch of records durable together, one fdatasync() per batch
 * (one transaction; for SQLite, BEGIN ... COMMIT or a WAL journal).
 *
 * Expected: one sync_storm issue (type 9) on journal.log, repeat = 200
 * (the syncs), op = 200 writes of 100 bytes (20000 bytes, 100 per sync);
 * and, low (hidden by default), small_buffer on the same 200 writes: 0.2 ms
 * modelled beside 400 ms of syncs.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define RECORDS 200
#define RECORD_BYTES 100

/* The mistake: durability per record. */
static void append_record(int fd, int i)
{
    char rec[RECORD_BYTES];

    memset(rec, ' ', sizeof rec);
    snprintf(rec, sizeof rec, "record %03d", i);
    rec[RECORD_BYTES - 1] = '\n';
    if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec)
        sample_die("cannot write", "journal.log");
    if (fdatasync(fd) != 0)
        sample_die("cannot sync", "journal.log");
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "sync_per_write");
    char path[4096];
    int fd;

    sample_path(path, sizeof path, dir, "journal.log");
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < RECORDS; i++)
        append_record(fd, i);
    close(fd);
    printf("sync_per_write: %d records, %d syncs\n", RECORDS, RECORDS);
    return 0;
}
