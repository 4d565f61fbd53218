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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "iotrace.h"
#include "kconvert.h"
#include "kevent.h"

#define CHUNK_BYTES (32 * 1024)
#define ARGV_MAX    64

struct kchain {
    struct kchain *next;
    int32_t tid;
    uint64_t chain_id;
    uint32_t seq;
    struct iot_enc enc;
    uint8_t buf[CHUNK_BYTES];
};

struct kproc {
    struct kproc *next;
    int32_t pid, ppid;
    int before_exec;       /* the launcher's child before its exec: drop */
    int preload;           /* the preload records it: its libc calls are not written */
    int asked;             /* it asked for the kernel path: covered even without calls */
    uint64_t calls;        /* file calls written by the kernel path */
    char cwd[PATH_MAX];    /* "" when unknown */
    struct kchain *chains;
};

#define PROC_BUCKETS 1024

struct kconv {
    int fd;
    int err;               /* first write error */
    kconv_preload_judge judge;
    kconv_judged judged;
    void *judged_ctx;
    struct rec_framer framer;    /* the collector's writer: whole frames, within RLIMIT_FSIZE */
    uint64_t next_chain;
    uint64_t dropped;
    struct kproc *procs[PROC_BUCKETS];
    uint8_t frame[CHUNK_BYTES + 4096];
};

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
    return k;
}

static int64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ------------------------------------------------------------- chains */

static void write_chunk(struct kconv *k, int32_t pid, struct kchain *c, uint32_t flags)
{
    struct iot_chunk_hdr h;
    int err;

    /* after a failed write nothing more: the run's warning is said once */
    if ((c->enc.nrec == 0 && !(flags & IOT_CHUNK_LAST)) || k->err) {
        iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), c->enc.prev_end);
        return;
    }
    memset(&h, 0, sizeof(h));
    h.version = IOT_FORMAT_VERSION;
    h.flags = flags;
    h.pid = pid;
    h.tid = c->tid;
    h.chain_id = c->chain_id;
    h.seq = c->seq++;
    h.nrec = c->enc.nrec;
    h.base_t = c->enc.base_t;
    h.bytes = (uint32_t)c->enc.len;
    err = rec_frame_write(&k->framer, k->fd, &h, c->enc.buf);
    if (err && !k->err)
        k->err = err;
    iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), c->enc.prev_end);
}

static struct kproc **proc_slot(struct kconv *k, int32_t pid)
{
    struct kproc **p = &k->procs[(uint32_t)pid % PROC_BUCKETS];

    while (*p && (*p)->pid != pid)
        p = &(*p)->next;
    return p;
}

static struct kproc *proc_get(struct kconv *k, int32_t pid)
{
    struct kproc **slot = proc_slot(k, pid);

    if (!*slot) {
        *slot = calloc(1, sizeof(**slot));
        if (*slot)
            (*slot)->pid = pid;
    }
    return *slot;
}

static struct kchain *chain_get(struct kconv *k, struct kproc *p, int32_t tid, int64_t t)
{
    struct kchain *c;

    for (c = p->chains; c; c = c->next)
        if (c->tid == tid)
            return c;
    c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    c->tid = tid;
    c->chain_id = k->next_chain++;
    c->seq = 0;
    iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), t);
    c->next = p->chains;
    p->chains = c;
    return c;
}

/* End every chain of p: their last chunks go out marked LAST. */
static void chains_end(struct kconv *k, struct kproc *p)
{
    while (p->chains) {
        struct kchain *c = p->chains;

        p->chains = c->next;
        write_chunk(k, p->pid, c, IOT_CHUNK_LAST);
        free(c);
    }
}

/*
 * Append one call to its thread's chain, with its path strings; a chunk
 * that is full goes out and the call starts the next one.
 */
static void put_call(struct kconv *k, struct kproc *p, struct iot_event *ev,
                     const char *path, const char *newpath, const char *mode)
{
    struct kchain *c = chain_get(k, p, ev->tid, ev->t);

    if (!c)
        return;
    for (int tries = 0; tries < 2; tries++) {
        size_t len = c->enc.len;
        uint32_t nrec = c->enc.nrec;

        if ((!path || iot_enc_str(&c->enc, path, strlen(path), &ev->path_id) == 0) &&
            (!newpath || iot_enc_str(&c->enc, newpath, strlen(newpath), &ev->newpath_id) == 0) &&
            (!mode || iot_enc_str(&c->enc, mode, strlen(mode), &ev->mode_id) == 0) &&
            iot_enc_call(&c->enc, ev) == 0)
            return;
        /* undo a string defined for a call that did not fit */
        c->enc.len = len;
        c->enc.nrec = nrec;
        memset(c->enc.strcache, 0, sizeof(c->enc.strcache));
        write_chunk(k, p->pid, c, 0);
    }
}

