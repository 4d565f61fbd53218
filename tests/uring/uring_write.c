/*
 * uring_write.c - 1000 one-byte writes to a file through io_uring with
 * liburing, whose io_uring_enter is its own syscall instruction: no libc
 * wrapper sees them. test_rec_kernel_raw.sh builds it (-luring) when
 * liburing-dev is installed.
 */
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct io_uring ring;
    int fd = open(argc > 1 ? argv[1] : "uring.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0 || io_uring_queue_init(8, &ring, 0) != 0)
        return 2;
    for (int i = 0; i < 1000; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        struct io_uring_cqe *cqe;

        io_uring_prep_write(sqe, fd, "x", 1, (unsigned long long)i);
        if (io_uring_submit(&ring) != 1 || io_uring_wait_cqe(&ring, &cqe) != 0 || cqe->res != 1)
            return 3;
        io_uring_cqe_seen(&ring, cqe);
    }
    io_uring_queue_exit(&ring);
    close(fd);
    return 0;
}
