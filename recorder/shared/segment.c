/*
 * segment.c - the shared record memory (segment.h): layout, the lock-free
 * buffer free list and queue, slot and process-entry allocation, the
 * liveness locks, and the writer of the trace's side: draining the queue,
 * snapshotting and retiring slots.
 *
 * Linked into libiorecord.so and into iorecord (the collector): it calls
 * only raw syscalls, which no wrapper of ours sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "segment.h"

#define PAGE 4096u

static uint64_t align_up(uint64_t n, uint64_t a)
{
    return (n + a - 1) / a * a;
}

/* ------------------------------------------------------------- set-up */

static void layout(struct rec_seg_hdr *s, uint32_t nbufs, uint32_t nslots,
                   uint32_t nprocs)
{
    s->nbufs = nbufs;
    s->nslots = nslots;
    s->nprocs = nprocs;
    s->procs_off = align_up(sizeof(*s), 64);
    s->slots_off = align_up(s->procs_off + (uint64_t)nprocs * sizeof(struct rec_seg_proc), 64);
    s->metas_off = align_up(s->slots_off + (uint64_t)nslots * sizeof(struct rec_seg_slot), 64);
    s->data_off = align_up(s->metas_off + (uint64_t)nbufs * sizeof(struct rec_seg_buf), PAGE);
    s->size = s->data_off + (uint64_t)nbufs * REC_SEG_CHUNK;
}

size_t rec_seg_size(uint32_t nbufs, uint32_t nslots, uint32_t nprocs)
{
    struct rec_seg_hdr s;

    layout(&s, nbufs, nslots, nprocs);
    return (size_t)s.size;
}

size_t rec_seg_head_size(uint32_t nbufs, uint32_t nslots, uint32_t nprocs)
{
    struct rec_seg_hdr s;

    layout(&s, nbufs, nslots, nprocs);
    return (size_t)s.data_off;
}

void rec_seg_format(struct rec_seg_hdr *s, uint32_t nbufs, uint32_t nslots,
                    uint32_t nprocs)
{
    layout(s, nbufs, nslots, nprocs);
    s->version = REC_SEG_VERSION;
    __atomic_store_n(&s->magic, REC_SEG_MAGIC, __ATOMIC_RELEASE);
}

int rec_seg_valid(const struct rec_seg_hdr *s, size_t size)
{
    struct rec_seg_hdr want;

    if (size < sizeof(*s) || s->magic != REC_SEG_MAGIC ||
        s->version != REC_SEG_VERSION)
        return 0;
    layout(&want, s->nbufs, s->nslots, s->nprocs);
    return s->nbufs > 0 && s->nbufs <= REC_SEG_SHARED_BUFS && s->nslots > 0 &&
           want.size == s->size &&
           s->size <= size && want.procs_off == s->procs_off &&
           want.slots_off == s->slots_off && want.metas_off == s->metas_off &&
           want.data_off == s->data_off;
}

/* ---------------------------------------------------------- the view */

struct rec_seg_view rec_seg_view = { .fd = -1 };

#define EXTENT_BYTES ((size_t)REC_SEG_EXTENT_BUFS * REC_SEG_CHUNK)

void rec_seg_view_init(int fd, int shared)
{
    memset(rec_seg_view.ext, 0, sizeof(rec_seg_view.ext));
    rec_seg_view.fd = fd;
    rec_seg_view.shared = shared;
}

void rec_seg_view_fd(int fd)
{
    __atomic_store_n(&rec_seg_view.fd, fd, __ATOMIC_RELEASE);
}

void rec_seg_view_release(void)
{
    for (uint32_t e = 0; e < REC_SEG_MAX_EXTENTS; e++)
        if (rec_seg_view.ext[e]) {
            syscall(SYS_munmap, rec_seg_view.ext[e], EXTENT_BYTES);
            rec_seg_view.ext[e] = NULL;
        }
}

static void privatise(void *at, size_t size)
{
    syscall(SYS_mmap, at, size, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, (off_t)0);
}

