/*
 * wrap.h - what the wrapper files (wrap_*.c) share with each other: the
 * stdio record builder and the set of fds the process is known to hold.
 *
 * Every descriptor has a name: each wrapper that makes an fd marks it
 * seen, each that closes one unmarks it, and the first data call on an fd
 * that is not marked (inherited across exec, or made by a call no wrapper
 * sees) first records what the fd is, once: an `fdpath` event with its
 * /proc/self/fd target.
 */
#ifndef REC_WRAP_H
#define REC_WRAP_H

#include <stdint.h>
#include <stdio.h>
#include <sys/single_threaded.h>
#include <sys/uio.h>

#include "rec.h"
#include "site.h"

#pragma GCC visibility push(hidden)

/* fds below this are followed; higher ones are taken as seen and busy */
#define REC_FD_SEEN 4096

/*
 * What the recorder knows of an fd below REC_FD_SEEN (rec_fd_state[fd]),
 * for two things: naming an fd it did not see made, and skipping the fstat
 * that gives close() its file_size when nothing can have changed the file
 * through that fd (the fstat costs as much as a fast open()).
 */
enum rec_fd_state {
    REC_FD_UNSEEN = 0,  /* not seen made: its first data call names it */
    REC_FD_QUIET,       /* made by a wrapped call, nothing through it since */
    REC_FD_BUSY,        /* data went through it (read, write, map, copy, size
                           change), or it shares its file with another fd
                           (dup, fork) through which data may go */
    REC_FD_OWN          /* the recorder's own (ownfds.c): to the program it
                           is not open; only ownfds.c sets or clears it */
};

/*
 * One byte per fd, so the check on the hot path is a load and a compare,
 * and each fd's byte is stored on its own (no read-modify-write shared
 * with other fds). Relaxed: threads racing on one fd number race in the
 * program too; the worst outcome is one fdpath event too many, or a close
 * without its file size.
 */
extern uint8_t rec_fd_state[REC_FD_SEEN];

static inline unsigned rec_fd_get(int fd)
{
    return __atomic_load_n(&rec_fd_state[(unsigned)fd], __ATOMIC_RELAXED);
}

static inline void rec_fd_set(int fd, unsigned state)
{
    if ((unsigned)fd < REC_FD_SEEN && rec_guard != REC_GUARD_OFF &&
        rec_fd_get(fd) != REC_FD_OWN)
        __atomic_store_n(&rec_fd_state[(unsigned)fd], (uint8_t)state,
                         __ATOMIC_RELAXED);
}

/*
 * Record an `fdpath` for fd, timed at stamp s0, and mark it seen. Out of
 * line: it reads /proc, once per fd.
 */
void rec_fd_name(int fd, uint64_t s0);

/*
 * A wrapper made fd. Not in a vfork child (guard off): it shares our
 * memory, not our fd table, so its dup2 or close before its exec leaves
 * the parent's state alone (its exec'd image names its fds itself, with
 * fdpath records, at their first data call).
 */
static inline void rec_fd_mark(int fd)
{
    if (rec_guard == REC_GUARD_OFF)
        return;
    rec_fd_set(fd, REC_FD_QUIET);
    rec_site_fd_reset(fd);
}

/* fd shares its open file with another fd: data through either changes it. */
static inline void rec_fd_shared(int fd)
{
    if ((unsigned)fd < REC_FD_SEEN && rec_fd_get(fd) == REC_FD_QUIET)
        rec_fd_set(fd, REC_FD_BUSY);
}

/* Before fork: every fd the child inherits is shared with it. */
void rec_fd_shared_all(void);

/* fd was closed: a later fd with its number is new. */
static inline void rec_fd_unmark(int fd)
{
    if (rec_guard == REC_GUARD_OFF)
        return;   /* a vfork child's (rec_fd_mark) */
    rec_fd_set(fd, REC_FD_UNSEEN);
    rec_site_fd_reset(fd);
}

static inline int rec_fd_unseen(int fd)
{
    return (unsigned)fd < REC_FD_SEEN && rec_fd_get(fd) == REC_FD_UNSEEN;
}

/*
 * Whether close() should record fd's file size: unless the recorder saw
 * the fd made and nothing since that could change its file (a lock file,
 * a probe, an open to fstat or to hold).
 */
static inline int rec_fd_wants_size(int fd)
{
    return (unsigned)fd >= REC_FD_SEEN || rec_fd_get(fd) != REC_FD_QUIET;
}

/* The slow side of rec_fd_check: name fd if it is new, then mark it busy. */
void rec_fd_first_data(int fd);

