/*
 * random_write - a SQLite-like page store updating pages in random order.
 *
 * What it does wrong: each of 10 transactions updates 20 pages of a 1 MiB
 * database file (4 KiB pages) where they lie, in the order the changes came:
 * pwrite() at scattered offsets. Random small writes are the worst case for
 * flash storage (each one rewrites a whole erase block: write amplification)
 * and for rotating disks (a seek each). Like SQLite in rollback-journal mode,
 * each transaction first saves the old pages to a journal, written
 * sequentially, which is fine and not reported.
 *
 * Fix: batch the changes and write dirty pages sorted by offset (adjacent
 * pages become one larger write), or append changes to a log (SQLite's WAL
 * mode) and apply them in order later.
 *
 * SQLite would also fsync the journal and the database at each commit; this
 * sample does not, so that its timing (and the main_thread rule, which
 * looks at call times) never depends on the disk.
 *
 * Expected: one random_write issue (type 7) on app.db: 200 writes of 4 KiB,
 * almost all of them not at the end of the previous one. The page sequence
 * comes from a fixed pseudo-random generator, so the counts are the same on
 * every run. Nothing on app.db-journal.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define PAGE         4096
#define PAGES        256
#define TRANSACTIONS 10
#define PER_TXN      20

static void pwrite_all(int fd, const void *buf, off_t off, const char *path)
{
    if (pwrite(fd, buf, PAGE, off) != PAGE)
        sample_die("cannot write", path);
}

/* Saves the old images of the pages about to change (sequential writes). */
static void write_journal(const char *path, const int *pages, char (*image)[PAGE])
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < PER_TXN; i++)
        if (write(fd, image[pages[i]], PAGE) != PAGE)
            sample_die("cannot write", path);
    close(fd);
}

int main(int argc, char **argv)
{
    static char image[PAGES][PAGE];  /* the database, cached in memory */
    const char *dir = sample_dir(argc, argv, "random_write");
    char db_path[4096], journal_path[4096];
    int pages[PER_TXN], fd;

    sample_path(db_path, sizeof db_path, dir, "app.db");
    sample_path(journal_path, sizeof journal_path, dir, "app.db-journal");
    fd = open(db_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        sample_die("cannot open", db_path);
    if (ftruncate(fd, (off_t)PAGES * PAGE) < 0)
        sample_die("cannot size", db_path);

    for (int t = 0; t < TRANSACTIONS; t++) {
        for (int i = 0; i < PER_TXN; i++)
            pages[i] = (int)sample_rand(PAGES);
        write_journal(journal_path, pages, image);
        for (int i = 0; i < PER_TXN; i++) {
            /* The mistake: each page goes to disk where it lies, in change order. */
            memset(image[pages[i]], 'a' + t, PAGE);
            pwrite_all(fd, image[pages[i]], (off_t)pages[i] * PAGE, db_path);
        }
        unlink(journal_path);  /* commit, as SQLite's DELETE journal mode does */
    }
    close(fd);
    printf("random_write: %d transactions of %d page writes\n", TRANSACTIONS, PER_TXN);
    return 0;
}
