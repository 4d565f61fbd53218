/*
 * launch.h - iorecord's checks and set-up beyond its main file
 * (launch_*.c, linked into iorecord only).
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stddef.h>

#include "kcapture.h"

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

/*
 * Which capture paths record a run (--capture; launch_capture.c):
 *   AUTO     the preload where it applies, the kernel path for the rest
 *            when this user may load BPF programs (else the preload alone);
 *   PRELOAD  the preload alone;
 *   KERNEL   the kernel path alone, for every process;
 *   BOTH     as AUTO, but the kernel path must start.
 */
enum launch_capture { LAUNCH_CAPTURE_AUTO, LAUNCH_CAPTURE_PRELOAD, LAUNCH_CAPTURE_KERNEL,
                      LAUNCH_CAPTURE_BOTH };
/* The mode named by s (NULL: AUTO), or -1. */
int launch_capture_mode(const char *s);
/* Whether this process may load BPF programs: root, or CAP_BPF and CAP_PERFMON. */
int launch_may_bpf(void);
/*
 * The kernel path's judge in AUTO and BOTH (kconvert.h): 1 when the
 * preload enters the program at path, which then records it.
 */
int launch_preload_enters(const char *path);

/*
 * Start the kernel path (kcapture.h) appending to the FIFO fifo_fd (when
 * >= 0) or to the file trace_path, or say why not in why: not built, not
 * permitted, the trace cannot be opened, the kernel refused the program.
 */
struct kcap *launch_kernel_start(int fifo_fd, const char *trace_path, kconv_preload_judge judge,
                                 char *why, size_t cap);

#endif
