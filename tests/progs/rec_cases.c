/*
 * rec_cases: the cases of issue 17's first heading, one per mode, for
 * tests/e2e/test_rec_seen.sh.
 *   pf N          N printf calls on an unbuffered stdout
 *   pc N          N fputs(stdout) calls (stdout as the shell gave it)
 *   pcu N         the same on an unbuffered stdout
 *   pcf N PATH    the same on an unbuffered stream fopen'ed here
 *   wr N          N write(1, ..., 11)
 *   forkpipe      pipe, fork; the parent closes the read end and opens
 *                 /etc/hostname (fd 3 again) while the child reads the pipe
 *   cloexec PATH  open PATH (fd 3), close_range(3, ~0U,
 *                 CLOSE_RANGE_CLOEXEC), then read 100 bytes from fd 3
 *   mkstemp DIR   write 3 x 4096 bytes to a mkstemp file in DIR, unlink it
 *   sysrw PATH    through syscall(): open PATH, 100 writes of 10 bytes, 10
 *                 preads of 10 bytes, close
 *   async PATH    aio_write of 4096 bytes to PATH (waited for), and an
 *                 io_uring_setup through syscall() (its result ignored: a
 *                 container may refuse it)
 *   kaio PATH     a 4096-byte write to PATH through Linux AIO with the
 *                 syscalls made by syscall(), as libaio makes them: io_setup,
 *                 io_submit, io_getevents, io_destroy. Exit 2 when the
 *                 kernel refuses io_setup.
 *   uring PATH N  N reads of 4096 bytes of PATH through an io_uring (raw
 *                 syscalls, no liburing): one submission and one completion
 *                 per io_uring_enter; prints the bytes read. Exit 2 when the
 *                 kernel refuses io_uring (disabled, seccomp).
 * Exit 0 when every call did what Linux documents.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The write of `kaio PATH`: 0, -1 on a failure, -2 when AIO is refused. */
static int kaio_write(const char *path)
{
    static char buf[4096];
    aio_context_t ctx = 0;
    struct iocb cb, *cbs[1] = {&cb};
    struct io_event ev;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return -1;
    if (syscall(SYS_io_setup, 1L, &ctx) != 0)
        return -2;
    memset(&cb, 0, sizeof(cb));
    cb.aio_fildes = (uint32_t)fd;
    cb.aio_lio_opcode = IOCB_CMD_PWRITE;
    cb.aio_buf = (uint64_t)(uintptr_t)buf;
    cb.aio_nbytes = sizeof(buf);
    if (syscall(SYS_io_submit, ctx, 1L, cbs) != 1 ||
        syscall(SYS_io_getevents, ctx, 1L, 1L, &ev, NULL) != 1 || ev.res != (int64_t)sizeof(buf))
        return -1;
    return syscall(SYS_io_destroy, ctx) == 0 && close(fd) == 0 ? 0 : -1;
}

/* The reads of `uring PATH N`; -1 on a failure, -2 when io_uring is refused. */
static long uring_reads(const char *path, int n)
{
    struct io_uring_params p;
    static char buf[4096];
    unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqes;
    char *sq, *cq;
    long total = 0;
    int ring, fd = open(path, O_RDONLY);

    memset(&p, 0, sizeof(p));
    if (fd < 0)
        return -1;
    ring = (int)syscall(SYS_io_uring_setup, 4L, &p);
    if (ring < 0)
        return -2;
    sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned),
              PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
              PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
        return -1;
    sq_tail = (unsigned *)(sq + p.sq_off.tail);
    sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    sq_array = (unsigned *)(sq + p.sq_off.array);
    cq_head = (unsigned *)(cq + p.cq_off.head);
    cq_tail = (unsigned *)(cq + p.cq_off.tail);
    cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    for (int i = 0; i < n; i++) {
        unsigned t = *sq_tail, idx = t & *sq_mask, h;
        struct io_uring_sqe *e = &sqes[idx];

        memset(e, 0, sizeof(*e));
        e->opcode = IORING_OP_READ;
        e->fd = fd;
        e->addr = (unsigned long)buf;
        e->len = sizeof(buf);
        e->off = (unsigned long long)i * sizeof(buf);
        sq_array[idx] = idx;
        __atomic_store_n(sq_tail, t + 1, __ATOMIC_RELEASE);
        if (syscall(SYS_io_uring_enter, ring, 1L, 1L, (long)IORING_ENTER_GETEVENTS, NULL, 0L) != 1)
            return -1;
        h = *cq_head;
        if (h == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) || cqes[h & *cq_mask].res < 0)
            return -1;
        total += cqes[h & *cq_mask].res;
        __atomic_store_n(cq_head, h + 1, __ATOMIC_RELEASE);
    }
    return close(ring) == 0 && close(fd) == 0 ? total : -1;
}

