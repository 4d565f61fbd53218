/*
 * sandbox.h - what the process forbids the recorder, and what the recorder
 * does without (sandbox.c; around the program's prctl and seccomp calls,
 * sandbox_calls.c).
 *
 * A program may disable the time-stamp counter (prctl PR_SET_TSC), enter
 * seccomp strict mode (read, write, exit and sigreturn only; the TSC off
 * too) or install a seccomp filter that kills it, or fails the call, on a
 * syscall it did not allow. The recorder then must not execute rdtsc, and
 * must not make a syscall of its own that the program did not make: it
 * derives what it can, caches what it learnt before, skips the rest, and
 * says in the trace (`lost` records) what it skipped.
 */
#ifndef REC_SANDBOX_H
#define REC_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* rec_sandbox bits */
#define REC_SANDBOX_FILTER 1u   /* a seccomp filter may stand */
#define REC_SANDBOX_STRICT 2u   /* seccomp strict mode: recording stopped */
#define REC_SANDBOX_NOTSC  4u   /* rdtsc faults: stamps from the coarse clock */

extern unsigned rec_sandbox;

/*
 * Whether the recorder must keep to the syscalls the program makes itself.
 * Read where the recorder is about to make one of its own, never on the
 * hot path.
 */
static inline int rec_filter_may_stand(void)
{
    return (__atomic_load_n(&rec_sandbox, __ATOMIC_RELAXED) &
            (REC_SANDBOX_FILTER | REC_SANDBOX_STRICT)) != 0;
}

/* What the recorder skipped, counted per process and reported as `lost`. */
enum rec_skip {
    REC_SKIP_CWD,         /* cwd_unknown: a relative path left relative */
    REC_SKIP_DIRFD,       /* dirfd_unknown: a path relative to a dirfd left so */
    REC_SKIP_FILE_SIZE,   /* file_size_skipped: a close without its file size */
    REC_SKIP_FD_NAME,     /* fd_name_skipped: an fd not seen made left unnamed */
    REC_SKIP_PATH,        /* path_unread: a path the call may not have read */
    REC_SKIP_EXEC_CHECK,  /* exec_check_skipped: an exec'd program not checked */
    REC_SKIP_STACK,       /* stack_skipped: a stack not kept (no memory for it) */
    REC_SKIP_NO_MEMORY,   /* no_memory: a call not kept (no chunk buffer mapped) */
    REC_SKIP_BEAM,        /* stack_no_beam_frames: a dirty NIF's Erlang frames not read */
    REC_SKIP_N
};

/* One more fact skipped (lock-free; any thread, signal handlers too). */
void rec_skipped(enum rec_skip what);

/* The count of `what` skipped since the last take (now 0), and its `lost`
   reason in *why. */
uint64_t rec_skipped_take(enum rec_skip what, const char **why);

/*
 * Start-up: what the environment (IORECORD_SANDBOX, from the launcher or
 * an exec wrapper) or else /proc/self/status says, and whether the TSC
 * may be read. Before the clock is set up.
 */
void rec_sandbox_init(void);

/*
 * Around a prctl() or seccomp() call the program makes (the libc function
 * or syscall()): `seccomp` tells which (its op, flags, args or prctl's
 * option, arg2). before() returns a token for after(), which gets the
 * call's result.
 */
unsigned rec_sandbox_before(int seccomp, long op, unsigned long arg);
void rec_sandbox_after(unsigned token, long r);

/* IORECORD_SANDBOX=... for an exec'd image's environment (static string). */
const char *rec_sandbox_env(void);

/*
 * In a fork child: rec_pid (without getpid where a filter may stand), the
 * parent's pid kept for the process record (rec_parent_pid: 0 when this
 * image did not start as a fork child), no skips of the parent's counted.
 */
void rec_sandbox_fork_child(int32_t parent);
extern int32_t rec_parent_pid;

/* The calling thread's id: from libc's thread descriptor where a filter
   may stand (no gettid), else gettid. */
int32_t rec_sandbox_tid(void);

/*
 * The cwd where getcwd may not be made (cwd.c): read now (before a
 * filter is installed), then followed through chdir. rec_cwd_cached
 * copies it into buf and returns its length, 0 when unknown.
 */
void rec_cwd_remember(void);
size_t rec_cwd_cached(char *buf, size_t cap);
/*
 * Records the working directory (a cwd call: the analyzer takes the paths
 * under it relative to it in fingerprints) by t, which holds the guard
 * (meta.c; chdir's own go through rec_call). Nothing when it is unknown.
 */
struct rec_thread;
void rec_cwd_record(struct rec_thread *t);
/* The cwd for a record (length, 0 unknown); chdir and fchdir followed. */
size_t rec_cwd_now(char *buf, size_t cap);
void rec_cwd_moved(const char *path);
void rec_cwd_forget(void);

#pragma GCC visibility pop

#endif