/*
 * Whether fd is one of the recorder's own: a call of the program that
 * names it fails with EBADF, as on an fd that is not open (CALL_REAL_FD).
 */
static inline int rec_fd_ours(int fd)
{
    return (unsigned)fd < REC_FD_SEEN && rec_fd_get(fd) == REC_FD_OWN;
}

/*
 * A data call is about to be made on fd: name fd first if it is new to us
 * (before the call's own stamps, so its time is not the call's), and note
 * that data goes through it. Returns 1 when fd is one of the recorder's
 * own, which the call must not reach: found on the slow side of the one
 * compare the hot path makes anyway (an own fd is never BUSY).
 */
static inline int rec_fd_check(int fd)
{
    if (REC_UNLIKELY((unsigned)fd < REC_FD_SEEN && rec_fd_get(fd) != REC_FD_BUSY)) {
        if (rec_fd_get(fd) == REC_FD_OWN)
            return 1;
        rec_fd_first_data(fd);
    }
    return 0;
}

/*
 * The real call on fd, or EBADF when fd is the recorder's (the program
 * never opened it). For wrappers off the hot path; those on it use
 * rec_fd_check's answer.
 */
#define CALL_REAL_FD(fail, fd, name, ...)                                      \
    (REC_UNLIKELY(rec_fd_ours(fd)) ? (errno = EBADF, (fail))                  \
                                   : CALL_REAL(fail, name, __VA_ARGS__))

/* The real call, or EBADF when own (rec_fd_check's answer) says fd is ours. */
#define CALL_REAL_OWN(own, fail, name, ...)                                    \
    (REC_UNLIKELY(own) ? (errno = EBADF, (fail)) : CALL_REAL(fail, name, __VA_ARGS__))

/*
 * Whether read, write, pread and pwrite may be made by the wrapper's own
 * syscall instruction (resolve.c): x86-64, libc's own functions are the
 * next of each name after this library (no other interposer between), and
 * no pthread_cancel was called (wrap_proc.c turns it off for good).
 */
extern int rec_direct_rw;

/*
 * A syscall of up to four arguments, made here, with libc's convention for
 * the result: -1 and errno on failure. What glibc's read, write, pread64
 * and pwrite64 do themselves in a single-threaded process (their
 * cancellation handling is for processes with threads). Made here, the
 * call saves libc's call and return; where the kernel's entry leaves the
 * CPU's return predictor empty (AMD's SRSO mitigation, "Safe RET"), every
 * return into a frame entered before the syscall mispredicts: natively
 * the program pays one (libc's), and through libc the wrapper would add
 * its own (docs/performance.md).
 */
static inline __attribute__((always_inline)) long
rec_direct_syscall(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d;
    long r;

    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    if (REC_UNLIKELY((unsigned long)r > -4096UL)) {
        errno = (int)-r;
        r = -1;
    }
    return r;
#else
    (void)nr, (void)a, (void)b, (void)c, (void)d;
    errno = ENOSYS;     /* never called: rec_direct_rw is 0 */
    return -1;
#endif
}
#define REC_DIRECT_ARGS_(nr, a, b, c, d, ...)                                  \
    rec_direct_syscall(nr, (long)(a), (long)(b), (long)(c), (long)(d))

/*
 * The data call name(args) on fd, where own is rec_fd_check's answer: made
 * by syscall nr here when it may be (a single-threaded process,
 * rec_direct_rw; REC_VIA_LIBC: never), else through libc (CALL_REAL_OWN).
 */
#define REC_VIA_LIBC (-1)   /* not a syscall number: read's is 0 on x86-64 */
#define CALL_DATA(own, nr, name, ...)                                          \
    ((nr) != REC_VIA_LIBC &&                                                   \
             REC_LIKELY(__atomic_load_n(&rec_direct_rw, __ATOMIC_RELAXED)) &&  \
             REC_LIKELY(!(own)) && REC_LIKELY(__libc_single_threaded)          \
         ? REC_DIRECT_ARGS_(nr, __VA_ARGS__, 0)                                \
         : CALL_REAL_OWN(own, -1, name, __VA_ARGS__))

/*
 * The real call of a function that makes an fd, made once more when it
 * failed with EMFILE and the recorder moved its own fds out of the
 * program's range (rec_own_fds_make_room): natively those numbers were
 * free. A call failing with EMFILE changed nothing (the kernel takes the
 * fd number first), so making it again is safe; other calls pay one
 * compare with fail.
 */
