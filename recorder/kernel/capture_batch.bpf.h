/*
 * capture_batch.bpf.h - a traced thread's state, in its task storage
 * (`threads`): the syscall it has in flight, and its batch of plain calls,
 * handed to the ring KEV_BATCH_MAX at a time (capture.bpf.c includes it
 * once, after the ring and count_drops).
 *
 * Why task storage: it is kmalloc'd memory, which the enter's lookup
 * brings into the TLB for the exit of the same call, where a ring record
 * is the ring's lock and its header, producer and data pages, each a TLB
 * miss after the kernel entry on a machine without PCID (~150 ns of an
 * exit's ~215 measured). Every thread of a marked process has its entry
 * (the tag_threads iterator makes the first ones, on_fork those of the
 * threads and children made after), and its kernel stack counted in
 * `tagged_stacks` while it has (in_slot), which is the syscall programs'
 * first test.
 *
 * Invariants:
 *  - batched are the calls kconvert turns into records without reading
 *    its process state (batched_nr): data, seek, sync and fstat calls on
 *    an fd, which have no path; a thread's first call after it is first
 *    seen or execs goes alone, as kconvert reads a thread's name at its
 *    chain's first call, which should find the thread still running;
 *  - a thread's records reach the ring in its order: its batch goes
 *    before any record of its own that goes alone, and before its fork,
 *    exec, exit, let-go and waits records (batch_flush_current);
 *  - only the thread itself appends to its batch; a batch is taken whole
 *    by whoever swaps its count to 0 first (the thread, its exit, or the
 *    drain at detach, which runs over every task once the syscall
 *    programs are gone), so no record goes twice.
 */
#ifndef CAPTURE_BATCH_BPF_H
#define CAPTURE_BATCH_BPF_H

/*
 * The enter time of the thread's syscall in flight (0 when none is) and
 * its KEV_F_*; and the text mapping its last classified syscall came from
 * (lib_end 0: none), so that a thread's calls from one place look up
 * nothing more (a hash lookup cost 80 ns). An exec forgets the mapping.
 */
struct in_flight {
    __u64 t;
    __s64 file_size;    /* close: the size of the regular file it closes, else -1 */
    __u32 flags;
    __u32 lib_flags;    /* KEV_F_LIBC when [lib_start, lib_end) is the C library's */
    __u64 lib_start, lib_end;
    __u32 seen[4];      /* the thread's calls per stack class (capture_stack.bpf.h) */
};

struct thread_state {
    struct in_flight f;
    __u32 n;            /* records held, in slots 1..n of rec */
    __u32 started;      /* the thread's first call (since its exec) went alone */
    __u32 in_slot;      /* its kernel stack is counted in tagged_stacks */
    __u32 pad_;
    __u64 id;           /* the thread's tgid << 32 | tid, as bpf_get_current_pid_tgid */
    __u8 rec[KEV_BATCH_BYTES];  /* slot 0: the KEV_BATCH record that leads them */
};

struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, struct thread_state);
} threads SEC(".maps");

/* The current thread's state; NULL when it has none (it is untraced). */
static __always_inline struct thread_state *thread_of(void)
{
    return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
}

/* Whether syscall nr's records may wait in the thread's batch. */
static __always_inline int batched_nr(long nr)
{
    switch (shape_of(nr)) {
    case IOT_SC_ARGS: case IOT_SC_RWV: case IOT_SC_PRWV: case IOT_SC_PRWV2: case IOT_SC_LSEEK:
        return 1;
    default:
        return 0;
    }
}

/* Hand ts's records to the ring as one KEV_BATCH record, if it holds any. */
static __always_inline void batch_flush(struct thread_state *ts)
{
    __u32 n = __sync_lock_test_and_set(&ts->n, 0);
    struct kev *h = (struct kev *)ts->rec;

    if (n == 0)
        return;
    if (n > KEV_BATCH_MAX)
        n = KEV_BATCH_MAX;
    h->kind = KEV_BATCH;
    h->npaths = 0;
    h->a0 = n;
    if (bpf_ringbuf_output(&events, ts->rec, (n + 1) * KEV_BASE_SIZE, BPF_RB_NO_WAKEUP) != 0)
        count_drops(n);
}

static __always_inline void batch_flush_current(void)
{
    struct thread_state *ts = thread_of();

    if (ts)
        batch_flush(ts);
}

/*
 * The slot in ts's batch for the record of a call batched_nr says may
 * wait, or NULL when it goes alone (the thread's first); batch_done after
 * filling it.
 */
static __always_inline struct kev *batch_slot(struct thread_state *ts)
{
    __u32 i;

    if (!ts->started) {
        ts->started = 1;
        return NULL;
    }
    i = ts->n;
    if (i >= KEV_BATCH_MAX) {
        batch_flush(ts);
        i = 0;
    }
    return (struct kev *)&ts->rec[((i & (KEV_BATCH_MAX - 1)) + 1) * KEV_BASE_SIZE];
}

/* The slot batch_slot gave is filled: counted, and the batch goes when full. */
static __always_inline void batch_done(struct thread_state *ts)
{
    if (++ts->n >= KEV_BATCH_MAX)
        batch_flush(ts);
}

/*
 * Run over every task at detach, after the syscall programs are gone
 * (kcapture.c): the batches of threads still running go to the ring.
 */
SEC("iter/task")
int drain_batches(struct bpf_iter__task *ctx)
{
    struct task_struct *task = ctx->task;
    struct thread_state *ts;

    if (!task)
        return 0;
    ts = bpf_task_storage_get(&threads, task, 0, 0);
    if (ts)
        batch_flush(ts);
    return 0;
}

#endif
