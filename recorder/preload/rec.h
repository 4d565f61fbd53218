/*
 * rec.h - internals of libiorecord.so shared by its source files.
 *
 * Shape of the recorder:
 *   wrappers (wrap_*.c)  -> rec_data()/rec_io()/rec_call(): stamp, encode
 *                           into the calling thread's chunk buffer (no lock,
 *                           no syscall)
 *   full or old chunk     -> pushed on a lock-free queue (bufpool.c); under
 *                            iorecord its collector process writes the queue
 *                            (collect.c, collector.c); without one the thread
 *                            that closed the chunk compresses the queue into
 *                            zstd frames, one write() each, unless another
 *                            thread is doing so (tracefile.c)
 * The clock (clock.c) turns rdtsc stamps into CLOCK_MONOTONIC nanoseconds.
 * This header is what the wrappers need, the hot path inline; the files
 * behind it share internal.h.
 */
#ifndef REC_H
#define REC_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "clock.h"

/*
 * Everything the recorder declares, the format library included, is
 * internal to libiorecord.so: hidden symbols are reached without the GOT
 * or PLT on the hot path, and the program never sees them. Only the
 * wrapped libc names (declared by the system headers) are exported.
 */
#pragma GCC visibility push(hidden)

#include "iotrace.h"
#include "enc_io.h"
#include "exejudge.h"
#include "frame.h"
#include "path.h"
#include "segment.h"

#define REC_TLS __attribute__((tls_model("initial-exec")))
#define REC_LIKELY(x)   __builtin_expect(!!(x), 1)
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define REC_CHUNK_CAP   REC_SEG_CHUNK      /* bytes of records per chunk */
/* Close a chunk this old (ns): what a kill -9 can lose of a busy thread. */
#define REC_CHUNK_AGE   250000000LL
#define REC_MAX_THREADS 4096               /* live threads recorded at once */
#define REC_MAX_BUFS    1024               /* a process's own buffers (64 MiB) */

/* ---------------------------------------------------------------- clock */

/*
 * ns = ns0 + ((stamp - tsc0) * mult) >> 32. Published as an immutable struct
 * through one pointer so a reader never sees half an update.
 */
struct rec_clock {
    uint64_t tsc0;
    int64_t  ns0;
    uint64_t mult;
};

extern int rec_use_tsc;                    /* 0: stamps are clock_gettime ns */
extern const struct rec_clock *rec_clock_cur;
/*
 * The clock of stamps and times when the TSC is not used: CLOCK_MONOTONIC,
 * or CLOCK_MONOTONIC_COARSE where the program disabled the TSC (the vDSO's
 * fine clocks execute rdtsc themselves and fault there; the coarse ones
 * read the vDSO's data page only, with no syscall: safe even in seccomp
 * strict mode). A swap of this id is the whole switch: rec_stamp's branch
 * on rec_use_tsc is the one it always had.
 */
extern clockid_t rec_clock_id;
/*
 * Added to the coarse clock: how far it lagged the fine one when the
 * recorder switched (0 otherwise), so that times never go back across the
 * switch (they may run up to a tick ahead instead).
 */
extern int64_t rec_clock_offset;

/* Now on the recorder's clock (ns): what the process, thread, chunk and
   exit records are timed with. */