#define CALL_REAL_NEWFD(r, fail, name, ...)                                    \
    do {                                                                       \
        (r) = CALL_REAL(fail, name, __VA_ARGS__);                              \
        if (REC_UNLIKELY((r) == (fail)) && errno == EMFILE &&                  \
            rec_own_fds_make_room())                                           \
            (r) = CALL_REAL(fail, name, __VA_ARGS__);                          \
    } while (0)

/* WRAP_BODY for a function that makes an fd (CALL_REAL_NEWFD). */
#define WRAP_BODY_NEWFD(rtype, fail, name, record, ...)                        \
    uint64_t s0, s1;                                                           \
    rtype r;                                                                   \
    if (!rec_active)                                                           \
        return CALL_REAL(fail, name, __VA_ARGS__);                             \
    s0 = rec_stamp();                                                          \
    CALL_REAL_NEWFD(r, fail, name, __VA_ARGS__);                               \
    s1 = rec_stamp();                                                          \
    record;                                                                    \
    return r

/* WRAP_BODY (real.h) for a call on fd. */
#define WRAP_BODY_FD(rtype, fail, fd, name, record, ...)                       \
    uint64_t s0, s1;                                                           \
    rtype r;                                                                   \
    if (!rec_active)                                                           \
        return CALL_REAL_FD(fail, fd, name, __VA_ARGS__);                      \
    s0 = rec_stamp();                                                          \
    r = CALL_REAL_FD(fail, fd, name, __VA_ARGS__);                             \
    s1 = rec_stamp();                                                          \
    record;                                                                    \
    return r

/*
 * Record I/O that no wrapper can follow, as the fact (wrap_async.c): what
 * (the call's name), fd (-1 unknown), size (-1 unknown) and offset.
 */
void rec_async(const char *what, int fd, int64_t size, int64_t offset,
               int64_t r, int err, uint64_t s0, uint64_t s1);

/*
 * What a wrapper may read of the program's pointers (argsafe.c).
 *
 * Whether p can be a user address at all: not in the first page (NULL and
 * small integers), not in the kernel's half.
 */
static inline int rec_ptr_plausible(const void *p)
{
    return (uintptr_t)p >= 4096 && (intptr_t)p > 0;
}

/*
 * Whether the path p of a call that ended with err (0: it succeeded) was
 * read whole by the kernel, so that the recorder may read it too.
 */
int rec_path_readable(const void *p, int err);

/*
 * The path p of a call that ended with err, to record: p when the kernel
 * read it, else a copy into copy (cap bytes) made without faulting, else
 * NULL (unreadable, or not to be read where a seccomp filter may stand).
 */
const char *rec_path_arg(const char *p, int err, char *copy, size_t cap);
/* A copy's size: longer paths a call did not read are left out. */
#define REC_PATH_COPY 1024

/*
 * Whether a vectored call that returned r (errno err) read its iovec
 * array: it succeeded, or failed after the kernel imported the array
 * (which it does before any I/O, after checking the fd).
 */
static inline int iov_read(int64_t r, int err)
{
    return r >= 0 || err == EAGAIN || err == EINTR || err == EIO || err == ENOSPC ||
           err == EPIPE || err == EDQUOT || err == EFBIG;
}

/* The bytes an iovec array asks for, or 0 when the call did not read it. */
int64_t iov_sum(const struct iovec *iov, int n, int64_t r, int err);

/*
 * Record a call on fd with a size, and with an offset when more says so;
 * ra: the call's return address into the program, whose site may give it
 * a stack (site.h), or NULL for none.
 */
void rec_fd_call(unsigned op, int fd, int64_t size, int64_t ret, int err, uint32_t more,
                 int64_t offset, const void *ra, uint64_t s0, uint64_t s1);

/* rec_data() of a call that carries its stack (call.c): the rare side. */
void rec_data_stacked(unsigned op, int32_t fd, uint64_t stream, int64_t size, int64_t ret,
                      int32_t err, uint64_t s0, uint64_t s1);

/*
 * rec_data() of a call returning to ra: with its stack when its site is
 * due one (site.h), a predictable branch otherwise.
 */
static inline __attribute__((always_inline)) void
rec_data_at(unsigned op, int32_t fd, uint64_t stream, int64_t size, int64_t ret, int32_t err,
            uint64_t s0, uint64_t s1, const void *ra)
{
    if (REC_UNLIKELY(rec_site_due(fd, rec_site_class(op), ra)))
        rec_data_stacked(op, fd, stream, size, ret, err, s0, s1);
    else
        rec_data(op, fd, stream, size, ret, err, s0, s1);
}

