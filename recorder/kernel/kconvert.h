/*
 * kconvert.h - the kernel capture's records (kevent.h) turned into the
 * trace's: one chain per thread, process records at exec and fork, exit
 * records, each chunk compressed and appended to the trace in one write.
 * Needs no libbpf: kcapture.c feeds it.
 */
#ifndef REC_KCONVERT_H
#define REC_KCONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kev;
struct kconv;

/*
 * Whether the preload records a process that exec'd the program at path:
 * 1, and the kernel path then only counts its file syscalls (nothing is
 * counted twice); 0, and the kernel path records it. NULL: it records all.
 */
typedef int (*kconv_preload_judge)(const char *path);

/*
 * What records a process image besides the kernel path. KCONV_PRELOADED:
 * the preload is in it, and records the calls made from the C library;
 * KCONV_HOSTED: the image is a tool that runs the program inside itself
 * (valgrind's, which honours LD_PRELOAD for its guest): the preload in the
 * guest records the program's calls, and every syscall of the image is
 * either one of those, made again by the tool, or the tool's own, no call
 * of the program's.
 */
enum kconv_image { KCONV_PRELOADED = 1, KCONV_HOSTED = 2 };

/*
 * Told of each process image judged one of enum kconv_image, so that the
 * BPF side stops handing over the calls recorded otherwise.
 */
typedef void (*kconv_judged)(void *ctx, pid_t pid, int image);

/* Appending to trace_fd (O_APPEND; not taken). NULL when out of memory. */
struct kconv *kconv_create(int trace_fd, kconv_preload_judge judge, kconv_judged judged,
                           void *ctx);

/*
 * A process the launcher started: its calls before its first exec are the
 * launcher's own, never recorded.
 */
void kconv_expect_exec(struct kconv *k, pid_t pid);

/*
 * A running process the preload is in, which asked for the kernel path
 * (it met what the preload cannot see): it gets a coverage record at its
 * end or exec even when the kernel path wrote none of its calls. let_go:
 * it asked before a credential change, which the preload lets it go
 * before; until the BPF side says the change was made (KEV_LET_GO) it
 * gets no coverage record, so that its `unrecorded` record stands should
 * that never come (the calls after the preload let go went unseen).
 */
void kconv_adopt(struct kconv *k, pid_t pid, int let_go);

/*
 * A process already running (attach): its process record from /proc, its
 * working directory, and an fdpath record naming each fd it holds now.
 */
void kconv_attach(struct kconv *k, pid_t pid);

/* One ring buffer record of len bytes. */
void kconv_event(struct kconv *k, const struct kev *e, size_t len);

/*
 * How user space reads a stack the BPF side interned (kevent.h, kev.stack):
 * its return addresses, innermost first, into ips[0..cap); how many, or -1.
 */
typedef int (*kstack_lookup)(void *ctx, uint32_t id, uint64_t *ips, int cap);

/* The calls' stacks are read through lookup (recorder/kernel/kstack.c). */
void kconv_stacks(struct kconv *k, kstack_lookup lookup, void *ctx);

/* Records the ring buffer had no room for, in all, so far. */
void kconv_dropped(struct kconv *k, uint64_t total);

/*
 * Write out everything: each process's coverage record (and lost record
 * when records were dropped), every open chain. 0, or -1 when a write
 * failed (errno). Frees k.
 */
int kconv_finish(struct kconv *k);

#endif
