/*
 * internal.h - what the files behind rec.h share with each other. The
 * wrappers include rec.h only.
 *
 * From the bottom layer up (docs/recorder.md, "Files and layers"); a file
 * calls only into its own layer's lower files and the layers below:
 *
 *   slots.c      thread slots; the per-thread guard and chunk chain pointer
 *   sandbox.c    what the process forbids (TSC, seccomp), skipped facts
 *   ownfds.c     the recorder's fds in the program's table, hidden from it
 *   warn.c       output failures: recording stops, one warning per run
 *   resolve.c    the real libc functions
 *   nextsym.c    dlsym(RTLD_NEXT)'s answers, looked up without it
 *   segment.c    the record memory: buffers, their free list and queue, slots
 *   collect.c    the segment: shared with iorecord's collector, or our own
 *   retake.c     the collector's fds, taken back from a program's raw syscalls
 *   zstd_load.c  libzstd, loaded only by a process that compresses
 *   tracefile.c  without a collector: the trace fd, compressing and writing
 *   bufpool.c    taking a buffer, waiting for one when none is free
 *   ownfds_move.c  our fds moved off a number the program dup2s onto
 *   childenv.c   the environment of an exec'd or spawned child
 *   chain.c      a thread's chain of chunks: begin, close, switch; chain ids
 *   record.c     encoding a call into the calling thread's chunk
 *   meta.c       process and thread-name records
 *   modules.c    the loaded modules and their records (modules.h)
 *   defer.c      calls made by a signal handler that interrupted the
 *                recorder, and the work due when a thread leaves it
 *   thread.c     a thread's life: its chain begun, ended, a fork child's,
 *                renames
 *   call.c       recording a call from anywhere (rec_call, rec_lost)
 *   finish.c     flushing for exec and exit, exit records
 *   fork.c       the child of a fork
 *   creds.c      letting go of the recording before credentials change
 *   sandbox_calls.c  the program's prctl and seccomp calls
 *   enterable.c  whether the preload can enter a program about to be exec'd
 *   startup.c    the environment, the trace path, the constructor
 *
 * Concurrency in one paragraph: each thread appends only to its own chunk
 * (no lock) and publishes each whole record in its slot. A closed chunk's
 * buffer goes on a lock-free LIFO (the queue). Under iorecord the collector,
 * another process, alone writes the queue, snapshots and retires slots and
 * recycles buffers. Without it the thread that closed a chunk writes the
 * queue if no other thread is writing (a try-lock: nobody waits at a chunk
 * boundary), and only a holder of rec_flush_lock compresses, writes and
 * recycles; exit and exec wait for the lock, write the queue and snapshot
 * the other threads' open chunks. Either way the writer of the trace is the
 * only one to recycle a buffer (a thread's own empty one aside) and a
 * thread never rewrites what it published, so [0, pub) of an open chunk is
 * stable while that writer reads it. The process has no thread of its own.
 */
#ifndef REC_INTERNAL_H
#define REC_INTERNAL_H

#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"

#pragma GCC visibility push(hidden)

/* ------------------------------------------- raw syscalls (no wrapper) */

static inline int32_t rec_gettid(void)
{
    return (int32_t)syscall(SYS_gettid);
}

/* -------------------------------------------------------------- strings */

/*
 * src into dst (cap bytes), cut to fit. Not snprintf: the printf family's
 * code is pages of libc that each recorded process, and each fork child
 * before its exec, would fault in for nothing else.
 */
static inline void rec_copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ------------------------------------------------------------ startup.c */

/* Start-up succeeded: the flush lock, the buffers and the trace exist. */
extern int rec_started;

/* ------------------------------------------------------------- defer.c */

/* A slot's deferred list, left by its last owner, starts empty. */
void rec_pending_reset(struct rec_thread *t);

/* ------------------------------------------------------------- slots.c */

/* Slot i, or NULL when its block was never mapped. */
struct rec_thread *rec_slot_at(int i);
/* Number of slots whose block exists (blocks are mapped in order). */
int rec_slots_mapped(void);
/* A free slot, now taken (state 1); NULL when all REC_MAX_THREADS are. */
struct rec_thread *rec_slot_take(void);
/* In a fork child: every slot but self is free (their threads are gone). */
void rec_slots_fork_child(struct rec_thread *self);

