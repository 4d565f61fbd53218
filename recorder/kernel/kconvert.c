/*
 * kconvert.c - the kernel capture's records turned into the trace's
 * (kconvert.h).
 *
 * Invariants:
 *  - one chain per (process image, thread): an exec ends the process's
 *    chains and starts new ones with new chain ids, as the preload's do;
 *  - a process's process record (and cwd) opens its main thread's chain,
 *    before any of its calls;
 *  - in a process the judge gives to the preload, a syscall made from the
 *    C library's (or the loader's, or the recorder's) text is the
 *    preload's and is not written here; one made from anywhere else (Go's
 *    runtime, liburing, code of its own) no preload saw, and is. So no
 *    call is in the trace twice. A process the launcher started has its
 *    calls before its first exec (the launcher's own) dropped;
 *  - a chunk goes to the trace in one write() on an O_APPEND fd, so it
 *    never interleaves with another writer's (the collector's, the
 *    preload's), through the collector's framer (frame.h): whole frames
 *    only, cut to what RLIMIT_FSIZE leaves;
 *  - a process the preload records gets a coverage record only when the
 *    kernel path wrote calls of it: a trace the preload alone could have
 *    made stays as it was.
 *
 * The conversion's parts: kchain.c (processes and their chains),
 * kprocfs.c (what is read of /proc), kproc_record.c (process records),
 * ksyscall.c (a syscall as a call), kfollow.c (the cwd, thread names and
 * file mappings a process's calls change).
 */
#include <fcntl.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kconv_int.h"
#include "kevent.h"

struct kconv *kconv_create(int trace_fd, kconv_preload_judge judge, kconv_judged judged,
                           void *ctx)
{
    struct kconv *k = calloc(1, sizeof(*k));

    if (!k)
        return NULL;
    k->framer.chunker = iot_chunker_create(1);
    k->framer.buf = k->frame;
    k->framer.cap = sizeof(k->frame);
    if (!k->framer.chunker || iot_chunk_bound(CHUNK_BYTES) > sizeof(k->frame)) {
        iot_chunker_free(k->framer.chunker);
        free(k);
        return NULL;
    }
    k->fd = trace_fd;
    k->judge = judge;
    k->judged = judged;
    k->judged_ctx = ctx;
    /* chain ids distinct from the preload's and another run's */
    k->next_chain = ((uint64_t)getpid() << 40) ^ ((uint64_t)time(NULL) << 8) ^
                    0x6b65726eULL;
    /* iorecord set the list (launch_labels.c) before starting the kernel
       path; one it would refuse, or too long to keep, is none */
    const char *labels = getenv("IORECORD_LABELS");

    if (labels && strlen(labels) < sizeof(k->labels) &&
        iot_labels_parse(labels, NULL, NULL, NULL) > 0)
        snprintf(k->labels, sizeof(k->labels), "%s", labels);
    return k;
}


/* p ends: its stacks' state goes, then p (kchain.c). */
static void proc_end(struct kconv *k, struct kproc *p)
{
    kstack_free(p);
    proc_free(k, p);
}

static void on_call(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    struct iot_event ev = { .kind = IOT_EV_CALL };
    const char *path = NULL, *newpath = NULL;
    char b1[PATH_MAX], b2[PATH_MAX];
    int ok;

    if (!p || p->before_exec || p->hosted)
        return;
    /* the preload's (or the loader's, or its own): not again */
    if (p->preload && (e->flags & KEV_F_LIBC))
        return;
    if (e->kind == KEV_SYSCALL && follow_state(k, p, e))
        return;
    ok = e->kind == KEV_URING ? uring_call_of(e, &ev)
                              : call_of(p, e, &ev, &path, &newpath, b1, b2, sizeof(b1));
    if (!ok)
        return;
    ev.pid = (int32_t)e->pid;
    ev.tid = (int32_t)e->tid;
    ev.t = (int64_t)e->t;
    ev.dur = (int64_t)e->dur;
    ev.ret = e->ret;
    if (e->ret < 0) {
        ev.has |= IOT_HAS_ERRNO;
        ev.err = (int32_t)-e->ret;
        ev.ret = -1;
    }
    if (!follow_map(p, &ev))
        return;
    if (e->kind == KEV_SYSCALL && (ev.stack = kstack_of(k, p, ev.tid, ev.t, e->stack)) != NULL)
        ev.has |= IOT_HAS_STACK;
    p->calls++;
    put_call(k, p, &ev, path, newpath, NULL);
    follow_comm_file(k, p, &ev, path);
}

