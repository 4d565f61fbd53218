/*
 * capture_stack.bpf.h - the user stacks of the kernel path's calls
 * (capture.bpf.c includes it once, after capture_calls.bpf.h).
 *
 * A stack is walked by frame pointers (bpf_get_stackid, BPF_F_USER_STACK):
 * Go on amd64 keeps them, and so does code built with
 * -fno-omit-frame-pointer. It is interned in `user_stacks`, so a record
 * carries only its id and user space reads each distinct stack once.
 *
 * Invariants:
 *  - with `stacks` 0 (set before load: --no-stacks) none of this runs: the
 *    verifier drops it as dead code;
 *  - a stack is taken only where a finding rests on one, as the preload
 *    does: every open, and a thread's 1st, 2nd, 4th, 8th ... read, write,
 *    sync and metadata call (a 1M-write loop: ~20 walks), so the cost
 *    grows with the log of a thread's calls, not with them;
 *  - a stack the map has no room for, or whose hash another holds
 *    (bpf_get_stackid without BPF_F_REUSE_STACKID keeps the first), is
 *    none: an id user space has read always names the same frames.
 */
#ifndef CAPTURE_STACK_BPF_H
#define CAPTURE_STACK_BPF_H

const volatile __u8 stacks = 0;

struct {
    __uint(type, BPF_MAP_TYPE_STACK_TRACE);
    __uint(max_entries, 16384);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, KEV_STACK_DEPTH * sizeof(__u64));
} user_stacks SEC(".maps");

/* The class of syscall nr whose stacks are sampled (0..3), 4 for an open, -1 for none. */
static __always_inline int stack_class(long nr)
{
    switch (nr) {
    case NR_open: case NR_openat: case NR_openat2: case NR_creat:
        return 4;
    case NR_read: case NR_pread64: case NR_readv: case NR_preadv: case NR_preadv2:
        return 0;
    case NR_write: case NR_pwrite64: case NR_writev: case NR_pwritev: case NR_pwritev2:
        return 1;
    case NR_fsync: case NR_fdatasync: case NR_sync_file_range:
        return 2;
    case NR_stat: case NR_lstat: case NR_newfstatat: case NR_statx: case NR_unlink:
    case NR_unlinkat: case NR_rename: case NR_renameat: case NR_renameat2: case NR_mkdir:
    case NR_mkdirat:
        return 3;
    default:
        return -1;
    }
}

/*
 * The stack of the current thread's call nr, as kev.stack (0: none);
 * counts the thread's calls of its class in seen[].
 */
static __always_inline __u32 user_stack(void *ctx, long nr, __u32 *seen)
{
    int cls;
    long id;
    __u32 n;

    if (!stacks)
        return 0;
    cls = stack_class(nr);
    if (cls < 0)
        return 0;
    if (cls < 4) {
        n = ++seen[cls & 3];
        if (n & (n - 1))
            return 0;
    }
    id = bpf_get_stackid(ctx, &user_stacks, BPF_F_USER_STACK);
    return id < 0 ? 0 : (__u32)id + 1;
}

#endif