/* ------------------------------------------------------------- chain.c */

/* Chain ids (a chunk header's stream_id): random per process, unique per
   chain. */
void rec_chain_ids_init(void);
void rec_chain_ids_fork_child(void);   /* after rec_pid is the child's */
uint64_t rec_chain_id_new(void);

/*
 * Begin a chunk of t's chain in buffer bi (0: none, every append fails)
 * at `now`; the slot's pub is 0 (a new slot, or rec_chunk_close).
 */
void rec_chain_begin(struct rec_thread *t, uint32_t bi, int64_t now);
/* Queue the open chunk if it holds anything (flags: IOT_CHUNK_*). */
int rec_chunk_close(struct rec_thread *t, uint32_t flags);

/* ------------------------------------------------------------ thread.c */

/* The pthread key whose destructor closes an ending thread's chain. */
int rec_thread_key_init(void);
/*
 * Take a slot and begin the calling thread's chain at `now`, the process
 * record first when `first`; NULL when no slot or buffer is left.
 */
struct rec_thread *rec_thread_init(int first, int64_t now);
/* In a fork child: the forking thread's chain starts anew (0, or -1). */
int rec_thread_fork_child(struct rec_thread *self);

/* ----------------------------------------------------------- bufpool.c */

/* The segment (segment.h): shared with a collector, or this process's own. */
extern struct rec_seg_hdr *rec_seg;

/* A buffer's records. */
static inline uint8_t *rec_buf_data(uint32_t b)
{
    return rec_seg_data(rec_seg, b);
}

/*
 * A buffer for a new chunk, open as slot open_as's (0: none): from the free
 * list, else an untouched one, else wait for the writer of the trace to
 * free one (writing the queue ourselves when we are that writer). 0 when
 * recording has stopped.
 */
uint32_t rec_buf_get(uint32_t open_as);
/* Back on the free list (the writer of the trace, or a thread's own empty one). */
void rec_buf_put(uint32_t b);
/* Queue a closed chunk (its hdr filled) for the writer of the trace. */
void rec_queue_push(uint32_t b);

/* ----------------------------------------------------------- collect.c */

/* A collector writes the trace (else this process does: tracefile.c). */
extern int rec_collected;
/* Under a collector: our process entry + 1, and this image's number. */
extern uint32_t rec_proc;
extern uint32_t rec_image;

/*
 * Attach to the collector named by IORECORD_COLLECT, or make a private
 * segment: 0, or -1 (recording off).
 */
int rec_collect_init(void);
/* In a fork child: a process entry (collected) or an emptied segment (own). */
int rec_collect_fork_child(void);
/* A chunk was queued, or the process ends: the collector should look. */
void rec_collect_wake(void);
/* Whether the collector is there to free buffers (0: it is gone). */
int rec_collector_alive(void);
/*
 * How many other live processes of the run have this process's pid (each
 * in another pid namespace): their records carry the same pid and a reader
 * cannot tell them apart, which the caller says in the trace (a `lost`
 * record, pid_shared).
 */
uint32_t rec_collect_pid_shared(void);
/* Slot + 1 of a thread's slot, the owner value of its open buffer. */
uint32_t rec_slot_number(const struct rec_thread *t);

/* ------------------------------------------------------------ retake.c */

/* The files behind the collector's fds, as they were inherited. */
struct rec_fd_ident {
    dev_t dev;
    ino_t ino;
};
extern struct rec_fd_ident rec_seg_ident, rec_live_ident;
/*
 * How retake.c says in the trace that the collector could not be reached
 * (rec_lost, set by the constructor). The check runs inside a chunk switch,
 * below the recording that makes a lost record, so it cannot call that
 * directly; taken at most once per process, never on the chunk switch's
 * own path.
 */
extern void (*rec_retake_lost)(const char *why, uint64_t count);

/* ------------------------------------------------------------ ownfds.c */

/* The recorder's fds by kind (rec.h has the wrappers' side). */
#define REC_OWN_TRACE 0
#define REC_OWN_SEG   1
#define REC_OWN_LIVE  2
void rec_own_fd_set(int kind, int fd);
int rec_own_fd_get(int kind);
/* A close-on-exec duplicate of fd at a high number (-1 when none). */
int rec_fd_high(int fd);
/* From now on rec_fd_high puts ours above the soft fd limit (ownfds_room.c). */
void rec_own_fds_above(void);

