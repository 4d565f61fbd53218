/*
 * segment.h - the memory recorded threads append their records to and the
 * writer of the trace reads them from: chunk buffers, their free list and
 * their queue, and one slot per recorded thread that publishes its open
 * chunk.
 *
 * Under iorecord the segment is one memfd shared by every recorded process
 * and the collector (collector.c, a process iorecord starts), which alone
 * compresses and writes. A record is in shared memory the moment it is
 * published, so a process killed at any instant loses at most the call in
 * flight: the collector writes what its slots published once it sees the
 * process gone. Under plain preload the segment is private memory of one
 * process, whose own threads write it (tracefile.c).
 *
 * The layout: the header, then REC_SEG_PROCS process entries, the slots, the
 * buffers' headers (the head, under a MiB), and the buffers' data, page
 * aligned. It holds no pointers: every process maps it at its own address.
 *
 * A process maps the head whole and the data an extent (REC_SEG_EXTENT_BUFS
 * buffers) at a time, when it first touches a buffer there: the memfd is as
 * large as all buffers, sparse, but a process's address space grows only by
 * the extents its threads and the collector have used, and a program run
 * under RLIMIT_AS keeps its room. An extent that cannot be mapped gives no
 * buffer (rec_seg_data NULL): what would have gone there is lost, and said.
 *
 * Liveness: a process holds a POSIX write lock on the byte of the memfd at
 * its entry's index (taken at start and after fork; kept across exec; the
 * kernel drops it when the process dies, even by kill -9, and in any pid
 * namespace). The collector holds the byte at REC_SEG_PROCS. Nobody writes
 * those bytes: the locks are advisory.
 */
#ifndef REC_SEGMENT_H
#define REC_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "iotrace.h"

#pragma GCC visibility push(hidden)

#define REC_SEG_MAGIC   0x3147455344524f49ULL   /* "IORDSEG1" */
#define REC_SEG_VERSION 2
#define REC_SEG_CHUNK   (64 * 1024)             /* bytes of records per buffer */
/* Under iorecord, for all processes of a run: 256 MiB of buffers, sparse. */
#define REC_SEG_SHARED_BUFS  4096
#define REC_SEG_SHARED_SLOTS 4096               /* live recorded threads */
#define REC_SEG_PROCS        4096               /* live recorded processes */
/* Buffers mapped at once (1 MiB); the most extents any segment has. */
#define REC_SEG_EXTENT_BUFS  16
#define REC_SEG_MAX_EXTENTS  (REC_SEG_SHARED_BUFS / REC_SEG_EXTENT_BUFS)

/* ------------------------------------------------------------- layout */

struct rec_seg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nbufs;          /* buffers in the segment */
    uint32_t nslots;         /* thread slots */
    uint32_t nprocs;         /* process entries (REC_SEG_PROCS, shared only) */
    uint64_t procs_off, slots_off, metas_off, data_off;
    uint64_t size;
    /* allocation: lock-free, by any process */
    uint64_t free_head;      /* tag << 32 | buffer + 1; the tag defeats ABA */
    uint32_t queue_head;     /* buffer + 1 of the newest queued chunk */
    uint32_t bufs_used;      /* buffers ever handed out; the rest are untouched */
    uint32_t slots_hwm;      /* slots [0, hwm) may be taken */
    uint32_t procs_hwm;      /* process entries [0, hwm) may be taken */
    /* the collector (shared only) */
    uint32_t wake;           /* futex word: bumped when a chunk is queued */
    uint32_t sleeping;       /* the collector waits on wake */
    uint32_t flush_req;      /* bumped by the launcher: write all there is */
    uint32_t flush_done;     /* the last flush_req done */
    uint32_t stopped;        /* the trace cannot be written: stop recording */
    uint32_t survivors;      /* processes still recorded at the last flush */
    uint32_t launcher_gone;  /* iorecord has exited: its stderr is not ours */
    int32_t  collector_pid;  /* as the launcher sees it (for messages) */
};

/*
 * Process entry states. A process leaves LIVE only by a compare-and-swap:
 * to MOVING while it moves its memfd fd (closing any fd of the file drops
 * its lock: it takes it again), or by the collector to DYING, after which
 * a lock still found free means the process is gone.
 */
#define REC_PROC_FREE    0u
#define REC_PROC_CLAIMED 1u   /* taken, lock not yet held: not judged */
#define REC_PROC_LIVE    2u
#define REC_PROC_MOVING  3u   /* its lock is briefly let go: not judged */
#define REC_PROC_DYING   4u   /* the collector is making sure it is gone */

