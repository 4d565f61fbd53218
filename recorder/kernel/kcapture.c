/*
 * kcapture.c - loading the kernel capture's BPF program (capture.bpf.c,
 * through the skeleton bpftool made of it) and draining its ring buffer
 * into kconvert.c.
 *
 * The ring buffer is drained by polling (kcap_poll, every few ms from the
 * launcher), never by wake-ups: the BPF side submits without waking, which
 * keeps a recorded syscall's cost to the record itself.
 *
 * Without REC_KERNEL_BUILT (the Makefile found no clang, bpftool or
 * libbpf) this file only says so.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcapture.h"

#ifdef REC_KERNEL_BUILT

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "capture.skel.h"
#include "kevent.h"

struct kcap {
    struct capture *skel;
    struct ring_buffer *rb;
    struct kconv *conv;
    int ncpu;
    unsigned char *marks;      /* the BPF side's marks (.bss), mapped once loaded (NULL: not yet) */
};

/*
 * Run the BPF side's task iterator prog once (opts: which tasks; NULL:
 * every task). The iterator writes nothing: reading its fd to the end runs
 * it. 0, or -1 when it could not run (errno set).
 */
static int run_task_iter(struct bpf_program *prog, const struct bpf_iter_attach_opts *opts)
{
    struct bpf_link *iter = bpf_program__attach_iter(prog, opts);
    char buf[64];
    ssize_t got = -1;
    int fd;

    if (!iter)
        return -1;
    fd = bpf_iter_create(bpf_link__fd(iter));
    if (fd >= 0) {
        while ((got = read(fd, buf, sizeof(buf))) > 0)
            ;
        close(fd);
    }
    bpf_link__destroy(iter);
    return fd >= 0 && got == 0 ? 0 : -1;
}

/*
 * Give every thread of process pid its state in `threads` and count its
 * stack (capture.bpf.c, tag_threads), after pid is marked: a thread made
 * from then on gets its own at sched_process_fork, and one made before is
 * among the process's threads the iterator runs over. A kernel that cannot
 * limit a task iterator to one process (before Linux 6.1) runs it over
 * every task; the program keeps to tag_tgid's alike (tagging twice counts
 * once). -1 when the iterator could not run (errno set): the process's
 * calls are not seen.
 */
static int tag_threads(struct kcap *c, pid_t pid)
{
    union bpf_iter_link_info info;

    LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof(info));
    memset(&info, 0, sizeof(info));
    info.task.pid = (__u32)pid;
    c->skel->bss->tag_tgid = (__u32)pid;
    if (run_task_iter(c->skel->progs.tag_threads, &opts) == 0)
        return 0;
    return run_task_iter(c->skel->progs.tag_threads, NULL);
}

/* Mark pid traced in mode (enum kev_trace_mode): its syscalls go past the BPF side's first test. */
static void mark_traced(struct kcap *c, pid_t pid, __u32 mode)
{
    if (c->marks && pid > 0 && (size_t)pid < KEV_MARKS_MAX)
        __atomic_store_n(&c->marks[pid], (unsigned char)KEV_MARK(mode), __ATOMIC_RELEASE);
}

int kcap_built(void)
{
    return 1;
}

/* Whether the calls' user stacks are taken (iorecord --no-stacks: not). */
static int take_stacks = 1;

void kcap_stacks(int on)
{
    take_stacks = on;
}

/* A stack the BPF side interned: its return addresses (kconv_stacks). */
static int stack_lookup(void *ctx, uint32_t id, uint64_t *ips, int cap)
{
    struct kcap *c = ctx;
    __u64 frames[KEV_STACK_DEPTH];
    int n = 0;

    if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.user_stacks), &id, frames) != 0)
        return -1;
    while (n < cap && n < KEV_STACK_DEPTH && frames[n]) {
        ips[n] = frames[n];
        n++;
    }
    return n;
}

/* libbpf's own messages would go to the traced program's terminal. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    (void)level;
    (void)fmt;
    (void)ap;
    return 0;
}

/*
 * The preload is in process pid's image: only its calls from outside the
 * C library are to be handed over, or none in a tool's that hosts it
 * (KCONV_HOSTED). Only an entry still there is changed
 * (BPF_EXIST): one its exit removed must not come back for a later
 * process that reuses the pid. The BPF side sets an image back to
 * TRACE_ALL at each exec.
 */
