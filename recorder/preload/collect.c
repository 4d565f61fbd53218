/*
 * collect.c - the segment this process records into (segment.h).
 *
 * Under iorecord, IORECORD_COLLECT=SEG,LIVE names two inherited fds: the
 * launcher's memfd, shared with the collector and every recorded process of
 * the run, and the write end of a pipe whose end tells the collector that
 * every process of the run is gone. The process maps the memfd, takes a
 * process entry and holds the POSIX lock on its byte for as long as it
 * lives: the collector tests that lock to learn of a death, in any pid
 * namespace, kill -9 included.
 *
 * An exec keeps the process, its lock and its entry: the exec wrapper
 * passes the entry on (IORECORD_PROC=N:PID) and the new image bumps the
 * entry's image, which tells the collector that the slots of the old one
 * will never be written again.
 *
 * Without a collector (plain preload, or fds that are not a segment), the
 * segment is private memory and this process writes the trace itself.
 *
 * The entries also tell when two live processes share a pid (each in its
 * own pid namespace): the trace says so, as nothing else in it can.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "internal.h"
#include "sandbox.h"

struct rec_seg_hdr *rec_seg;
int rec_collected;
uint32_t rec_proc;
uint32_t rec_image;

/* "A,B" or "A:B" as two non-negative ints. */
static int parse_pair(const char *v, char sep, long *a, long *b)
{
    char *end;

    if (!v || !*v)
        return -1;
    *a = strtol(v, &end, 10);
    if (end == v || *end != sep || *a < 0)
        return -1;
    v = end + 1;
    *b = strtol(v, &end, 10);
    if (end == v || *end != '\0' || *b < 0)
        return -1;
    return 0;
}

/*
 * Map the head of the segment behind fd (its data is mapped an extent at a
 * time, segment.h); 0, or -1 when it is none of ours.
 */
static int attach(int fd)
{
    struct rec_seg_hdr h;
    struct stat st;
    void *p;

    if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size < (off_t)sizeof(struct rec_seg_hdr) ||
        syscall(SYS_pread64, fd, &h, sizeof(h), (off_t)0) != (long)sizeof(h) ||
        !rec_seg_valid(&h, (size_t)st.st_size))
        return -1;
    p = mmap(NULL, (size_t)h.data_off, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    rec_seg_ident.dev = st.st_dev;
    rec_seg_ident.ino = st.st_ino;
    rec_seg = p;
    rec_seg_view_init(fd, 1);
    return 0;
}

/* A new process entry, locked and live; 0, or -1. */
static int new_entry(int fd)
{
    int n = rec_seg_proc_take(rec_seg, rec_pid);

    if (n < 0)
        return -1;
    /*
     * The lock tells the collector when we die. Where a seccomp filter may
     * stand fcntl is not ours to make, and a filter may refuse it: the
     * entry then stays CLAIMED, which the collector never judges, and our
     * chunks reach the trace as they are queued, the open one at the end
     * of the run; only a kill -9's last moments are lost that way.
     */
    if (rec_filter_may_stand() || rec_seg_lock(fd, (uint32_t)n) != 0) {
        rec_proc = (uint32_t)n + 1;
        rec_image = 0;
        return 0;
    }
    __atomic_store_n(&rec_seg_proc_at(rec_seg, (uint32_t)n)->state,
                     REC_PROC_LIVE, __ATOMIC_RELEASE);
    rec_proc = (uint32_t)n + 1;
    rec_image = 0;
    return 0;
}

/* The entry an earlier image of this process had, or a new one. */
static int enter_process(int fd)
{
    long n, pid;

    if (parse_pair(getenv("IORECORD_PROC"), ':', &n, &pid) == 0 &&
        pid == rec_pid && n < (long)rec_seg->nprocs) {
        struct rec_seg_proc *e = rec_seg_proc_at(rec_seg, (uint32_t)n);

        /* The collector may be checking on us (DYING): it hands it back. */
        for (int i = 0; i < 1000 &&
             __atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == REC_PROC_DYING; i++)
            syscall(SYS_sched_yield);
        /* Our lock, kept across the exec, is no conflict to us: taking it
           again is a no-op. The old image's slots are now stale. */
        if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == REC_PROC_LIVE &&
            e->pid == rec_pid && rec_seg_lock(fd, (uint32_t)n) == 0) {
            rec_proc = (uint32_t)n + 1;
            rec_image = __atomic_add_fetch(&e->image, 1, __ATOMIC_ACQ_REL);
            rec_collect_wake();
            return 0;
        }
    }
    return new_entry(fd);
}