static inline int64_t rec_now_ns(void)
{
    struct timespec ts;

    clock_gettime(rec_clock_id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec + rec_clock_offset;
}

/* A raw time stamp: cheap to take, converted by rec_ns_with() later. */
static inline uint64_t rec_stamp(void)
{
#if REC_HAVE_TSC
    if (REC_LIKELY(rec_use_tsc))
        return __builtin_ia32_rdtsc();
#endif
    return (uint64_t)rec_now_ns();
}

static inline int64_t rec_ns_with(const struct rec_clock *c, uint64_t stamp)
{
    if (!rec_use_tsc)
        return (int64_t)stamp;
    return c->ns0 + (int64_t)(((__int128)(int64_t)(stamp - c->tsc0) *
                               (__int128)c->mult) >> 32);
}

/*
 * The nanoseconds between two stamps of one call: a 64-bit multiply when
 * the call took under 2^31 ticks (mult < 2^32 for any TSC above 1 GHz, so
 * the product fits), which is every call but a long block.
 */
static inline int64_t rec_ns_between(const struct rec_clock *c, uint64_t s0,
                                     uint64_t s1)
{
    uint64_t d = s1 - s0;

    if (!rec_use_tsc)
        return (int64_t)d;
    if (d < (1ull << 31) && c->mult < (1ull << 32))
        return (int64_t)((d * c->mult) >> 32);
    return rec_ns_with(c, s1) - rec_ns_with(c, s0);
}

/* Calibrate (or take the launcher's calibration from the environment). */
void rec_clock_init(void);
/*
 * Re-anchor against clock_gettime when the last anchor is a second older
 * than now (ns): every chunk switch calls it, any thread, signal handlers
 * included.
 */
void rec_clock_tick(int64_t now);
/* "mult" to pass to exec'd children in IORECORD_TSC, or 0 without a TSC. */
uint64_t rec_clock_mult(void);
/*
 * The program disabled the TSC (off) or enabled it again (on): stamps from
 * the coarse clock, or from the TSC again when start-up calibrated it.
 */
void rec_clock_tsc_off(void);
void rec_clock_tsc_on(void);
/* The wall clock matching rec_clock_id (coarse when it is). */
clockid_t rec_wall_clock_id(void);

/* -------------------------------------------------------- thread chains */

/* rec_guard values. */
#define REC_GUARD_IN  1   /* inside the recorder: a signal handler's calls are deferred */
#define REC_GUARD_OFF 2   /* never record on this thread (vfork child, exited) */

/*
 * A call made by a signal handler that interrupted the recorder on this
 * thread: kept here and appended when the recorder is left (the handler has
 * finished by then), so handler I/O is recorded without touching a buffer
 * in the middle of an append.
 */
#define REC_PENDING 16
/* Beyond those, blocks mapped by the handler that needs one (defer.c): a
   thread can hold this many calls deferred before they are counted lost. */
#define REC_PENDING_BLOCK  256
#define REC_PENDING_BLOCKS 64
struct rec_pending {
    struct iot_event ev;
    uint64_t s0, s1;
    uint32_t valid;
    uint8_t  has_path, has_mode;
    char     path[256];   /* truncated if longer */
    char     mode[16];
};

/*
 * One recorded thread: its open chunk, and the slot (segment.h) through
 * which the writer of the trace sees what it published. Only the thread
 * writes its slot's fields.
 */
struct rec_thread {
    struct iot_enc enc;
    struct rec_seg_slot *ps;
    int32_t  tid;
    int      state;        /* 0 free, 1 taken */
    uint32_t due;          /* REC_DUE_*: work for the thread's next rec_leave */
    int     *errp;         /* the thread's errno (&errno, fixed for its life) */
    int      err_kept;     /* the program's errno when the guard was taken */
    pthread_t self;
    /* signal handlers' calls while the thread was inside the recorder */
    uint32_t deferred;     /* pending[] has been written to */
    uint32_t npending;
    uint64_t handler_lost; /* deferred calls with no room: a lost record */
    struct rec_pending pending[REC_PENDING];
    struct rec_pending *more[REC_PENDING_BLOCKS];   /* NULL until needed */
};

/*
 * This library's image, from its ELF header to the end of its bss: the
 * linker's symbols, declared as bytes (they are addresses, not objects of
 * a header's size).
 */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

extern int rec_active;                      /* recording on */
extern __thread int rec_guard REC_TLS;      /* inside the recorder */
extern __thread struct rec_thread *rec_self REC_TLS;
extern int rec_stacks;                      /* capture stacks at open */
extern int32_t rec_pid;

/*
 * The calling thread's chunk chain, started on its first event; NULL if none.
 * s0: the stamp of that event's start, so the thread record precedes it.
 */
struct rec_thread *rec_thread_start(uint64_t s0);
/* Close the open chunk (queue it) and begin a new one at `now`. */
void rec_chunk_switch(struct rec_thread *t, int64_t now);

/* The record is whole: the writer of the trace may take it (segment.h). */
static inline void rec_publish(struct rec_thread *t)
{
    __atomic_store_n(&t->ps->pub, ((uint64_t)t->enc.nrec << 32) | t->enc.len,
                     __ATOMIC_RELEASE);
}

/*
 * Take the guard (this thread is inside the recorder). The guard is for a
 * signal handler on this thread: the compiler must not move the buffer's
 * writes above this store (or drop the store as dead before the drop's):
 * the appends are inline, with no call in between to stop it. A compiler
 * barrier only: it costs nothing.
 */
static inline void rec_guard_take(void)
{
    rec_guard = REC_GUARD_IN;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * errno is the program's: whatever the recorder does between taking the
 * guard and leaving (encoding, stack walks, perf map reads, chunk switches,
 * writing the trace, starting the thread's chain) may change errno, and
 * leaving puts back what it was at the take. So every record made inside
 * the bracket keeps the program's errno without the code inside having to
 * know: rec_hold keeps it (a load and a store through t->errp, no call),
 * rec_leave_as puts it back before the guard drops (so no handler has
 * replaced err_kept meanwhile), and rec_leave_slow keeps its own across
 * the work it does with the guard down. What runs outside the bracket
 * (naming an fd, reading a path argument) keeps errno itself.
 */
static inline void rec_hold(struct rec_thread *t)
{
    rec_guard_take();
    t->err_kept = *t->errp;
}

/*
 * Enter the recorder for an event that started at stamp s0: the thread's
 * chunk chain with the guard set and errno kept (rec_hold), or NULL.
 * rec_thread_start keeps errno itself.
 */
static inline struct rec_thread *rec_enter(uint64_t s0)
{
    struct rec_thread *t;

    if (REC_UNLIKELY(!rec_active) || REC_UNLIKELY(rec_guard))
        return NULL;
    rec_guard_take();
    t = rec_self;
    if (REC_UNLIKELY(t == NULL)) {
        t = rec_thread_start(s0);
        if (!t) {
            rec_guard = 0;
            return NULL;
        }
    }
    t->err_kept = *t->errp;
    return t;
}

/* Keep a handler's call for the interrupted recorder to append. */
void rec_defer(const struct iot_event *ev, const char *path, const char *mode,
               uint64_t s0, uint64_t s1);
/* Append the deferred calls (guard held). */
void rec_drain(struct rec_thread *t);

/* Whether a call that could not enter the recorder should be deferred. */
static inline int rec_deferring(void)
{
    return rec_guard == REC_GUARD_IN && rec_active;
}

/* rec_thread.due bits. */
#define REC_DUE_RENAMED 1u   /* another thread renamed this one: re-read comm */
#define REC_DUE_FLUSH   2u   /* this thread queued a chunk: write the queue */

/*
 * The due work, on the way out of the recorder (guard set): the thread
 * record of a rename, then the queue. The queue is written with the guard
 * down, as the program's own code would run: the thread's records are
 * whole by now, so a signal handler that interrupts the compression
 * records its calls directly, in order after the call that is returning,
 * instead of filling the deferred list while a write to a slow disk lasts.
 */
void rec_do_due(struct rec_thread *t);

/*
 * rec_leave's slow turn, out of line so that the wrappers keep few
 * registers: take the guard (the caller's, or again after a handler
 * deferred a call just as rec_leave dropped it), append what handlers
 * deferred, do the due work, and drop the guard, draining until no
 * handler has deferred anything more.
 */
void rec_leave_slow(struct rec_thread *t);

/* Whether leaving needs rec_leave_slow: handlers deferred calls, or work is due. */
static inline int rec_leave_due(const struct rec_thread *t)
{
    return (__atomic_load_n(&t->npending, __ATOMIC_ACQUIRE) |
            __atomic_load_n(&t->due, __ATOMIC_RELAXED)) != 0;
}

/*
 * Drop the guard, after the appends. Then a handler that deferred a call
 * between the last check and the drop has to be drained (rec_leave_slow),
 * which rec_deferred_since(t) tells, read after the drop.
 */
static inline void rec_guard_drop(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* the appends before it */
    rec_guard = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* the check below after it */
}

static inline int rec_deferred_since(const struct rec_thread *t)
{
    return __atomic_load_n(&t->npending, __ATOMIC_ACQUIRE) != 0;
}

/*
 * Leave the recorder (guard held): t is the calling thread's chain, or
 * NULL. errno becomes what rec_hold kept.
 */
static inline void rec_leave_as(struct rec_thread *t)
{
    if (REC_LIKELY(t != NULL))
        *t->errp = t->err_kept;
    if (REC_UNLIKELY(t && rec_leave_due(t))) {
        rec_leave_slow(t);
        return;
    }
    rec_guard_drop();
    if (REC_UNLIKELY(t && rec_deferred_since(t)))
        rec_leave_slow(t);
}

static inline void rec_leave(void)
{
    rec_leave_as(rec_self);
}

/* The record did not fit (written == 0), or the chunk has grown old. */
void rec_data_slow(struct rec_thread *t, int written, unsigned op, int32_t fd,
                   uint64_t stream, int64_t size, int64_t ret, int32_t err,
                   int64_t a, int64_t dur);
void rec_defer_data(unsigned op, int32_t fd, uint64_t stream, int64_t size,
                    int64_t ret, int32_t err, uint64_t s0, uint64_t s1);

/*
 * Record a data call with only fd, size, ret and errno (read, write, ...),
 * and the stdio stream id when it is not 0 (fread, fwrite, ...): the hot path, inline
 * whole in the wrappers. err is the errno to store (0 when the call
 * succeeded). errno itself is left untouched.
 */
static inline __attribute__((always_inline)) void
rec_data(unsigned op, int32_t fd, uint64_t stream, int64_t size, int64_t ret,
         int32_t err, uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_enter(s0);
    const struct rec_clock *c;
    int64_t a, b;

    if (!t) {
        if (REC_UNLIKELY(rec_deferring()))
            rec_defer_data(op, fd, stream, size, ret, err, s0, s1);
        return;
    }
    c = __atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE);
    a = rec_ns_with(c, s0);
    b = a + rec_ns_between(c, s0, s1);
    if (REC_LIKELY(iot_enc_io_inline(&t->enc, op, fd, stream, size, ret, err,
                                     a, b - a) == 0)) {
        if (REC_LIKELY(a - t->enc.base_t < REC_CHUNK_AGE))
            rec_publish(t);
        else
            rec_data_slow(t, 1, op, fd, stream, size, ret, err, a, b - a);
    } else {
        rec_data_slow(t, 0, op, fd, stream, size, ret, err, a, b - a);
    }
    /* the thread's chain stays t: no second read of rec_self */
    rec_leave_as(t);
}

/* rec_data() of an fd call (no stdio stream). */
static inline __attribute__((always_inline)) void
rec_io(unsigned op, int32_t fd, int64_t size, int64_t ret, int32_t err,
       uint64_t s0, uint64_t s1)
{
    rec_data(op, fd, 0, size, ret, err, s0, s1);
}

/*
 * Record a call with any fields. path/mode/stack are strings (or NULL) that
 * become ids in the chunk. Takes the guard itself.
 */
void rec_call(struct iot_event *ev, const char *path, const char *mode,
              const char *stack, uint64_t s0, uint64_t s1);
/*
 * rec_call of a call that carries its own stack (when stacks are on): one
 * that waits for the device (fsync, fdatasync), where the walk costs
 * nothing beside it and main_thread reports the call's own site.
 */
void rec_call_stacked(struct iot_event *ev, uint64_t s0, uint64_t s1);

/*
 * What the small record builders share: a call event with its op, result
 * and errno (IOT_HAS_ERRNO when err is set), every other field zero. The
 * builder adds its own has bits and fields, then hands it to rec_call().
 */
static inline struct iot_event rec_event(unsigned op, int64_t ret, int32_t err)
{
    return (struct iot_event){
        .op = (uint8_t)op,
        .has = err ? IOT_HAS_ERRNO : 0,
        .ret = ret,
        .err = err,
    };
}

/* The same for a caller that already holds the guard (rec_enter(s0)). */
void rec_call_in(struct rec_thread *t, struct iot_event *ev, const char *path,
                 const char *mode, const char *stack, uint64_t s0, uint64_t s1);

/*
 * Say in the trace what this process could not record or had to skip: a
 * `lost` record, mode = why (a word listed in docs/trace-format.md), size =
 * how many calls or facts, 0 when unknown. Nothing when recording is off;
 * errno is kept. rec_lost_in is for a caller that holds the guard.
 */
void rec_lost(const char *why, uint64_t count);
void rec_lost_in(struct rec_thread *t, const char *why, uint64_t count);

/* At start, fork and exec: a lost record (pid_shared) when other live
   processes of the run have this process's pid (rec_collect_pid_shared). */
void rec_pid_shared_report(void);

/* The event of a lost record of count (rec_lost, rec_lost_in). */
static inline struct iot_event rec_lost_event(uint64_t count)
{
    struct iot_event ev = rec_event(IOT_OP_LOST, 0, 0);

    ev.has |= IOT_HAS_SIZE;
    ev.size = (int64_t)count;
    return ev;
}

/* ------------------------------------------------------------ lifecycle */

/* Flush everything this process has (exec, exit): synchronous. */
void rec_flush_all(void);
/* Record the process exit and flush; later events are dropped. */
void rec_finish(int status, int sig);
/* Note the status main() returned or exit() was given. */
void rec_note_status(int status);
/*
 * Before a fork, and at a chunk switch: take the collector's fds back if
 * the program took them, or say so (retake.c).
 */
void rec_collect_fds_check(void);
/*
 * fork.c's fork handlers, registered with pthread_atfork, and run as it
 * would around a fork that libc does not make (a raw fork or clone:
 * wrap_clone.c). They hold the guard from prepare to parent or child, and
 * run the stack walker's (rec_stack_fork_*) inside their own.
 */
void rec_fork_prepare(void);
void rec_fork_parent(void);
void rec_fork_child(void);
/* Record that `pid` (a child) was killed by `sig`, seen by waitpid. */
void rec_child_killed(pid_t pid, int sig);
/* A thread renamed itself (self != 0) or another thread. */
void rec_thread_renamed(pthread_t thread, const char *name);

/*
 * The recorder's own fds in the program's table (ownfds.c): whether fd is
 * one, moving one whose number the program wants (ownfds_move.c), and
 * close_range around them.
 */
int rec_own_fd(int fd);
void rec_own_fd_move(int fd);
int rec_close_range_around(unsigned first, unsigned last, int flags);
/*
 * A call of the program that makes an fd failed with EMFILE: when ours
 * sit below the soft fd limit, move them above it (the hard limit
 * allowing) and say 1, so that the call is made again and the program gets
 * every fd it gets natively; what stays below is said in the trace once
 * per process (lost: fds_in_range, n). errno is kept.
 */
int rec_own_fds_make_room(void);
void rec_own_fds_in_range_say(int n);
/* The trace fd (without a collector), and moving it out of the program's way. */
int rec_trace_fd(void);
void rec_trace_fd_move(void);

/* ---------------------------------------------------------------- stacks */

/* Warm the unwinder up and learn this library's address range. */
void rec_stack_init(void);
/* Its fork handlers, run by fork.c's. */
void rec_stack_fork_prepare(void);
void rec_stack_fork_parent(void);
void rec_stack_fork_child(void);
/* The caller's stack as the SPEC's string, or NULL; cached, never freed. */
const char *rec_stack_capture(void);
/*
 * A stack's text as rec_stack_capture() keeps it: its length and a key (the
 * hash of its return addresses) before it, so that a record that names it
 * neither measures nor hashes it again (iot_enc_str_keyed).
 */
struct rec_stack_text {
    uint64_t key;
    size_t len;
    char s[];
};
static inline const struct rec_stack_text *rec_stack_text_of(const char *stack)
{
    return (const struct rec_stack_text *)(stack - offsetof(struct rec_stack_text, s));
}
/* At the process's end: names for JIT frames its runtime wrote only then. */
void rec_stack_finish(void);

/* ------------------------------------------------------------------ env */

/* Absolute path of this library, of the trace, and the stacks setting. */
extern char rec_lib_path[];
extern char rec_out_path[];
/* The launcher's file beside the trace, renamed onto it at the end; or "". */
extern char rec_spool_path[];
extern char rec_preload_start[];   /* LD_PRELOAD at start-up, if it named us */

/*
 * envp with LD_PRELOAD, IORECORD_OUTPUT, IORECORD_SPOOL, IORECORD_STACKS, IORECORD_SANDBOX and
 * IORECORD_TSC set for a child of this recording, first (when not NULL)
 * put at the head of LD_PRELOAD. Allocated with mmap (safe in a vfork
 * child); release with rec_env_free(). Returns envp itself when nothing
 * needs to change or on failure.
 */
char **rec_env_fix(char *const envp[], const char *first);
void rec_env_free(char **fixed, char *const envp[]);
/*
 * Under a collector, IORECORD_COLLECT and IORECORD_PROC (this process's
 * entry, for an exec'd image to keep) as out[*k...] in str, at most 96
 * bytes; returns the end of what was written.
 */
char *rec_collect_env(char **out, size_t *k, char *str);
/*
 * v in decimal at dst, NUL-terminated; returns the NUL, as stpcpy does.
 * Without the printf family: a fork child builds the environment with it
 * just before exec, where each libc page it touches first faults, and a
 * signal handler names fds with it.
 */
static inline char *rec_stpnum(char *dst, unsigned long long v)
{
    char tmp[20];
    int n = 0;

    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *dst++ = tmp[--n];
    *dst = '\0';
    return dst;
}

/*
 * Programs the preload cannot enter (enterable.c): why (static, setuid,
 * fcaps, no_library), or NULL, and in asan (REC_ASAN_NAME bytes) the ASan
 * runtime a program that can be entered needs first ("" none); the environment for a child (rec_env_fix's,
 * or rec_env_unpreload's when it must not be preloaded, or envp itself when
 * another launcher set it up, which sets *why so that the caller hides our
 * fds from the exec as for an unrecordable program); the recorder's fds of
 * a collector made close-on-exec (0) or inheritable again (1).
 */
#define REC_ASAN_NAME REC_EXE_NAME
const char *rec_unrecordable(const char *path, char *asan);

/* ------------------------------------------------------- kernel_ask.c */

/* IORECORD_KERNEL read (at start): the launcher's socket for the kernel path. */
void rec_kernel_ask_init(void);
/* Its name, for an exec'd child's environment ("" when none). */
const char *rec_kernel_ask_name(void);
/*
 * Ask the launcher to have its kernel path follow this process (and what
 * it makes from now on), waiting a few seconds at most: 1 when it does, 0
 * when it does not (no launcher asks, it is gone or it could not).
 */
int rec_kernel_ask(void);
/*
 * The same, from a process the preload is about to let go before a
 * credential change (creds.c): the kernel path follows it as the preload's
 * until that change, and records every file call of it after.
 */
int rec_kernel_ask_let_go(void);
char **rec_env_child(char *const envp[], const char **why, const char *asan);
void rec_own_fds_inherit(int inherit);

/*
 * Credentials (creds.c): let go of the recording for good in this process
 * (its credentials are about to change); whether it has; a syscall()
 * about to be made (number, six words); the same at start-up for a
 * secure-exec process; whether such a process, without a collector,
 * refused to open the output (1: it said so and let go); envp for a child
 * without this library's preload or any IORECORD_ variable (release with
 * rec_env_free).
 */
void rec_let_go(void);
int rec_unpreloaded(void);
void rec_creds_syscall(long n, const long *a);
void rec_creds_startup(void);
int rec_creds_output_refused(void);
char **rec_env_unpreload(char *const envp[]);

/* Raw helpers that never go through a wrapper. */
void rec_warn(const char *msg, int err);
/* The same once-per-run line, for a refusal: "iorecord: 'TRACE' WHY". */
void rec_warn_refuse(const char *why);
/* Whether this process (or an ancestor, through exec) has warned. */
int rec_warned(void);
/* The launcher's once-per-run flag file, or NULL. */
const char *rec_once_path(void);

#pragma GCC visibility pop

#endif