/* --------------------------------------------------------- tracefile.c */

/* Held to compress, write, or recycle buffers (see above). */
extern pthread_mutex_t rec_flush_lock;

/* The compressor, its output buffer, the trace file: 0, or -1 (warned). */
int rec_trace_open(void);
/*
 * Take rec_flush_lock (wait: block for it, else only if free); 0 when not
 * taken, always when this thread holds it already (a signal handler).
 */
int rec_flush_lock_take(int wait);
void rec_flush_lock_drop(void);
/* Write every queued chunk, recycling buffers. Caller holds rec_flush_lock. */
void rec_trace_drain(void);
/* Write other threads' open chunks as PARTIAL. Caller holds rec_flush_lock. */
void rec_trace_snapshot(void);
/* A chunk was queued: write the queue unless another thread is writing it. */
void rec_trace_flush(void);
/* Write everything queued and snapshot open chunks, now (exit, exec). */
void rec_flush_now(void);
/* In a fork child: the lock and the compressor start afresh. */
void rec_trace_fork_child(void);

/* ---------------------------------------------------------- zstd_load.c */

/* Load libzstd for the compressor (idempotent): 0, or -1. */
int rec_zstd_load(void);

/* -------------------------------------------------------------- meta.c */

/* The image's argv, as glibc passes it to constructors (argc 0: unknown). */
void rec_image_args(int argc, char **argv);

/* The image's executable, as /proc/self/exe names it ("" unknown). */
const char *rec_image_exe(void);
/* The process record (pid, parent, exe, argv, wall clock) at `now`. */
void rec_process_record(struct rec_thread *t, int64_t now);
/* IORECORD_LABELS read and checked (at start); its labels appended by t
   (which holds the guard), after a process record (labels.c). */
void rec_labels_init(void);
void rec_labels_record(struct rec_thread *t, int64_t now);
/* $HOME and the runtimes' option variables read (at start); appended by t
   (which holds the guard) after a process record (startenv.c). */
void rec_startenv_init(void);
void rec_startenv_record(struct rec_thread *t, int64_t now);
/* The thread's name as the kernel has it, as a thread record. */
void rec_thread_name_record(struct rec_thread *t, int64_t now);
/* Another thread renamed this one: its thread record now. */
void rec_renamed_here(struct rec_thread *t);

/* ------------------------------------------------------------ bypass.c */

/* At start: an unrecorded record when the program is Go or has liburing
   loaded (their file calls go past libc). */
void rec_bypass_startup(void);

/* --------------------------------------------------------- wrap_meta.c */

/* At start, before the program runs: glibc's time zone names as they are
   before any time zone call (the tzset wrappers tell its first read by them). */
void rec_tz_init(void);

/* ------------------------------------------------------------ finish.c */

extern int rec_finished;                  /* exit recorded */

/* -------------------------------------------------------------- fork.c */

/* Register the fork handlers (after rec_stack_init() registered its own). */
void rec_fork_init(void);

/* -------------------------------------------------------------- warn.c */

extern int rec_stopped;                   /* output failed: no more writes */

/* Recording stops for good in this process; warns once per run. */
void rec_stop(const char *msg, int err);
/* What start-up learnt: an ancestor warned; the launcher's flag file. */
void rec_warn_init(int warned_before, const char *once);

/* ----------------------------------------------------------- nextsym.c */

/* The objects after this library, up to and including libc (last). */
#define REC_NEXT_MAX 16
struct rec_next_obj {
    ElfW(Addr) base;
    const uint32_t *gnu_hash;
    const ElfW(Sym) *symtab;
    const char *strtab;
    const ElfW(Versym) *versym;    /* NULL: no versions */
};
struct rec_next_scope {
    int after_self, done, n;
    struct rec_next_obj obj[REC_NEXT_MAX];
};

/* Gather them: 0, or -1 when names must all go to dlsym. */
int rec_next_init(struct rec_next_scope *s);
/* dlsym(RTLD_NEXT, name)'s answer, or NULL: ask dlsym. */
void *rec_next_sym(const struct rec_next_scope *s, const char *name);

#pragma GCC visibility pop

#endif