/* --------------------------------------------------- process records */

/* /proc/PID/FILE read whole into buf (NUL-terminated): its length, or -1. */
static ssize_t proc_read(int32_t pid, const char *file, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

static void proc_link(int32_t pid, const char *file, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    n = readlink(path, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
}

static int32_t proc_ppid(int32_t pid)
{
    char stat[512];
    const char *rp;

    if (proc_read(pid, "stat", stat, sizeof(stat)) < 0 || !(rp = strrchr(stat, ')')))
        return 0;
    return (int32_t)strtol(rp + 4, NULL, 10);   /* ") S PPID" */
}

/*
 * The process record of p at t: exe as the kernel named it (or from /proc
 * when empty), argv from /proc now (the process may be gone: then none),
 * then its working directory.
 */
static void put_process(struct kconv *k, struct kproc *p, int64_t t, const char *exe,
                        const char *args, size_t args_len)
{
    static char cmdline[8192];
    const char *argv[ARGV_MAX];
    char exe_buf[PATH_MAX];
    struct timespec rt;
    struct kchain *c = chain_get(k, p, p->pid, t);
    ssize_t n = -1;
    int argc = 0;
    int64_t unix_ns;

    if (!c)
        return;
    /* the words the kernel path read at exec, else /proc's now */
    if (args && args_len > 0 && args_len < sizeof(cmdline)) {
        memcpy(cmdline, args, args_len);
        cmdline[args_len] = '\0';
        n = (ssize_t)args_len;
    } else {
        n = proc_read(p->pid, "cmdline", cmdline, sizeof(cmdline));
    }
    if (!exe || !*exe) {
        proc_link(p->pid, "exe", exe_buf, sizeof(exe_buf));
        exe = exe_buf;
    }
    for (ssize_t i = 0; i < n && argc < ARGV_MAX; argc++) {
        argv[argc] = cmdline + i;
        i += (ssize_t)strlen(cmdline + i) + 1;
    }
    clock_gettime(CLOCK_REALTIME, &rt);
    unix_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (mono_ns() - t);
    if (iot_enc_process(&c->enc, p->ppid, t, unix_ns, exe, argc, argv) != 0) {
        write_chunk(k, p->pid, c, 0);
        iot_enc_process(&c->enc, p->ppid, t, unix_ns, exe, argc < 8 ? argc : 8, argv);
    }
    if (p->cwd[0] == '/') {
        struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_CWD, .pid = p->pid,
                                .tid = p->pid, .t = t, .has = IOT_HAS_PATH };

        put_call(k, p, &ev, p->cwd, NULL, NULL);
    } else {
        p->cwd[0] = '\0';
    }
}

void kconv_expect_exec(struct kconv *k, pid_t pid)
{
    struct kproc *p = proc_get(k, pid);

    if (!p)
        return;
    p->before_exec = 1;
    /* the launcher's child starts in the launcher's directory */
    if (!getcwd(p->cwd, sizeof(p->cwd)))
        p->cwd[0] = '\0';
}

void kconv_adopt(struct kconv *k, pid_t pid)
{
    struct kproc *p = proc_get(k, pid);

    if (!p)
        return;
    p->asked = 1;
    if (p->ppid)
        return;     /* followed already, as a child of a followed process */
    p->preload = 1;
    p->ppid = proc_ppid(pid);
    proc_link(pid, "cwd", p->cwd, sizeof(p->cwd));
    if (p->cwd[0] != '/')
        p->cwd[0] = '\0';
}

/* The open flags of fd from /proc/PID/fdinfo/FD ("flags:\t0100002", octal). */
static void fd_info(int32_t pid, const char *fd, int64_t *flags, int64_t *pos)
{
    char file[300], buf[512], *s;

    snprintf(file, sizeof(file), "fdinfo/%s", fd);
    *flags = 0;
    *pos = 0;
    if (proc_read(pid, file, buf, sizeof(buf)) < 0)
        return;
    if ((s = strstr(buf, "pos:")))
        *pos = strtoll(s + 4, NULL, 10);
    if ((s = strstr(buf, "flags:")))
        *flags = strtoll(s + 6, NULL, 8);
}

void kconv_attach(struct kconv *k, pid_t pid)
{
    struct kproc *p = proc_get(k, pid);
    int64_t t = mono_ns();
    char dir[64];
    struct dirent *de;
    DIR *d;

    if (!p)
        return;
    p->ppid = proc_ppid(pid);
    proc_link(pid, "cwd", p->cwd, sizeof(p->cwd));
    if (p->cwd[0] != '/')
        p->cwd[0] = '\0';
    put_process(k, p, t, NULL, NULL, 0);
    snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
    d = opendir(dir);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char target[PATH_MAX], link[64 + 256];
        struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_FDPATH, .pid = pid,
                                .tid = pid, .t = t,
                                .has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_OFFSET };
        ssize_t n;

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
        n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        ev.fd = atoi(de->d_name);
        ev.ret = ev.fd;
        fd_info(pid, de->d_name, &ev.flags, &ev.offset);
        put_call(k, p, &ev, target, NULL, NULL);
    }
    closedir(d);
}

