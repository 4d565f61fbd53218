/*
 * tracefile.c - the trace file when no collector writes it (plain preload):
 * where its fd lives, compressing a chunk into one zstd frame and appending
 * it with one write(), writing the queue when a chunk closes, and
 * snapshotting open chunks at exit and exec. Under a collector the same
 * entry points only wake it.
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

#include "frame.h"
#include "internal.h"
#include "outrule.h"
#include "sandbox.h"

pthread_mutex_t rec_flush_lock = PTHREAD_MUTEX_INITIALIZER;
/* The tid holding rec_flush_lock, 0 none: a handler must not wait for its own thread. */
static int32_t flush_owner;

/* The file the trace fd was opened on: the program may have taken its
   number by a syscall of its own, which no wrapper sees (trace_fd_checked). */
static dev_t trace_dev;
static ino_t trace_ino;

static struct rec_framer framer;          /* static: compressing never allocates */

/* The framer's question: may it make syscalls the program does not? */
static int no_filter(void)
{
    return !rec_filter_may_stand();
}
static void *chunker_mem;
static size_t chunker_size;

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
 * Whether the file st at the output is one another user controls
 * (outrule.h): said once, and the program runs unrecorded.
 */
static int output_refused(const struct stat *st)
{
    char buf[192];
    const char *why = rec_output_refusal(rec_out_path, st, buf, sizeof(buf));

    if (!why)
        return 0;
    rec_warn_refuse(why);
    return 1;
}

/*
 * Under the launcher, the trace is written to its spool file (see
 * iorecord.c), opened without O_CREAT: once the launcher has renamed it onto
 * the output (a daemon's child that starts later) it is gone, and the output
 * is opened instead. A spool that is not our own regular file was planted
 * at its name after that rename: the output is opened then too.
 *
 * The output gets the launcher's owner rule, which the launcher could not
 * apply when the library was preloaded without it: judged on lstat before
 * the open (a FIFO of another user's is not even opened, which would wake
 * its reader), and again on the opened fd, so a file swapped in between is
 * refused too.
 *
 * The fd may take any number for now: rec_trace_open() moves it up out of
 * the program's way before the program runs (rec_fd_high).
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
        if (syscall(SYS_newfstatat, AT_FDCWD, rec_out_path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            output_refused(&st))
            return -1;
        /* O_NONBLOCK, then cleared: a FIFO nobody reads would hold the
           program in our constructor for as long as nobody came. */
        fd = (int)syscall(SYS_openat, AT_FDCWD, rec_out_path,
                          O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
                          O_CLOEXEC, 0600);
        if (fd >= 0)
            syscall(SYS_fcntl, fd, F_SETFL, O_APPEND);
        if (fd < 0 && errno == ELOOP) {
            rec_warn_refuse("is a symbolic link: not writing the trace through it");
            return -1;
        }
        if (fd < 0 && errno == ENXIO) {
            rec_warn_refuse("is a FIFO nobody reads: not waiting for a reader");
            return -1;
        }
        if (fd < 0) {
            rec_warn("cannot open trace", errno);
            return -1;
        }
        if ((syscall(SYS_fstat, fd, &st) == 0 && output_refused(&st)) || !output_usable(fd)) {
            syscall(SYS_close, fd);
            return -1;
        }
    }
    if (syscall(SYS_fstat, fd, &st) == 0) {
        trace_dev = st.st_dev;
        trace_ino = st.st_ino;
    }
    rec_own_fd_set(REC_OWN_TRACE, fd);
    return 0;
}

/*
 * The trace fd, after checking that it still is the one we opened: a
 * close_range, close or dup2 that the program made with a syscall
 * instruction of its own (no wrapper sees it) may have closed it, or put
 * one of the program's files at its number, which must never get a frame.
 * Then the trace is opened again (O_APPEND: no frame is lost or cut) and
 * moved out of the way; the number is the program's now and stays open.
 * One fstat per frame written. Caller holds rec_flush_lock.
 */
