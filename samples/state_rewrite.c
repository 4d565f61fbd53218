/*
 * state_rewrite - a small state file rewritten in place on every change.
 *
 * What it does wrong: save_state() writes the whole 4 KiB state block back
 * to the start of the file after each of 1000 changes. The file stays 4 KiB
 * but 4 MB reach the storage: on flash, every rewrite of a block is an
 * erase-and-program cycle (write amplification), and the wear is the
 * file's size times the number of changes.
 *
 * Fix: save when a batch of changes is done (or on a timer, or at exit),
 * or append the changes to a log and compact it now and then.
 *
 * Expected: one write_amplification issue (type 13) on state.bin, repeat =
 * 1000 (each byte written 1000 times), op = 1000 writes of 4096 bytes. Not
 * random_write: the writes go back over the same bytes, they do not scatter.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define CHANGES 1000
#define STATE_BYTES 4096

/* The mistake: the whole state written back after every change. */
static void save_state(int fd, const unsigned char *state)
{
    if (pwrite(fd, state, STATE_BYTES, 0) != STATE_BYTES)
        sample_die("cannot write", "state.bin");
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "state_rewrite");
    static unsigned char state[STATE_BYTES];
    char path[4096];
    int fd;

    sample_path(path, sizeof path, dir, "state.bin");
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        sample_die("cannot open", path);
    for (int i = 0; i < CHANGES; i++) {
        state[sample_rand(STATE_BYTES)]++;
        save_state(fd, state);
    }
    close(fd);
    printf("state_rewrite: %d changes saved\n", CHANGES);
    return 0;
}
