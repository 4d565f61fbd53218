// SPDX-License-Identifier: GPL-2.0
/*
 * capture.bpf.c - the kernel capture path's BPF side: the file-I/O
 * syscalls and io_uring requests of a chosen process tree, as small
 * records (kevent.h) in one ring buffer that user space (kcapture.c)
 * drains by polling.
 *
 * Invariants:
 *  - only processes whose tgid is in `traced` are recorded; a process a
 *    traced one forks is added at sched_process_fork (in BPF, so no call of
 *    the child is missed), and removed when its last thread exits. Names
 *    (comm) are never used: they are not unique. In a process user space
 *    has set to TRACE_RAW (the preload is in it) a syscall made from the C
 *    library's text costs only its classification: the preload records it;
 *  - the syscall number is checked first against a constant bitmap held
 *    in the code, so any other syscall of any process costs one bounds
 *    check and one bit test, and touches no memory; a file syscall of an
 *    untraced process one more: its kernel stack's slot in
 *    `tagged_stacks` (nonzero for the stacks of every tagged thread, and
 *    for a few others that share a slot), then, past that, its tgid's
 *    byte in `marks` (set for exactly the tgids in `traced`), at enter
 *    and at exit alike;
 *  - a record is made at the syscall's exit, when its return value is
 *    known; its enter time is kept in task storage. Paths are read at exit
 *    (the kernel has just copied them, so their pages are resident, where
 *    at enter a page not yet faulted in would read as nothing);
 *  - the syscall's registers are read directly (tp_btf gives a typed
 *    pointer), not through probe-read helpers: a traced call's cost is
 *    mostly the tracepoint's own;
 *  - records are submitted without waking user space (BPF_RB_NO_WAKEUP):
 *    user space polls, so a syscall never pays for a wake-up. A record that
 *    finds the ring full is counted in `dropped`, never blocks. The records
 *    of calls without paths wait in their thread's batch and reach the
 *    ring a batch at a time (capture_batch.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kevent.h"
#include "capture_calls.bpf.h"
#include "capture_stack.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Whether a process is traced, and how (KEV_MARK), a byte per tgid, for
 * every tgid the kernel may give (KEV_MARKS_MAX): global data, so that
 * the test is one load at an address the program holds as an immediate
 * and one compare with a constant (no map lookup, no bound loaded from
 * memory), the test past the kernel stack's (may_be_traced) that a
 * thread sharing a tagged one's slot pays. User space writes it through
 * the skeleton's mapping of .bss, as it does tag_tgid. `traced` below
 * holds the state of the processes marked.
 */
__u8 marks[KEV_MARKS_MAX];

/* Set before load when no process is judged the preload's (--capture
   kernel): every call is written, so none is classified. */
const volatile __u8 classify = 1;

static __always_inline __u8 *mark_of(__u32 tgid)
{
    /* the mask bounds the index for the verifier wherever the compiler
       puts the test (KEV_MARKS_MAX is a power of two) */
    return tgid < KEV_MARKS_MAX ? &marks[tgid & (KEV_MARKS_MAX - 1)] : NULL;
}

static __always_inline int is_marked(__u32 tgid)
{
    __u8 *m = mark_of(tgid);

    return m && *m;
}

/* A traced process (kevent.h) by its tgid. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 65536);
    __type(key, __u32);     /* tgid */
    __type(value, struct tgid_state);
} traced SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} dropped SEC(".maps");

static __always_inline void count_drops(__u32 records)
{
    __u32 zero = 0;
    __u64 *n = bpf_map_lookup_elem(&dropped, &zero);

    if (n)
        *n += records;
}

static __always_inline void count_drop(void)
{
    count_drops(1);
}

/*
 * How many tagged threads (those with their state in `threads`, which
 * every thread of a marked process has) have their kernel stack in each
 * slot: the first test of a file syscall. A syscall's registers lie at
 * the top of its thread's kernel stack, so their address, which both
 * syscall programs are given, tells the thread with no helper call and no
 * load from the task, whose lines are cold at a syscall's enter (a test
 * of the task's storage cost +25 ns there, this one +1, measured by BPF
 * run time). A slot another thread shares only sends that thread on to
 * the next test.
 */