static int trace_fd_checked(void)
{
    int fd = rec_own_fd_get(REC_OWN_TRACE), nfd;
    struct stat st;

    if (rec_filter_may_stand())
        return fd;   /* no fstat of our own there: the check is skipped */
    if (fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 &&
        st.st_dev == trace_dev && st.st_ino == trace_ino)
        return fd;
    rec_own_fd_set(REC_OWN_TRACE, -1);
    if (open_trace() != 0)
        return -1;
    fd = rec_own_fd_get(REC_OWN_TRACE);
    nfd = rec_fd_high(fd);
    if (nfd >= 0) {
        rec_own_fd_set(REC_OWN_TRACE, nfd);
        syscall(SYS_close, fd);
        fd = nfd;
    }
    return fd;
}

/*
 * A chunk may close inside a signal handler that interrupted the program
 * anywhere, malloc included: the compressor works in memory mapped here
 * once and never allocates.
 */
int rec_trace_open(void)
{
    if (rec_zstd_load() != 0) {
        rec_warn("cannot load libzstd.so.1 to compress", ELIBACC);
        return -1;
    }
    framer.cap = iot_chunk_bound(REC_CHUNK_CAP);
    framer.may_probe = no_filter;
    framer.buf = mmap(NULL, framer.cap, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    chunker_size = iot_chunker_static_size(1, REC_CHUNK_CAP);
    chunker_mem = mmap(NULL, chunker_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (framer.buf == MAP_FAILED || chunker_mem == MAP_FAILED ||
        !(framer.chunker = iot_chunker_init_static(chunker_mem, chunker_size, 1))) {
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
    return rec_own_fd_get(REC_OWN_TRACE);
}

void rec_trace_fd_move(void)
{
    int old, nfd;

    /* no writer may use the old number while it moves (none when a handler
       interrupted this thread's own write: the fd stays where it is) */
    if (!rec_flush_lock_take(1))
        return;
    old = rec_own_fd_get(REC_OWN_TRACE);
    if (old >= 0) {
        nfd = rec_fd_high(old);
        if (nfd >= 0) {
            rec_own_fd_set(REC_OWN_TRACE, nfd);
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
    if (framer.chunker)
        framer.chunker = iot_chunker_init_static(chunker_mem, chunker_size, 1);
}

/* ------------------------------------------------------------ writing */

/*
 * Compress and write one chunk. Caller holds rec_flush_lock. Past
 * RLIMIT_FSIZE (as much of the chunk as fits is written) or on any other
 * failure, recording stops.
 */
static void emit_chunk(void *ctx, const struct iot_chunk_hdr *h, const void *records)
{
    int fd, err;

    (void)ctx;
    if (rec_stopped || !framer.chunker)
        return;
    fd = trace_fd_checked();
    if (fd < 0) {
        rec_stop("cannot write trace", EBADF);
        return;
    }
    err = rec_frame_write(&framer, fd, h, records);
    if (err == ENOMEM)
        rec_stop("cannot compress trace", err);
    else if (err)
        rec_stop("cannot write trace", err);
}

void rec_trace_drain(void)
{
    rec_seg_drain(rec_seg, emit_chunk, NULL);
}

/*
 * The reader keeps the longest version of each (thread chain, seq), so a
 * PARTIAL chunk is superseded by a later snapshot or the closed chunk.
 */
void rec_trace_snapshot(void)
{
    uint32_t n = __atomic_load_n(&rec_seg->slots_hwm, __ATOMIC_ACQUIRE);

    for (uint32_t i = 0; i < n; i++)
        rec_seg_snapshot_slot(rec_seg, rec_seg_slot_at(rec_seg, i), emit_chunk, NULL);
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
    int32_t me = rec_sandbox_tid();

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
    if (rec_collected) {
        rec_collect_wake();
        return;
    }
    /*
     * Whoever holds the lock writes what is queued; a chunk queued while it
     * held it is seen by its loop after it lets go, so nothing waits and
     * nothing is left behind.
     */
    while (!rec_seg_queue_empty(rec_seg)) {
        if (!rec_flush_lock_take(0))
            return;
        rec_trace_drain();
        rec_flush_lock_drop();
    }
}

void rec_flush_now(void)
{
    /* the collector writes what the process's threads published, and
       learns of an exec or an exit from the image count or the lock */
    if (rec_collected) {
        rec_collect_wake();
        return;
    }
    if (!rec_flush_lock_take(1))
        return;
    rec_trace_drain();
    rec_trace_snapshot();
    rec_flush_lock_drop();
}