/* --------------------------------------------------------------- calls */

/* x86_64 syscall numbers, as capture.bpf.c records them. */
enum {
    NR_read = 0, NR_write = 1, NR_open = 2, NR_close = 3, NR_stat = 4, NR_fstat = 5,
    NR_lstat = 6, NR_lseek = 8, NR_pread64 = 17, NR_pwrite64 = 18, NR_readv = 19,
    NR_writev = 20, NR_fsync = 74, NR_fdatasync = 75, NR_rename = 82, NR_mkdir = 83,
    NR_creat = 85, NR_unlink = 87, NR_openat = 257, NR_mkdirat = 258,
    NR_newfstatat = 262, NR_unlinkat = 263, NR_renameat = 264, NR_sync_file_range = 277,
    NR_preadv = 295, NR_pwritev = 296, NR_renameat2 = 316, NR_preadv2 = 327,
    NR_pwritev2 = 328, NR_statx = 332, NR_openat2 = 437,
};

#define AT_FDCWD_ (-100)
#define AT_EMPTY_PATH_ 0x1000
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define O_CREAT_TRUNC_WRONLY (01000 | 0100 | 01)

/*
 * A path as the trace keeps it: absolute, joined to the process's working
 * directory when relative to it (the directory of another fd is not
 * followed: such a path stays as given).
 */
static const char *abs_path(const struct kproc *p, int64_t dirfd, const char *path,
                            char *buf, size_t cap)
{
    if (path[0] == '/' || !p->cwd[0] || (int32_t)dirfd != AT_FDCWD_)
        return path;
    if ((size_t)snprintf(buf, cap, "%s%s%s", p->cwd, strcmp(p->cwd, "/") ? "/" : "",
                         path) >= cap)
        return path;
    return buf;
}

