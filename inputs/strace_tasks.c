/*
 * strace_tasks.c - the strace importer's model of processes and threads.
 *
 * A log names tasks by tid only; which tids share a process, and which
 * process forked which, comes from the clone, fork and exec calls and from
 * the order of lines. Each process keeps what its fds name, so that logs
 * written without -y still name the file of every call, and its file
 * mappings, so that a munmap can be told from malloc's. A call left
 * <unfinished ...> waits on its task until it resumes.
 *
 * The synthesised PROCESS, THREAD and EXIT events are described in
 * docs/ci.md, "strace logs".
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "heap.h"
#include "strace_int.h"

/* fds beyond this are not tracked (the engine ignores them too). */
#define MAX_FD (1 << 20)

static uint64_t tid_key(int32_t tid)
{
    return (uint64_t)(uint32_t)tid;
}

/* ------------------------------------------------------------ processes */

static struct strace_proc *proc_new(struct strace_src *s, int32_t pid, int32_t ppid)
{
    struct strace_proc *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->pid = pid;
    p->ppid = ppid;
    p->next_all = s->all_procs;
    s->all_procs = p;
    return p;
}

int strace_proc_announce(struct strace_src *s, struct strace_proc *p, int64_t t)
{
    struct iot_event ev = { 0 };

    p->announced = 1;
    ev.kind = IOT_EV_PROCESS;
    ev.pid = p->pid;
    ev.tid = p->pid;
    ev.ppid = p->ppid;
    ev.t = t;
    /* times are bounded (strace_sec_ns), but not their sum with a file's mtime */
    if (__builtin_add_overflow(s->unix_origin, t, &ev.start_unix_ns))
        ev.start_unix_ns = t > 0 ? INT64_MAX : INT64_MIN;
    ev.exe = p->exe;
    ev.argc = p->argc;
    ev.argv = p->argv;
    return strace_emit(s, &ev);
}

int strace_proc_exec(struct strace_src *s, struct strace_proc *p, struct strace_arg exe,
                     struct strace_arg argv_arg)
{
    const char **argv;
    int argc, cut, rc;

    p->exe = strace_arg_str(s, exe);
    rc = strace_arg_strv(s, argv_arg, &argv, &argc, &cut);
    if (rc <= 0)
        return rc;  /* no array: the image keeps the argv it had */
    /* argv[0] cut short at strace's -s is the start of the path it ran (a
       long path): the name a process goes by is that path's, not the stub */
    if (cut && p->exe && strncmp(p->exe, argv[0], strlen(argv[0])) == 0)
        argv[0] = p->exe;
    /* A held PROCESS event may still point at the previous argv, so every
     * argv lives until strace_close. */
    if (argv) {
        if (iot_grow(&s->argvs, &s->capargvs, s->nargvs + 1, sizeof(*s->argvs)) < 0) {
            free(argv);
            return -1;
        }
        s->argvs[s->nargvs++] = argv;
    }
    p->argv = argv;
    p->argc = argc;
    return 0;
}

/* ------------------------------------------------------- fds and mappings */

int strace_fd_set(struct strace_proc *p, int64_t fd, const char *path)
{
    if (fd < 0 || fd > MAX_FD)
        return 0;
    if ((size_t)fd >= p->nfd) {
        if (!path)
            return 0;
        /* Sized to the highest fd named, not doubled: fds are small and
         * dense, and every fork copies the table whole. */
        size_t n = (size_t)fd + 16;
        const char **t = realloc(p->fdpath, n * sizeof(*t));
        if (!t)
            return -1;
        memset(t + p->nfd, 0, (n - p->nfd) * sizeof(*t));
        p->fdpath = t;
        p->nfd = n;
    }
    p->fdpath[fd] = path;
    return 0;
}

const char *strace_fd_get(const struct strace_proc *p, int64_t fd)
{
    return fd >= 0 && (size_t)fd < p->nfd ? p->fdpath[fd] : NULL;
}

void strace_fd_forget(struct strace_proc *p, int64_t first, int64_t last)
{
    for (int64_t f = first; f >= 0 && f <= last && (size_t)f < p->nfd; f++)
        p->fdpath[f] = NULL;
}

/*
 * A process that exited needs its fd table and mappings no more (a line of
 * a reused pid makes a new process): they are freed now, so that what stays
 * per process of a long log is its struct and its task's, a few hundred
 * bytes, not the fd table a fork copied (KBs for a parent with high fds).
 */
static void proc_release_tables(struct strace_proc *p)
{
    free(p->fdpath);
    free(p->maps);
    p->fdpath = NULL;
    p->maps = NULL;
    p->nfd = p->nmaps = p->capmaps = 0;
}