#define TAGGED_SLOTS_LOG2 18
__u32 tagged_stacks[1u << TAGGED_SLOTS_LOG2];

/* The process whose threads tag_threads tags (kcapture.c sets it before it runs it). */
__u32 tag_tgid;

/* The slot of the thread whose syscall registers are at regs. */
static __always_inline __u32 stack_slot(const struct pt_regs *regs)
{
    /* a pointer less a pointer is the one arithmetic the verifier allows
       on two pointers (privileged): the distance from a fixed array, as
       much the thread's own as its stack, whose 4 KiB pages no two
       threads share */
    __u64 off = (__u64)regs - (__u64)tagged_stacks;

    return (__u32)(((off >> 12) * 0x9E3779B97F4A7C15ull) >> (64 - TAGGED_SLOTS_LOG2)) &
           ((1u << TAGGED_SLOTS_LOG2) - 1);
}

/* A traced thread's state: its call in flight and its batch (`threads`). */
#include "capture_batch.bpf.h"

/* task's tgid << 32 | tid, as bpf_get_current_pid_tgid gives the current one's. */
static __always_inline __u64 id_of(const struct task_struct *task)
{
    return ((__u64)task->tgid << 32) | (__u32)task->pid;
}

/* Whether the current thread, whose syscall registers are at regs, may be traced. */
static __always_inline int may_be_traced(const struct pt_regs *regs)
{
    return tagged_stacks[stack_slot(regs)] != 0;
}

/* The count of task's stack: its syscalls' registers' slot. */
static __always_inline __u32 *task_slot(struct task_struct *task)
{
    return &tagged_stacks[stack_slot((const struct pt_regs *)bpf_task_pt_regs(task))];
}

/* A thread of a marked process, or its child: its state, and its stack's
   slot counted once, so that its calls pass may_be_traced's test. */
static __always_inline void tag_task(struct task_struct *task)
{
    struct thread_state *ts = bpf_task_storage_get(&threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

    if (!ts)
        return;
    ts->id = id_of(task);
    if (__sync_lock_test_and_set(&ts->in_slot, 1) == 0)
        __sync_fetch_and_add(task_slot(task), 1);
}

/* A thread that exits: its count goes, before its stack can be another's. */
static __always_inline void untag_task(struct task_struct *task)
{
    struct thread_state *ts = bpf_task_storage_get(&threads, task, 0, 0);

    if (ts && __sync_lock_test_and_set(&ts->in_slot, 0) == 1)
        __sync_fetch_and_sub(task_slot(task), 1);
}

/* Threads (pid_tgid) whose first wait for events was recorded (KEV_WAITS);
   a thread's entry goes when it exits. */
struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 65536);
    __type(key, __u64);
    __type(value, __u8);
} waited SEC(".maps");

/* An io_uring request submitted by a traced process, until it completes. */
struct uring_req {
    __u64 t;
    __u64 off;
    __u32 pid, tid;
    __s32 fd;
    __u32 len;
    __u8 opcode;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);     /* the request's address */
    __type(value, struct uring_req);
} uring_reqs SEC(".maps");

struct vma_seen {
    __u64 start, end;
    __u8 libc;
};

/* Whether name starts with prefix (a literal). */
static __always_inline int starts(const char *name, const char *prefix, int n)
{
    for (int i = 0; i < n; i++)
        if (name[i] != prefix[i])
            return 0;
    return 1;
}

static long on_vma(struct task_struct *task, struct vm_area_struct *vma, struct vma_seen *seen)
{
    char name[16] = {};
    struct file *f = vma->vm_file;

    seen->start = vma->vm_start;
    seen->end = vma->vm_end;
    seen->libc = 0;
    if (!f)
        return 0;
    bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(f, f_path.dentry, d_name.name));
    /* a sanitizer runtime preloaded before the recorder makes syscalls
       of its own (/proc/self/maps): the program's no more than the loader's */
    seen->libc = starts(name, "libc.so", 7) || starts(name, "libc-", 5) ||
                 starts(name, "ld-linux", 8) || starts(name, "libiorecord", 11) ||
                 starts(name, "libpthread", 10) || starts(name, "libasan", 7) ||
                 starts(name, "libubsan", 8);
    return 0;
}