static void on_judged(void *ctx, pid_t pid, int image)
{
    struct kcap *c = ctx;
    struct tgid_state st;
    __u32 key = (__u32)pid;

    memset(&st, 0, sizeof(st));
    st.mode = image == KCONV_HOSTED ? TRACE_HOSTED : image ? TRACE_RAW : TRACE_ALL;
    if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.traced), &key, &st, BPF_EXIST) == 0)
        mark_traced(c, pid, st.mode);
}

static int on_record(void *ctx, void *data, size_t len)
{
    kconv_event(ctx, data, len);
    return 0;
}

struct kcap *kcap_open(int trace_fd, kconv_preload_judge judge, char *why, size_t cap)
{
    struct kcap *c = calloc(1, sizeof(*c));
    int err;

    if (!c) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    libbpf_set_print(quiet);
    c->ncpu = libbpf_num_possible_cpus();
    c->skel = capture__open();
    if (!c->skel) {
        err = errno;
        goto fail;
    }
    c->skel->rodata->classify = judge != NULL;
    c->skel->rodata->stacks = (__u8)take_stacks;
    /* no room taken for stacks that are not taken */
    if (!take_stacks && bpf_map__set_max_entries(c->skel->maps.user_stacks, 1) != 0) {
        err = errno;
        goto fail;
    }
    if (capture__load(c->skel) != 0) {
        err = errno;
        goto fail;
    }
    /* the skeleton maps .bss (libbpf makes global data mmap-able) */
    c->marks = c->skel->bss ? c->skel->bss->marks : NULL;
    if (!c->marks) {
        err = ENOTSUP;
        goto fail;
    }
    /* run by tag_threads and kcap_close, not attached for good */
    bpf_program__set_autoattach(c->skel->progs.tag_threads, false);
    bpf_program__set_autoattach(c->skel->progs.drain_batches, false);
    if (capture__attach(c->skel) != 0) {
        err = errno;
        goto fail;
    }
    c->conv = kconv_create(trace_fd, judge, on_judged, c);
    c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events), on_record, c->conv, NULL);
    if (!c->conv || !c->rb) {
        err = errno ? errno : ENOMEM;
        goto fail;
    }
    if (take_stacks)
        kconv_stacks(c->conv, stack_lookup, c);
    return c;
fail:
    if (err == EPERM || err == EACCES)
        snprintf(why, cap, "not permitted to load BPF programs (root or CAP_BPF and "
                 "CAP_PERFMON are needed)");
    else
        snprintf(why, cap, "the kernel refused the BPF program: %s", strerror(err));
    ring_buffer__free(c->rb);
    if (c->conv)
        kconv_finish(c->conv);
    capture__destroy(c->skel);
    free(c);
    return NULL;
}

int kcap_trace(struct kcap *c, pid_t pid)
{
    struct tgid_state st;
    __u32 key = (__u32)pid;

    memset(&st, 0, sizeof(st));
    st.mode = TRACE_ALL;
    if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.traced), &key, &st, BPF_ANY) != 0)
        return -1;
    mark_traced(c, pid, TRACE_ALL);
    return tag_threads(c, pid);
}

/*
 * A process the preload is in asked for the kernel path: only its calls
 * from outside the C library are handed over. One already followed (a
 * child of a followed process) keeps its entry (BPF_NOEXIST).
 */
