/*
 * tracefile.c - the trace file: where its fd lives, compressing a chunk into
 * one zstd frame and appending it with one write(), writing the queue when a
 * chunk closes, and snapshotting open chunks at exit and exec.
 *
 * The process has no thread of its own (a second thread would change the
 * program: glibc leaves its single-threaded fast paths, unshare(CLONE_NEWUSER)
 * is refused, a last pthread_exit never ends the process): the thread that
 * closes a chunk compresses and writes the queue itself, when no other
 * thread is doing so (rec_trace_flush). The fd sits at a high, close-on-exec
 * number in the program's table; the close, close_range and dup wrappers
 * keep the program from closing or reusing it.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "internal.h"

pthread_mutex_t rec_flush_lock = PTHREAD_MUTEX_INITIALIZER;
/* The tid holding rec_flush_lock, 0 none: a handler must not wait for its own thread. */
static int32_t flush_owner;

static struct iot_chunker *chunker;       /* static: compressing never allocates */
static void *chunker_mem;
static size_t chunker_size;
static uint8_t *frame_buf;                /* compressed frame scratch */
static size_t frame_cap;
static int trace_fd = -1;

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

/* ------------------------------------------------------------ the fd */

/*
 * Whether the regular file st (opened write-only on rec_out_path) starts
 * like a trace: 1, 0, or -1 with errno. A write-only fd cannot read, so a
 * second one reads, once it is known to be on the same file.
 */
