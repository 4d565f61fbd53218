/*
 * wrap_syscall.c - libc's syscall(), which a program calls for what libc
 * has no function for, or to get past libc: the I/O it makes through it,
 * and the seccomp and prctl calls that change what the recorder may do.
 *
 * Processes made here (fork, vfork, clone, clone3) go to wrap_clone.c, to
 * be recorded as a fork's child or declared unrecorded; close_range, dup,
 * dup2 and dup3 go through the libc functions' wrappers, which keep the
 * recorder's own fds out of the program's way (ownfds.c).
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

/* ------------------------------------------------------------- syscall() */

/*
 * A program's syscall(SYS_read, ...) is the same I/O as read(): recorded
 * like the libc function, and io_uring and Linux AIO
 * submissions, which nothing else sees, as the fact (op async); an
 * io_uring_setup first asks for the kernel path (kernel_ask.c). The
 * recorder's own raw syscalls come here too (it calls syscall() and this
 * library exports it): a call from inside this library's image passes
 * straight through.
 */
REAL_HERE(long, syscall, (long, ...));

static int from_self(const void *ra)
{
    return (const char *)ra >= __ehdr_start && (const char *)ra < _end;
}

static int close_checked(int fd)
{
    if (rec_own_fd(fd)) {
        errno = EBADF;
        return -1;
    }
    return (int)CALL_REAL(-1, syscall, (long)SYS_close, (long)fd);
}

/* Linux AIO: one record per iocb submitted (the kernel's layout). */
static void rec_io_submit(const long *a, long r, int err, uint64_t s0, uint64_t s1)
{
    const struct iocb *const *cbs = (const struct iocb *const *)a[2];

    /* The kernel read the first r of them (none when it failed). */
    for (long i = 0; i < r && i < a[1] && i < 1024; i++)
        if (cbs[i])
            rec_async("io_submit", (int)cbs[i]->aio_fildes, (int64_t)cbs[i]->aio_nbytes,
                      cbs[i]->aio_offset, r, err, s0, s1);
}

/*
 * seccomp() and prctl() through syscall(): what they change for the
 * recorder is noted (sandbox.c), recording or not, since the clock must
 * follow the TSC whatever the recorder does.
 */
static long sandbox_call(long n, const long *a)
{
    unsigned token = rec_sandbox_before(n == SYS_seccomp, a[0],
                                        (unsigned long)(n == SYS_seccomp ? 0 : a[1]));
    long r = CALL_REAL(-1, syscall, n, a[0], a[1], a[2], a[3], a[4], a[5]);

    if (token) {
        int saved = errno;

        rec_sandbox_after(token, r);
        errno = saved;
    }
    return r;
}

/*
 * The six argument words are read whatever the caller passed, as the
 * kernel's interface does (glibc's syscall() is assembly that loads six
 * registers): the sixth comes from the caller's stack, so AddressSanitizer
 * must not check these reads.
 */
__attribute__((no_sanitize_address)) long syscall(long n, ...)
{
    va_list ap;
    long a[6], r;
    uint64_t s0, s1;
    int fd, err;

    va_start(ap, n);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (from_self(__builtin_return_address(0)))
        return CALL_REAL(-1, syscall, n, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (n == SYS_prctl || n == SYS_seccomp)
        return sandbox_call(n, a);
    /* in strict mode the only way out: the exit record first */
    if (n == SYS_exit && (rec_sandbox & REC_SANDBOX_STRICT) && !rec_guard)
        rec_finish((int)(a[0] & 0xff), 0);
    if (!rec_active || rec_guard)
        return CALL_REAL(-1, syscall, n, a[0], a[1], a[2], a[3], a[4], a[5]);
    fd = (int)a[0];
    switch (n) {
    case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64:
    case SYS_readv: case SYS_writev:
        rec_fd_check(fd);
        break;
    case SYS_io_uring_setup:
        /* the ring's I/O is the kernel's to see: asked for before the ring
           exists, it follows every request (a no-op when it follows us) */
        rec_kernel_ask();
        break;
    case SYS_open: case SYS_openat: case SYS_close:
    case SYS_io_uring_enter: case SYS_io_submit:
        break;
    case SYS_fork: case SYS_vfork: case SYS_clone: case SYS_clone3:
        return REAL(syscall) ? rec_raw_clone(n, a, real_syscall)
                            : (errno = ENOSYS, -1);
    case SYS_close_range:
        return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
    case SYS_dup:
        return dup(fd);
    case SYS_dup2:
        return dup2(fd, (int)a[1]);
    case SYS_dup3:
        return dup3(fd, (int)a[1], (int)a[2]);
    default:
        rec_creds_syscall(n, a);
        return CALL_REAL(-1, syscall, n, a[0], a[1], a[2], a[3], a[4], a[5]);
    }
    s0 = rec_stamp();
    r = n == SYS_close ? close_checked(fd)
                       : CALL_REAL(-1, syscall, n, a[0], a[1], a[2], a[3], a[4], a[5]);
    s1 = rec_stamp();
    err = ERR_OF(r);
    switch (n) {
    case SYS_read:
    case SYS_write:
        rec_io(n == SYS_read ? IOT_OP_READ : IOT_OP_WRITE, fd, a[2], r, err, s0, s1);
        break;
    case SYS_readv:
    case SYS_writev:
        rec_io(n == SYS_readv ? IOT_OP_READV : IOT_OP_WRITEV, fd,
               iov_sum((const struct iovec *)a[1], (int)a[2], r, err), r, err, s0, s1);
        break;
    case SYS_pread64:
    case SYS_pwrite64:
        rec_fd_call(n == SYS_pread64 ? IOT_OP_PREAD : IOT_OP_PWRITE, fd, a[2], r, err,
                    IOT_HAS_OFFSET, a[3], NULL, s0, s1);
        break;
    case SYS_open:
        rec_open_as(IOT_OP_OPEN, AT_FDCWD, (const char *)a[0], (int)a[1], (int)r, err, s0, s1);
        break;
    case SYS_openat:
        rec_open_as(IOT_OP_OPEN, fd, (const char *)a[1], (int)a[2], (int)r, err, s0, s1);
        break;
    case SYS_close: {
        struct iot_event ev = rec_event(IOT_OP_CLOSE, r, err);

        rec_fd_unmark(fd);
        ev.has |= IOT_HAS_FD;
        ev.fd = fd;
        rec_call(&ev, NULL, NULL, NULL, s0, s1);
        break;
    }
    case SYS_io_uring_setup:
        rec_fd_mark((int)r);
        rec_async("io_uring_setup", r >= 0 ? (int)r : -1, -1, 0, r, err, s0, s1);
        break;
    case SYS_io_uring_enter:
        rec_async("io_uring_enter", fd, -1, 0, r, err, s0, s1);
        break;
    case SYS_io_submit:
        rec_io_submit(a, r, err, s0, s1);
        break;
    default:
        break;
    }
    return r;
}
