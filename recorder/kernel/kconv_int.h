/*
 * kconv_int.h - what the files of the kernel capture's conversion share
 * (kconvert.c, kchain.c, kprocfs.c, kproc_record.c, ksyscall.c, kfollow.c): the state of a
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
#include "syscalls.h"   /* NR_<name>: x86_64 numbers, as capture.bpf.c records them */
#include "kconvert.h"
#include "kstack.h"

#define CHUNK_BYTES (32 * 1024)
#define ARGV_MAX    64
#define KNAME       16     /* a thread's name (comm): 15 bytes and the NUL */
#define KMAPS       16     /* the file mappings a process's munmap is matched against */

struct kchain {
    struct kchain *next;
    int32_t tid;
    uint64_t chain_id;
    uint32_t seq;
    int named;             /* its thread record is written: name holds it */
    char name[KNAME];
    struct iot_enc enc;
    uint8_t buf[CHUNK_BYTES];
};

struct kproc {
    struct kproc *next;
    int32_t pid, ppid;
    int before_exec;       /* the launcher's child before its exec: drop */
    int preload;           /* the preload records it: its libc calls are not written */
    int hosted;            /* KCONV_HOSTED (it has preload too): none of its calls is written */
    int awaiting_let_go;   /* it asked to be let go (kconv_adopt); its KEV_LET_GO not seen yet */
    int asked;             /* it asked for the kernel path: covered even without calls */
    /* the preload let it (or the process it was forked from) go at a
       credential change: its exec wrappers take the library out of its
       children's environment, so no image of it or of its descendants
       has the preload in it, whatever the judge says of the file */
    int let_go;
    uint64_t calls;        /* file calls written by the kernel path */
    char cwd[PATH_MAX];    /* "" when unknown */
    char comm[KNAME];      /* its main thread's name, which a new thread starts with */
    uint64_t maps[KMAPS];  /* the addresses of the last file mappings written (0: none) */
    uint32_t next_map;
    /* an fd open on a thread's /proc comm file (pthread_setname_np of
       another thread writes it), and that thread; fd -1 when none */
    int32_t comm_fd, comm_tid;
    struct kchain *chains;
    struct kstacks *stk;   /* its modules and stacks (kstack.c), NULL until one */
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
    kstack_lookup lookup;  /* the BPF side's stacks, NULL when none are taken */
    void *lookup_ctx;
    struct kproc *procs[PROC_BUCKETS];
    /* IORECORD_LABELS as iorecord set it, checked ("" for none): the
       labels of every process the kernel path writes the record of */
    char labels[IOT_LABEL_MAX_COUNT * (IOT_LABEL_MAX_KEY + IOT_LABEL_MAX_VALUE + 2)];
    uint8_t frame[CHUNK_BYTES + 4096];
};



/* ---------------------------------------------------- kchain.c: chains */

/* The chunk of c goes out (flags: IOT_CHUNK_LAST to end its chain). */
void write_chunk(struct kconv *k, int32_t pid, struct kchain *c, uint32_t flags);
/* The process of pid, made (zeroed) when new; NULL when out of memory. */
struct kproc *proc_get(struct kconv *k, int32_t pid);
/* p ends: its chains end and it is freed (its stacks' state, kstack_free, first). */
void proc_free(struct kconv *k, struct kproc *p);
/* The chain of thread tid of p, begun at t when new; NULL when out of memory. */
struct kchain *chain_get(struct kconv *k, struct kproc *p, int32_t tid, int64_t t);
/* End every chain of p: their last chunks go out marked LAST. */
void chains_end(struct kconv *k, struct kproc *p);
/* Append one call to its thread's chain, with its strings. */
void put_call(struct kconv *k, struct kproc *p, struct iot_event *ev,
              const char *path, const char *newpath, const char *mode);
/* The thread record of c at t: its thread is named name from now on. */
void put_thread(struct kconv *k, struct kproc *p, struct kchain *c, int64_t t,
                const char *name);

/* ------------------------------------------------ kprocfs.c: /proc */

/* /proc/PID/FILE read whole into buf (NUL-terminated): its length, or -1. */
ssize_t proc_read(int32_t pid, const char *file, char *buf, size_t cap);
/* readlink of /proc/PID/FILE into buf ("" when it fails). */
void proc_link(int32_t pid, const char *file, char *buf, size_t cap);
/* The parent of pid from /proc/PID/stat; 0 when unknown. */
int32_t proc_ppid(int32_t pid);
/*
 * Whether pid's image runs its program as valgrind's tools do, with the
 * recorder's library preloaded into it (KCONV_HOSTED): its environment
 * has VALGRIND_LAUNCHER, which valgrind's launcher sets for its tool
 * and takes out of the programs it does not trace, and an LD_PRELOAD
 * naming libiorecord.
 */
int proc_hosts_preload(int32_t pid);
/* The name of thread tid of pid now, into name[KNAME]; "" when it is gone. */
void proc_comm(int32_t pid, int32_t tid, char *name);
/* from, cut to a thread name's KNAME - 1 bytes, into name[KNAME]. */
void name_copy(char *name, const char *from);

/* ----------------------------------- kproc_record.c: process records */

/* CLOCK_MONOTONIC now, in ns: the clock of bpf_ktime_get_ns. */
int64_t mono_ns(void);
/* The process record of p at t, its labels, its cwd and its main thread's name. */
void put_process(struct kconv *k, struct kproc *p, int64_t t, const char *exe,
                 const char *args, size_t args_len);

/* ---------------------------------------- ksyscall.c: calls and paths */

struct kev;

/* A path as the trace keeps it: absolute when relative to the cwd. */
const char *abs_path(const struct kproc *p, int64_t dirfd, const char *path,
                     char *buf, size_t cap);
/* The trace's call for syscall e; 0 when it is not one the trace keeps. */
int call_of(const struct kproc *p, const struct kev *e, struct iot_event *ev,
            const char **path, const char **newpath, char *b1, char *b2, size_t cap);
/* The trace's call for a completed io_uring request; 0 for other opcodes. */
int uring_call_of(const struct kev *e, struct iot_event *ev);

/* ---------------------- kfollow.c: the cwd, thread names, file mappings */

/*
 * A chdir, fchdir or prctl(PR_SET_NAME) of p: followed, and its cwd or
 * thread record written. 1 when e was one of them (nothing more to write).
 */
int follow_state(struct kconv *k, struct kproc *p, const struct kev *e);
/* Whether call ev is written: a munmap only of a file mapping written before. */
int follow_map(struct kproc *p, const struct iot_event *ev);
/*
 * Call ev (path: its path) written: a write to a thread's /proc comm file
 * renames that thread (a thread record in its chain).
 */
void follow_comm_file(struct kconv *k, struct kproc *p, const struct iot_event *ev,
                      const char *path);

/* ------------------------------------------- kstack.c: user stacks */

/* The stack string of interned stack kev.stack of thread tid, its modules
   written first; NULL when none (or none to trust). Owned by p. */
const char *kstack_of(struct kconv *k, struct kproc *p, int32_t tid, int64_t t, uint32_t stack);
/* p exec'd exe, its code mapped at [start_code, end_code): its executable module. */
void kstack_exec(struct kproc *p, const char *exe, uint64_t start_code, uint64_t end_code);
/* child was forked from parent: the same executable where it was. */
void kstack_fork(struct kproc *child, const struct kproc *parent);
/* The lost record of p's calls that got no stack for want of frame pointers, once. */
void kstack_note(struct kconv *k, struct kproc *p, int64_t t);
void kstack_free(struct kproc *p);

#endif