static int starts_like_trace(const struct stat *st)
{
    unsigned char head[4];
    struct stat rst;
    long n = 0;
    int fd, err = 0;

    /* O_NONBLOCK: should a FIFO have taken the file's place, do not wait. */
    fd = (int)syscall(SYS_openat, AT_FDCWD, rec_out_path,
                      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (syscall(SYS_fstat, fd, &rst) != 0)
        n = -1;
    else if (rst.st_dev == st->st_dev && rst.st_ino == st->st_ino)
        n = syscall(SYS_pread64, fd, head, sizeof(head), 0);
    if (n < 0)
        err = errno;
    syscall(SYS_close, fd);
    if (n < 0) {
        errno = err;
        return -1;
    }
    return n == (long)sizeof(head) && iot_is_native_trace(head, sizeof(head));
}

/*
 * The output named by IORECORD_OUTPUT is appended to only when it is a
 * trace (or a device or FIFO the user named: /dev/null, a pipe): a
 * mistyped path must not get frames added to someone's file.
 */
static int output_usable(int fd)
{
    struct stat st;

    if (syscall(SYS_fstat, fd, &st) != 0) {
        rec_warn("cannot open trace", errno);
        return 0;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
        (S_ISREG(st.st_mode) && st.st_size == 0))
        return 1;
    switch (S_ISREG(st.st_mode) ? starts_like_trace(&st) : 0) {
    case 1:
        return 1;
    case 0:
        rec_warn_refuse("is not a trace: not appending to it");
        return 0;
    default:
        rec_warn("cannot read trace", errno);
        return 0;
    }
}

/*
 * Under the launcher, the trace is written to its spool file (see
 * iorecord.c), opened without O_CREAT: once the launcher has renamed it onto
 * the output (a daemon's child that starts later) it is gone, and the output
 * is opened instead. A spool that is not our own regular file was planted
 * at its name after that rename: the output is opened then too.
 *
 * The fd may take any number for now: rec_trace_open() moves it up out of
 * the program's way before the program runs (fd_high).
 */
static int open_trace(void)
{
    struct stat st;
    int fd = -1;

    if (rec_spool_path[0]) {
        /* O_NONBLOCK: a FIFO planted there must not hold us (ENXIO). */
        fd = (int)syscall(SYS_openat, AT_FDCWD, rec_spool_path,
                          O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && (syscall(SYS_fstat, fd, &st) != 0 ||
                        !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                        syscall(SYS_fcntl, fd, F_SETFL, O_APPEND) != 0)) {
            syscall(SYS_close, fd);
            fd = -1;
            errno = ENOENT;
        }
        if (fd < 0 && errno != ENOENT && errno != ELOOP && errno != ENXIO) {
            rec_warn("cannot open trace", errno);
            return -1;
        }
        if (fd < 0)
            rec_spool_path[0] = '\0';   /* nor for our exec'd children */
    }
    if (fd < 0) {
        fd = (int)syscall(SYS_openat, AT_FDCWD, rec_out_path,
                          O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                          0600);
        if (fd < 0 && errno == ELOOP) {
            rec_warn_refuse("is a symbolic link: not writing the trace through it");
            return -1;
        }
        if (fd < 0) {
            rec_warn("cannot open trace", errno);
            return -1;
        }
        if (!output_usable(fd)) {
            syscall(SYS_close, fd);
            return -1;
        }
    }
    trace_fd = fd;
    return 0;
}

/*
 * A chunk may close inside a signal handler that interrupted the program
 * anywhere, malloc included: the compressor works in memory mapped here
 * once and never allocates.
 */
int rec_trace_open(void)
{
    frame_cap = iot_chunk_bound(REC_CHUNK_CAP);
    frame_buf = mmap(NULL, frame_cap, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    chunker_size = iot_chunker_static_size(1, REC_CHUNK_CAP);
    chunker_mem = mmap(NULL, chunker_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (frame_buf == MAP_FAILED || chunker_mem == MAP_FAILED ||
        !(chunker = iot_chunker_init_static(chunker_mem, chunker_size, 1))) {
        rec_warn("cannot set up the recording of", ENOMEM);
        return -1;
    }
    if (open_trace() != 0)
        return -1;
    rec_trace_fd_move();
    return 0;
}

int rec_trace_fd(void)
{
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

    /* no writer may use the old number while it moves (none when a handler
       interrupted this thread's own write: the fd stays where it is) */
    if (!rec_flush_lock_take(1))
        return;
    old = trace_fd;
    if (old >= 0) {
        nfd = fd_high(old, old);
        if (nfd >= 0) {
            __atomic_store_n(&trace_fd, nfd, __ATOMIC_RELEASE);
            syscall(SYS_close, old);
        }
    }
    rec_flush_lock_drop();
}

void rec_trace_fork_child(void)
{
    /*
     * Another thread of the parent may have been compressing at the fork:
     * the child's copy of the compressor is in an unknown state.
     */
    pthread_mutex_init(&rec_flush_lock, NULL);
    flush_owner = 0;
    chunker = iot_chunker_init_static(chunker_mem, chunker_size, 1);
}

/* ------------------------------------------------------------ writing */

/*
 * Bytes the trace may still grow by under RLIMIT_FSIZE (SIZE_MAX without a
 * limit): a write past it would raise SIGXFSZ in the program.
 */
static size_t frame_room(int fd)
{
    struct rlimit rl;
    struct stat st;

    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        syscall(SYS_fstat, fd, &st) != 0)
        return SIZE_MAX;
    return (uint64_t)st.st_size >= (uint64_t)rl.rlim_cur ? 0
                                                          : (size_t)(rl.rlim_cur - (uint64_t)st.st_size);
}

/* Append one frame with one write() (O_APPEND keeps frames of several processes whole). */
static void write_frame(int fd, const void *p, size_t n)
{
    if (rec_sys_write_all(fd, p, n) != 0)
        rec_stop("cannot write trace", errno ? errno : EIO);
}

/*
 * The chunk's frame does not fit under the file size limit: write the
 * longest run of its records whose frame does (a valid chunk of its own,
 * marked PARTIAL), so that the trace keeps what it can. One chunk's frame
 * can be larger than a small limit (a 64 KiB chunk of irregular times
 * compresses to 26 KB or more): writing nothing then left an empty trace.
 * The frame's size grows with the records kept, so a binary search over
 * the budget of record bytes finds it in a few compressions.
 */
static void emit_cut(int fd, const struct iot_chunk_hdr *h, const void *records, size_t room)
{
    struct iot_chunk_hdr cut = *h;
    size_t lo = 0, hi = h->bytes, n = 0;

    cut.flags = IOT_CHUNK_PARTIAL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;

        cut.bytes = (uint32_t)iot_records_prefix(records, h->bytes, mid, &cut.nrec);
        n = cut.bytes ? iot_chunk_compress(chunker, &cut, records, frame_buf, frame_cap) : 0;
        if (n && n <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    cut.bytes = (uint32_t)iot_records_prefix(records, h->bytes, lo, &cut.nrec);
    if (!cut.bytes)
        return;
    n = iot_chunk_compress(chunker, &cut, records, frame_buf, frame_cap);
    if (n && n <= room)
        write_frame(fd, frame_buf, n);
}

/*
 * Compress and write one chunk. Caller holds rec_flush_lock. A frame that
 * would pass RLIMIT_FSIZE stops recording, after as much of its chunk as
 * fits: the kernel must never raise SIGXFSZ in the program.
 */
static void emit_chunk(const struct iot_chunk_hdr *h, const void *records)
{
    int fd = trace_fd;
    size_t n, room;

    if (rec_stopped || !chunker || fd < 0)
        return;
    n = iot_chunk_compress(chunker, h, records, frame_buf, frame_cap);
    if (n == 0) {
        rec_stop("cannot compress trace", ENOMEM);
        return;
    }
    room = frame_room(fd);
    if (n > room) {
        emit_cut(fd, h, records, room);
        rec_stop("cannot write trace", EFBIG);
        return;
    }
    write_frame(fd, frame_buf, n);
}

void rec_trace_drain(void)
{
    uint32_t idx = rec_queue_take();

    while (idx) {
        uint32_t next = rec_bufs[idx - 1].next;

        emit_chunk(&rec_bufs[idx - 1].hdr, rec_bufs[idx - 1].data);
        rec_buf_put(idx);
        idx = next;
    }
}

/*
 * The reader keeps the longest version of each (stream, seq), so a
 * PARTIAL chunk is superseded by a later snapshot or the closed chunk.
 * The bytes [0, pub) of another thread's open chunk are stable: a writer
 * never rewrites what it published, and only a lock holder recycles a
 * buffer (a thread's own empty one aside).
 */
void rec_trace_snapshot(void)
{
    int n = rec_slots_mapped();

    for (int i = 0; i < n; i++) {
        struct rec_thread *t = rec_slot_at(i);
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
        emit_chunk(&h, rec_bufs[bi - 1].data);
    }
}

/* ------------------------------------------------------------ the lock */

/*
 * Take rec_flush_lock, waiting for it when wait. Never when this thread
 * holds it already: a signal handler that interrupted our own write (its
 * calls are deferred, but exit, exec and fork still flush) would wait for
 * itself. 1 taken, 0 not.
 */
int rec_flush_lock_take(int wait)
{
    int32_t me = rec_gettid();

    if (__atomic_load_n(&flush_owner, __ATOMIC_ACQUIRE) == me)
        return 0;
    if (wait)
        pthread_mutex_lock(&rec_flush_lock);
    else if (pthread_mutex_trylock(&rec_flush_lock) != 0)
        return 0;
    __atomic_store_n(&flush_owner, me, __ATOMIC_RELEASE);
    return 1;
}

void rec_flush_lock_drop(void)
{
    __atomic_store_n(&flush_owner, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rec_flush_lock);
}

void rec_trace_flush(void)
{
    /*
     * Whoever holds the lock writes what is queued; a chunk queued while it
     * held it is seen by its loop after it lets go, so nothing waits and
     * nothing is left behind.
     */
    while (!rec_queue_empty()) {
        if (!rec_flush_lock_take(0))
            return;
        rec_trace_drain();
        rec_flush_lock_drop();
    }
}

void rec_flush_now(void)
{
    if (!rec_flush_lock_take(1))
        return;
    rec_trace_drain();
    rec_trace_snapshot();
    rec_flush_lock_drop();
}