int strace_map_add(struct strace_proc *p, uint64_t addr, uint64_t len)
{
    if (p->nmaps == p->capmaps &&
        iot_grow(&p->maps, &p->capmaps, p->nmaps + 1, sizeof(*p->maps)) < 0)
        return -1;
    p->maps[p->nmaps].addr = addr;
    p->maps[p->nmaps].len = len;
    p->nmaps++;
    return 0;
}

int strace_map_remove(struct strace_proc *p, uint64_t addr)
{
    size_t i;

    for (i = 0; i < p->nmaps && p->maps[i].addr != addr; i++)
        ;
    if (i == p->nmaps)
        return 0;
    p->maps[i] = p->maps[--p->nmaps];
    return 1;
}

/* ---------------------------------------------------------------- tasks */

static struct strace_task *task_new(struct strace_src *s, int32_t tid, struct strace_proc *p)
{
    struct strace_task *k = calloc(1, sizeof(*k));

    if (!k)
        return NULL;
    k->tid = tid;
    k->proc = p;
    k->next_all = s->all_tasks;
    s->all_tasks = k;
    /* a reused tid now names the new task */
    if (hmap_put(&s->tasks, tid_key(tid), k) < 0)
        return NULL;
    return k;
}

/* A THREAD event: a new thread (name NULL) or a thread's new name. */
int strace_thread_announce(struct strace_src *s, struct strace_task *k, int64_t t,
                           const char *name)
{
    struct iot_event ev = { 0 };

    ev.kind = IOT_EV_THREAD;
    ev.pid = k->proc->pid;
    ev.tid = k->tid;
    ev.t = t;
    ev.name = name;
    return strace_emit(s, &ev);
}

/*
 * Register tid as a new task at time t: a thread of parent's process when
 * is_thread, else a new process whose parent is parent's process (or ppid 0
 * when parent is NULL). The PROCESS event of a new process waits for its
 * first line, so that an execve there can name the image.
 */
static struct strace_task *task_create(struct strace_src *s, int32_t tid,
                                       struct strace_task *parent, int is_thread, int64_t t)
{
    struct strace_task *k;
    struct strace_proc *p;

    if (is_thread && parent) {
        k = task_new(s, tid, parent->proc);
        if (k && strace_thread_announce(s, k, t, NULL) < 0)
            return NULL;
        return k;
    }
    p = proc_new(s, tid, parent ? parent->proc->pid : 0);
    if (!p)
        return NULL;
    if (parent) {
        /* a forked child runs its parent's image until it execs */
        p->exe = parent->proc->exe;
        p->argv = parent->proc->argv;
        p->argc = parent->proc->argc;
    }
    if (parent && parent->proc->nfd) {
        /* a child process inherits the descriptors */
        p->fdpath = malloc(parent->proc->nfd * sizeof(*p->fdpath));
        if (!p->fdpath)
            return NULL;
        memcpy(p->fdpath, parent->proc->fdpath, parent->proc->nfd * sizeof(*p->fdpath));
        p->nfd = parent->proc->nfd;
    }
    return task_new(s, tid, p);
}

struct strace_task *strace_task_of(struct strace_src *s, int32_t tid, int64_t t)
{
    struct strace_task *k = hmap_get(&s->tasks, tid_key(tid)), *parent = NULL;

    if (k && !k->exited && !k->proc->exited)
        return k;
    /* A new tid while a clone is unfinished is most likely its child (the
     * child often runs before the parent's clone returns). */
    for (size_t i = 0; i < s->nclones; i++) {
        struct strace_task *c = s->clones[i];
        if (!c->pend_child && (!parent || c->pend_t > parent->pend_t))
            parent = c;
    }
    if (parent)
        parent->pend_child = tid;
    return task_create(s, tid, parent, parent && parent->pend_thread, t);
}

int strace_task_clone(struct strace_src *s, struct strace_task *k, int32_t child,
                      int is_thread, int64_t t)
{
    struct strace_task *c;

    if (child <= 0)
        return 0;
    c = hmap_get(&s->tasks, tid_key(child));
    if (c && (!c->exited || c->exit_t >= t) && (!c->proc->exited || c->proc->exit_t >= t))
        return 0;  /* the child already showed up (or lived and died) */
    return task_create(s, child, k, is_thread, t) ? 0 : -1;
}

