/*
 * capture_calls.bpf.h - the BPF side's knowledge of the syscalls it
 * records (capture.bpf.c includes it once, after vmlinux.h), expanded
 * from the syscall catalogue (formats/syscalls.h): the constant bitmap a
 * syscall is tested against first, each one's shape, which arguments are
 * paths, and how a syscall's record (kevent.h) is filled at its exit, by
 * its shape.
 */
#ifndef CAPTURE_CALLS_BPF_H
#define CAPTURE_CALLS_BPF_H

/* The syscall catalogue: NR_<name>, its shape (enum iot_sc_shape). */
#include "syscalls.h"

/*
 * The constant bitmap a syscall number is tested against first: a bit per
 * number < IOT_SC_NR_MAX the kernel path records or follows (the
 * catalogue's BOTH and KERNEL rows). KBITw_ is a row's bit in word w.
 */
#define BIT(n) (1ULL << ((n) & 63))
#define W(n, w) (((n) >> 6) == (w) ? BIT(n) : 0)
#define KBIT_(w, name, nr, op, shape, fd, size, off, extra, who) IOT_SC_KERNEL_##who(| W(nr, w))
#define KBIT0_(...) KBIT_(0, __VA_ARGS__)
#define KBIT1_(...) KBIT_(1, __VA_ARGS__)
#define KBIT2_(...) KBIT_(2, __VA_ARGS__)
#define KBIT3_(...) KBIT_(3, __VA_ARGS__)
#define KBIT4_(...) KBIT_(4, __VA_ARGS__)
#define KBIT5_(...) KBIT_(5, __VA_ARGS__)
#define KBIT6_(...) KBIT_(6, __VA_ARGS__)
#define KBIT7_(...) KBIT_(7, __VA_ARGS__)
/* A syscall of any process pays this test first: its words are
   immediates in the code (no table in memory, so no cache line but the
   program's own), as a chain of branches, never a lookup table. */
#define KWORD_(w) (0 IOT_SYSCALLS(KBIT##w##_))
static __always_inline int is_file_nr(long nr)
{
    __u64 word;

    if (nr < 0 || nr >= IOT_SC_NR_MAX)
        return 0;
    if (nr < 256) {
        if (nr < 128)
            word = nr < 64 ? KWORD_(0) : KWORD_(1);
        else
            word = nr < 192 ? KWORD_(2) : KWORD_(3);
    } else {
        if (nr < 384)
            word = nr < 320 ? KWORD_(4) : KWORD_(5);
        else
            word = nr < 448 ? KWORD_(6) : KWORD_(7);
    }
    return (word >> (nr & 63)) & 1;
}

/* The shape of syscall nr (enum iot_sc_shape), -1 for one not recorded. */
static __always_inline int shape_of(long nr)
{
#define KSHAPE_(name, nr, op, shape, fd, size, off, extra, who) \
    IOT_SC_KERNEL_##who(case nr: return IOT_SC_##shape;)
    switch (nr) {
    IOT_SYSCALLS(KSHAPE_)
    default:
        return -1;
    }
#undef KSHAPE_
}

/* A credential change: followed only in a TRACE_LET_GO process, whose
   first one turns it to TRACE_ALL; never a record. */
static __always_inline int is_creds_nr(long nr)
{
    return shape_of(nr) == IOT_SC_CREDS;
}

/* A wait for events (epoll, poll, select): never a record of its own, only
   the thread's first one that may block (note_wait). */
static __always_inline int is_wait_nr(long nr)
{
    return shape_of(nr) == IOT_SC_WAIT;
}