static int forkpipe(void)
{
    char buf[4096];
    int p[2], fd, st;
    pid_t c;

    if (pipe(p) != 0 || p[0] != 3)
        return 1;
    c = fork();
    if (c < 0)
        return 1;
    if (c == 0) {
        long n = 0;
        ssize_t r;

        close(p[1]);
        usleep(100000);     /* the parent reopens fd 3 meanwhile */
        while ((r = read(p[0], buf, 4)) > 0)
            n += r;
        _exit(n == 409600 ? 0 : 1);
    }
    close(p[0]);
    fd = open("/etc/hostname", O_RDONLY);
    if (fd != 3 || read(fd, buf, sizeof(buf)) < 0)
        return 1;
    for (int i = 0; i < 102400; i++)
        if (write(p[1], "abcd", 4) != 4)
            return 1;
    close(p[1]);
    if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return 1;
    return close(fd) != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long n = argc > 2 ? atol(argv[2]) : 0;

    if (!strcmp(mode, "pf")) {
        setvbuf(stdout, NULL, _IONBF, 0);
        for (long i = 0; i < n; i++)
            if (printf("%05ld\n", i % 100000) != 6)
                return 1;
        return 0;
    }
    if (!strcmp(mode, "pc") || !strcmp(mode, "pcu") || !strcmp(mode, "pcf")) {
        FILE *f = stdout;

        if (!strcmp(mode, "pcu") && setvbuf(stdout, NULL, _IONBF, 0) != 0)
            return 1;
        if (!strcmp(mode, "pcf")) {
            f = argc > 3 ? fopen(argv[3], "w") : NULL;
            if (!f || setvbuf(f, NULL, _IONBF, 0) != 0)
                return 1;
        }
        for (long i = 0; i < n; i++)
            if (fputs("0123456789\n", f) < 0)
                return 1;
        return f == stdout ? 0 : fclose(f) != 0;
    }
    if (!strcmp(mode, "wr")) {
        for (long i = 0; i < n; i++)
            if (write(1, "0123456789\n", 11) != 11)
                return 1;
        return 0;
    }
    if (!strcmp(mode, "forkpipe"))
        return forkpipe();
    if (!strcmp(mode, "cloexec") && argc > 2) {
        char buf[100];

        if (open(argv[2], O_RDONLY) != 3 || close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
            return 1;
        return read(3, buf, sizeof(buf)) != 100;
    }
    if (!strcmp(mode, "mkstemp") && argc > 2) {
        char path[4096], buf[4096];
        int fd;

        snprintf(path, sizeof(path), "%s/tmpXXXXXX", argv[2]);
        memset(buf, 'm', sizeof(buf));
        fd = mkstemp(path);
        if (fd < 0)
            return 1;
        for (int i = 0; i < 3; i++)
            if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
                return 1;
        printf("%s\n", path);
        return close(fd) != 0 || unlink(path) != 0;
    }
    if (!strcmp(mode, "sysrw") && argc > 2) {
        char buf[10];
        long fd = syscall(SYS_openat, AT_FDCWD, argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);

        if (fd < 0)
            return 1;
        for (int i = 0; i < 100; i++)
            if (syscall(SYS_write, fd, "0123456789", 10L) != 10)
                return 1;
        for (int i = 0; i < 10; i++)
            if (syscall(SYS_pread64, fd, buf, 10L, (long)i * 10) != 10)
                return 1;
        return syscall(SYS_close, fd) != 0;
    }
    if (!strcmp(mode, "kaio") && argc > 2) {
        int r = kaio_write(argv[2]);

        return r == -2 ? 2 : r != 0;
    }
    if (!strcmp(mode, "uring") && argc > 3) {
        long got = uring_reads(argv[2], atoi(argv[3]));

        if (got == -2)
            return 2;
        printf("%ld\n", got);
        return got < 0;
    }
    if (!strcmp(mode, "async") && argc > 2) {
        static char buf[4096];
        struct aiocb cb;
        long params[15] = {0};     /* struct io_uring_params: 120 bytes */
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        long ring;

        if (fd < 0)
            return 1;
        memset(&cb, 0, sizeof(cb));
        cb.aio_fildes = fd;
        cb.aio_buf = buf;
        cb.aio_nbytes = sizeof(buf);
        if (aio_write(&cb) != 0)
            return 1;
        while (aio_error(&cb) == EINPROGRESS)
            usleep(1000);
        if (aio_return(&cb) != (ssize_t)sizeof(buf))
            return 1;
        ring = syscall(SYS_io_uring_setup, 4L, params);
        if (ring >= 0)
            close((int)ring);
        return close(fd) != 0;
    }
    return 2;
}