/*
 * The absolute form of a path given relative to dirfd (AT_FDCWD: the cwd),
 * so that calls on one file match whatever directory the program was in:
 * the directory from raw syscalls (no wrapper runs), joined by
 * iot_path_join into buf. path itself when it is NULL, absolute or empty,
 * or when the directory is unknown (abspath.c; open's paths and the
 * metadata calls' are made alike).
 */
const char *path_from_dirfd(int dirfd, const char *path, char *buf, size_t cap);

/*
 * Record an open-like call (op: open, opendir) of path relative to dirfd
 * that made fd r (or failed with err), with a stack as opens have
 * (wrap_posix.c).
 */
void rec_open_as(unsigned op, int dirfd, const char *path, int flags, int r, int err,
                 uint64_t s0, uint64_t s1);

/* Record a stdio call on f (wrap_stdio.c). err: errno to store, 0 for none. */
void rec_stdio(unsigned op, FILE *f, uint32_t more, int64_t size, int64_t ret,
               int err, uint64_t s0, uint64_t s1);

/*
 * Before a stdio call on f: what inline getc/putc macros did to f's buffer
 * since the recorder last saw it, recorded first, at stamp t (the call's
 * start: the bytes moved before it) (wrap_stdio.c).
 */
void rec_stdio_pre(FILE *f, uint64_t t);

/*
 * The errno of a stream call that came up short: only when it failed. Read
 * here, right after the call, and only then: errno is a call away
 * (__errno_location), too much for every 20 ns fwrite.
 */
static inline int rec_stream_err(FILE *f, int shortfall)
{
    return shortfall && f && ferror_unlocked(f) ? (errno ? errno : EIO) : 0;
}

/* glibc's FILE flags (libio.h; fixed by the ABI its inline getc uses). */
#define LIBIO_UNBUFFERED        0x0002
#define LIBIO_LINE_BUF          0x0200
#define LIBIO_CURRENTLY_PUTTING 0x0800
#define LIBIO_USER_LOCK         0x8000  /* FSETLOCKING_BYCALLER */

/*
 * The lock of a stream a recorded call works on, when the call is one of
 * stdio's locking forms and the process has threads: held (flockfile,
 * recursive like stdio's own, which the real call then takes again) from
 * before rec_stdio_pre to after the record, after the call's first stamp
 * (so that its time still counts any wait for the lock, as natively the
 * call's own wait does), so that no other thread moves
 * the buffer between the stream mark's check, the call and the mark's
 * update, which would make its bytes look like inline getc/putc bytes.
 * Not in a single-threaded process, nor on a stream whose caller does the
 * locking, nor for the _unlocked forms (locks = 0): there the program keeps
 * other threads off the stream, and taking the lock for it could block
 * where it does not natively. Returns whether it took the lock.
 */
static inline int rec_stream_hold(int locks, FILE *f)
{
    if (!locks || REC_LIKELY(__libc_single_threaded) || !f ||
        (f->_flags & LIBIO_USER_LOCK))
        return 0;
    flockfile(f);
    return 1;
}

static inline void rec_stream_release(FILE *f, int held)
{
    if (held)
        funlockfile(f);
}

/*
 * Entering a recorded stdio call on f: its first stamp, then f's lock when
 * `locks` says the real function takes it (rec_stream_hold; *held tells
 * rec_stream_release), then what inline code did to f's buffer
 * (rec_stdio_pre, at that stamp). Returns the stamp.
 */
static inline uint64_t rec_stdio_enter(int locks, FILE *f, int *held)
{
    uint64_t s0 = rec_stamp();

    *held = rec_stream_hold(locks, f);
    rec_stdio_pre(f, s0);
    return s0;
}

/*
 * A stdio wrapper's body: WRAP_BODY (real.h) with rec_stdio_enter first,
 * and f's lock released after the record.
 */
#define STDIO_BODY(locks, rtype, fail, name, f, record, ...)                   \
    uint64_t s0, s1;                                                           \
    rtype r;                                                                   \
    int held_;                                                                 \
    if (!rec_active)                                                           \
        return CALL_REAL(fail, name, __VA_ARGS__);                             \
    s0 = rec_stdio_enter((locks), (f), &held_);                                \
    r = CALL_REAL(fail, name, __VA_ARGS__);                                    \
    s1 = rec_stamp();                                                          \
    record;                                                                    \
    rec_stream_release((f), held_);                                            \
    return r

/*
 * syscall(n) for n a fork, vfork, clone or clone3, a[] its arguments, made
 * through sys (libc's syscall()): the child recorded as a fork's, or
 * declared unrecorded (wrap_clone.c).
 */
long rec_raw_clone(long n, const long a[6], long (*sys)(long, ...));

#pragma GCC visibility pop

#endif
