/*
 * launch.h - iorecord's checks and set-up beyond its main file
 * (launch_*.c, linked into iorecord only).
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "kcapture.h"

struct stat;
/*
 * The FIFO at path opened for writing once a reader has it open, waiting
 * at most LAUNCH_FIFO_WAIT_MS: the fd (blocking), or -1 (errno ENXIO when
 * nobody came to read, ESTALE when what was opened is not the FIFO seen,
 * lstat's in seen).
 */
#define LAUNCH_FIFO_WAIT_MS 5000
int launch_fifo_open(const char *path, const struct stat *seen);

/*
 * Claim the spool (fd, its open file) for this run, and learn whether
 * another run is writing a spool of the same output: 0, or -1 when one is.
 */
int launch_spool_claim(int fd, const char *spool);
/*
 * After the run: whether the trace at out (shown as output) is empty; said
 * in one line unless the run has warned already (iorecord then exits
 * non-zero rather than 0).
 */
int launch_trace_empty(const char *output, const char *out, int warned);

/*
 * Which capture paths record a run (--capture; launch_capture.c):
 *   AUTO     the preload where it applies, the kernel path for the rest
 *            when this user may load BPF programs (else the preload alone),
 *            started only once a process needs it (launch_ask.c);
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

/* ------------------------------------------------------------ launch_library.c */

/* The preload library's path into out: 0, or -1 with a one-line why. */
int launch_find_library(char *out, size_t cap, char *why, size_t why_cap);

/* ------------------------------------------------------------ launch_ask.c */

/*
 * The kernel path on demand, in AUTO when the command is one the preload
 * enters: a listening socket whose abstract name (IORECORD_KERNEL) the
 * recorded processes are given; refused: a start that failed, said once.
 */
struct launch_ask {
    int fd;              /* -1: none (not on demand, or closed) */
    int pidfd;           /* the command's, once waited on (-1: none) */
    int refused;
    char name[64];
};
/* Make the socket (after the collector is forked): 0, or -1 with fd -1. */
int launch_ask_open(struct launch_ask *a);
/* Starts the kernel path for launch_ask_serve: NULL with why. */
typedef struct kcap *(*launch_ask_start)(void *ctx, char *why, size_t cap);
/*
 * Sleep until an asker comes, the command (child) ends or timeout_ms pass
 * (-1: no limit); then answer every asker waiting: start the kernel path
 * into *kc through start when none runs yet (once), have it follow the
 * asker, and say '1' when it does, else '0'.
 */
void launch_ask_serve(struct launch_ask *a, pid_t child, int timeout_ms, struct kcap **kc,
                      launch_ask_start start, void *ctx);
/* No more askers: a late one's connect is refused. */
void launch_ask_close(struct launch_ask *a);

/* ------------------------------------------------------------ launch_labels.c */

struct opt_list;
/* One --label: KEY=VALUE and valid (iot_label_check); 0, or 2 after saying why not. */
int launch_label_check(const char *kv);
/*
 * The labels to every process as IORECORD_LABELS: the --label values joined
 * by ',', or else the environment's own list, which must be valid too. 0;
 * 2 after saying why not; -1 for more --label values than a trace keeps
 * (a bad argument: the caller says so).
 */
int launch_labels_env(const struct opt_list *labels);

/* ------------------------------------------------------------ launch_env.c */

/* The TSC's rate (IORECORD_TSC_MULT), measured here once; 0 when unusable. */
unsigned long long launch_tsc_mult(void);
/* "filter" when a seccomp filter stands over the launcher (or it cannot
   tell), else "none": IORECORD_SANDBOX. */
const char *launch_sandbox_env(void);

#endif