struct rec_seg_proc {
    uint32_t state;
    int32_t  pid;            /* as the process sees itself */
    uint32_t image;          /* bumped by each exec into a recorded image */
    uint32_t pad;
};

/* Slot states. */
#define REC_SLOT_FREE 0u
#define REC_SLOT_LIVE 1u

/*
 * A recorded thread's open chunk as the writer of the trace sees it. The
 * thread brackets a chunk switch with gen (odd while switching). A thread
 * that cannot run again (its process died or exec'd) leaves a slot whose
 * fields are consistent at every instant: buf is set before anything is
 * published into it, pub is 0 again before buf changes, and a closed chunk
 * is queued (its buffer REC_BUF_QUEUED) before the slot lets go of it.
 */
struct rec_seg_slot {
    uint32_t state;
    uint32_t proc;           /* process entry + 1; 0 in a private segment */
    uint32_t image;          /* the process's image when the slot was taken */
    int32_t  pid;
    int32_t  tid;
    uint32_t gen;
    uint32_t buf;            /* buffer + 1 of the open chunk, 0 none */
    uint32_t seq;            /* chunk number within the thread's chain */
    uint64_t pub;            /* nrec << 32 | bytes: complete records */
    uint64_t chain_id;       /* the chunk header's chain_id: per thread life */
    int64_t  base_t;
    /* the writer of the trace's: what it snapshotted last */
    uint32_t snap_buf;
    uint32_t snap_len;
};

/* Buffer states (struct rec_seg_buf.state); an open one holds slot + 1. */
#define REC_BUF_FREE   0u
#define REC_BUF_QUEUED 0xffffffffu

struct rec_seg_buf {
    uint32_t next;           /* buffer + 1 in a list, 0 = end */
    uint32_t state;
    struct iot_chunk_hdr hdr;   /* filled when queued */
};

/* ------------------------------------------------------------- access */

static inline struct rec_seg_proc *rec_seg_proc_at(struct rec_seg_hdr *s, uint32_t i)
{
    return (struct rec_seg_proc *)((char *)s + s->procs_off) + i;
}

static inline struct rec_seg_slot *rec_seg_slot_at(struct rec_seg_hdr *s, uint32_t i)
{
    return (struct rec_seg_slot *)((char *)s + s->slots_off) + i;
}

/* Buffers are named by index + 1, so that 0 means none. */
static inline struct rec_seg_buf *rec_seg_meta(struct rec_seg_hdr *s, uint32_t b)
{
    return (struct rec_seg_buf *)((char *)s + s->metas_off) + (b - 1);
}

/*
 * This process's view of the data: where each extent is mapped (NULL: not
 * yet), and what to map it from: fd, or private memory for a segment of
 * this process alone. Set up by rec_seg_view_*; read by rec_seg_data.
 */
struct rec_seg_view {
    uint8_t *ext[REC_SEG_MAX_EXTENTS];
    int fd;                  /* the memfd; -1 when it is closed */
    int shared;              /* 0: private memory, no fd */
};
extern struct rec_seg_view rec_seg_view;

/* Map extent e of s; its address, or NULL (no fd, out of memory). */
uint8_t *rec_seg_map_extent(struct rec_seg_hdr *s, uint32_t e);

/* Buffer b's data, its extent mapped if need be; NULL when it cannot be. */
static inline uint8_t *rec_seg_data(struct rec_seg_hdr *s, uint32_t b)
{
    uint32_t e = (b - 1) / REC_SEG_EXTENT_BUFS;
    uint8_t *base = __atomic_load_n(&rec_seg_view.ext[e], __ATOMIC_ACQUIRE);

    if (!base && !(base = rec_seg_map_extent(s, e)))
        return NULL;
    return base + (size_t)((b - 1) % REC_SEG_EXTENT_BUFS) * REC_SEG_CHUNK;
}

/* ------------------------------------------------------------- set-up */

/* Bytes a segment of nbufs buffers, nslots slots and nprocs entries takes,
   and of those its head (what every process maps whole). */
size_t rec_seg_size(uint32_t nbufs, uint32_t nslots, uint32_t nprocs);
size_t rec_seg_head_size(uint32_t nbufs, uint32_t nslots, uint32_t nprocs);
/*
 * This process's view: of the memfd fd (shared) or of private memory
 * (fd -1, shared 0), no extent mapped yet. rec_seg_view_fd: the memfd's fd
 * moved (or closed: -1), the extents mapped stay.
 */
void rec_seg_view_init(int fd, int shared);
void rec_seg_view_fd(int fd);
/* Unmap every extent mapped (the head is the caller's). */
void rec_seg_view_release(void);
/*
 * Swap the head at s and every extent mapped for private memory, in place
 * (MAP_FIXED: never a hole to fault on): this process lets go of the
 * segment, and nothing it does from here reaches the shared one.
 */