_Static_assert(REC_MAX_BUFS <= REC_SEG_SHARED_BUFS, "a private segment's extents fit the view");

static int own_segment(void)
{
    size_t head = rec_seg_head_size(REC_MAX_BUFS, REC_MAX_THREADS, 0);
    void *p = mmap(NULL, head, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        return -1;
    rec_seg = p;
    rec_seg_view_init(-1, 0);
    rec_seg_format(rec_seg, REC_MAX_BUFS, REC_MAX_THREADS, 0);
    return 0;
}

int rec_collect_init(void)
{
    long seg_fd, live_fd;

    if (parse_pair(getenv("IORECORD_COLLECT"), ',', &seg_fd, &live_fd) == 0 &&
        seg_fd <= INT32_MAX && live_fd <= INT32_MAX && attach((int)seg_fd) == 0) {
        if (enter_process((int)seg_fd) == 0) {
            struct stat st;

            if (syscall(SYS_fstat, (int)live_fd, &st) == 0) {
                rec_live_ident.dev = st.st_dev;
                rec_live_ident.ino = st.st_ino;
            }
            rec_collected = 1;
            rec_own_fd_set(REC_OWN_SEG, (int)seg_fd);
            rec_own_fd_set(REC_OWN_LIVE, (int)live_fd);
            return 0;
        }
        rec_seg_view_release();
        munmap(rec_seg, (size_t)rec_seg->data_off);
        rec_seg = NULL;
    }
    return own_segment();
}

int rec_collect_fork_child(void)
{
    struct rec_seg_hdr *s = rec_seg;

    if (rec_collected)
        return new_entry(rec_own_fd_get(REC_OWN_SEG));
    /*
     * Our own memory, copied: the parent writes its queue and its threads'
     * chunks; here every buffer and slot is free again.
     */
    s->queue_head = 0;
    s->free_head = 0;
    for (uint32_t b = 1; b <= s->bufs_used; b++)
        rec_seg_buf_put(s, b);
    for (uint32_t i = 0; i < s->slots_hwm; i++)
        rec_seg_slot_drop(rec_seg_slot_at(s, i));
    return 0;
}

void rec_collect_wake(void)
{
    if (!rec_collected)
        return;
    __atomic_add_fetch(&rec_seg->wake, 1, __ATOMIC_ACQ_REL);
    /* no futex where a filter may stand: the collector looks by itself
       within its sleep's timeout */
    if (__atomic_load_n(&rec_seg->sleeping, __ATOMIC_ACQUIRE) && !rec_filter_may_stand())
        syscall(SYS_futex, &rec_seg->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * An entry is alive while its process holds the lock on its byte (the
 * entry of one that has just died stays until the collector reaps it:
 * its pid taken again in this namespace is no clash). fcntl is asked only
 * of entries with our pid, and not where a filter may stand.
 */
uint32_t rec_collect_pid_shared(void)
{
    struct rec_seg_hdr *s = rec_seg;
    uint32_t n, clashes = 0;
    int fd;

    if (!rec_collected || rec_filter_may_stand())
        return 0;
    fd = rec_own_fd_get(REC_OWN_SEG);
    n = __atomic_load_n(&s->procs_hwm, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < s->nprocs && fd >= 0; i++) {
        struct rec_seg_proc *e = rec_seg_proc_at(s, i);
        uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

        if (i + 1 == rec_proc || __atomic_load_n(&e->pid, __ATOMIC_RELAXED) != rec_pid ||
            (st != REC_PROC_LIVE && st != REC_PROC_MOVING))
            continue;
        clashes += rec_seg_locked(fd, i) == 1;
    }
    return clashes;
}

int rec_collector_alive(void)
{
    return rec_seg_locked(rec_own_fd_get(REC_OWN_SEG), rec_seg->nprocs) != 0;
}

char *rec_collect_env(char **out, size_t *k, char *str)
{
    if (!rec_collected)
        return str;
    /* the fds are >= 0 here: rec_collected means both were inherited */
    out[(*k)++] = str;
    str = rec_stpnum(stpcpy(str, "IORECORD_COLLECT="), (unsigned)rec_own_fd_get(REC_OWN_SEG));
    str = rec_stpnum(stpcpy(str, ","), (unsigned)rec_own_fd_get(REC_OWN_LIVE)) + 1;
    out[(*k)++] = str;
    str = rec_stpnum(stpcpy(str, "IORECORD_PROC="), rec_proc - 1);
    str = rec_stpnum(stpcpy(str, ":"), (unsigned)rec_pid) + 1;
    return str;
}
