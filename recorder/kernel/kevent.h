/*
 * kevent.h - the records the kernel capture's BPF program (capture.bpf.c)
 * hands to user space (kcapture.c) through its ring buffer. Shared by both
 * sides, so it uses only fixed-width types that vmlinux.h and <stdint.h>
 * both give.
 *
 * Records are small: a syscall without a path is KEV_BASE_SIZE bytes; one
 * with a path carries it (and a second for rename) read at enter, bounded
 * by KEV_PATH_MAX each. They are converted to the trace's records in user
 * space, so their layout is no part of the trace format.
 */
#ifndef REC_KEVENT_H
#define REC_KEVENT_H

#define KEV_PATH_MAX 256

/* What a record is about. */
enum kev_kind {
    KEV_SYSCALL = 1,   /* a file syscall of a traced thread, at its exit */
    KEV_FORK    = 2,   /* a traced process made a process: a0 = the child's tgid */
    KEV_EXEC    = 3,   /* a traced process exec'd path; a1 = its parent's tgid,
                          path2[0..a2) = its argv, NUL-separated */
    KEV_EXIT    = 4,   /* a thread ended: a0 = its exit code, a1 = 1 when the process did */
    KEV_URING   = 5,   /* an io_uring request completed: nr = its opcode, ret = res,
                          a0 = fd, a1 = length asked, a2 = offset; t = submit time */
    KEV_LET_GO  = 6,   /* a TRACE_LET_GO process's credentials changed: from here on
                          every file syscall of it is written (TRACE_ALL) */
    KEV_WAITS   = 7,   /* a traced thread's first wait for events that may block
                          (epoll_wait, poll, select ...): it is an event loop */
    KEV_BATCH   = 8,   /* a thread's calls without paths, in its order: a0 KEV_SYSCALL
                          records of KEV_BASE_SIZE bytes each follow this one's
                          KEV_BASE_SIZE bytes (capture_batch.bpf.h) */
};

/*
 * The syscall instruction is in the C library, the dynamic loader, the
 * recorder's own library or a sanitizer runtime (libasan, libubsan): in a
 * process the preload is in, a call the preload recorded (or the loader's,
 * the recorder's or the sanitizer's own). Without it the
 * call was made by the program's own syscall instruction (Go, liburing,
 * a static program), which no preload sees.
 */
#define KEV_F_LIBC 1u

/* What the BPF side records of a traced process (its `traced` entry). */
enum kev_trace_mode {
    TRACE_ALL = 0,     /* every file syscall: the preload is not in it (or not yet judged) */
    TRACE_RAW = 1,     /* only those made outside the C library: the preload records the rest */
    TRACE_LET_GO = 2,  /* as TRACE_RAW until its next credential change, which the preload
                          lets it go before (recorder/preload/creds.c); TRACE_ALL after */
    TRACE_HOSTED = 3,  /* no syscall: a tool running the program inside itself, with the
                          preload in its guest (kconvert.h, KCONV_HOSTED); its forks, execs
                          and exits only */
};

/*
 * The BPF side's `marks`: a byte per tgid, 0 for an untraced one, else
 * what is recorded of it (in `traced`): 1 + enum kev_trace_mode. One for
 * every pid the kernel may give (PID_MAX_LIMIT on 64-bit, 4 Mi, whatever
 * pid_max is now: it may be raised while a capture runs), so that its
 * bound is a constant.
 */
#define KEV_MARK(mode) (1 + (mode))
#define KEV_MARKS_MAX (4u << 20)
/*
 * A traced process, the value of the BPF side's `traced` map: what to
 * record of it, and where its syscall instructions are (the last few text
 * mappings met, each known to belong to the C library, the loader or the
 * recorder, libc = 1, or not). A syscall from an address none of them
 * holds has its mapping looked up (bpf_find_vma) once. User space writes
 * it zeroed but for mode.
 */
#define LIB_SLOTS 8
struct tgid_state {
    __u32 mode;             /* enum kev_trace_mode */
    __u32 next;             /* the slot the next mapping met takes */
    __u64 start[LIB_SLOTS], end[LIB_SLOTS];
    __u8 libc[LIB_SLOTS];
};

struct kev {
    __u64 t;           /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) at enter */
    __u64 dur;         /* ns from enter to exit */
    __s64 ret;         /* the syscall's return value (-errno on failure) */
    __u64 a0, a1, a2, a3;  /* the syscall's arguments, as the kernel got them */
    __u32 pid;         /* tgid */
    __u32 tid;
    __u16 nr;          /* syscall number (x86_64), or io_uring opcode */
    __u8 kind;         /* enum kev_kind */
    __u8 npaths;       /* paths that follow: 0, 1 or 2 */
    __u32 flags;       /* KEV_F_* */
    __u32 stack;       /* KEV_SYSCALL: 1 + the id of its user stack in the BPF side's
                          `user_stacks` (capture_stack.bpf.h), 0 when none was taken */
    __u32 pad_;
    __s64 size;        /* vectored calls: the bytes the iovecs ask; openat2: flags;
                          close: the size of the regular file closed, else -1;
                          pipe, pipe2, socketpair: the two fds made (the first
                          in the low 32 bits); mmap: the fd (and a0 the offset) */
    char path[KEV_PATH_MAX];   /* present when npaths >= 1 */
    char path2[KEV_PATH_MAX];  /* present when npaths == 2 */
};

/* The frames a user stack keeps (return addresses, innermost first). */
#define KEV_STACK_DEPTH 32

/* constant expressions (a batch's size is an array's) */
#define KEV_BASE_SIZE  ((unsigned long)__builtin_offsetof(struct kev, path))
#define KEV_PATH1_SIZE ((unsigned long)__builtin_offsetof(struct kev, path2))

/* The records a KEV_BATCH carries at most (a power of two), and its size then. */
#define KEV_BATCH_MAX 32
#define KEV_BATCH_BYTES ((KEV_BATCH_MAX + 1) * KEV_BASE_SIZE)

#endif
