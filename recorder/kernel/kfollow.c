/*
 * kfollow.c - what a process's syscalls change that its later records
 * depend on, followed as the preload follows it: its working directory
 * (chdir, fchdir: a cwd record, and later relative paths joined to it),
 * its threads' names (prctl PR_SET_NAME, or a write to a thread's /proc
 * comm file as pthread_setname_np makes for another thread: a thread
 * record) and the files it maps (so that a munmap is written only for
 * those).
 *
 * Invariants:
 *  - p->cwd is the directory the kernel resolved the process's relative
 *    paths against after its last recorded call; a chdir the kernel path
 *    did not see (the preload's, in a preloaded process) is read from /proc
 *    at the next exec instead (kconvert.c);
 *  - a thread record is written only when the name changes, so a thread
 *    that names itself first has one record, as under the preload.
 */
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconv_int.h"
#include "kevent.h"

#define PR_SET_NAME_ 15

/* The cwd record of p's thread, after a chdir or fchdir to p->cwd. */
static void put_cwd(struct kconv *k, struct kproc *p, const struct kev *e)
{
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_CWD, .pid = p->pid,
                            .tid = (int32_t)e->tid, .t = (int64_t)e->t,
                            .dur = (int64_t)e->dur, .has = IOT_HAS_PATH };

    put_call(k, p, &ev, p->cwd, NULL, NULL);
}

/* chdir(path) succeeded: the directory it named, as getcwd would give it. */
static void on_chdir(struct kproc *p, const char *path)
{
    char joined[PATH_MAX], real[PATH_MAX];
    const char *dir = abs_path(p, AT_FDCWD, path, joined, sizeof(joined));

    /* getcwd gives the directory with its symlinks resolved */
    if (realpath(dir, real))
        dir = real;
    if (dir[0] == '/' && strlen(dir) < sizeof(p->cwd))
        memmove(p->cwd, dir, strlen(dir) + 1);
    else
        p->cwd[0] = '\0';   /* unknown: later relative paths stay as given */
}

/* prctl(PR_SET_NAME) of thread tid: its new name, the first 15 bytes of name. */
static void on_rename(struct kconv *k, struct kproc *p, const struct kev *e, const char *name)
{
    struct kchain *c = chain_get(k, p, (int32_t)e->tid, (int64_t)e->t);
    char now[KNAME];

    if (!c)
        return;
    name_copy(now, name);
    if (c->named && strcmp(c->name, now) == 0)
        return;
    put_thread(k, p, c, (int64_t)e->t, now);
    if ((int32_t)e->tid == p->pid)
        memcpy(p->comm, now, sizeof(p->comm));
}

int follow_state(struct kconv *k, struct kproc *p, const struct kev *e)
{
    const char *path = e->npaths >= 1 ? e->path : "";

    switch (e->nr) {
    case NR_chdir:
        if (e->ret == 0) {
            on_chdir(p, path);
            if (p->cwd[0])
                put_cwd(k, p, e);
        }
        return 1;
    case NR_fchdir:
        if (e->ret == 0) {
            /* the directory the fd names: the process's cwd now */
            proc_link(p->pid, "cwd", p->cwd, sizeof(p->cwd));
            if (p->cwd[0] == '/')
                put_cwd(k, p, e);
            else
                p->cwd[0] = '\0';
        }
        return 1;
    case NR_prctl:
        if (e->ret == 0 && (int64_t)e->a0 == PR_SET_NAME_ && path[0])
            on_rename(k, p, e, path);
        return 1;
    default:
        return 0;
    }
}

int follow_map(struct kproc *p, const struct iot_event *ev)
{
    uint64_t addr;

    if (ev->op == IOT_OP_MMAP) {
        if (ev->ret > 0 && !(ev->has & IOT_HAS_ERRNO))
            p->maps[p->next_map++ % KMAPS] = (uint64_t)ev->ret;
        return 1;
    }
    if (ev->op != IOT_OP_MUNMAP)
        return 1;
    /* the C library's own maps (malloc's, the loader's) are memory */
    addr = (uint64_t)ev->offset;
    for (int i = 0; i < KMAPS; i++)
        if (addr && p->maps[i] == addr) {
            if (!(ev->has & IOT_HAS_ERRNO))
                p->maps[i] = 0;
            return 1;
        }
    return 0;
}

/*
 * The thread whose name path is, in process pid: /proc/self/task/T/comm,
 * /proc/PID/task/T/comm or /proc/thread-self/comm (tid: the caller). 0
 * when path is no such file.
 */
static int32_t comm_file_thread(const char *path, int32_t pid, int32_t tid)
{
    int32_t owner = 0, t = 0;
    int end = 0;

    if (strcmp(path, "/proc/thread-self/comm") == 0)
        return tid;
    if (sscanf(path, "/proc/self/task/%d/comm%n", &t, &end) == 1 && path[end] == '\0')
        return t;
    end = 0;
    if (sscanf(path, "/proc/%d/task/%d/comm%n", &owner, &t, &end) == 2 && path[end] == '\0' &&
        owner == pid)
        return t;
    return 0;
}

void follow_comm_file(struct kconv *k, struct kproc *p, const struct iot_event *ev,
                      const char *path)
{
    int failed = (ev->has & IOT_HAS_ERRNO) != 0;

    switch (ev->op) {
    case IOT_OP_OPEN:
        if (!failed && path)
            if ((p->comm_tid = comm_file_thread(path, p->pid, ev->tid)) > 0)
                p->comm_fd = ev->fd;
        break;
    case IOT_OP_WRITE:
        if (!failed && ev->ret > 0 && ev->fd == p->comm_fd && p->comm_fd >= 0) {
            /* the name as the kernel keeps it now (the bytes written are
               not in the record) */
            struct kev e = { .t = (uint64_t)ev->t, .tid = (uint32_t)p->comm_tid };
            char name[KNAME];

            proc_comm(p->pid, p->comm_tid, name);
            if (name[0])
                on_rename(k, p, &e, name);
        }
        break;
    case IOT_OP_CLOSE:
        if (ev->fd == p->comm_fd)
            p->comm_fd = -1;
        break;
    default:
        break;
    }
}