/*
 * Whether the syscall instruction before ip is in the C library
 * (KEV_F_LIBC), and the mapping that holds it in f (left as it was when
 * the lookup failed).
 */
static __always_inline __u32 layer_of(struct tgid_state *st, __u64 ip, struct in_flight *f)
{
    struct vma_seen seen = {};
    __u32 slot;

    for (int i = 0; i < LIB_SLOTS; i++)
        if (ip >= st->start[i] && ip < st->end[i]) {
            f->lib_start = st->start[i];
            f->lib_end = st->end[i];
            f->lib_flags = st->libc[i] ? KEV_F_LIBC : 0;
            return f->lib_flags;
        }
    /* bpf_find_vma only try-locks the mappings: while another thread
       maps or unmaps it fails. Not cached, and taken for the C library's:
       in a preloaded process a call counted twice would be a false fact,
       where one the kernel path misses is still the preload's to see */
    if (bpf_find_vma(bpf_get_current_task_btf(), ip, on_vma, &seen, 0) != 0)
        return KEV_F_LIBC;
    slot = st->next++ % LIB_SLOTS;
    st->start[slot] = seen.start;
    st->end[slot] = seen.end;
    st->libc[slot] = seen.libc;
    f->lib_start = seen.start;
    f->lib_end = seen.end;
    f->lib_flags = seen.libc ? KEV_F_LIBC : 0;
    return f->lib_flags;
}

/* The size of the regular file fd names in the current process, or -1. */
static __always_inline __s64 file_size_of(__u64 fd)
{
    struct task_struct *task = bpf_get_current_task_btf();
    struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
    struct file **fds = BPF_CORE_READ(fdt, fd);
    struct file *file = NULL;
    unsigned int max = BPF_CORE_READ(fdt, max_fds);
    struct inode *inode;

    if (fd >= max || bpf_probe_read_kernel(&file, sizeof(file), &fds[fd & 0xfffff]) != 0 || !file)
        return -1;
    inode = BPF_CORE_READ(file, f_inode);
    if ((BPF_CORE_READ(inode, i_mode) & 0170000) != 0100000)
        return -1;
    return BPF_CORE_READ(inode, i_size);
}

/* Whether a wait may block: a timeout that is not zero (or none). */
static __always_inline int wait_blocks(long nr, struct pt_regs *regs)
{
    __u64 ts[2] = {0, 0};
    const void *p;

    switch (nr) {
    case NR_poll:
        return (int)regs->dx != 0;
    case NR_epoll_wait: case NR_epoll_pwait:
        return (int)regs->r10 != 0;
    case NR_ppoll:
        p = (const void *)regs->dx;
        break;
    case NR_epoll_pwait2:
        p = (const void *)regs->r10;
        break;
    default:                        /* select, pselect6: the fifth argument */
        p = (const void *)regs->r8;
        break;
    }
    if (!p)
        return 1;
    if (bpf_probe_read_user(ts, sizeof(ts), p) < 0)
        return 1;
    return (ts[0] | ts[1]) != 0;
}

/*
 * A traced thread waits for events: its first wait that may block is one
 * record (KEV_WAITS), so that the analyzer knows it for an event loop. In
 * a process the preload records (TRACE_RAW), the preload notes it.
 */
