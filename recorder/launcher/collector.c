/*
 * collector.c - the process iorecord starts before the command, which
 * writes the trace for every recorded process of the run (collector.h).
 *
 * It sleeps on the segment's wake word, which a recorded thread bumps (and
 * wakes) when it queues a chunk, for 200 ms at most; each time it
 *   - writes the queue, oldest chunk first, and recycles the buffers;
 *   - retires the slots of dead processes (their lock is gone; tested at
 *     most every 20 ms) and of images replaced by exec: what they
 *     published is written, as the last PARTIAL chunk of their thread's chain;
 *   - on iorecord's flush request (the command has ended), does both and
 *     snapshots the open chunks of the processes still running.
 * It ends when the liveness pipe reports that every process holding it
 * (every recorded process, and anything they started) is gone, after a
 * last round; if iorecord itself was killed by then, it renames the spool
 * onto the output, which iorecord would have done.
 *
 * It has a process group of its own and ignores the terminal's signals,
 * so a Ctrl-C or a kill of the job does not lose the end of the trace; it
 * holds neither stdin nor stdout, so a pipeline reading the command's
 * output ends when the command does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "frame.h"
#include "msg.h"
#include "segment.h"

#define SLEEP_NS 200000000L   /* the longest the collector sleeps */
#define REAP_NS   20000000L   /* the shortest time between two reaps */

struct writer {
    struct rec_seg_hdr *seg;
    int seg_fd;
    int trace_fd;
    struct rec_framer framer;
    const char *output;          /* as the user named it */
    int failed;                  /* warned: nothing more is written */
};

static long futex(uint32_t *w, int op, uint32_t val, long ns)
{
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

    return syscall(SYS_futex, w, op, val, ns >= 0 ? &ts : NULL, NULL, 0);
}

/* ------------------------------------------------------------- writing */

static void emit(void *ctx, const struct iot_chunk_hdr *h, const void *records)
{
    struct writer *w = ctx;
    int err;

    if (w->failed)
        return;
    err = rec_frame_write(&w->framer, w->trace_fd, h, records);
    if (err == 0)
        return;
    /* One warning on iorecord's stderr; the processes stop recording. */
    w->failed = 1;
    __atomic_store_n(&w->seg->stopped, 1, __ATOMIC_RELEASE);
    iot_error("cannot %s trace '%s': %s; recording stopped",
              err == ENOMEM ? "compress" : "write", w->output, strerror(err));
}

/*
 * Retire the slots no thread will write again: those of processes whose
 * lock is gone, and those of an image an exec replaced.
 */
static void reap(struct writer *w)
{
    static uint8_t dead[REC_SEG_PROCS];
    struct rec_seg_hdr *s = w->seg;
    uint32_t np = __atomic_load_n(&s->procs_hwm, __ATOMIC_ACQUIRE);
    uint32_t ns = __atomic_load_n(&s->slots_hwm, __ATOMIC_ACQUIRE);

    if (np > s->nprocs)
        np = s->nprocs;
    for (uint32_t p = 0; p < np; p++) {
        struct rec_seg_proc *e = rec_seg_proc_at(s, p);
        uint32_t live = REC_PROC_LIVE;

        dead[p] = 0;
        if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) != REC_PROC_LIVE ||
            rec_seg_locked(w->seg_fd, p) != 0 ||
            !__atomic_compare_exchange_n(&e->state, &live, REC_PROC_DYING, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        /* DYING: no move can start now, so a free lock is a death (the
           first test may have caught a move that has ended since). */
        if (rec_seg_locked(w->seg_fd, p) == 0)
            dead[p] = 1;
        else
            __atomic_store_n(&e->state, REC_PROC_LIVE, __ATOMIC_RELEASE);
    }
    for (uint32_t i = 0; i < ns && i < s->nslots; i++) {
        struct rec_seg_slot *sl = rec_seg_slot_at(s, i);
        struct rec_seg_proc *e;
        uint32_t p;

        if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != REC_SLOT_LIVE)
            continue;
        p = sl->proc;
        if (p == 0 || p > np)
            continue;
        e = rec_seg_proc_at(s, p - 1);
        if (dead[p - 1] ||
            (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == REC_PROC_LIVE &&
             sl->image != __atomic_load_n(&e->image, __ATOMIC_ACQUIRE)))
            rec_seg_retire_slot(s, sl, emit, w);
    }
    for (uint32_t p = 0; p < np; p++)
        if (dead[p])
            __atomic_store_n(&rec_seg_proc_at(s, p)->state, REC_PROC_FREE,
                             __ATOMIC_RELEASE);
}

static void snapshot_all(struct writer *w)
{
    uint32_t ns = __atomic_load_n(&w->seg->slots_hwm, __ATOMIC_ACQUIRE);

    for (uint32_t i = 0; i < ns && i < w->seg->nslots; i++)
        rec_seg_snapshot_slot(w->seg, rec_seg_slot_at(w->seg, i), emit, w);
}