/* Follow pid, which the preload is in, as mode (TRACE_RAW, TRACE_LET_GO). */
static int adopt(struct kcap *c, pid_t pid, __u32 mode)
{
    struct tgid_state st;
    __u32 key = (__u32)pid;
    int fd = bpf_map__fd(c->skel->maps.traced);

    memset(&st, 0, sizeof(st));
    st.mode = mode;
    if (bpf_map_update_elem(fd, &key, &st, BPF_NOEXIST) == 0) {
        mark_traced(c, pid, mode);
        if (tag_threads(c, pid) != 0)
            return -1;
    } else if (errno != EEXIST) {
        return -1;
    } else if (mode == TRACE_LET_GO) {
        /* followed already (as a child of a followed process): the mode
           only, what it learnt of its mappings stays */
        if (bpf_map_lookup_elem(fd, &key, &st) != 0)
            return -1;
        st.mode = mode;
        if (bpf_map_update_elem(fd, &key, &st, BPF_EXIST) != 0)
            return -1;
        mark_traced(c, pid, mode);
    }
    kconv_adopt(c->conv, pid, mode == TRACE_LET_GO);
    return 0;
}

int kcap_adopt(struct kcap *c, pid_t pid)
{
    return adopt(c, pid, TRACE_RAW);
}

int kcap_let_go(struct kcap *c, pid_t pid)
{
    return adopt(c, pid, TRACE_LET_GO);
}

void kcap_expect_exec(struct kcap *c, pid_t pid)
{
    kconv_expect_exec(c->conv, pid);
}

void kcap_attach(struct kcap *c, pid_t pid)
{
    kconv_attach(c->conv, pid);
}

/* The records the ring had no room for, summed over the CPUs. */
static void count_dropped(struct kcap *c)
{
    __u64 vals[c->ncpu > 0 ? c->ncpu : 1], sum = 0;
    __u32 zero = 0;

    if (c->ncpu <= 0 ||
        bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.dropped), &zero, vals) != 0)
        return;
    for (int i = 0; i < c->ncpu; i++)
        sum += vals[i];
    kconv_dropped(c->conv, sum);
}

void kcap_poll(struct kcap *c)
{
    ring_buffer__consume(c->rb);
}

/*
 * The batches of threads still running (capture_batch.bpf.h) go to the
 * ring: the syscall programs first, so that nothing more is batched, then
 * the BPF side's task iterator hands over every batch that holds records.
 * A thread that exits meanwhile hands over its own (the exit program is
 * still attached); the count swapped to 0 keeps a batch from going twice.
 */
static void drain_batches(struct kcap *c)
{
    struct bpf_link **syscall_links[] = {
        &c->skel->links.on_enter, &c->skel->links.on_exit,
    };

    for (size_t i = 0; i < sizeof(syscall_links) / sizeof(syscall_links[0]); i++) {
        bpf_link__destroy(*syscall_links[i]);
        *syscall_links[i] = NULL;
    }
    (void)run_task_iter(c->skel->progs.drain_batches, NULL);
}

int kcap_close(struct kcap *c)
{
    int rc;

    drain_batches(c);
    /* detach first: nothing comes in after the last drain */
    capture__detach(c->skel);
    ring_buffer__consume(c->rb);
    count_dropped(c);
    rc = kconv_finish(c->conv);
    ring_buffer__free(c->rb);
    capture__destroy(c->skel);
    free(c);
    return rc;
}

#else /* !REC_KERNEL_BUILT */

struct kcap {
    int unused;
};

int kcap_built(void)
{
    return 0;
}

void kcap_stacks(int on)
{
    (void)on;
}

struct kcap *kcap_open(int trace_fd, kconv_preload_judge judge, char *why, size_t cap)
{
    (void)trace_fd;
    (void)judge;
    snprintf(why, cap, "kernel capture not built (it needs clang, bpftool and libbpf-dev)");
    return NULL;
}

int kcap_trace(struct kcap *c, pid_t pid)
{
    (void)c;
    (void)pid;
    return -1;
}

int kcap_adopt(struct kcap *c, pid_t pid)
{
    (void)c;
    (void)pid;
    return -1;
}

int kcap_let_go(struct kcap *c, pid_t pid)
{
    (void)c;
    (void)pid;
    return -1;
}

void kcap_expect_exec(struct kcap *c, pid_t pid)
{
    (void)c;
    (void)pid;
}

void kcap_attach(struct kcap *c, pid_t pid)
{
    (void)c;
    (void)pid;
}

void kcap_poll(struct kcap *c)
{
    (void)c;
}

int kcap_close(struct kcap *c)
{
    (void)c;
    return 0;
}

#endif