int strace_task_exit(struct strace_src *s, struct strace_task *k, int64_t t, int status,
                     int sig)
{
    struct iot_event ev = { 0 };

    if (k->pending)
        strace_pend_lost(s, k);
    k->exited = 1;
    k->exit_t = t;
    /* a thread's end is not a process exit (strace reports both) */
    if (k->tid != k->proc->pid)
        return 0;
    if (!k->proc->announced && strace_proc_announce(s, k->proc, t) < 0)
        return -1;
    k->proc->exited = 1;
    k->proc->exit_t = t;
    proc_release_tables(k->proc);
    ev.kind = IOT_EV_EXIT;
    ev.pid = k->proc->pid;
    ev.tid = k->tid;
    ev.t = t;
    ev.status = status;
    if (sig) {
        ev.has |= IOT_HAS_SIGNAL;
        ev.signal = sig;
    }
    return strace_emit(s, &ev);
}

/* ------------------------------------------------------ unfinished calls */

/* The pending-call heap, oldest call on top; each task knows its place. */
#define PEND_BEFORE(ctx, x, y) ((*(x))->pend_t < (*(y))->pend_t)
#define PEND_PLACED(ctx, a, i) ((a)[i]->pend_idx = (i))
IOT_HEAP_DEFINE(pend_heap, struct strace_task *, void *, PEND_BEFORE, PEND_PLACED)

int64_t strace_pend_oldest(const struct strace_src *s)
{
    return s->npend ? s->pend[0]->pend_t : INT64_MAX;
}

int strace_pend_start(struct strace_src *s, struct strace_task *k, const char *name,
                      size_t nlen, const char *args, size_t alen, int is_clone, int64_t t)
{
    if (k->pending)
        strace_pend_lost(s, k);
    k->pend_name = strndup(name, nlen);
    k->pend_args = strndup(args, alen);
    if (!k->pend_name || !k->pend_args)
        return -1;
    k->pend_t = t;
    k->pend_log = (size_t)(s->cur - s->logs);
    k->pend_child = 0;
    k->pend_clone = is_clone;
    k->pend_thread = k->pend_clone && strstr(k->pend_args, "CLONE_THREAD") != NULL;
    if ((s->npend == s->cappend &&
         iot_grow(&s->pend, &s->cappend, s->npend + 1, sizeof(*s->pend)) < 0) ||
        (k->pend_clone && s->nclones == s->capclones &&
         iot_grow(&s->clones, &s->capclones, s->nclones + 1, sizeof(*s->clones)) < 0))
        return -1;
    k->pending = 1;
    s->pend[s->npend++] = k;
    pend_heap_fix(NULL, s->pend, s->npend, s->npend - 1);
    if (k->pend_clone)
        s->clones[s->nclones++] = k;
    return 0;
}

struct strace_task *strace_pend_find(struct strace_src *s, int32_t tid, const char *name,
                                     size_t nlen)
{
    struct strace_task *k = hmap_get(&s->tasks, tid_key(tid));

    if (!k || !k->pending || strlen(k->pend_name) != nlen || memcmp(k->pend_name, name, nlen) != 0)
        return NULL;
    return k;
}

void strace_pend_end(struct strace_src *s, struct strace_task *k)
{
    size_t i = k->pend_idx;

    if (k->pending && i < s->npend && s->pend[i] == k) {
        struct strace_task *last = s->pend[--s->npend];

        if (last != k) {
            s->pend[i] = last;
            pend_heap_fix(NULL, s->pend, s->npend, i);
        }
    }
    /* pending clones are few: a scan */
    for (size_t j = 0; k->pend_clone && j < s->nclones; j++)
        if (s->clones[j] == k) {
            s->clones[j] = s->clones[--s->nclones];
            break;
        }
    k->pending = 0;
    k->pend_clone = 0;
    free(k->pend_name);
    free(k->pend_args);
    k->pend_name = k->pend_args = NULL;
}

void strace_pend_lost(struct strace_src *s, struct strace_task *k)
{
    s->info.unfinished++;
    if (k->pend_log < s->nlogs)
        s->logs[k->pend_log].info.unfinished++;
    strace_pend_end(s, k);
}

void strace_tasks_release(struct strace_src *s)
{
    while (s->all_tasks) {
        struct strace_task *k = s->all_tasks;
        s->all_tasks = k->next_all;
        free(k->pend_name);
        free(k->pend_args);
        free(k);
    }
    while (s->all_procs) {
        struct strace_proc *p = s->all_procs;
        s->all_procs = p->next_all;
        free(p->fdpath);
        free(p->maps);
        free(p);
    }
    for (size_t i = 0; i < s->nargvs; i++)
        free(s->argvs[i]);
    free(s->argvs);
    hmap_release(&s->tasks);
    free(s->pend);
    free(s->clones);
}
