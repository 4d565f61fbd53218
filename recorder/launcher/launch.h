/*
 * launch.h - iorecord's checks and set-up beyond its main file
 * (launch_*.c, linked into iorecord only).
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stddef.h>

/*
 * The FIFO at path opened for writing once a reader has it open, waiting
 * at most LAUNCH_FIFO_WAIT_MS: the fd (blocking), or -1 (errno ENXIO when
 * nobody came to read).
 */
#define LAUNCH_FIFO_WAIT_MS 5000
int launch_fifo_open(const char *path);

/*
 * Claim the spool (fd, its open file) for this run, and learn whether
 * another run is writing a spool of the same output: 0, or -1 when one is.
 */
int launch_spool_claim(int fd, const char *spool);

#endif