void rec_seg_view_privatise(struct rec_seg_hdr *s)
{
    size_t head = (size_t)s->data_off;

    for (uint32_t e = 0; e < REC_SEG_MAX_EXTENTS; e++) {
        uint8_t *x = __atomic_load_n(&rec_seg_view.ext[e], __ATOMIC_ACQUIRE);

        if (x)
            privatise(x, EXTENT_BYTES);
    }
    rec_seg_view.shared = 0;
    rec_seg_view.fd = -1;
    privatise(s, head);
}

/*
 * Raw syscalls (nothing of ours wraps them, and a program's seccomp filter
 * sees what it would see of any mmap); errno is left as it was, as this
 * runs inside the program's calls. Two threads may map the same extent at
 * once: the first published wins, the other unmaps its own.
 */
uint8_t *rec_seg_map_extent(struct rec_seg_hdr *s, uint32_t e)
{
    int saved = errno, fd = __atomic_load_n(&rec_seg_view.fd, __ATOMIC_ACQUIRE);
    uint8_t *want = NULL;
    long p;

    if (e >= REC_SEG_MAX_EXTENTS || (uint64_t)e * REC_SEG_EXTENT_BUFS >= s->nbufs)
        return NULL;
    if (rec_seg_view.shared) {
        if (fd < 0)
            return NULL;
        p = syscall(SYS_mmap, NULL, EXTENT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
                    fd, (off_t)(s->data_off + (uint64_t)e * EXTENT_BYTES));
    } else {
        p = syscall(SYS_mmap, NULL, EXTENT_BYTES, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, (off_t)0);
    }
    errno = saved;
    if (p == -1 || (unsigned long)p >= -4096UL)
        return NULL;
    if (!__atomic_compare_exchange_n(&rec_seg_view.ext[e], &want, (uint8_t *)p, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        syscall(SYS_munmap, (void *)p, EXTENT_BYTES);
        errno = saved;
        return want;
    }
    return (uint8_t *)p;
}

/* ------------------------------------------------------------ buffers */

uint32_t rec_seg_buf_take(struct rec_seg_hdr *s, uint32_t open_as)
{
    uint64_t old = __atomic_load_n(&s->free_head, __ATOMIC_ACQUIRE), nw;
    uint32_t b, n;

    for (;;) {
        b = (uint32_t)old;
        if (b == 0)
            break;
        nw = (((old >> 32) + 1) << 32) |
             __atomic_load_n(&rec_seg_meta(s, b)->next, __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&s->free_head, &old, nw, 1,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            goto taken;
    }
    /* None free: the next untouched one, if any is left. */
    n = __atomic_load_n(&s->bufs_used, __ATOMIC_ACQUIRE);
    do {
        if (n >= s->nbufs)
            return 0;
    } while (!__atomic_compare_exchange_n(&s->bufs_used, &n, n + 1, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    b = n + 1;
taken:
    __atomic_store_n(&rec_seg_meta(s, b)->state, open_as, __ATOMIC_RELEASE);
    return b;
}

void rec_seg_buf_put(struct rec_seg_hdr *s, uint32_t b)
{
    uint64_t old = __atomic_load_n(&s->free_head, __ATOMIC_ACQUIRE), nw;
    struct rec_seg_buf *m = rec_seg_meta(s, b);

    __atomic_store_n(&m->state, REC_BUF_FREE, __ATOMIC_RELEASE);
    do {
        __atomic_store_n(&m->next, (uint32_t)old, __ATOMIC_RELAXED);
        nw = (((old >> 32) + 1) << 32) | b;
    } while (!__atomic_compare_exchange_n(&s->free_head, &old, nw, 1,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

void rec_seg_queue_push(struct rec_seg_hdr *s, uint32_t b)
{
    struct rec_seg_buf *m = rec_seg_meta(s, b);
    uint32_t old = __atomic_load_n(&s->queue_head, __ATOMIC_ACQUIRE);

    __atomic_store_n(&m->state, REC_BUF_QUEUED, __ATOMIC_RELEASE);
    do
        __atomic_store_n(&m->next, old, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&s->queue_head, &old, b, 1,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

uint32_t rec_seg_queue_take(struct rec_seg_hdr *s)
{
    uint32_t b = __atomic_exchange_n(&s->queue_head, 0, __ATOMIC_ACQ_REL);
    uint32_t rev = 0;

    /* The queue is LIFO; chunks are written in the order they closed. */
    while (b) {
        struct rec_seg_buf *m = rec_seg_meta(s, b);
        uint32_t next = m->next;

        m->next = rev;
        rev = b;
        b = next;
    }
    return rev;
}

int rec_seg_queue_empty(struct rec_seg_hdr *s)
{
    return __atomic_load_n(&s->queue_head, __ATOMIC_ACQUIRE) == 0;
}

/* ---------------------------------------------------- slots, processes */

/*
 * Claim entry i of a table whose entries start with a state word: a
 * compare-and-swap from free to `to`. Entries past the high-water mark are
 * claimed by raising it first, so a scan of [0, hwm) sees every taken one.
 */
static int claim(uint32_t *state, uint32_t to)
{
    uint32_t zero = 0;

    return __atomic_load_n(state, __ATOMIC_RELAXED) == 0 &&
           __atomic_compare_exchange_n(state, &zero, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED);
}

static int64_t claim_in(uint32_t *hwm, uint32_t max, void *base, size_t stride,
                        uint32_t to)
{
    uint32_t n = __atomic_load_n(hwm, __ATOMIC_ACQUIRE);

    for (uint32_t i = 0; i < n; i++)
        if (claim((uint32_t *)((char *)base + i * stride), to))
            return i;
    for (;;) {
        n = __atomic_load_n(hwm, __ATOMIC_ACQUIRE);
        if (n >= max)
            return -1;
        if (__atomic_compare_exchange_n(hwm, &n, n + 1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE) &&
            claim((uint32_t *)((char *)base + n * stride), to))
            return n;
    }
}

/* Claimed, not yet filled in: the writer of the trace leaves it alone. */
#define SLOT_CLAIMED 2u

struct rec_seg_slot *rec_seg_slot_take(struct rec_seg_hdr *s, uint32_t proc,
                                       uint32_t image, int32_t pid, int32_t tid)
{
    int64_t i = claim_in(&s->slots_hwm, s->nslots, rec_seg_slot_at(s, 0),
                         sizeof(struct rec_seg_slot), SLOT_CLAIMED);
    struct rec_seg_slot *sl;

    if (i < 0)
        return NULL;
    sl = rec_seg_slot_at(s, (uint32_t)i);
    sl->proc = proc;
    sl->image = image;
    sl->pid = pid;
    sl->tid = tid;
    sl->buf = 0;
    sl->seq = 0;
    sl->pub = 0;
    sl->chain_id = 0;
    sl->base_t = 0;
    sl->snap_buf = 0;
    sl->snap_len = 0;
    /* Judged by the writer of the trace from here on: whole by now. */
    __atomic_store_n(&sl->state, REC_SLOT_LIVE, __ATOMIC_RELEASE);
    return sl;
}

void rec_seg_slot_drop(struct rec_seg_slot *sl)
{
    __atomic_store_n(&sl->state, REC_SLOT_FREE, __ATOMIC_RELEASE);
}

int rec_seg_proc_take(struct rec_seg_hdr *s, int32_t pid)
{
    int64_t i = claim_in(&s->procs_hwm, s->nprocs, rec_seg_proc_at(s, 0),
                         sizeof(struct rec_seg_proc), REC_PROC_CLAIMED);

    if (i < 0)
        return -1;
    rec_seg_proc_at(s, (uint32_t)i)->pid = pid;
    rec_seg_proc_at(s, (uint32_t)i)->image = 0;
    return (int)i;
}

int rec_seg_lock(int fd, uint32_t i)
{
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
                        .l_start = (off_t)i, .l_len = 1 };

    return syscall(SYS_fcntl, fd, F_SETLK, &fl) == 0 ? 0 : -1;
}

int rec_seg_locked(int fd, uint32_t i)
{
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
                        .l_start = (off_t)i, .l_len = 1 };

    if (syscall(SYS_fcntl, fd, F_GETLK, &fl) != 0)
        return -1;
    return fl.l_type != F_UNLCK;
}

int rec_seg_fd_high(int fd, int dup_cmd, long margin)
{
    struct rlimit rl, lifted;
    long lim = 1024;
    int nfd = -1, restore = 0;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        lim = (long)rl.rlim_cur;
        /*
         * Under a soft limit of 1024 or less (the usual default, or
         * ulimit -n 64) the top of the program's range is the program's
         * own: it gets EMFILE there, and ours would take numbers it has
         * natively. When the hard limit allows, lift the soft one for the
         * dup (to 1024, or to just above a soft limit of 1024) and put it
         * back at once: an fd above the soft limit stays open, and the
         * program can neither be given its number nor dup onto it.
         */
        if (lim <= 1024 && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur)) {
            rlim_t top = rl.rlim_cur + (rlim_t)margin > 1024 ? rl.rlim_cur + (rlim_t)margin
                                                             : 1024;

            lifted = rl;
            lifted.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < top ? rl.rlim_max
                                                                                : top;
            if (setrlimit(RLIMIT_NOFILE, &lifted) == 0) {
                restore = 1;
                lim = (long)lifted.rlim_cur;
                margin = margin < lim - (long)rl.rlim_cur ? margin : lim - (long)rl.rlim_cur;
            }
        }
    }
    /* no higher than ~1000 (a margin above 1024 when lifted there): fork
       copies the fd table up to the highest open fd, and every fork of
       the program would pay for a high one */
    if (lim > 1024 && !restore)
        lim = 1024;
    for (long want = lim - margin; want >= 10 && nfd < 0; want = want * 3 / 4)
        nfd = (int)syscall(SYS_fcntl, fd, dup_cmd, want);
    if (restore)
        setrlimit(RLIMIT_NOFILE, &rl);
    return nfd;
}

int rec_seg_close_range_except(unsigned first, unsigned last, int flags,
                               const int *keep, int n)
{
    unsigned lo = first;
    int r = 0;

    if (first > last)   /* the kernel's EINVAL, as the program would get it */
        return (int)syscall(SYS_close_range, first, last, flags);
    /* Each kept fd in [first, last], lowest first, splits the range. */
    while (r == 0 && lo <= last) {
        unsigned next = last;
        int found = 0;

        for (int k = 0; k < n; k++)
            if (keep[k] >= 0 && (unsigned)keep[k] >= lo && (unsigned)keep[k] <= next) {
                next = (unsigned)keep[k];
                found = 1;
            }
        if (!found)
            return (int)syscall(SYS_close_range, lo, last, flags);
        if (next > lo)
            r = (int)syscall(SYS_close_range, lo, next - 1, flags);
        if (next == ~0u)
            break;
        lo = next + 1;
    }
    return r;
}

/* ----------------------------------------------------------- writing */

/*
 * A chunk whose buffer the writer of the trace could not map (its own
 * address space is full): in its place, one of the same chain and seq that
 * holds a lost record (no_memory, count unknown), so the trace says that
 * this thread's records from there are missing.
 */
static void emit_unmapped(const struct iot_chunk_hdr *h0, rec_seg_emit_fn *emit, void *ctx)
{
    static const char why[] = "no_memory";
    uint8_t buf[64];
    struct iot_enc e;
    struct iot_chunk_hdr h = *h0;
    struct iot_event ev = {
        .kind = IOT_EV_CALL, .op = IOT_OP_LOST, .has = IOT_HAS_SIZE | IOT_HAS_MODE,
        .t = h0->base_t, .size = 0,
    };

    iot_enc_begin(&e, buf, sizeof(buf), h0->base_t);
    if (iot_enc_str(&e, why, sizeof(why) - 1, &ev.mode_id) != 0 || iot_enc_call(&e, &ev) != 0)
        return;
    h.nrec = e.nrec;
    h.bytes = (uint32_t)e.len;
    emit(ctx, &h, buf);
}

static void slot_hdr(const struct rec_seg_slot *sl, struct iot_chunk_hdr *h)
{
    memset(h, 0, sizeof(*h));
    h->version = IOT_FORMAT_VERSION;
    h->flags = IOT_CHUNK_PARTIAL;
    h->pid = __atomic_load_n(&sl->pid, __ATOMIC_RELAXED);
    h->tid = __atomic_load_n(&sl->tid, __ATOMIC_RELAXED);
    h->chain_id = __atomic_load_n(&sl->chain_id, __ATOMIC_RELAXED);
    h->seq = __atomic_load_n(&sl->seq, __ATOMIC_RELAXED);
    h->base_t = __atomic_load_n(&sl->base_t, __ATOMIC_RELAXED);
}

void rec_seg_snapshot_slot(struct rec_seg_hdr *s, struct rec_seg_slot *sl,
                           rec_seg_emit_fn *emit, void *ctx)
{
    struct iot_chunk_hdr h;
    uint32_t g1, g2, b;
    uint64_t pub;
    uint8_t *data;

    if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != REC_SLOT_LIVE)
        return;
    g1 = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
    if (g1 & 1)
        return;
    b = __atomic_load_n(&sl->buf, __ATOMIC_RELAXED);
    pub = __atomic_load_n(&sl->pub, __ATOMIC_ACQUIRE);
    slot_hdr(sl, &h);
    h.nrec = (uint32_t)(pub >> 32);
    h.bytes = (uint32_t)pub;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    g2 = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
    if (g1 != g2 || b == 0 || b > s->nbufs || h.bytes == 0 ||
        h.bytes > REC_SEG_CHUNK)
        return;
    if (sl->snap_buf == b && sl->snap_len == h.bytes)
        return;
    data = rec_seg_data(s, b);
    if (!data)
        return;
    sl->snap_buf = b;
    sl->snap_len = h.bytes;
    emit(ctx, &h, data);
}

void rec_seg_retire_slot(struct rec_seg_hdr *s, struct rec_seg_slot *sl,
                         rec_seg_emit_fn *emit, void *ctx)
{
    uint32_t idx = (uint32_t)(sl - rec_seg_slot_at(s, 0));
    uint32_t b = __atomic_load_n(&sl->buf, __ATOMIC_ACQUIRE);
    uint64_t pub = __atomic_load_n(&sl->pub, __ATOMIC_ACQUIRE);
    struct iot_chunk_hdr h;
    uint8_t *data;

    /*
     * A buffer that is queued (its thread died between queueing it and
     * letting go) is the queue's to write; one that is not open as this
     * slot's was never written into.
     */
    if (b && b <= s->nbufs &&
        __atomic_load_n(&rec_seg_meta(s, b)->state, __ATOMIC_ACQUIRE) == idx + 1) {
        slot_hdr(sl, &h);
        h.nrec = (uint32_t)(pub >> 32);
        h.bytes = (uint32_t)pub;
        if (h.bytes > 0 && h.bytes <= REC_SEG_CHUNK &&
            !(sl->snap_buf == b && sl->snap_len == h.bytes)) {
            data = rec_seg_data(s, b);
            if (data)
                emit(ctx, &h, data);
            else
                emit_unmapped(&h, emit, ctx);
        }
        rec_seg_buf_put(s, b);
    }
    __atomic_store_n(&sl->buf, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sl->pub, 0, __ATOMIC_RELAXED);
    rec_seg_slot_drop(sl);
}

void rec_seg_drain(struct rec_seg_hdr *s, rec_seg_emit_fn *emit, void *ctx)
{
    uint32_t b = rec_seg_queue_take(s);

    while (b) {
        uint32_t next = rec_seg_meta(s, b)->next;
        uint8_t *data = rec_seg_data(s, b);

        /* the buffer was written, so some process mapped it: only this
           one's lack of memory can keep it from the trace */
        if (data)
            emit(ctx, &rec_seg_meta(s, b)->hdr, data);
        else
            emit_unmapped(&rec_seg_meta(s, b)->hdr, emit, ctx);
        rec_seg_buf_put(s, b);
        b = next;
    }
}