/*
 * A whole round: everything published so far is in the trace after it.
 * Counts the processes still recorded, which will write more.
 */
static void round_all(struct writer *w)
{
    uint32_t np = __atomic_load_n(&w->seg->procs_hwm, __ATOMIC_ACQUIRE), live = 0;

    rec_seg_drain(w->seg, emit, w);
    reap(w);
    rec_seg_drain(w->seg, emit, w);
    snapshot_all(w);
    for (uint32_t p = 0; p < np && p < w->seg->nprocs; p++)
        live += __atomic_load_n(&rec_seg_proc_at(w->seg, p)->state,
                                __ATOMIC_ACQUIRE) != REC_PROC_FREE;
    __atomic_store_n(&w->seg->survivors, live, __ATOMIC_RELEASE);
}

/* Whether every holder of the pipe's write end is gone. */
static int all_gone(int live_rd)
{
    char c;
    ssize_t n = read(live_rd, &c, 1);

    return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

/*
 * iorecord has exited and its caller has the prompt back: a pipeline on
 * its stderr (`iorecord ... 2>&1 | less`) must end even while a daemon is
 * recorded on, and a warning now would land amid the caller's later output.
 */
static void let_go_of_stderr(void)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }
}

static int64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void run(struct writer *w, int live_rd)
{
    struct rec_seg_hdr *s = w->seg;
    int64_t reaped = 0;

    for (;;) {
        uint32_t woke = __atomic_load_n(&s->wake, __ATOMIC_ACQUIRE);
        uint32_t req = __atomic_load_n(&s->flush_req, __ATOMIC_ACQUIRE);
        int64_t now = mono_ns();

        rec_seg_drain(s, emit, w);
        /* A lock test per live process: not at every chunk a busy run queues. */
        if (now - reaped >= REAP_NS) {
            reap(w);
            reaped = now;
        }
        if (req != __atomic_load_n(&s->flush_done, __ATOMIC_ACQUIRE)) {
            round_all(w);
            __atomic_store_n(&s->flush_done, req, __ATOMIC_RELEASE);
            futex(&s->flush_done, FUTEX_WAKE, INT_MAX, -1);
        }
        if (all_gone(live_rd))
            break;
        if (__atomic_exchange_n(&s->launcher_gone, 0, __ATOMIC_ACQ_REL))
            let_go_of_stderr();
        __atomic_store_n(&s->sleeping, 1, __ATOMIC_SEQ_CST);
        if (rec_seg_queue_empty(s) &&
            req == __atomic_load_n(&s->flush_req, __ATOMIC_ACQUIRE))
            futex(&s->wake, FUTEX_WAIT, woke, SLEEP_NS);
        __atomic_store_n(&s->sleeping, 0, __ATOMIC_RELAXED);
    }
    round_all(w);
}

/* ------------------------------------------------------------ starting */

static void become_collector(struct writer *w, int live_rd, const char *spool,
                             const char *out)
{
    static const int quiet[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGXFSZ,
                                 SIGTSTP, SIGTTOU, SIGTTIN, SIGUSR1, SIGUSR2,
                                 SIGALRM, SIGWINCH };
    int keep[3] = { w->trace_fd, w->seg_fd, live_rd };
    struct sigaction sa;
    sigset_t none;
    int null;

    setpgid(0, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
        sigaction(quiet[i], &sa, NULL);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGCONT, &sa, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        close(null);
    }
    rec_seg_close_range_except(3, ~0u, 0, keep, 3);
    if (chdir("/") != 0) {
        /* paths are absolute; the directory only pins a mount */
    }
    rec_seg_lock(w->seg_fd, w->seg->nprocs);
    rec_seg_view_init(w->seg_fd, 1);
    fcntl(live_rd, F_SETFL, O_NONBLOCK);
    w->framer.chunker = iot_chunker_create(1);
    w->framer.cap = iot_chunk_bound(REC_SEG_CHUNK);
    w->framer.buf = malloc(w->framer.cap);
    if (!w->framer.chunker || !w->framer.buf) {
        iot_error("cannot write trace '%s': %s; recording stopped", w->output,
                  strerror(ENOMEM));
        w->failed = 1;
        __atomic_store_n(&w->seg->stopped, 1, __ATOMIC_RELEASE);
    }
    run(w, live_rd);
    /* iorecord renames the spool once the command ends; if it is gone. */
    if (spool[0])
        rename(spool, out);
    _exit(0);
}

/* A duplicate of fd at a high number that an exec keeps, fd closed. */
static int move_high(int fd)
{
    int nfd = rec_seg_fd_high(fd, F_DUPFD, 16);

    if (nfd < 0)
        return -1;
    close(fd);
    return nfd;
}

