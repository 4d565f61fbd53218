/*
 * uring_raw.c - 1000 one-byte writes to a file through io_uring set up and
 * entered by libc's syscall(), without liburing, as fio's io_uring engine
 * does: the preload sees io_uring_setup and io_uring_enter (and asks for
 * the kernel path at the setup), the writes themselves only the kernel.
 * test_rec_kernel_raw.sh builds it.
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct io_uring_params p;
    int fd = open(argc > 1 ? argv[1] : "uring.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ring;
    char *sq, *cq;
    struct io_uring_sqe *sqes;
    size_t sq_len, cq_len;

    memset(&p, 0, sizeof(p));
    ring = (int)syscall(SYS_io_uring_setup, 4, &p);
    if (fd < 0 || ring < 0)
        return 2;
    sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
    cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
              IORING_OFF_SQ_RING);
    cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
              IORING_OFF_CQ_RING);
    sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
        return 2;
    for (int i = 0; i < 1000; i++) {
        uint32_t *sq_tail = (uint32_t *)(sq + p.sq_off.tail);
        uint32_t mask = *(uint32_t *)(sq + p.sq_off.ring_mask);
        uint32_t tail = *sq_tail, idx = tail & mask;
        uint32_t *cq_head = (uint32_t *)(cq + p.cq_off.head);
        struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
        uint32_t cmask = *(uint32_t *)(cq + p.cq_off.ring_mask);

        memset(&sqes[idx], 0, sizeof(sqes[idx]));
        sqes[idx].opcode = IORING_OP_WRITE;
        sqes[idx].fd = fd;
        sqes[idx].addr = (uint64_t)(uintptr_t)"x";
        sqes[idx].len = 1;
        sqes[idx].off = (uint64_t)i;
        ((uint32_t *)(sq + p.sq_off.array))[idx] = idx;
        __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
        if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) != 1)
            return 3;
        if (__atomic_load_n((uint32_t *)(cq + p.cq_off.tail), __ATOMIC_ACQUIRE) == *cq_head ||
            cqes[*cq_head & cmask].res != 1)
            return 3;
        __atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
    }
    close(ring);
    close(fd);
    return 0;
}