/* -------------------------------------------------------- process life */

/*
 * The coverage record of p: which path recorded it, and how many calls
 * the kernel path wrote (for a process the preload recorded: the file
 * syscalls the kernel saw that the preload did not).
 */
static void put_coverage(struct kconv *k, struct kproc *p, int64_t t)
{
    kstack_note(k, p, t);
    if ((p->preload && !p->calls && !p->asked) || p->awaiting_let_go)
        return;
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_COVERAGE, .pid = p->pid,
                            .tid = p->pid, .t = t, .has = IOT_HAS_MODE | IOT_HAS_SIZE,
                            .size = (int64_t)p->calls };

    put_call(k, p, &ev, NULL, NULL, p->preload ? "preload" : "kernel");
}

static void on_exec(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    const char *exe = e->npaths ? e->path : "", *base;
    char exe_abs[PATH_MAX], exe_real[PATH_MAX], cwd[PATH_MAX];

    if (!p)
        return;
    if (!p->before_exec && (p->calls || p->chains))
        put_coverage(k, p, (int64_t)e->t);
    chains_end(k, p);
    /* the cwd it inherited and followed (kfollow.c): /proc's is read up to
       a poll later, after chdirs of the new image. From /proc only when
       the kernel path could not follow it: the preload's chdirs (its C
       library's calls) are not handed over, or none is known */
    if (p->preload || !p->cwd[0]) {
        proc_link(p->pid, "cwd", cwd, sizeof(cwd));
        if (cwd[0] == '/')
            memcpy(p->cwd, cwd, sizeof(cwd));
    }
    p->before_exec = 0;
    p->calls = 0;
    memset(p->maps, 0, sizeof(p->maps));
    /* the kernel names the new image's thread after the file exec'd */
    base = strrchr(exe, '/');
    name_copy(p->comm, base ? base + 1 : exe);
    if (e->a1)
        p->ppid = (int32_t)e->a1;
    exe = abs_path(p, AT_FDCWD, exe, exe_abs, sizeof(exe_abs));
    /* "/dir/./prog" as /proc names it, when the file is still there */
    if (realpath(exe, exe_real))
        exe = exe_real;
    kstack_exec(p, exe, e->a0, e->a3);
    p->preload = k->judge && exe[0] && !p->let_go ? k->judge(exe) : 0;
    /* the exec'd file does not take the preload, but the tool it is runs a
       program that does: one source, the preload's, for what the program
       calls; the tool's own calls are not the program's */
    p->hosted = k->judge && !p->preload && !p->let_go && proc_hosts_preload(p->pid);
    if (p->hosted)
        p->preload = 1;
    if (k->judged && p->preload)
        k->judged(k->judged_ctx, p->pid, p->hosted ? KCONV_HOSTED : KCONV_PRELOADED);
    /* the preload writes its own process record */
    if (!p->preload)
        put_process(k, p, (int64_t)e->t, exe, e->npaths == 2 ? e->path2 : NULL,
                    e->npaths == 2 && e->a2 < KEV_PATH_MAX ? (size_t)e->a2 : 0);
}

static void on_fork(struct kconv *k, const struct kev *e)
{
    struct kproc *parent = proc_get(k, (int32_t)e->pid);
    struct kproc *child = proc_get(k, (int32_t)e->a0);

    if (!parent || !child)
        return;
    child->ppid = parent->pid;
    child->before_exec = parent->before_exec;
    child->preload = parent->preload;
    child->let_go = parent->let_go;
    child->hosted = parent->hosted;
    memcpy(child->cwd, parent->cwd, sizeof(child->cwd));
    memcpy(child->maps, parent->maps, sizeof(child->maps));
    kstack_fork(child, parent);
    child->comm_fd = -1;
    /* its one thread has the name of the thread that forked */
    memcpy(child->comm, parent->comm, sizeof(child->comm));
    for (struct kchain *c = parent->chains; c; c = c->next)
        if (c->tid == (int32_t)e->tid && c->named && c->name[0])
            memcpy(child->comm, c->name, sizeof(child->comm));
    if (!child->before_exec && !child->preload)
        put_process(k, child, (int64_t)e->t, NULL, NULL, 0);
}