/* The trace's call for syscall e; 0 when it is not one the trace keeps. */
static int call_of(const struct kproc *p, const struct kev *e, struct iot_event *ev,
                   const char **path, const char **newpath, char *b1, char *b2, size_t cap)
{
    const int64_t a0 = (int64_t)e->a0, a1 = (int64_t)e->a1, a2 = (int64_t)e->a2,
                  a3 = (int64_t)e->a3;
    const char *p1 = e->npaths >= 1 ? e->path : "", *p2 = e->npaths == 2 ? e->path2 : "";

    *path = *newpath = NULL;
    ev->fd = (int32_t)a0;
    switch (e->nr) {
    case NR_read: case NR_write:
        ev->op = e->nr == NR_read ? IOT_OP_READ : IOT_OP_WRITE;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE;
        ev->size = a2;
        break;
    case NR_pread64: case NR_pwrite64:
        ev->op = e->nr == NR_pread64 ? IOT_OP_PREAD : IOT_OP_PWRITE;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev->size = a2;
        ev->offset = a3;
        break;
    case NR_readv: case NR_writev:
        ev->op = e->nr == NR_readv ? IOT_OP_READV : IOT_OP_WRITEV;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE;
        ev->size = e->size;
        break;
    case NR_preadv: case NR_preadv2: case NR_pwritev: case NR_pwritev2:
        ev->op = (e->nr == NR_preadv || e->nr == NR_preadv2) ? IOT_OP_PREADV : IOT_OP_PWRITEV;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev->size = e->size;
        ev->offset = a3;
        break;
    case NR_lseek:
        ev->op = IOT_OP_LSEEK;
        ev->has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE;
        ev->offset = a1;
        ev->whence = (int32_t)a2;
        break;
    case NR_fsync: case NR_fdatasync:
        ev->op = e->nr == NR_fsync ? IOT_OP_FSYNC : IOT_OP_FDATASYNC;
        ev->has = IOT_HAS_FD;
        break;
    case NR_sync_file_range:
        ev->op = IOT_OP_SYNC_FILE_RANGE;
        ev->has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_SIZE;
        ev->offset = a1;
        ev->size = a2;
        break;
    case NR_close:
        ev->op = IOT_OP_CLOSE;
        ev->has = IOT_HAS_FD;
        if (e->size >= 0) {
            ev->has |= IOT_HAS_FILE_SIZE;
            ev->file_size = e->size;
        }
        break;
    case NR_open: case NR_creat: case NR_openat: case NR_openat2:
        ev->op = IOT_OP_OPEN;
        ev->has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS;
        ev->flags = e->nr == NR_open ? a1 : e->nr == NR_creat ? O_CREAT_TRUNC_WRONLY
                    : e->nr == NR_openat ? a2 : e->size;
        *path = abs_path(p, (e->nr == NR_open || e->nr == NR_creat) ? AT_FDCWD_ : a0, p1, b1, cap);
        /* the fd is the one made, the return value */
        ev->fd = e->ret >= 0 ? (int32_t)e->ret : -1;
        break;
    case NR_stat: case NR_lstat: case NR_fstat: case NR_newfstatat: case NR_statx:
        ev->op = IOT_OP_STAT;
        ev->has = IOT_HAS_FLAGS;
        ev->flags = e->nr == NR_lstat ? AT_SYMLINK_NOFOLLOW_
                    : e->nr == NR_newfstatat ? a3 : e->nr == NR_statx ? a2 : 0;
        if (e->nr == NR_fstat || ((e->nr == NR_newfstatat || e->nr == NR_statx) &&
                                  !p1[0] && (ev->flags & AT_EMPTY_PATH_))) {
            ev->has |= IOT_HAS_FD;
        } else {
            ev->has |= IOT_HAS_PATH;
            *path = abs_path(p, (e->nr == NR_stat || e->nr == NR_lstat) ? AT_FDCWD_ : a0,
                             p1, b1, cap);
        }
        break;
    case NR_unlink: case NR_unlinkat:
        ev->op = (e->nr == NR_unlinkat && (a2 & 0x200)) ? IOT_OP_RMDIR : IOT_OP_UNLINK;
        ev->has = IOT_HAS_PATH;
        *path = abs_path(p, e->nr == NR_unlink ? AT_FDCWD_ : a0, p1, b1, cap);
        break;
    case NR_mkdir: case NR_mkdirat:
        ev->op = IOT_OP_MKDIR;
        ev->has = IOT_HAS_PATH | IOT_HAS_FLAGS;
        ev->flags = e->nr == NR_mkdir ? a1 : a2;
        *path = abs_path(p, e->nr == NR_mkdir ? AT_FDCWD_ : a0, p1, b1, cap);
        break;
    case NR_rename: case NR_renameat: case NR_renameat2:
        ev->op = IOT_OP_RENAME;
        ev->has = IOT_HAS_PATH | IOT_HAS_NEWPATH | IOT_HAS_FLAGS;
        ev->flags = e->nr == NR_renameat2 ? (int64_t)e->a3 >> 32 : 0;
        *path = abs_path(p, e->nr == NR_rename ? AT_FDCWD_ : a0, p1, b1, cap);
        *newpath = abs_path(p, e->nr == NR_rename ? AT_FDCWD_ : a2, p2, b2, cap);
        break;
    default:
        return 0;
    }
    return 1;
}