void rec_seg_view_privatise(struct rec_seg_hdr *s);
/* Lay out a zeroed mapping of rec_seg_size() bytes. */
void rec_seg_format(struct rec_seg_hdr *s, uint32_t nbufs, uint32_t nslots,
                    uint32_t nprocs);
/* Whether header s, of a file of size bytes, is a segment this code can use
   (its head is then s->data_off bytes). */
int rec_seg_valid(const struct rec_seg_hdr *s, size_t size);

/* ------------------------------------------------------------ buffers */

/* A free buffer (0 when none is free or untouched), its state open_as. */
uint32_t rec_seg_buf_take(struct rec_seg_hdr *s, uint32_t open_as);
/* Back on the free list. */
void rec_seg_buf_put(struct rec_seg_hdr *s, uint32_t b);
/* Queue a closed chunk (its hdr filled) for the writer of the trace. */
void rec_seg_queue_push(struct rec_seg_hdr *s, uint32_t b);
/* Take every queued buffer, linked through next, oldest first. */
uint32_t rec_seg_queue_take(struct rec_seg_hdr *s);
int rec_seg_queue_empty(struct rec_seg_hdr *s);

/* ---------------------------------------------------- slots, processes */

/* A free slot, now REC_SLOT_LIVE as the given thread's with no chunk open;
   NULL when all are taken. */
struct rec_seg_slot *rec_seg_slot_take(struct rec_seg_hdr *s, uint32_t proc,
                                       uint32_t image, int32_t pid, int32_t tid);
void rec_seg_slot_drop(struct rec_seg_slot *sl);
/* A free process entry, now REC_PROC_CLAIMED; -1 when all are taken. */
int rec_seg_proc_take(struct rec_seg_hdr *s, int32_t pid);

/*
 * Byte-range write lock on byte i of fd (F_SETLK: 0 or -1), and whether
 * someone holds one there (1, 0, or -1 when fcntl failed).
 */
int rec_seg_lock(int fd, uint32_t i);
int rec_seg_locked(int fd, uint32_t i);

/*
 * A duplicate of fd (dup_cmd F_DUPFD or F_DUPFD_CLOEXEC) at the highest free
 * number at most `margin` below min(RLIMIT_NOFILE, 1024), stepping down by a
 * quarter; -1 when none from 10 up is free. The recorder's fds (the trace,
 * or the collector's memfd and pipe) live there, out of the program's usual
 * range: iorecord's take margin 16, the library's trace 8. A soft limit
 * of 1024 or less is lifted for the dup (towards the hard limit, to 1024,
 * or to margin above a soft limit of 1024) and put back, so that ours sit
 * above the program's whole range; only when the hard limit equals the
 * soft one do they take its top numbers. Above 1024 they stay below it
 * (a fork copies the fd table up to the highest fd) until the program
 * meets the limit (ownfds.c, rec_own_fds_make_room).
 */
int rec_seg_fd_high(int fd, int dup_cmd, long margin);

/*
 * close_range(first, last, flags) over every fd but keep[0..n) (-1 entries
 * ignored): the program's close_range passing over the recorder's fds, and
 * the collector shedding what it inherited. 0, or the first failure's -1.
 */
int rec_seg_close_range_except(unsigned first, unsigned last, int flags,
                               const int *keep, int n);

/* ----------------------------------------------------------- writing */

/* Writes one chunk's records: the writer of the trace's side. */
typedef void rec_seg_emit_fn(void *ctx, const struct iot_chunk_hdr *h,
                             const void *records);

/*
 * Emit the published part of sl's open chunk as a PARTIAL chunk, unless
 * it is empty, was emitted as it is already, or is mid-switch. Only the
 * writer of the trace recycles buffers, so [0, pub) stays stable while it
 * reads.
 */
void rec_seg_snapshot_slot(struct rec_seg_hdr *s, struct rec_seg_slot *sl,
                           rec_seg_emit_fn *emit, void *ctx);

/*
 * sl's thread will never run again (its process died or exec'd): emit what
 * it published, give its buffer back, free the slot.
 */
void rec_seg_retire_slot(struct rec_seg_hdr *s, struct rec_seg_slot *sl,
                         rec_seg_emit_fn *emit, void *ctx);

/* Write every queued chunk, oldest first, and recycle its buffer. */
void rec_seg_drain(struct rec_seg_hdr *s, rec_seg_emit_fn *emit, void *ctx);

#pragma GCC visibility pop

#endif