static void on_exit_(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    int code = (int)e->a0, sig = code & 0x7f;
    struct kchain *c;

    if (!p)
        return;
    if (!e->a1) {
        /* a thread ended: its chain ends */
        for (struct kchain **cp = &p->chains; *cp; cp = &(*cp)->next)
            if ((*cp)->tid == (int32_t)e->tid && (int32_t)e->tid != p->pid) {
                c = *cp;
                *cp = c->next;
                write_chunk(k, p->pid, c, IOT_CHUNK_LAST);
                free(c);
                break;
            }
        return;
    }
    if (p->before_exec) {
        proc_end(k, p);
        return;
    }
    put_coverage(k, p, (int64_t)e->t);
    if (!p->preload && (c = chain_get(k, p, p->pid, (int64_t)e->t)) != NULL) {
        int status = sig ? 128 + sig : (code >> 8) & 0xff;

        if (iot_enc_exit(&c->enc, (int64_t)e->t, status, sig) != 0) {
            write_chunk(k, p->pid, c, 0);
            iot_enc_exit(&c->enc, (int64_t)e->t, status, sig);
        }
    }
    proc_end(k, p);
}

/* The preload let the process go at a credential change: its calls are
   the kernel path's to write from here on, all of them. */
static void on_let_go(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);

    if (p) {
        p->preload = 0;
        p->hosted = 0;
        p->let_go = 1;
        p->awaiting_let_go = 0;
    }
}

/* A thread's first wait for events: one waits record (5.16) in its chain. */
static void on_waits(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    struct kchain *c;

    if (!p || p->preload || p->before_exec ||
        !(c = chain_get(k, p, (int32_t)e->tid, (int64_t)e->t)))
        return;
    if (!c->named) {
        char name[KNAME];

        proc_comm(p->pid, c->tid, name);
        put_thread(k, p, c, (int64_t)e->t, name[0] ? name : p->comm);
    }
    if (iot_enc_waits(&c->enc, (int64_t)e->t, 1) != 0) {
        write_chunk(k, p->pid, c, 0);
        iot_enc_waits(&c->enc, (int64_t)e->t, 1);
    }
}

/* A thread's batch: its calls without paths, in its order, each converted alone. */
static void on_batch(struct kconv *k, const struct kev *e, size_t len)
{
    size_t n = (size_t)e->a0, fit = len / KEV_BASE_SIZE - 1;

    if (n > fit)
        n = fit;
    if (n > KEV_BATCH_MAX)
        n = KEV_BATCH_MAX;
    for (size_t i = 1; i <= n; i++) {
        const struct kev *r = (const struct kev *)((const char *)e + i * KEV_BASE_SIZE);

        if (r->kind == KEV_SYSCALL && r->npaths == 0)
            on_call(k, r);
    }
}

void kconv_event(struct kconv *k, const struct kev *e, size_t len)
{
    if (len < KEV_BASE_SIZE || (e->npaths >= 1 && len < KEV_PATH1_SIZE) ||
        (e->npaths == 2 && len < sizeof(*e)))
        return;
    switch (e->kind) {
    case KEV_SYSCALL: case KEV_URING: on_call(k, e); break;
    case KEV_FORK: on_fork(k, e); break;
    case KEV_EXEC: on_exec(k, e); break;
    case KEV_EXIT: on_exit_(k, e); break;
    case KEV_LET_GO: on_let_go(k, e); break;
    case KEV_WAITS: on_waits(k, e); break;
    case KEV_BATCH: on_batch(k, e, len); break;
    default: break;
    }
}

void kconv_stacks(struct kconv *k, kstack_lookup lookup, void *ctx)
{
    k->lookup = lookup;
    k->lookup_ctx = ctx;
}

void kconv_dropped(struct kconv *k, uint64_t total)
{
    k->dropped = total;
}

int kconv_finish(struct kconv *k)
{
    int64_t t = mono_ns();
    int err;

    for (size_t b = 0; b < PROC_BUCKETS; b++)
        while (k->procs[b]) {
            struct kproc *p = k->procs[b];

            if (!p->before_exec) {
                put_coverage(k, p, t);
                /* the ring's losses are the run's: said once */
                if (k->dropped) {
                    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_LOST,
                                            .pid = p->pid, .tid = p->pid, .t = t,
                                            .has = IOT_HAS_MODE | IOT_HAS_SIZE,
                                            .size = (int64_t)k->dropped };

                    put_call(k, p, &ev, NULL, NULL, "kernel_ring_full");
                    k->dropped = 0;
                }
            }
            proc_end(k, p);
        }
    err = k->err;
    iot_chunker_free(k->framer.chunker);
    free(k);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