/* The trace's call for a completed io_uring request; 0 for other opcodes. */
static int uring_call_of(const struct kev *e, struct iot_event *ev)
{
    enum { OP_READV = 1, OP_WRITEV = 2, OP_FSYNC = 3, OP_READ_FIXED = 4,
           OP_WRITE_FIXED = 5, OP_READ = 22, OP_WRITE = 23 };
    int64_t off = (int64_t)e->a2;

    ev->fd = (int32_t)(int64_t)e->a0;
    ev->size = (int64_t)e->a1;
    switch (e->nr) {
    case OP_READV: case OP_READ_FIXED: case OP_READ:
    case OP_WRITEV: case OP_WRITE_FIXED: case OP_WRITE: {
        int write = e->nr == OP_WRITEV || e->nr == OP_WRITE_FIXED || e->nr == OP_WRITE;

        /* offset -1: at the file position, as read/write */
        if (off == -1) {
            ev->op = write ? IOT_OP_WRITE : IOT_OP_READ;
            ev->has = IOT_HAS_FD | IOT_HAS_SIZE;
        } else {
            ev->op = write ? IOT_OP_PWRITE : IOT_OP_PREAD;
            ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET;
            ev->offset = off;
        }
        return 1;
    }
    case OP_FSYNC:
        ev->op = IOT_OP_FSYNC;
        ev->has = IOT_HAS_FD;
        return 1;
    default:
        return 0;
    }
}

static void on_call(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    struct iot_event ev = { .kind = IOT_EV_CALL };
    const char *path = NULL, *newpath = NULL;
    char b1[PATH_MAX], b2[PATH_MAX];
    int ok;

    if (!p || p->before_exec)
        return;
    ok = e->kind == KEV_URING ? uring_call_of(e, &ev)
                              : call_of(p, e, &ev, &path, &newpath, b1, b2, sizeof(b1));
    /* the preload's (or the loader's, or its own): not again */
    if (!ok || (p->preload && (e->flags & KEV_F_LIBC)))
        return;
    p->calls++;
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
    put_call(k, p, &ev, path, newpath, NULL);
}

/* -------------------------------------------------------- process life */

/*
 * The coverage record of p: which path recorded it, and how many calls
 * the kernel path wrote (for a process the preload recorded: the file
 * syscalls the kernel saw that the preload did not).
 */
static void put_coverage(struct kconv *k, struct kproc *p, int64_t t)
{
    if (p->preload && !p->calls && !p->asked)
        return;
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_COVERAGE, .pid = p->pid,
                            .tid = p->pid, .t = t, .has = IOT_HAS_MODE | IOT_HAS_SIZE,
                            .size = (int64_t)p->calls };

    put_call(k, p, &ev, NULL, NULL, p->preload ? "preload" : "kernel");
}

static void on_exec(struct kconv *k, const struct kev *e)
{
    struct kproc *p = proc_get(k, (int32_t)e->pid);
    const char *exe = e->npaths ? e->path : "";
    char exe_abs[PATH_MAX], exe_real[PATH_MAX], cwd[PATH_MAX];

    if (!p)
        return;
    if (!p->before_exec && (p->calls || p->chains))
        put_coverage(k, p, (int64_t)e->t);
    chains_end(k, p);
    p->before_exec = 0;
    p->calls = 0;
    /* its cwd now, when it is still there; else the one it inherited */
    proc_link(p->pid, "cwd", cwd, sizeof(cwd));
    if (cwd[0] == '/')
        memcpy(p->cwd, cwd, sizeof(cwd));
    if (e->a1)
        p->ppid = (int32_t)e->a1;
    exe = abs_path(p, AT_FDCWD_, exe, exe_abs, sizeof(exe_abs));
    /* "/dir/./prog" as /proc names it, when the file is still there */
    if (realpath(exe, exe_real))
        exe = exe_real;
    p->preload = k->judge && exe[0] ? k->judge(exe) : 0;
    if (k->judged && p->preload)
        k->judged(k->judged_ctx, p->pid, 1);
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
    memcpy(child->cwd, parent->cwd, sizeof(child->cwd));
    if (!child->before_exec && !child->preload)
        put_process(k, child, (int64_t)e->t, NULL, NULL, 0);
}

static void proc_free(struct kconv *k, struct kproc *p)
{
    struct kproc **slot = proc_slot(k, p->pid);

    chains_end(k, p);
    *slot = p->next;
    free(p);
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
        proc_free(k, p);
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
    proc_free(k, p);
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
    default: break;
    }
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
            proc_free(k, p);
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
