/*
 * capture_calls.bpf.h - the BPF side's knowledge of the syscalls it
 * records (capture.bpf.c includes it once, after vmlinux.h): their
 * x86_64 numbers, the constant bitmap a syscall is tested against first,
 * which arguments are paths, and how a syscall's record (kevent.h) is
 * filled at its exit.
 */
#ifndef CAPTURE_CALLS_BPF_H
#define CAPTURE_CALLS_BPF_H

/* x86_64 syscall numbers of the calls recorded (a bit per number < 512). */
#define NR_read 0
#define NR_write 1
#define NR_open 2
#define NR_close 3
#define NR_stat 4
#define NR_fstat 5
#define NR_lstat 6
#define NR_lseek 8
#define NR_pread64 17
#define NR_pwrite64 18
#define NR_readv 19
#define NR_writev 20
#define NR_fsync 74
#define NR_fdatasync 75
#define NR_rename 82
#define NR_mkdir 83
#define NR_creat 85
#define NR_unlink 87
#define NR_openat 257
#define NR_mkdirat 258
#define NR_newfstatat 262
#define NR_unlinkat 263
#define NR_renameat 264
#define NR_sync_file_range 277
#define NR_preadv 295
#define NR_pwritev 296
#define NR_renameat2 316
#define NR_preadv2 327
#define NR_pwritev2 328
#define NR_statx 332
#define NR_openat2 437
/* the copies between two fds: their bytes move without a read or write */
#define NR_sendfile 40
#define NR_splice 275
#define NR_copy_file_range 326
/* what the fd table, the cwd and the thread names follow */
#define NR_mmap 9
#define NR_munmap 11
#define NR_pipe 22
#define NR_dup 32
#define NR_dup2 33
#define NR_socket 41
#define NR_accept 43
#define NR_socketpair 53
#define NR_fcntl 72
#define NR_chdir 80
#define NR_fchdir 81
#define NR_prctl 157
#define NR_epoll_create 213
#define NR_inotify_init 253
#define NR_signalfd 282
#define NR_timerfd_create 283
#define NR_eventfd 284
#define NR_accept4 288
#define NR_signalfd4 289
#define NR_eventfd2 290
#define NR_epoll_create1 291
#define NR_dup3 292
#define NR_pipe2 293
#define NR_inotify_init1 294
#define NR_memfd_create 319
/* the credential changes the preload lets a process go before (creds.c) */
#define NR_setuid 105
#define NR_setgid 106
#define NR_setreuid 113
#define NR_setregid 114
#define NR_setgroups 116
#define NR_setresuid 117
#define NR_setresgid 119
#define NR_setfsuid 122
#define NR_setfsgid 123
/* the calls a thread waits for events in (an event loop): noted once per thread */
#define NR_poll 7
#define NR_select 23
#define NR_epoll_wait 232
#define NR_pselect6 270
#define NR_ppoll 271
#define NR_epoll_pwait 281
#define NR_epoll_pwait2 441

#define BIT(n) (1ULL << ((n) & 63))
#define W(n, w) (((n) >> 6) == (w) ? BIT(n) : 0)
#define ROW(w) (W(NR_read, w) | W(NR_write, w) | W(NR_open, w) | W(NR_close, w) |          \
                W(NR_stat, w) | W(NR_fstat, w) | W(NR_lstat, w) | W(NR_lseek, w) |        \
                W(NR_pread64, w) | W(NR_pwrite64, w) | W(NR_readv, w) | W(NR_writev, w) | \
                W(NR_fsync, w) | W(NR_fdatasync, w) | W(NR_rename, w) | W(NR_mkdir, w) |  \
                W(NR_creat, w) | W(NR_unlink, w) | W(NR_openat, w) | W(NR_mkdirat, w) |   \
                W(NR_newfstatat, w) | W(NR_unlinkat, w) | W(NR_renameat, w) |             \
                W(NR_sync_file_range, w) | W(NR_preadv, w) | W(NR_pwritev, w) |           \
                W(NR_renameat2, w) | W(NR_preadv2, w) | W(NR_pwritev2, w) |               \
                W(NR_statx, w) | W(NR_openat2, w) | W(NR_sendfile, w) | W(NR_splice, w) | \
                W(NR_copy_file_range, w) | W(NR_mmap, w) | W(NR_munmap, w) |              \
                W(NR_pipe, w) | W(NR_dup, w) | W(NR_dup2, w) | W(NR_socket, w) |          \
                W(NR_accept, w) | W(NR_socketpair, w) | W(NR_fcntl, w) | W(NR_chdir, w) | \
                W(NR_fchdir, w) | W(NR_prctl, w) | W(NR_epoll_create, w) |                \
                W(NR_inotify_init, w) | W(NR_signalfd, w) | W(NR_timerfd_create, w) |     \
                W(NR_eventfd, w) | W(NR_accept4, w) | W(NR_signalfd4, w) |                \
                W(NR_eventfd2, w) | W(NR_epoll_create1, w) | W(NR_dup3, w) |              \
                W(NR_pipe2, w) | W(NR_inotify_init1, w) | W(NR_memfd_create, w) |         \
                W(NR_setuid, w) | W(NR_setgid, w) | W(NR_setreuid, w) | W(NR_setregid, w) | \
                W(NR_setgroups, w) | W(NR_setresuid, w) | W(NR_setresgid, w) |           \
                W(NR_setfsuid, w) | W(NR_setfsgid, w) |                                   \
                W(NR_poll, w) | W(NR_select, w) | W(NR_epoll_wait, w) | W(NR_pselect6, w) | \
                W(NR_ppoll, w) | W(NR_epoll_pwait, w) | W(NR_epoll_pwait2, w))
