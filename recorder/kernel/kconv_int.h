/*
 * kconv_int.h - what the files of the kernel capture's conversion share
 * (kconvert.c, kchain.c, kproc_record.c, ksyscall.c): the state of a
 * conversion, of each process it follows and of each thread's chain.
 * Not published: kconvert.h is the part's interface.
 */
#ifndef REC_KCONV_INT_H
#define REC_KCONV_INT_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "frame.h"
#include "iotrace.h"
#include "kconvert.h"

#define CHUNK_BYTES (32 * 1024)
#define ARGV_MAX    64

struct kchain {
    struct kchain *next;
    int32_t tid;
    uint64_t chain_id;
    uint32_t seq;
    struct iot_enc enc;
    uint8_t buf[CHUNK_BYTES];
};

struct kproc {
    struct kproc *next;
    int32_t pid, ppid;
    int before_exec;       /* the launcher's child before its exec: drop */
    int preload;           /* the preload records it: its libc calls are not written */
    uint64_t calls;        /* file calls written by the kernel path */
    char cwd[PATH_MAX];    /* "" when unknown */
    struct kchain *chains;
};

#define PROC_BUCKETS 1024

struct kconv {
    int fd;
    int err;               /* first write error */
    kconv_preload_judge judge;
    kconv_judged judged;
    void *judged_ctx;
    struct rec_framer framer;    /* the collector's writer: whole frames, within RLIMIT_FSIZE */
    uint64_t next_chain;
    uint64_t dropped;
    struct kproc *procs[PROC_BUCKETS];
    uint8_t frame[CHUNK_BYTES + 4096];
};


/* ---------------------------------------------------- kchain.c: chains */

/* The chunk of c goes out (flags: IOT_CHUNK_LAST to end its chain). */
void write_chunk(struct kconv *k, int32_t pid, struct kchain *c, uint32_t flags);
/* The process of pid, made (zeroed) when new; NULL when out of memory. */
struct kproc *proc_get(struct kconv *k, int32_t pid);
/* p ends: its chains end and it is freed. */
void proc_free(struct kconv *k, struct kproc *p);
/* The chain of thread tid of p, begun at t when new; NULL when out of memory. */
struct kchain *chain_get(struct kconv *k, struct kproc *p, int32_t tid, int64_t t);
/* End every chain of p: their last chunks go out marked LAST. */
void chains_end(struct kconv *k, struct kproc *p);
/* Append one call to its thread's chain, with its strings. */
void put_call(struct kconv *k, struct kproc *p, struct iot_event *ev,
              const char *path, const char *newpath, const char *mode);

/* ----------------------------------- kproc_record.c: process records */

/* CLOCK_MONOTONIC now, in ns: the clock of bpf_ktime_get_ns. */
int64_t mono_ns(void);
/* readlink of /proc/PID/FILE into buf ("" when it fails). */
void proc_link(int32_t pid, const char *file, char *buf, size_t cap);
/* The process record of p at t, then its cwd (kproc_record.c). */
void put_process(struct kconv *k, struct kproc *p, int64_t t, const char *exe,
                 const char *args, size_t args_len);

/* ---------------------------------------- ksyscall.c: calls and paths */

struct kev;

#define AT_FDCWD_ (-100)

/* A path as the trace keeps it: absolute when relative to the cwd. */
const char *abs_path(const struct kproc *p, int64_t dirfd, const char *path,
                     char *buf, size_t cap);
/* The trace's call for syscall e; 0 when it is not one the trace keeps. */
int call_of(const struct kproc *p, const struct kev *e, struct iot_event *ev,
            const char **path, const char **newpath, char *b1, char *b2, size_t cap);
/* The trace's call for a completed io_uring request; 0 for other opcodes. */
int uring_call_of(const struct kev *e, struct iot_event *ev);

#endif