static __always_inline void note_wait(long nr, struct pt_regs *regs, __u64 id, __u8 mark)
{
    __u8 one = 1;
    struct kev *e;

    if (mark != KEV_MARK(TRACE_ALL) || bpf_map_lookup_elem(&waited, &id) ||
        !wait_blocks(nr, regs))
        return;
    bpf_map_update_elem(&waited, &id, &one, BPF_ANY);
    batch_flush_current();
    e = bpf_ringbuf_reserve(&events, KEV_BASE_SIZE, 0);
    if (!e) {
        count_drop();
        return;
    }
    __builtin_memset(e, 0, KEV_BASE_SIZE);
    e->t = bpf_ktime_get_ns();
    e->kind = KEV_WAITS;
    e->pid = id >> 32;
    e->tid = (__u32)id;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline int enter(struct pt_regs *regs, long nr)
{
    __u32 tgid, flags = 0;
    __u64 id;
    struct tgid_state *st;
    struct thread_state *ts;
    struct in_flight *f;
    __u8 *mark;
    __u64 ip;

    if (!is_file_nr(nr) || !may_be_traced(regs))
        return 0;
    /* every thread of a marked process has its state (tag_task) */
    ts = thread_of();
    if (!ts)
        return 0;
    f = &ts->f;
    /* not in flight until it is: a call whose enter went unseen never
       takes the time of an earlier one */
    f->t = 0;
    id = ts->id;
    tgid = id >> 32;
    mark = mark_of(tgid);
    if (!mark || !*mark || *mark == KEV_MARK(TRACE_HOSTED) ||
        (is_creds_nr(nr) && *mark != KEV_MARK(TRACE_LET_GO)))
        return 0;
    if (is_wait_nr(nr)) {
        note_wait(nr, regs, id, *mark);
        return 0;
    }
    ip = regs->ip;
    if (!classify) {
        flags = 0;
    } else if (ip >= f->lib_start && ip < f->lib_end) {
        flags = f->lib_flags;
    } else {
        st = bpf_map_lookup_elem(&traced, &tgid);
        if (!st)
            return 0;
        flags = layer_of(st, ip, f);
    }
    /* the preload records this one: nothing more to do, at exit either
       (a credential change of a process it lets go is the kernel path's) */
    if ((flags & KEV_F_LIBC) && (*mark == KEV_MARK(TRACE_RAW) ||
                                 (*mark == KEV_MARK(TRACE_LET_GO) && !is_creds_nr(nr))))
        return 0;
    f->t = bpf_ktime_get_ns();
    f->flags = flags;
    f->file_size = nr == NR_close ? file_size_of(regs->di) : -1;
    return 0;
}

/*
 * The credentials of process id's TRACE_LET_GO process changed: the
 * preload let it go before the call, so every file syscall of it is
 * written from here on (TRACE_ALL), and user space hears so first (after
 * the batch of ts, the calling thread's state).
 */
static __always_inline void let_go(struct thread_state *ts, __u64 id, __u64 now)
{
    __u32 tgid = id >> 32;
    __u8 *mark = mark_of(tgid);
    struct tgid_state *st = bpf_map_lookup_elem(&traced, &tgid);
    struct kev *e;

    if (mark)
        *mark = KEV_MARK(TRACE_ALL);
    if (st)
        st->mode = TRACE_ALL;
    batch_flush(ts);
    e = bpf_ringbuf_reserve(&events, KEV_BASE_SIZE, 0);
    if (!e) {
        count_drop();
        return;
    }
    __builtin_memset(e, 0, KEV_BASE_SIZE);
    e->t = now;
    e->kind = KEV_LET_GO;
    e->pid = tgid;
    e->tid = (__u32)id;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline int leave(void *ctx, struct pt_regs *regs, long ret)
{
    long nr = regs->orig_ax;
    struct thread_state *ts;
    struct in_flight *f;
    __u64 t0, now, id;
    __s64 file_size;
    __u32 flags;
    int first = -1, second = -1, npaths;
    struct kev *e;

    if (!is_file_nr(nr) || !may_be_traced(regs))
        return 0;
    ts = thread_of();
    if (!ts || !ts->f.t)
        return 0;
    id = ts->id;
    if (!is_marked(id >> 32) || is_wait_nr(nr))
        return 0;
    f = &ts->f;
    t0 = f->t;
    flags = f->flags;
    file_size = f->file_size;
    f->t = 0;
    now = bpf_ktime_get_ns();
    /* the preload let go before the call, whatever it returns */
    if (is_creds_nr(nr)) {
        let_go(ts, id, now);
        return 0;
    }
    npaths = path_args(nr, &first, &second);
    if (npaths == 0 && batched_nr(nr)) {
        e = batch_slot(ts);
        if (e) {
            fill(e, regs, nr, ret, t0, now, 0, flags, file_size, id);
            e->stack = user_stack(ctx, nr, f->seen);
            e->pad_ = 0;
            batch_done(ts);
            return 0;
        }
    } else {
        batch_flush(ts);
    }
    if (npaths == 0) {
        e = bpf_ringbuf_reserve(&events, KEV_BASE_SIZE, 0);
        if (!e) {
            count_drop();
            return 0;
        }
        fill(e, regs, nr, ret, t0, now, 0, flags, file_size, id);
    } else if (npaths == 1) {
        e = bpf_ringbuf_reserve(&events, KEV_PATH1_SIZE, 0);
        if (!e) {
            count_drop();
            return 0;
        }
        fill(e, regs, nr, ret, t0, now, 1, flags, file_size, id);
        if (bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)arg_of(regs, first)) < 0)
            e->path[0] = 0;
    } else {
        e = bpf_ringbuf_reserve(&events, sizeof(struct kev), 0);
        if (!e) {
            count_drop();
            return 0;
        }
        fill(e, regs, nr, ret, t0, now, 2, flags, file_size, id);
        if (bpf_probe_read_user_str(e->path, sizeof(e->path), (void *)arg_of(regs, first)) < 0)
            e->path[0] = 0;
        if (bpf_probe_read_user_str(e->path2, sizeof(e->path2), (void *)arg_of(regs, second)) < 0)
            e->path2[0] = 0;
    }
    e->stack = user_stack(ctx, nr, f->seen);
    e->pad_ = 0;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
    return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long nr)
{
    return enter(regs, nr);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_exit, struct pt_regs *regs, long ret)
{
    return leave(ctx, regs, ret);
}