static const volatile __u64 file_nrs[8] = { ROW(0), ROW(1), ROW(2), ROW(3),
                                            ROW(4), ROW(5), ROW(6), ROW(7) };

static __always_inline int is_file_nr(long nr)
{
    if (nr < 0 || nr >= 512)
        return 0;
    return (file_nrs[(nr >> 6) & 7] >> (nr & 63)) & 1;
}

/* A credential change: followed only in a TRACE_LET_GO process, whose
   first one turns it to TRACE_ALL; never a record. */
static __always_inline int is_creds_nr(long nr)
{
    switch (nr) {
    case NR_setuid: case NR_setgid: case NR_setreuid: case NR_setregid: case NR_setgroups:
    case NR_setresuid: case NR_setresgid: case NR_setfsuid: case NR_setfsgid:
        return 1;
    default:
        return 0;
    }
}

/* Which arguments of a syscall are paths: 0, 1 or 2, and where. */
/* A wait for events (epoll, poll, select): never a record of its own, only
   the thread's first one that may block (note_wait). */
static __always_inline int is_wait_nr(long nr)
{
    switch (nr) {
    case NR_poll: case NR_select: case NR_epoll_wait: case NR_pselect6: case NR_ppoll:
    case NR_epoll_pwait: case NR_epoll_pwait2:
        return 1;
    default:
        return 0;
    }
}

static __always_inline int path_args(long nr, int *first, int *second)
{
    switch (nr) {
    case NR_open: case NR_creat: case NR_stat: case NR_lstat: case NR_mkdir:
    case NR_unlink: case NR_rename: case NR_chdir: case NR_memfd_create:
        *first = 0;
        *second = nr == NR_rename ? 1 : -1;
        break;
    case NR_openat: case NR_openat2: case NR_newfstatat: case NR_statx:
    case NR_mkdirat: case NR_unlinkat: case NR_renameat: case NR_renameat2:
        *first = 1;
        *second = (nr == NR_renameat || nr == NR_renameat2) ? 3 : -1;
        break;
    case NR_prctl:
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
    if (nr == NR_close)
        e->size = file_size;
    else if (nr == NR_readv || nr == NR_writev || nr == NR_preadv || nr == NR_pwritev ||
        nr == NR_preadv2 || nr == NR_pwritev2)
        e->size = iov_bytes(e->a1, e->a2);
    else if (nr == NR_openat2) {
        __u64 flags = 0;

        bpf_probe_read_user(&flags, sizeof(flags), (void *)e->a2);
        e->size = (__s64)flags;
    } else if ((nr == NR_pipe || nr == NR_pipe2 || nr == NR_socketpair) && ret == 0) {
        /* the two fds made, as the kernel just wrote them: fds[0] low */
        __u64 fds = 0;

        bpf_probe_read_user(&fds, sizeof(fds), (void *)(nr == NR_socketpair ? e->a3 : e->a0));
        e->size = (__s64)fds;
    } else if (nr == NR_sendfile || nr == NR_splice || nr == NR_copy_file_range) {
        /* the input's offset as the kernel left it (*off, moved on by the
           bytes copied) in size when there is one (a1, a2: its pointer, 0
           when none); splice and copy_file_range's length (arg 4) in a3 */
        __u64 off = 0, ptr = nr == NR_sendfile ? e->a2 : e->a1;

        if (ptr && bpf_probe_read_user(&off, sizeof(off), (void *)ptr) != 0)
            off = 0;
        e->size = (__s64)off;
        if (nr != NR_sendfile)
            e->a3 = regs->r8;
    } else if (nr == NR_mmap) {
        /* the fd (arg 4) in size and the offset (arg 5) for the hint,
           which the return value makes moot */
        e->size = (__s64)(__s32)regs->r8;
        e->a0 = regs->r9;
    }
}

#endif
