/*
 * kcapture.h - the kernel capture path: a BPF program on the syscall,
 * process and io_uring tracepoints records the file I/O of a chosen
 * process tree into the trace (docs/recorder.md, "The kernel capture
 * path"). What the launcher calls.
 */
#ifndef REC_KCAPTURE_H
#define REC_KCAPTURE_H

#include <stddef.h>
#include <sys/types.h>

#include "kconvert.h"

struct kcap;

/* Whether this build has the kernel path (clang, bpftool, libbpf were there). */
int kcap_built(void);

/* Whether kcap_open's program takes the calls' user stacks (default 1). */
void kcap_stacks(int on);

/*
 * Load and attach the BPF program, appending chunks to trace_fd (not
 * taken); judge as kconv_create's. NULL with a one-line reason in why
 * (not built; not permitted: root or CAP_BPF+CAP_PERFMON is needed; the
 * kernel refused it).
 */
struct kcap *kcap_open(int trace_fd, kconv_preload_judge judge, char *why, size_t cap);

/* Record process pid and every process it makes from now on. 0, or -1. */
int kcap_trace(struct kcap *c, pid_t pid);

/*
 * Follow process pid, which the preload is in and which asked for the
 * kernel path, and every process it makes from now on. 0, or -1.
 */
int kcap_adopt(struct kcap *c, pid_t pid);

/*
 * Process pid, which the preload is in, is letting go of the recording
 * before a credential change (recorder/preload/creds.c): follow it as
 * kcap_adopt does until that change, and every file syscall of it after
 * (TRACE_LET_GO). 0, or -1.
 */
int kcap_let_go(struct kcap *c, pid_t pid);

/* kconv_expect_exec and kconv_attach for c's trace. */
void kcap_expect_exec(struct kcap *c, pid_t pid);
void kcap_attach(struct kcap *c, pid_t pid);

/* Convert whatever the ring buffer holds now. */
void kcap_poll(struct kcap *c);

/*
 * Detach, convert what is left and write everything out; frees c. 0, or
 * -1 when the trace could not be written (errno).
 */
int kcap_close(struct kcap *c);

#endif