/* Which arguments of a syscall are paths: 0, 1 or 2, and where. */
static __always_inline int path_args(long nr, int *first, int *second)
{
    switch (shape_of(nr)) {
    case IOT_SC_OPEN: case IOT_SC_CREAT: case IOT_SC_PATH: case IOT_SC_PATH2:
    case IOT_SC_CHDIR: case IOT_SC_MEMFD:
        *first = 0;
        *second = shape_of(nr) == IOT_SC_PATH2 ? 1 : -1;
        break;
    case IOT_SC_OPENAT: case IOT_SC_OPENAT2: case IOT_SC_PATHAT: case IOT_SC_PATH2AT:
        *first = 1;
        *second = shape_of(nr) == IOT_SC_PATH2AT ? 3 : -1;
        break;
    case IOT_SC_PRCTL:
        /* PR_SET_NAME's name; any other option's argument reads as "" or
           is left unused by user space */
        *first = 1;
        *second = -1;
        break;
    default:
        return 0;
    }
    return *second >= 0 ? 2 : 1;
}

static __always_inline __u64 arg_of(struct pt_regs *regs, int i)
{
    switch (i) {
    case 0: return regs->di;
    case 1: return regs->si;
    case 2: return regs->dx;
    case 3: return regs->r10;
    default: return regs->r8;
    }
}

/* The bytes a vector of iovecs asks, as far as the first 16. */
static __always_inline __s64 iov_bytes(__u64 uiov, __u64 cnt)
{
    struct iovec v;
    __s64 sum = 0;

    for (int i = 0; i < 16; i++) {
        if ((__u64)i >= cnt)
            break;
        if (bpf_probe_read_user(&v, sizeof(v), (void *)(uiov + i * sizeof(v))) != 0)
            break;
        sum += (__s64)v.iov_len;
    }
    return sum;
}

static __always_inline void fill(struct kev *e, struct pt_regs *regs, long nr, long ret,
                                 __u64 t0, __u64 now, int npaths, __u32 flags,
                                 __s64 file_size, __u64 id)
{

    e->t = t0;
    e->dur = now - t0;
    e->ret = ret;
    e->a0 = arg_of(regs, 0);
    e->a1 = arg_of(regs, 1);
    e->a2 = arg_of(regs, 2);
    e->a3 = arg_of(regs, 3);
    e->pid = id >> 32;
    e->tid = (__u32)id;
    e->nr = nr;
    e->kind = KEV_SYSCALL;
    e->npaths = npaths;
    e->flags = flags;
    e->size = 0;
    switch (shape_of(nr)) {
    case IOT_SC_CLOSE:
        e->size = file_size;
        break;
    case IOT_SC_RWV: case IOT_SC_PRWV: case IOT_SC_PRWV2:
        e->size = iov_bytes(e->a1, e->a2);
        break;
    case IOT_SC_OPENAT2: {
        __u64 how_flags = 0;

        bpf_probe_read_user(&how_flags, sizeof(how_flags), (void *)e->a2);
        e->size = (__s64)how_flags;
        break;
    }
    case IOT_SC_PIPE:
        if (ret == 0) {
            /* the two fds made, as the kernel just wrote them: fds[0] low
               (pipe's and pipe2's first argument, socketpair's fourth) */
            __u64 fds = 0;

            bpf_probe_read_user(&fds, sizeof(fds), (void *)(nr == NR_socketpair ? e->a3 : e->a0));
            e->size = (__s64)fds;
        }
        break;
    case IOT_SC_SENDFILE: case IOT_SC_COPY: {
        /* the input's offset as the kernel left it (*off, moved on by the
           bytes copied) in size when there is one (a1, a2: its pointer, 0
           when none); splice and copy_file_range's length (arg 4) in a3 */
        int copy = shape_of(nr) == IOT_SC_COPY;
        __u64 off = 0, ptr = copy ? e->a1 : e->a2;

        if (ptr && bpf_probe_read_user(&off, sizeof(off), (void *)ptr) != 0)
            off = 0;
        e->size = (__s64)off;
        if (copy)
            e->a3 = regs->r8;
        break;
    }
    case IOT_SC_PATH2AT:
        /* renameat2's flags (arg 4) in a3: the paths are read from the
           registers, not from the record */
        e->a3 = regs->r8;
        break;
    case IOT_SC_MMAP:
        /* the fd (arg 4) in size and the offset (arg 5) for the hint,
           which the return value makes moot */
        e->size = (__s64)(__s32)regs->r8;
        e->a0 = regs->r9;
        break;
    default:
        break;
    }
}

#endif