/* A small record of a process's life: fork, exec, exit. */
static __always_inline struct kev *life_record(int with_path)
{
    struct kev *e;

    if (with_path)
        e = bpf_ringbuf_reserve(&events, KEV_PATH1_SIZE, 0);
    else
        e = bpf_ringbuf_reserve(&events, KEV_BASE_SIZE, 0);
    if (!e) {
        count_drop();
        return NULL;
    }
    __builtin_memset(e, 0, KEV_BASE_SIZE);
    e->t = bpf_ktime_get_ns();
    return e;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
    __u32 ptgid = parent->tgid, ctgid = child->tgid;
    struct tgid_state *pst, cst = {};
    struct kev *e;

    __u8 *cmark;

    if (!is_marked(ptgid))
        return 0;
    /* a thread of a marked process, or its child: task storage first, so
       that no call of it is missed */
    tag_task(child);
    if (ptgid == ctgid || !(pst = bpf_map_lookup_elem(&traced, &ptgid)))
        return 0;
    /* the same image, the same mappings: what the parent learnt holds */
    __builtin_memcpy(&cst, pst, sizeof(cst));
    batch_flush_current();
    bpf_map_update_elem(&traced, &ctgid, &cst, BPF_ANY);
    cmark = mark_of(ctgid);
    if (cmark)
        *cmark = KEV_MARK(pst->mode);
    e = life_record(0);
    if (!e)
        return 0;
    e->kind = KEV_FORK;
    e->pid = ptgid;
    e->tid = parent->pid;
    e->a0 = ctgid;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
    return 0;
}

/*
 * Run by user space over the threads of process tag_tgid once it is
 * marked (kcapture.c): a thread made from then on is tagged by on_fork,
 * one made before is here. A thread tagged twice is counted once.
 */