int collector_start(struct collector *c, int trace_fd, const char *output,
                    const char *spool, const char *out)
{
    size_t size = rec_seg_size(REC_SEG_SHARED_BUFS, REC_SEG_SHARED_SLOTS,
                               REC_SEG_PROCS);
    size_t head = rec_seg_head_size(REC_SEG_SHARED_BUFS, REC_SEG_SHARED_SLOTS,
                                    REC_SEG_PROCS);
    struct sigaction ign = { .sa_handler = SIG_IGN }, old;
    struct writer w;
    int live[2] = { -1, -1 }, err, sized;

    memset(c, 0, sizeof(*c));
    c->seg_fd = memfd_create("iorecord", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (c->seg_fd < 0)
        goto fail;
    /* A file size limit (ulimit -f) counts the memfd too: past it, EFBIG
       rather than SIGXFSZ, and each process writes its own trace. */
    sigaction(SIGXFSZ, &ign, &old);
    sized = ftruncate(c->seg_fd, (off_t)size) == 0;
    sigaction(SIGXFSZ, &old, NULL);
    if (!sized)
        goto fail;
    /*
     * Every recorded process maps the whole segment: one that shrank it
     * would kill the collector and every other process with SIGBUS at
     * their next touch of the lost pages. Its size is fixed for good
     * (writes stay open: the records are written through the mapping).
     */
    if (fcntl(c->seg_fd, F_ADD_SEALS,
              F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        goto fail;
    /* the head only: the collector maps the data an extent at a time as
       the recorded processes use it (segment.h) */
    c->seg = mmap(NULL, head, PROT_READ | PROT_WRITE, MAP_SHARED, c->seg_fd, 0);
    if (c->seg == MAP_FAILED) {
        c->seg = NULL;
        goto fail;
    }
    rec_seg_format(c->seg, REC_SEG_SHARED_BUFS, REC_SEG_SHARED_SLOTS,
                   REC_SEG_PROCS);
    if (pipe2(live, O_CLOEXEC) != 0)
        goto fail;
    c->pid = fork();
    if (c->pid < 0)
        goto fail;
    if (c->pid == 0) {
        memset(&w, 0, sizeof(w));
        w.seg = c->seg;
        w.seg_fd = c->seg_fd;
        w.trace_fd = trace_fd;
        w.output = output;
        close(live[1]);
        become_collector(&w, live[0], spool, out);
    }
    c->seg->collector_pid = c->pid;
    close(live[0]);
    close(trace_fd);
    c->live_fd = move_high(live[1]);
    c->seg_fd = move_high(c->seg_fd);
    if (c->live_fd < 0 || c->seg_fd < 0)
        goto fail_started;
    return 0;

fail_started:
    err = errno;
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    if (c->live_fd >= 0)
        close(c->live_fd);
    if (c->seg_fd >= 0)
        close(c->seg_fd);
    errno = err;
    return -1;
fail:
    err = errno;
    if (c->seg)
        munmap(c->seg, head);
    if (c->seg_fd >= 0)
        close(c->seg_fd);
    if (live[0] >= 0) {
        close(live[0]);
        close(live[1]);
    }
    errno = err;
    return -1;
}

void collector_command_started(struct collector *c)
{
    close(c->seg_fd);
    c->seg_fd = -1;
}

void collector_end(struct collector *c)
{
    struct timespec tick = { 0, 2000000 };

    close(c->live_fd);
    c->live_fd = -1;
    /* The collector sleeps on the wake word, not on the pipe: it would see
       the pipe's end only at its next wake-up, 200 ms on. */
    __atomic_add_fetch(&c->seg->wake, 1, __ATOMIC_ACQ_REL);
    futex(&c->seg->wake, FUTEX_WAKE, 1, -1);
    /*
     * Nothing recorded is left: the collector ends at once, and a script
     * that moves the trace or unmounts its disk next must not find it busy.
     * Half a second at most: a process may hold the pipe unseen (a child
     * forked just before the command exited that has not yet run, or one
     * that is not recorded).
     */
    if (!__atomic_load_n(&c->seg->survivors, __ATOMIC_ACQUIRE))
        for (int i = 0; i < 250; i++) {
            if (waitpid(c->pid, NULL, WNOHANG) != 0)
                return;
            nanosleep(&tick, NULL);
        }
    /* It writes on for the survivors (the docs say so), without our stderr. */
    __atomic_store_n(&c->seg->launcher_gone, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&c->seg->wake, 1, __ATOMIC_ACQ_REL);
    futex(&c->seg->wake, FUTEX_WAKE, 1, -1);
}
void collector_flush(struct collector *c)
{
    struct rec_seg_hdr *s = c->seg;
    uint32_t req = __atomic_add_fetch(&s->flush_req, 1, __ATOMIC_ACQ_REL);

    __atomic_add_fetch(&s->wake, 1, __ATOMIC_ACQ_REL);
    futex(&s->wake, FUTEX_WAKE, 1, -1);
    for (;;) {
        uint32_t done = __atomic_load_n(&s->flush_done, __ATOMIC_ACQUIRE);

        if ((int32_t)(done - req) >= 0)
            return;
        /* A collector that died (killed) answers nothing. */
        if (waitpid(c->pid, NULL, WNOHANG) == c->pid)
            return;
        futex(&s->flush_done, FUTEX_WAIT, done, 100000000L);
    }
}
