/*
 * core.c - start-up, per-thread chunk streams, the buffer pool, the queue to
 * the flusher thread, and the trace file.
 *
 * Concurrency in one paragraph: each thread appends only to its own chunk
 * (no lock). A closed chunk's buffer goes on a lock-free LIFO (`queue_head`).
 * Only a holder of `flush_lock` compresses, writes, and returns buffers to
 * the free list, from which any writer takes one with a tagged
 * compare-and-swap. Normally that is the flusher alone: it keeps the trace fd
 * in a private fd table, and threads that must flush now (exit, exec) ask it
 * and wait; only in the shared-table fallback do they take the lock
 * themselves. The flusher also snapshots open chunks: a writer never
 * rewrites the bytes it has published ([0, len) of its buffer) and only a
 * lock holder recycles buffers (a thread's own empty buffer aside), so those
 * bytes are stable while the lock is held.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"

/* ------------------------------------------------------ real functions */

#define REAL_DEF_(ret, name, params) ret(*real_##name) params;
REAL_FUNCS(REAL_DEF_)
#undef REAL_DEF_

void rec_resolve(void)
{
    static int done;

    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        return;
    /* Racing threads store the same values; that is harmless. */
#define REAL_RESOLVE_(ret, name, params)                                       \
    if (!real_##name)                                                          \
        __atomic_store_n(&real_##name,                                         \
                         (ret(*) params)dlsym(RTLD_NEXT, #name),               \
                         __ATOMIC_RELEASE);
    REAL_FUNCS(REAL_RESOLVE_)
#undef REAL_RESOLVE_
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* --------------------------------------------------------------- state */

int rec_active;
__thread int rec_guard REC_TLS;
__thread struct rec_thread *rec_self REC_TLS;
int rec_stacks = 1;
int32_t rec_pid;
char rec_lib_path[PATH_MAX];
char rec_out_path[PATH_MAX];
char rec_preload_start[PATH_MAX];

/*
 * Thread slots, in blocks of SLOT_BLOCK mapped on first use, so a process
 * with few threads maps ~600 KiB rather than room for REC_MAX_THREADS.
 */
#define SLOT_BLOCK 64
static struct rec_thread *slot_blocks[REC_MAX_THREADS / SLOT_BLOCK];
static int slots;                         /* start-up succeeded */

/* Slot i, or NULL when its block was never mapped. */
static struct rec_thread *slot_at(int i)
{
    struct rec_thread *b = __atomic_load_n(&slot_blocks[i / SLOT_BLOCK],
                                           __ATOMIC_ACQUIRE);

    return b ? &b[i % SLOT_BLOCK] : NULL;
}

/* Number of slots whose block exists (blocks are mapped in order). */
static int slots_mapped(void)
{
    int n = 0;

    while (n < REC_MAX_THREADS / SLOT_BLOCK &&
           __atomic_load_n(&slot_blocks[n], __ATOMIC_ACQUIRE))
        n++;
    return n * SLOT_BLOCK;
}
static pthread_key_t thread_key;
static uint64_t stream_salt;
static uint64_t stream_counter;

struct rec_buf {
    uint8_t *data;
    uint32_t next;                        /* index + 1 in a list, 0 = end */
    struct iot_chunk_hdr hdr;             /* filled when queued */
};
static struct rec_buf bufs[REC_MAX_BUFS];
static uint32_t nbufs;                    /* buffers allocated */
static uint64_t free_head;                /* tag << 32 | index + 1 */
static uint32_t queue_head;               /* index + 1 */

static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;
static struct iot_chunker *chunker;
static uint8_t *frame_buf;                /* compressed frame scratch */
static size_t frame_cap;
static int trace_fd = -1;
static int stopped;                       /* output failed: no more writes */
static int finished;                      /* exit recorded */
static int exit_status;

static uint32_t wake_word;                /* futex the flusher sleeps on */
static int flusher_waiting;
static pthread_t flusher;
static int flusher_running;
static uint32_t flusher_ready;            /* futex: start-up handshake */
/*
 * The flusher runs with a private fd table (unshare(CLONE_FILES)) holding
 * only the trace fd, which is then closed in the program's table. Two
 * reasons: a second thread sharing the fd table makes every fd syscall of
 * the program slower (the kernel's single-threaded fdget fast path is lost:
 * ~55 ns per read() here), and the program can no longer see, close or dup
 * onto the trace fd at all. Then only the flusher may write, and threads
 * that must flush synchronously (exit, exec) ask it and wait.
 */
static int private_fd;
static int no_unshare;                    /* IORECORD_NO_UNSHARE=1: test hook */
static int32_t flusher_tid;
static __thread int is_flusher REC_TLS;
static uint32_t sync_req, sync_done;      /* futex: synchronous flush requests */


/* -------------------------------------------------------------- helpers */

long rec_sys_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        long w = syscall(SYS_write, fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * Once per run, not per process: a full disk is met by every process of a
 * `make -j`. The launcher creates an empty flag file (IORECORD_ONCE); the
 * first process to fail marks it under flock and is the only one to speak.
 * Without the launcher, IORECORD_WARNED=1 passed to exec'd children keeps
 * them quiet after their ancestor spoke.
 */
static char once_path[PATH_MAX];
static int warned;                 /* this process, or an ancestor, warned */

int rec_warned(void)
{
    return __atomic_load_n(&warned, __ATOMIC_ACQUIRE);
}

const char *rec_once_path(void)
{
    return once_path[0] ? once_path : NULL;
}

/* Whether this process is the run's first to warn. */
static int first_to_warn(void)
{
    char c = 0;
    int fd, first = 1;

    if (!once_path[0])
        return 1;
    fd = (int)syscall(SYS_openat, AT_FDCWD, once_path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 1;   /* the launcher is gone: better said twice than never */
    syscall(SYS_flock, fd, LOCK_EX);
    if (syscall(SYS_pread64, fd, &c, 1, 0) == 1 && c == '1')
        first = 0;
    else
        syscall(SYS_pwrite64, fd, "1", 1, 0);
    syscall(SYS_flock, fd, LOCK_UN);
    syscall(SYS_close, fd);
    return first;
}

/* One line on stderr, once per run; the program's own output is untouched. */
void rec_warn(const char *msg, int err)
{
    char line[PATH_MAX + 256];

    if (__atomic_exchange_n(&warned, 1, __ATOMIC_ACQ_REL) || !first_to_warn())
        return;
    snprintf(line, sizeof(line), "iorecord: %s '%s': %s; recording stopped\n",
             msg, rec_out_path, strerror(err));
    if (is_flusher && private_fd) {
        /* Our table has no stderr: reach the program's through /proc. */
        int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/fd/2",
                              O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);

        if (fd >= 0) {
            rec_sys_write_all(fd, line, strlen(line));
            syscall(SYS_close, fd);
        }
        return;
    }
    rec_sys_write_all(2, line, strlen(line));
}

static int32_t sys_gettid(void)
{
    return (int32_t)syscall(SYS_gettid);
}

static void futex_wake(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void futex_wake_all(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(uint32_t *w, uint32_t val, long ns)
{
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/* Read a small file with raw syscalls (no wrapper, no stdio). */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;

    if (fd < 0)
        return -1;
    while ((size_t)n < cap) {
        ssize_t r = syscall(SYS_read, fd, buf + n, cap - (size_t)n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += r;
    }
    syscall(SYS_close, fd);
    return n;
}

/* ---------------------------------------------------------- buffer pool */

static void free_push(uint32_t idx)
{
    uint64_t old = __atomic_load_n(&free_head, __ATOMIC_ACQUIRE), nw;

    do {
        __atomic_store_n(&bufs[idx - 1].next, (uint32_t)old, __ATOMIC_RELAXED);
        nw = (((old >> 32) + 1) << 32) | idx;
    } while (!__atomic_compare_exchange_n(&free_head, &old, nw, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

static uint32_t free_pop(void)
{
    uint64_t old = __atomic_load_n(&free_head, __ATOMIC_ACQUIRE), nw;
    uint32_t idx;

    do {
        idx = (uint32_t)old;
        if (idx == 0)
            return 0;
        nw = (((old >> 32) + 1) << 32) |
             __atomic_load_n(&bufs[idx - 1].next, __ATOMIC_RELAXED);
    } while (!__atomic_compare_exchange_n(&free_head, &old, nw, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return idx;
}

/*
 * A buffer for a new chunk: from the free list, else a new mapping (rare),
 * else wait for the flusher to return one. 0 when recording has stopped.
 */
static void stop_recording(const char *msg, int err);

static uint32_t buf_get(void)
{
    for (int spins = 0; spins < 20000; spins++) {
        uint32_t idx = free_pop(), n;

        if (idx)
            return idx;
        if (__atomic_load_n(&stopped, __ATOMIC_RELAXED) || !flusher_running)
            return 0;
        n = __atomic_load_n(&nbufs, __ATOMIC_ACQUIRE);
        if (n < REC_MAX_BUFS &&
            __atomic_compare_exchange_n(&nbufs, &n, n + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            void *p = mmap(NULL, REC_CHUNK_CAP, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

            if (p == MAP_FAILED) {
                stop_recording("cannot allocate buffers for trace", ENOMEM);
                return 0;
            }
            /* Published before the index can be seen anywhere else. */
            __atomic_store_n(&bufs[n].data, p, __ATOMIC_RELEASE);
            return n + 1;
        }
        if (n >= REC_MAX_BUFS) {
            /* Every buffer is queued: the flusher is behind. Wait for it. */
            struct timespec ts = { 0, 200000 };

            futex_wake(&wake_word);
            syscall(SYS_nanosleep, &ts, NULL);
        }
    }
    /* 64 MiB queued and no progress for seconds: the writer is stuck. */
    stop_recording("cannot write trace", ETIMEDOUT);
    return 0;
}

static void queue_push(uint32_t idx)
{
    uint32_t old = __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE);

    do
        __atomic_store_n(&bufs[idx - 1].next, old, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&queue_head, &old, idx, 1,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    __atomic_add_fetch(&wake_word, 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&flusher_waiting, __ATOMIC_ACQUIRE))
        futex_wake(&wake_word);
}

/* ---------------------------------------------------------- trace file */

int rec_trace_fd(void)
{
    /* In the flusher's private table only: the program's fds are its own. */
    if (__atomic_load_n(&private_fd, __ATOMIC_ACQUIRE))
        return -1;
    return __atomic_load_n(&trace_fd, __ATOMIC_ACQUIRE);
}

/* A high, close-on-exec duplicate of fd, out of the program's usual range. */
static int fd_high(int fd, int avoid)
{
    struct rlimit rl;
    long lim = 1024;
    int nfd = -1;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lim = (long)rl.rlim_cur;
    if (lim > 65536)
        lim = 65536;
    for (long want = lim - 8; want >= 10 && nfd < 0; want = want * 3 / 4) {
        nfd = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, want);
        if (nfd == avoid) {
            syscall(SYS_close, nfd);
            nfd = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, want + 1);
        }
    }
    if (nfd < 0)
        nfd = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
    return nfd;
}

void rec_trace_fd_move(void)
{
    int old, nfd;

    pthread_mutex_lock(&flush_lock);
    old = trace_fd;
    if (old >= 0) {
        nfd = fd_high(old, old);
        if (nfd >= 0) {
            __atomic_store_n(&trace_fd, nfd, __ATOMIC_RELEASE);
            syscall(SYS_close, old);
        }
    }
    pthread_mutex_unlock(&flush_lock);
}

static void stop_recording(const char *msg, int err)
{
    if (__atomic_exchange_n(&stopped, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
    rec_warn(msg, err);
}

/*
 * Append one frame with one write() (O_APPEND keeps frames of several
 * processes whole). Never lets the kernel raise SIGXFSZ: a frame that would
 * pass RLIMIT_FSIZE stops recording instead.
 */
static void write_frame(const void *p, size_t n)
{
    struct rlimit rl;
    struct stat st;
    int fd = trace_fd;

    if (stopped || fd < 0)
        return;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        syscall(SYS_fstat, fd, &st) == 0 &&
        (uint64_t)st.st_size + n > (uint64_t)rl.rlim_cur) {
        stop_recording("cannot write trace", EFBIG);
        return;
    }
    if (rec_sys_write_all(fd, p, n) != 0)
        stop_recording("cannot write trace", errno ? errno : EIO);
}

/* Compress and write one chunk. Caller holds flush_lock. */
static void emit_chunk(const struct iot_chunk_hdr *h, const void *records)
{
    size_t n;

    if (stopped || !chunker)
        return;
    n = iot_chunk_compress(chunker, h, records, frame_buf, frame_cap);
    if (n == 0) {
        stop_recording("cannot compress trace", ENOMEM);
        return;
    }
    write_frame(frame_buf, n);
}

/* Write every queued chunk and recycle its buffer. Caller holds flush_lock. */
static void drain_queue(void)
{
    uint32_t idx = __atomic_exchange_n(&queue_head, 0, __ATOMIC_ACQ_REL);
    uint32_t rev = 0;

    /* The queue is LIFO; write in the order the chunks were closed. */
    while (idx) {
        uint32_t next = bufs[idx - 1].next;

        bufs[idx - 1].next = rev;
        rev = idx;
        idx = next;
    }
    while (rev) {
        uint32_t next = bufs[rev - 1].next;

        emit_chunk(&bufs[rev - 1].hdr, bufs[rev - 1].data);
        free_push(rev);
        rev = next;
    }
}

/*
 * Write what the open chunks of other threads hold so far as PARTIAL
 * chunks; the reader keeps the longest version of each (stream, seq).
 * Caller holds flush_lock.
 */
static void snapshot_open_chunks(void)
{
    int n = slots_mapped();

    for (int i = 0; i < n; i++) {
        struct rec_thread *t = slot_at(i);
        struct iot_chunk_hdr h;
        uint32_t g1, g2, bi;
        uint64_t pub;

        if (!__atomic_load_n(&t->state, __ATOMIC_ACQUIRE))
            continue;
        g1 = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
        if (g1 & 1)
            continue;
        bi = __atomic_load_n(&t->buf, __ATOMIC_RELAXED);
        pub = __atomic_load_n(&t->pub, __ATOMIC_ACQUIRE);
        memset(&h, 0, sizeof(h));
        h.version = IOT_FORMAT_VERSION;
        h.flags = IOT_CHUNK_PARTIAL;
        h.pid = rec_pid;
        h.tid = __atomic_load_n(&t->tid, __ATOMIC_RELAXED);
        h.stream_id = __atomic_load_n(&t->stream_id, __ATOMIC_RELAXED);
        h.seq = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
        h.base_t = __atomic_load_n(&t->enc.base_t, __ATOMIC_RELAXED);
        h.nrec = (uint32_t)(pub >> 32);
        h.bytes = (uint32_t)pub;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        g2 = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
        if (g1 != g2 || bi == 0 || h.bytes == 0)
            continue;
        if (t->snap_buf == bi && t->snap_len == h.bytes)
            continue;
        t->snap_buf = bi;
        t->snap_len = h.bytes;
        emit_chunk(&h, bufs[bi - 1].data);
    }
}

/* -------------------------------------------------------------- flusher */

/* Give the flusher its own fd table holding nothing but the trace fd. */
static int go_private(void)
{
    int tfd = trace_fd;

    if (tfd < 0 || no_unshare || syscall(SYS_unshare, CLONE_FILES) != 0)
        return 0;
    /* The copy must not keep the program's files open (a pipe's EOF...). */
    if ((tfd > 0 && syscall(SYS_close_range, 0, tfd - 1, 0) != 0) ||
        syscall(SYS_close_range, tfd + 1, ~0u, 0) != 0) {
        for (int fd = 0; fd < 65536; fd++)
            if (fd != tfd)
                syscall(SYS_close, fd);
    }
    return 1;
}

static void *flusher_main(void *arg)
{
    int64_t last_snap = rec_mono_ns(), last_anchor = last_snap;
    uint32_t served = __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE);

    (void)arg;
    is_flusher = 1;
    flusher_tid = sys_gettid();
    rec_guard = REC_GUARD_OFF;   /* nothing this thread does is the program's I/O */
    __atomic_store_n(&flusher_ready, go_private() ? 2 : 1, __ATOMIC_RELEASE);
    futex_wake_all(&flusher_ready);
    for (;;) {
        uint32_t seen = __atomic_load_n(&wake_word, __ATOMIC_ACQUIRE);
        uint32_t req = __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE);
        int64_t now;

        pthread_mutex_lock(&flush_lock);
        drain_queue();
        now = rec_mono_ns();
        /* Twice a second, so a kill -9 loses about the last second at most. */
        if (req != served || now - last_snap >= 500000000LL) {
            snapshot_open_chunks();
            last_snap = now;
        }
        pthread_mutex_unlock(&flush_lock);
        if (req != served) {
            served = req;
            __atomic_store_n(&sync_done, req, __ATOMIC_RELEASE);
            futex_wake_all(&sync_done);
        }
        if (now - last_anchor >= 1000000000LL) {
            rec_clock_reanchor();
            last_anchor = now;
        }
        __atomic_store_n(&flusher_waiting, 1, __ATOMIC_RELEASE);
        if (__atomic_load_n(&queue_head, __ATOMIC_ACQUIRE) == 0 &&
            __atomic_load_n(&sync_req, __ATOMIC_ACQUIRE) == served)
            futex_wait(&wake_word, seen, 100000000L);
        __atomic_store_n(&flusher_waiting, 0, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void flusher_start(void)
{
    sigset_t all, old;
    int64_t deadline;

    /* The program's signals must never be delivered to our thread. */
    sigfillset(&all);
    __atomic_store_n(&flusher_ready, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    flusher_running = pthread_create(&flusher, NULL, flusher_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!flusher_running)
        return;
    deadline = rec_mono_ns() + 2000000000LL;
    while (__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE) == 0 &&
           rec_mono_ns() < deadline)
        futex_wait(&flusher_ready, 0, 10000000L);
    if (__atomic_load_n(&flusher_ready, __ATOMIC_ACQUIRE) == 2) {
        /* The flusher holds its own copy: ours leaves the program's table. */
        syscall(SYS_close, trace_fd);
        __atomic_store_n(&private_fd, 1, __ATOMIC_RELEASE);
    } else {
        /* Shared table (unshare refused): keep out of the program's way. */
        rec_trace_fd_move();
    }
}

/*
 * Write everything queued and snapshot open chunks, now. With a private
 * trace fd only the flusher can write: ask it and wait (bounded, so a
 * flusher that is gone cannot hang the program's exit).
 */
static void flush_now(void)
{
    uint32_t my;
    int64_t deadline;

    if (!__atomic_load_n(&private_fd, __ATOMIC_ACQUIRE) || !flusher_running) {
        pthread_mutex_lock(&flush_lock);
        drain_queue();
        snapshot_open_chunks();
        pthread_mutex_unlock(&flush_lock);
        return;
    }
    my = __atomic_add_fetch(&sync_req, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&wake_word, 1, __ATOMIC_RELEASE);
    futex_wake(&wake_word);
    deadline = rec_mono_ns() + 5000000000LL;
    for (;;) {
        uint32_t done = __atomic_load_n(&sync_done, __ATOMIC_ACQUIRE);

        if ((int32_t)(done - my) >= 0 || rec_mono_ns() > deadline)
            break;
        futex_wait(&sync_done, done, 20000000L);
    }
}

/* ------------------------------------------------------ thread streams */

static void stream_begin(struct rec_thread *t, uint32_t bi, int64_t now)
{
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->buf, bi, __ATOMIC_RELAXED);
    if (bi)
        iot_enc_begin(&t->enc, bufs[bi - 1].data, REC_CHUNK_CAP, now);
    else
        iot_enc_begin(&t->enc, NULL, 0, now);   /* every append fails */
    __atomic_store_n(&t->pub, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
}

/* Queue the open chunk if it holds anything. Keeps the buffer otherwise. */
static int chunk_close(struct rec_thread *t, uint32_t flags)
{
    uint32_t bi = t->buf;
    struct iot_chunk_hdr *h;

    if (!bi || t->enc.nrec == 0)
        return 0;
    h = &bufs[bi - 1].hdr;
    memset(h, 0, sizeof(*h));
    h->version = IOT_FORMAT_VERSION;
    h->flags = flags;
    h->pid = rec_pid;
    h->tid = t->tid;
    h->stream_id = t->stream_id;
    h->seq = t->seq;
    h->nrec = t->enc.nrec;
    h->base_t = t->enc.base_t;
    h->bytes = (uint32_t)t->enc.len;
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->buf, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&t->pub, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELEASE);
    queue_push(bi);
    return 1;
}

static void read_comm(int32_t tid, char *name, size_t cap)
{
    char path[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
    n = read_small(path, name, cap - 1);
    if (n < 0)
        n = 0;
    while (n > 0 && name[n - 1] == '\n')
        n--;
    name[n] = '\0';
}

static void emit_thread_name(struct rec_thread *t, int64_t now)
{
    char name[64];

    read_comm(t->tid, name, sizeof(name));
    if (iot_enc_thread(&t->enc, now, name) == 0)
        rec_publish(t);
}

void rec_renamed_here(struct rec_thread *t)
{
    int64_t now = rec_mono_ns();
    char name[64];

    __atomic_store_n(&t->name_dirty, 0, __ATOMIC_RELAXED);
    read_comm(t->tid, name, sizeof(name));
    if (iot_enc_thread(&t->enc, now, name) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_thread(&t->enc, now, name);
    }
    rec_publish(t);
}

void rec_chunk_switch(struct rec_thread *t, int64_t now)
{
    int saved = errno;
    uint32_t bi = t->buf;

    if (chunk_close(t, 0) || !bi)
        bi = buf_get();
    stream_begin(t, bi, now);
    errno = saved;
}

static void process_record(struct rec_thread *t, int64_t now);

static struct rec_thread *slot_take(void)
{
    for (int blk = 0; blk < REC_MAX_THREADS / SLOT_BLOCK; blk++) {
        struct rec_thread *b = __atomic_load_n(&slot_blocks[blk],
                                               __ATOMIC_ACQUIRE);

        if (!b) {
            struct rec_thread *nb = NULL;

            b = mmap(NULL, sizeof(*b) * SLOT_BLOCK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (b == MAP_FAILED)
                return NULL;
            if (!__atomic_compare_exchange_n(&slot_blocks[blk], &nb, b, 0,
                                             __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE)) {
                syscall(SYS_munmap, b, sizeof(*b) * SLOT_BLOCK);
                b = nb;   /* another thread mapped it first */
            }
        }
        for (int i = 0; i < SLOT_BLOCK; i++) {
            int zero = 0;

            if (__atomic_load_n(&b[i].state, __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(&b[i].state, &zero, 1, 0,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED))
                return &b[i];
        }
    }
    return NULL;
}

static uint64_t new_stream_id(void)
{
    return stream_salt ^ (__atomic_add_fetch(&stream_counter, 1,
                                             __ATOMIC_RELAXED) *
                          0x9e3779b97f4a7c15ULL);
}

static struct rec_thread *thread_init(int first, int64_t now)
{
    struct rec_thread *t = slot_take();
    uint32_t bi;

    if (!t)
        return NULL;
    /*
     * A signal handler that runs from here on finds the guard set and
     * defers its calls, which needs rec_self: the slot's list (perhaps left
     * by its last owner) starts empty, and rec_leave appends them.
     */
    for (int i = 0; i < REC_PENDING; i++)
        __atomic_store_n(&t->pending[i].valid, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->npending, 0, __ATOMIC_RELEASE);
    rec_self = t;
    bi = buf_get();
    if (!bi) {
        rec_self = NULL;
        __atomic_store_n(&t->state, 0, __ATOMIC_RELEASE);
        return NULL;
    }
    t->tid = sys_gettid();
    t->seq = 0;
    t->stream_id = new_stream_id();
    t->name_dirty = 0;
    t->self = pthread_self();
    t->snap_buf = 0;
    t->snap_len = 0;
    stream_begin(t, bi, now);
    pthread_setspecific(thread_key, t);
    if (first)
        process_record(t, now);
    emit_thread_name(t, now);
    return t;
}

struct rec_thread *rec_thread_start(uint64_t s0)
{
    int saved = errno;
    struct rec_thread *t = NULL;
    int64_t t0 = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE),
                             s0);
    int64_t now = rec_mono_ns();

    if (!is_flusher && !finished)
        t = thread_init(0, t0 < now ? t0 : now);
    errno = saved;
    return t;
}

/* pthread key destructor: the thread is ending. */
static void thread_end(void *arg)
{
    struct rec_thread *t = arg;
    int saved = errno;
    sigset_t all, old;

    if (!t || t != rec_self)
        return;
    /*
     * A handler's calls while the last chunk closes would be deferred to a
     * stream that is going away: signals wait until it is gone, and a
     * handler then starts a stream of its own.
     */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rec_guard = 1;
    if (__atomic_load_n(&t->npending, __ATOMIC_ACQUIRE))
        rec_drain(t);
    chunk_close(t, IOT_CHUNK_LAST);
    if (t->buf)
        free_push(t->buf);   /* an empty chunk's buffer is ours to give back */
    t->buf = 0;
    rec_self = NULL;
    __atomic_store_n(&t->state, 0, __ATOMIC_RELEASE);
    rec_guard = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

/* ---------------------------------------------------- recording calls */

void rec_io_slow(struct rec_thread *t, int written, unsigned op, int32_t fd,
                 int64_t size, int64_t ret, int32_t err, int64_t a,
                 int64_t dur)
{
    if (written) {
        /* In, but the chunk is a second old: close it, start the next. */
        rec_publish(t);
        rec_chunk_switch(t, a + dur);
        return;
    }
    /* Full: a fresh chunk always has room for one fd record. */
    rec_chunk_switch(t, a);
    if (iot_enc_io(&t->enc, op, fd, size, ret, err, a, dur) == 0)
        rec_publish(t);
}

/* Whether the chunk holds the record as last appended (ids are chunk-local). */
static int put_call(struct rec_thread *t, struct iot_event *ev,
                    const char *path, const char *mode, const char *stack)
{
    struct iot_enc *e = &t->enc;

    if (path && iot_enc_str(e, path, strlen(path), &ev->path_id) != 0)
        return -1;
    if (mode && iot_enc_str(e, mode, strlen(mode), &ev->mode_id) != 0)
        return -1;
    if (stack && iot_enc_str(e, stack, strlen(stack), &ev->stack_id) != 0)
        return -1;
    return iot_enc_call(e, ev);
}

void rec_call_in(struct rec_thread *t, struct iot_event *ev, const char *path,
                 const char *mode, const char *stack, uint64_t s0, uint64_t s1)
{
    const struct rec_clock *c = __atomic_load_n(&rec_clock_cur,
                                                __ATOMIC_ACQUIRE);

    ev->kind = IOT_EV_CALL;
    ev->t = rec_ns_with(c, s0);
    ev->dur = rec_ns_with(c, s1) - ev->t;
    if (path)
        ev->has |= IOT_HAS_PATH;
    if (mode)
        ev->has |= IOT_HAS_MODE;
    if (stack)
        ev->has |= IOT_HAS_STACK;
    if (put_call(t, ev, path, mode, stack) != 0) {
        rec_chunk_switch(t, ev->t);
        if (put_call(t, ev, path, mode, stack) != 0)
            return;
    }
    rec_publish(t);
    if (ev->t - t->enc.base_t >= REC_CHUNK_AGE)
        rec_chunk_switch(t, ev->t + ev->dur);
}

void rec_call(struct iot_event *ev, const char *path, const char *mode,
              const char *stack, uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_enter(s0);

    if (!t) {
        if (rec_deferring())
            rec_defer(ev, path, mode, s0, s1);
        return;
    }
    rec_call_in(t, ev, path, mode, stack, s0, s1);
    rec_leave();
}

/* ------------------------------------------------- signal-handler calls */

/*
 * Runs in a signal handler that interrupted the recorder on this thread.
 * Only this thread and its nested handlers touch `pending`; a handler runs
 * to completion before the code it interrupted resumes, so a slot reserved
 * with one atomic add is the handler's alone until it marks it valid.
 */
void rec_defer(const struct iot_event *ev, const char *path, const char *mode,
               uint64_t s0, uint64_t s1)
{
    struct rec_thread *t = rec_self;
    struct rec_pending *p;
    uint32_t i;

    if (!t)
        return;
    i = __atomic_fetch_add(&t->npending, 1, __ATOMIC_ACQ_REL);
    if (i >= REC_PENDING)
        return;   /* handlers nested too deep: this call is not recorded */
    p = &t->pending[i];
    p->ev = *ev;
    p->s0 = s0;
    p->s1 = s1;
    p->has_path = path != NULL;
    p->has_mode = mode != NULL;
    if (path) {
        size_t n = strlen(path);

        if (n >= sizeof(p->path))
            n = sizeof(p->path) - 1;
        memcpy(p->path, path, n);
        p->path[n] = '\0';
    }
    if (mode) {
        size_t n = strlen(mode);

        if (n >= sizeof(p->mode))
            n = sizeof(p->mode) - 1;
        memcpy(p->mode, mode, n);
        p->mode[n] = '\0';
    }
    __atomic_store_n(&p->valid, 1, __ATOMIC_RELEASE);
}

void rec_defer_io(unsigned op, int32_t fd, int64_t size, int64_t ret,
                  int32_t err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = { 0 };

    ev.op = (uint8_t)op;
    ev.has = IOT_HAS_FD | IOT_HAS_SIZE | (err ? IOT_HAS_ERRNO : 0);
    ev.fd = fd;
    ev.size = size;
    ev.ret = ret;
    ev.err = err;
    rec_defer(&ev, NULL, NULL, s0, s1);
}

void rec_drain(struct rec_thread *t)
{
    uint32_t i = 0;

    for (;;) {
        uint32_t n = __atomic_load_n(&t->npending, __ATOMIC_ACQUIRE);

        if (i >= n) {
            /* Done, unless a handler added one meanwhile. */
            if (__atomic_compare_exchange_n(&t->npending, &n, 0, 0,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return;
            continue;
        }
        if (i < REC_PENDING) {
            struct rec_pending *p = &t->pending[i];

            if (__atomic_load_n(&p->valid, __ATOMIC_ACQUIRE)) {
                struct iot_event ev = p->ev;

                rec_call_in(t, &ev, p->has_path ? p->path : NULL,
                            p->has_mode ? p->mode : NULL, NULL, p->s0, p->s1);
                __atomic_store_n(&p->valid, 0, __ATOMIC_RELEASE);
            }
        }
        i++;
    }
}

/* ------------------------------------------------------------ metadata */

static void process_record(struct rec_thread *t, int64_t now)
{
    static char cmdline[32768];
    static char exe[PATH_MAX];
    const char *argv[1024];
    struct timespec rt;
    ssize_t n, len;
    int argc = 0;

    len = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
    exe[len > 0 ? len : 0] = '\0';
    n = read_small("/proc/self/cmdline", cmdline, sizeof(cmdline) - 1);
    if (n < 0)
        n = 0;
    cmdline[n] = '\0';
    for (ssize_t i = 0; i < n && argc < 1024; argc++) {
        argv[argc] = cmdline + i;
        i += (ssize_t)strlen(cmdline + i) + 1;
    }
    clock_gettime(CLOCK_REALTIME, &rt);
    if (iot_enc_process(&t->enc, (int32_t)getppid(), now,
                        (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec, exe,
                        argc, argv) != 0)
        iot_enc_process(&t->enc, (int32_t)getppid(), now,
                        (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec, exe,
                        argc > 16 ? 16 : argc, argv);
    rec_publish(t);
}

void rec_thread_renamed(pthread_t thread, const char *name)
{
    struct rec_thread *t;

    if (pthread_equal(thread, pthread_self())) {
        int fresh = rec_self == NULL;

        t = rec_enter(rec_stamp());
        if (!t)
            return;
        if (fresh) {
            /* Its first event: the thread record just written has the name. */
            rec_leave();
            return;
        }
        int64_t now = rec_mono_ns();

        if (iot_enc_thread(&t->enc, now, name) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_thread(&t->enc, now, name);
        }
        rec_publish(t);
        rec_leave();
        return;
    }
    /* Another thread's chunk is its own: it notes the name at its next call. */
    for (int i = 0, n = slots_mapped(); i < n; i++) {
        struct rec_thread *s = slot_at(i);

        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) &&
            pthread_equal(s->self, thread))
            __atomic_store_n(&s->name_dirty, 1, __ATOMIC_RELEASE);
    }
}

/* ---------------------------------------------------- flush and finish */

void rec_flush_all(void)
{
    struct rec_thread *t = rec_self;
    int saved = errno, g = rec_guard;

    if (!rec_active || !slots)
        return;
    rec_guard = REC_GUARD_IN;
    if (t)
        rec_chunk_switch(t, rec_mono_ns());
    flush_now();
    if (g == 0)
        rec_leave();
    else
        rec_guard = g;
    errno = saved;
}

void rec_note_status(int status)
{
    __atomic_store_n(&exit_status, status & 0xff, __ATOMIC_RELAXED);
}

void rec_finish(int status, int sig)
{
    struct rec_thread *t;
    int saved = errno;
    int64_t now;

    if (!rec_active || __atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL))
        return;
    rec_guard = REC_GUARD_IN;
    t = rec_self;
    now = rec_mono_ns();
    if (!t) {
        finished = 0;
        t = thread_init(0, now);
        finished = 1;
    }
    if (t) {
        if (iot_enc_exit(&t->enc, now, status, sig) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_exit(&t->enc, now, status, sig);
        }
        rec_publish(t);
        chunk_close(t, IOT_CHUNK_LAST);
    }
    flush_now();
    __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
    errno = saved;
    /* Nothing after the exit record is recorded. */
    rec_guard = REC_GUARD_OFF;
}

void rec_child_killed(pid_t pid, int sig)
{
    uint32_t bi;
    struct iot_enc e;
    struct iot_chunk_hdr h;

    if (!rec_active || pid <= 0)
        return;
    bi = buf_get();
    if (!bi)
        return;
    /* A one-record chunk in the child's name: it could not write it itself. */
    iot_enc_begin(&e, bufs[bi - 1].data, REC_CHUNK_CAP, rec_mono_ns());
    iot_enc_exit(&e, e.base_t, 128 + sig, sig);
    memset(&h, 0, sizeof(h));
    h.version = IOT_FORMAT_VERSION;
    h.flags = IOT_CHUNK_LAST;
    h.pid = pid;
    h.tid = pid;
    h.stream_id = new_stream_id();
    h.nrec = e.nrec;
    h.base_t = e.base_t;
    h.bytes = (uint32_t)e.len;
    bufs[bi - 1].hdr = h;
    queue_push(bi);
}

/* ------------------------------------------------------------ fork */

static void atfork_prepare(void)
{
    /* The child must not inherit a half-written frame or compressor state. */
    if (slots)
        pthread_mutex_lock(&flush_lock);
}

static void atfork_parent(void)
{
    if (slots)
        pthread_mutex_unlock(&flush_lock);
}

static void atfork_child(void)
{
    struct rec_thread *self = rec_self;
    uint32_t keep = self ? self->buf : 0;
    int64_t now;

    if (!slots)
        return;
    pthread_mutex_init(&flush_lock, NULL);
    if (!rec_active || finished || stopped) {
        __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
        return;
    }
    rec_pid = (int32_t)getpid();
    stream_salt ^= (uint64_t)rec_pid * 0xbf58476d1ce4e5b9ULL;
    /* The parent writes its own chunks: drop them all, keep the memory. */
    queue_head = 0;
    free_head = 0;
    for (uint32_t i = 1; i <= nbufs; i++)
        if (i != keep && bufs[i - 1].data)
            free_push(i);
    for (int i = 0, n = slots_mapped(); i < n; i++)
        if (slot_at(i) != self)
            slot_at(i)->state = 0;
    if (private_fd) {
        /*
         * The trace fd lived in the parent flusher's table: open our own,
         * through that fd if we can (the same file even if it was renamed
         * or removed since), else by its path.
         */
        char via[96];
        int fd;

        snprintf(via, sizeof(via), "/proc/%d/task/%d/fd/%d", (int)getppid(),
                 (int)flusher_tid, trace_fd);
        fd = (int)syscall(SYS_openat, AT_FDCWD, via,
                          O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
            fd = (int)syscall(SYS_openat, AT_FDCWD, rec_out_path,
                              O_WRONLY | O_APPEND | O_CLOEXEC);

        private_fd = 0;
        trace_fd = fd;   /* flusher_start() takes it out of our table */
        if (trace_fd < 0) {
            __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
            rec_warn("cannot open trace", errno);
            return;
        }
    }
    sync_req = sync_done = 0;
    flusher_start();
    if (!self)
        return;
    now = rec_mono_ns();
    self->tid = sys_gettid();
    self->seq = 0;
    self->stream_id = new_stream_id();
    self->snap_buf = 0;
    self->snap_len = 0;
    self->self = pthread_self();
    stream_begin(self, keep ? keep : buf_get(), now);
    process_record(self, now);
    emit_thread_name(self, now);
}

/* ------------------------------------------------------------ start-up */

static int env_true(const char *name, int dflt)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return dflt;
    return !(strcmp(v, "0") == 0 || strcmp(v, "no") == 0 ||
             strcmp(v, "false") == 0);
}

/* This library's own path, so exec'd children can preload it again. */
static void find_lib_path(void)
{
    Dl_info info;

    if (dladdr((void *)rec_resolve, &info) && info.dli_fname &&
        !realpath(info.dli_fname, rec_lib_path))
        snprintf(rec_lib_path, sizeof(rec_lib_path), "%s", info.dli_fname);
}

/* rec_out_path: IORECORD_OUTPUT made absolute. */
static void out_path_init(void)
{
    const char *out = getenv("IORECORD_OUTPUT");
    char cwd[PATH_MAX];

    if (!out || !*out)
        out = "iorecord.zst";
    if (out[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
        strlen(cwd) + 1 + strlen(out) >= sizeof(rec_out_path)) {
        snprintf(rec_out_path, sizeof(rec_out_path), "%s", out);
    } else {
        size_t cl = strlen(cwd);

        memcpy(rec_out_path, cwd, cl);
        rec_out_path[cl] = '/';
        strcpy(rec_out_path + cl + 1, out);
    }
}

/*
 * The fd may take any number for now: flusher_start() moves it into the
 * flusher's private table (or, failing that, up out of the program's way)
 * before the program runs on. A high number from the start would make the
 * kernel grow the fd table to it, and every later fork and the flusher's
 * unshare copy that table: +3 ms per fork+exec with 65536 entries.
 */
static int open_trace(void)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, rec_out_path,
                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);

    if (fd < 0) {
        rec_warn("cannot open trace", errno);
        return -1;
    }
    trace_fd = fd;
    return 0;
}

/* Main's return value is the exit status: catch it on its way out. */
static int (*program_main)(int, char **, char **);

static int main_hook(int argc, char **argv, char **envp)
{
    int r = program_main(argc, argv, envp);

    rec_note_status(r);
    return r;
}

int __libc_start_main(int (*main)(int, char **, char **), int argc,
                      char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    program_main = main;
    return REAL(__libc_start_main)(main_hook, argc, argv, init, fini,
                                   rtld_fini, stack_end);
}

__attribute__((constructor)) static void rec_init(void)
{
    const uint8_t *rnd;
    int saved = errno;

    rec_guard = 1;
    rec_resolve();
    if (env_true("IORECORD_DISABLE", 0))
        goto out;
    rec_pid = (int32_t)getpid();
    rec_stacks = env_true("IORECORD_STACKS", 1);
    warned = env_true("IORECORD_WARNED", 0);
    /* Lets the tests exercise the shared-table fallback (seccomp'd unshare). */
    no_unshare = env_true("IORECORD_NO_UNSHARE", 0);
    {
        const char *once = getenv("IORECORD_ONCE");

        if (once && strlen(once) < sizeof(once_path))
            strcpy(once_path, once);
    }
    find_lib_path();
    {
        const char *pre = getenv("LD_PRELOAD");

        if (pre && rec_lib_path[0] && strstr(pre, rec_lib_path) &&
            strlen(pre) < sizeof(rec_preload_start))
            strcpy(rec_preload_start, pre);
    }
    rnd = (const uint8_t *)getauxval(AT_RANDOM);
    if (rnd)
        memcpy(&stream_salt, rnd + 8, sizeof(stream_salt));
    stream_salt ^= (uint64_t)rec_pid << 32 ^ (uint64_t)rec_mono_ns();
    out_path_init();
    frame_cap = iot_chunk_bound(REC_CHUNK_CAP);
    frame_buf = mmap(NULL, frame_cap, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    chunker = iot_chunker_create(1);
    if (frame_buf == MAP_FAILED || !chunker) {
        rec_warn("cannot set up the recording of", ENOMEM);
        goto out;
    }
    if (open_trace() != 0 || pthread_key_create(&thread_key, thread_end) != 0)
        goto out;
    slots = 1;
    rec_clock_init();
    if (rec_stacks)
        rec_stack_init();
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    flusher_start();
    if (!flusher_running)
        goto out;
    rec_active = 1;
    thread_init(1, rec_mono_ns());
out:
    rec_guard = 0;
    errno = saved;
}

__attribute__((destructor)) static void rec_fini(void)
{
    rec_finish(__atomic_load_n(&exit_status, __ATOMIC_RELAXED), 0);
}