SEC("iter/task")
int tag_threads(struct bpf_iter__task *ctx)
{
    struct task_struct *task = ctx->task;

    if (task && task->tgid == tag_tgid)
        tag_task(task);
    return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
    __u32 tgid = p->tgid;
    struct kev *e;

    __u64 arg_start, arg_end, len;
    struct tgid_state *st;

    __u8 *mark = mark_of(tgid);
    struct thread_state *ts;

    if (!mark || !*mark || !bpf_map_lookup_elem(&traced, &tgid))
        return 0;
    /* the thread that execs (the current one) keeps its state: not the
       mappings it knew; its calls before the exec go first, and its first
       after goes alone */
    ts = thread_of();
    if (ts) {
        /* a thread other than the leader that execs takes the leader's tid */
        ts->id = id_of(p);
        ts->f.lib_end = 0;
        batch_flush(ts);
        ts->started = 0;
    }
    e = bpf_ringbuf_reserve(&events, sizeof(struct kev), 0);
    if (!e) {
        count_drop();
        return 0;
    }
    __builtin_memset(e, 0, KEV_BASE_SIZE);
    e->t = bpf_ktime_get_ns();
    /* a new image: new mappings, and everything recorded until user
       space has judged whether the preload is in it */
    st = bpf_map_lookup_elem(&traced, &tgid);
    if (st) {
        __builtin_memset(st, 0, sizeof(*st));
        st->mode = TRACE_ALL;
    }
    *mark = KEV_MARK(TRACE_ALL);
    e->kind = KEV_EXEC;
    e->pid = tgid;
    e->tid = p->pid;
    e->npaths = 2;
    e->a1 = BPF_CORE_READ(p, real_parent, tgid);
    /* where the new image's code is: its stacks' frames are placed by it
       even when the process is gone before user space reads /proc */
    e->a0 = BPF_CORE_READ(p, mm, start_code);
    e->a3 = BPF_CORE_READ(p, mm, end_code);
    if (bpf_probe_read_kernel_str(e->path, sizeof(e->path), BPF_CORE_READ(bprm, filename)) < 0)
        e->path[0] = 0;
    /* argv now, in the new image: the process may be gone before user
       space could read /proc (its NUL-separated words, the first 255 bytes) */
    arg_start = BPF_CORE_READ(p, mm, arg_start);
    arg_end = BPF_CORE_READ(p, mm, arg_end);
    len = arg_end > arg_start ? arg_end - arg_start : 0;
    if (len > sizeof(e->path2) - 1)
        len = sizeof(e->path2) - 1;
    e->a2 = 0;
    if (len > 0 && bpf_probe_read_user(e->path2, len & 255, (void *)arg_start) == 0)
        e->a2 = len;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
    return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_task_exit, struct task_struct *p, bool group_dead)
{
    __u32 tgid = p->tgid;
    struct kev *e;

    __u8 *mark = mark_of(tgid);
    __u64 id = id_of(p);

    untag_task(p);
    if (!mark || !*mark)
        return 0;
    /* p is the thread that exits, the current one: its calls go first */
    batch_flush_current();
    bpf_map_delete_elem(&waited, &id);
    if (group_dead) {
        bpf_map_delete_elem(&traced, &tgid);
        *mark = 0;
    }
    e = life_record(0);
    if (!e)
        return 0;
    e->kind = KEV_EXIT;
    e->pid = tgid;
    e->tid = p->pid;
    /* the group's code once the whole group is going (exit_group, a signal) */
    e->a0 = BPF_CORE_READ(p, signal, group_exit_code);
    if (!e->a0)
        e->a0 = p->exit_code;
    e->a1 = group_dead;
    bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
    return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(on_uring_submit, struct io_kiocb *req)
{
    __u64 id = bpf_get_current_pid_tgid(), key = (__u64)req;
    __u32 tgid = id >> 32;
    struct io_rw *rw = (struct io_rw *)&req->cmd;
    struct uring_req r = {};

    if (!is_marked(tgid))
        return 0;
    r.t = bpf_ktime_get_ns();
    r.pid = tgid;
    r.tid = (__u32)id;
    r.opcode = BPF_CORE_READ(req, opcode);
    r.fd = BPF_CORE_READ(req, cqe.fd);
    r.len = BPF_CORE_READ(rw, len);
    r.off = BPF_CORE_READ(rw, kiocb.ki_pos);
    bpf_map_update_elem(&uring_reqs, &key, &r, BPF_ANY);
    return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(on_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
    __u64 key = (__u64)req;
    struct uring_req *r = bpf_map_lookup_elem(&uring_reqs, &key);
    struct kev *e;

    if (!r)
        return 0;
    e = life_record(0);
    if (e) {
        e->kind = KEV_URING;
        e->t = r->t;
        e->dur = bpf_ktime_get_ns() - r->t;
        e->pid = r->pid;
        e->tid = r->tid;
        e->nr = r->opcode;
        e->ret = BPF_CORE_READ(cqe, res);
        e->a0 = (__u64)(__s64)r->fd;
        e->a1 = r->len;
        e->a2 = r->off;
        bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
    }
    bpf_map_delete_elem(&uring_reqs, &key);
    return 0;
}
