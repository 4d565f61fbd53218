/*
 * strace_syscalls.c - the syscalls the strace importer knows, and the
 * decoding of one complete call into an event.
 *
 * The syscalls are the catalogue's (formats/syscalls.h) that the strace
 * importer reads: each names its op and either the positions of its fd,
 * size and offset arguments or a shape, decoded by strace_call below. The
 * process model's (clone, execve, prctl, chdir) change tasks, the cwd or
 * a thread's name rather than a file.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "strace_int.h"
#include "syscalls.h"

/* A syscall of the catalogue (syscalls.h) that this importer reads. */
struct strace_syscall {
    const char *name;
    int8_t op;                         /* IOT_OP_*, IOT_OP_NONE for the process model's */
    uint8_t kind;                      /* enum iot_sc_shape */
    int8_t fd_arg, size_arg, off_arg;  /* IOT_SC_ARGS: positions, -1 for none */
    int8_t extra_arg;                  /* PATH, PATHAT, PATH2AT: the call's one number */
};

#define SYSCALL_ROW_(name, nr, op, shape, fd, size, off, extra, who) \
    IOT_SC_STRACE_##who({ #name, IOT_OP_##op, IOT_SC_##shape, fd, size, off, extra },)
static const struct strace_syscall syscalls[] = { IOT_SYSCALLS(SYSCALL_ROW_) };
#undef SYSCALL_ROW_

static int syscall_is(const struct strace_syscall *sc, const char *name, size_t n)
{
    return strlen(sc->name) == n && memcmp(sc->name, name, n) == 0;
}

/* The syscall called name[0..n), with its op in *op (-1: a process syscall); NULL if none. */
static const struct strace_syscall *syscall_find(const char *name, size_t n, int *op)
{
    for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
        if (syscall_is(&syscalls[i], name, n)) {
            *op = syscalls[i].op;
            return &syscalls[i];
        }
    return NULL;
}

int strace_syscall_forks(const char *name, size_t n)
{
    int op;
    const struct strace_syscall *sc = syscall_find(name, n, &op);

    return sc && (sc->kind == IOT_SC_CLONE || sc->kind == IOT_SC_FORK);
}

/* ---------------------------------------------------------- decoding */

/* Parse an fd argument: its number, and its path (annotation or table). */
static int32_t arg_fd(struct strace_src *s, struct strace_proc *p, struct strace_arg a,
                      const char **path)
{
    int64_t fd = strace_arg_int(a, NULL);
    const char *ann = strace_annotation_path(s, a.p, a.n);

    *path = ann ? ann : strace_fd_get(p, fd);
    return (int32_t)fd;
}

static void call_init(struct iot_event *ev, struct strace_task *k, int op, int64_t t,
                      const struct strace_ret *r)
{
    memset(ev, 0, sizeof(*ev));
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)op;
    ev->pid = k->proc->pid;
    ev->tid = k->tid;
    ev->t = t;
    ev->ret = r->val;
    if (r->has_dur)
        ev->dur = r->dur;
    else
        ev->has |= IOT_HAS_NO_DUR;
    if (r->val < 0 && r->err) {
        ev->has |= IOT_HAS_ERRNO;
        ev->err = r->err;
    } else if (r->val == -1) {
        ev->has |= IOT_HAS_ERRNO;
    }
}

static void set_fd(struct iot_event *ev, int32_t fd, const char *path)
{
    ev->has |= IOT_HAS_FD;
    ev->fd = fd;
    if (path) {
        ev->has |= IOT_HAS_PATH;
        ev->path = path;
    }
}

/* A call that made fd: the event's fd, and the file the process's table now has there. */
static int new_fd(struct iot_event *ev, struct strace_proc *p, int64_t fd, const char *path)
{
    ev->has |= IOT_HAS_FD;
    ev->fd = (int32_t)fd;
    return strace_fd_set(p, fd, path);
}

/* rel relative to the directory dir, in the recorder's form (iot_path_join), interned. */
static int join_path(struct strace_src *s, const char *dir, const char *rel, const char **out)
{
    size_t dl = strlen(dir), cap = dl + strlen(rel) + 2, len;
    char *b = malloc(cap);

    if (!b)
        return -1;
    memcpy(b, dir, dl);
    /* cap always fits: 0 is the empty path, not "too long" */
    len = iot_path_join(b, cap, dl, rel);
    *out = iot_intern(s->st, b, len);
    free(b);
    return *out ? 0 : -1;
}

/*
 * A relative path in the recorder's form: joined to dir when it is known,
 * else to the process's working directory when an AT_FDCWD annotation has
 * named it since its last chdir (stat() and access() name no directory of
 * their own), else as given.
 */
static int rel_path(struct strace_src *s, const struct strace_proc *p, const char *dir,
                    const char *arg, const char **out)
{
    *out = arg;
    if (!arg || arg[0] == '/' || arg[0] == '\0')
        return 0;
    if (!dir)
        dir = p->cwd;
    return dir ? join_path(s, dir, arg, out) : 0;
}

/*
 * The path argument a[pa] of a metadata call in the recorder's form
 * (rel_path): the directory is the -y annotation of the dirfd argument
 * a[pa - 1] (the cwd's for AT_FDCWD) when there is one. NULL when the
 * argument is not a string (a NULL path).
 */
static int meta_path(struct strace_src *s, const struct strace_proc *p, const struct strace_arg *a,
                     int pa, const char **out)
{
    const char *arg = strace_arg_str(s, a[pa]);
    const char *dir = NULL;

    if (arg && arg[0] != '/' && arg[0] != '\0' && pa > 0)
        dir = strace_annotation_path(s, a[pa - 1].p, a[pa - 1].n);
    return rel_path(s, p, dir, arg, out);
}

/* Fill a metadata call of shape PATH/PATHAT: path or (AT_EMPTY_PATH, NULL path) fd.
   0, 1 when the line has too few arguments for it, -1 out of memory. */
static int meta_call(struct strace_src *s, struct strace_proc *p, struct iot_event *ev,
                     const struct strace_syscall *sc, const struct strace_arg *a, int na)
{
    int kind = sc->kind, pa = kind == IOT_SC_PATHAT, xa = sc->extra_arg;
    const char *path, *fdpath = NULL;
    int64_t x = 0;

    if (na < pa + 1)
        return 1;
    if (meta_path(s, p, a, pa, &path) < 0)
        return -1;
    if (xa >= 0 && xa < na) {
        struct strace_arg w = a[xa];
        x = (w.n && w.p[0] >= '0' && w.p[0] <= '9') ? strace_arg_int(w, NULL) : strace_at_flags(w);
    }
    if ((ev->op == IOT_OP_STAT || ev->op == IOT_OP_CHOWN) && kind == IOT_SC_PATH &&
        sc->name[0] == 'l')
        x = AT_SYMLINK_NOFOLLOW;
    if (pa && (!path || path[0] == '\0')) {
        /* fstat as glibc makes it: newfstatat(fd, "", ..., AT_EMPTY_PATH) */
        int32_t fd = arg_fd(s, p, a[0], &fdpath);

        set_fd(ev, fd, fdpath);
    } else if (path) {
        ev->has |= IOT_HAS_PATH;
        ev->path = path;
    }
    if (ev->op == IOT_OP_UNLINK && (x & AT_REMOVEDIR))
        ev->op = IOT_OP_RMDIR;
    else if (ev->op == IOT_OP_READLINK || ev->op == IOT_OP_TRUNCATE) {
        ev->has |= IOT_HAS_SIZE;
        ev->size = x;
    } else if (iot_ops[ev->op].fields & IOT_HAS_FLAGS) {
        ev->has |= IOT_HAS_FLAGS;
        ev->flags = x;
    }
    return 0;
}

/* rename, link (PATH2, PATH2AT) and symlink (SYMLINK, SYMLINKAT): two names.
   0, 1 when the line has too few arguments for it, -1 out of memory. */
static int meta_call2(struct strace_src *s, const struct strace_proc *p, struct iot_event *ev,
                      const struct strace_syscall *sc, const struct strace_arg *a, int na)
{
    int kind = sc->kind, po, pn, xa = sc->extra_arg;
    const char *from, *to;

    switch (kind) {
    case IOT_SC_PATH2:     po = 0; pn = 1; break;
    case IOT_SC_PATH2AT:   po = 1; pn = 3; break;
    case IOT_SC_SYMLINK:   po = 0; pn = 1; break;
    default:           po = 0; pn = 2; break;  /* symlinkat(target, dirfd, name) */
    }
    if (na <= pn)
        return 1;
    /* a symlink's target is its content: kept as given */
    if (kind == IOT_SC_SYMLINK || kind == IOT_SC_SYMLINKAT)
        from = strace_arg_str(s, a[po]);
    else if (meta_path(s, p, a, po, &from) < 0)
        return -1;
    if (kind == IOT_SC_SYMLINK || kind == IOT_SC_PATH2) {
        /* relative to the cwd, which strace does not name on this line */
        if (rel_path(s, p, NULL, strace_arg_str(s, a[pn]), &to) < 0)
            return -1;
    } else if (meta_path(s, p, a, pn, &to) < 0)
        return -1;
    if (from) {
        ev->has |= IOT_HAS_PATH;
        ev->path = from;
    }
    if (to) {
        ev->has |= IOT_HAS_NEWPATH;
        ev->newpath = to;
    }
    if (ev->op == IOT_OP_RENAME) {
        ev->has |= IOT_HAS_FLAGS;
        ev->flags = xa >= 0 && xa < na ? strace_at_flags(a[xa]) : 0;
    }
    return 0;
}

/* getdents64(fd, 0x... /\* 5 entries *\/, 32768): the entries strace counted. */
static int64_t dents_entries(struct strace_arg a)
{
    const char *c = memmem(a.p, a.n, "/* ", 3);

    return c ? strtoll(c + 3, NULL, 10) : 0;
}

/*
 * strace -y names the working directory in its annotation of AT_FDCWD
 * (`openat(AT_FDCWD</srv/db>, ...)`): a cwd call, as the recorder writes
 * at a chdir, when it names another directory than the process's last
 * (interned: equal paths are equal pointers). 0, or -1 out of memory.
 */
static int cwd_seen(struct strace_src *s, struct strace_task *k, const struct strace_arg *a,
                    int na, int64_t t)
{
    struct strace_proc *p = k->proc;
    struct iot_event ev;
    const char *dir;

    if (na < 1 || a[0].n < 10 || memcmp(a[0].p, "AT_FDCWD<", 9) != 0)
        return 0;
    dir = strace_annotation_path(s, a[0].p, a[0].n);
    if (!dir || dir == p->cwd)
        return 0;
    p->cwd = dir;
    memset(&ev, 0, sizeof(ev));
    ev.kind = IOT_EV_CALL;
    ev.op = IOT_OP_CWD;
    ev.pid = p->pid;
    ev.tid = k->tid;
    ev.t = t;
    ev.has = IOT_HAS_PATH;
    ev.path = dir;
    return strace_emit(s, &ev);
}

/* A known call whose line has too few arguments for its shape (a line
   damaged, or not written by strace): skipped, counted and named as a line
   not understood, never taken for a lack of memory. */
static int misshaped(struct strace_src *s)
{
    strace_unknown_line(s, s->cur);
    return 0;
}

/* The arguments a call of each shape has at least, as strace writes it. */
static int min_args(const struct strace_syscall *sc)
{
    switch (sc->kind) {
    case IOT_SC_ARGS:
        return (sc->fd_arg > sc->size_arg ? sc->fd_arg : sc->size_arg) + 1;
    case IOT_SC_OPEN: case IOT_SC_CREAT: case IOT_SC_CLOSE: case IOT_SC_DUP: case IOT_SC_DUP2:
    case IOT_SC_DUP3:
    case IOT_SC_FCNTL: case IOT_SC_PIPE: case IOT_SC_PATH:
        return 1;
    case IOT_SC_OPENAT: case IOT_SC_OPENAT2: case IOT_SC_MUNMAP: case IOT_SC_CLOSE_RANGE:
    case IOT_SC_PATHAT: case IOT_SC_PATH2: case IOT_SC_SYMLINK: case IOT_SC_DENTS:
        return 2;
    case IOT_SC_RWV: case IOT_SC_PRWV: case IOT_SC_PRWV2: case IOT_SC_LSEEK: case IOT_SC_SYMLINKAT:
        return 3;
    case IOT_SC_LLSEEK: case IOT_SC_SENDFILE: case IOT_SC_PATH2AT:
        return 4;
    case IOT_SC_COPY:
        return 5;
    case IOT_SC_MMAP: case IOT_SC_MMAP2:
        return 6;
    default:  /* exec (a failed one may say little), clone, prctl, new fds */
        return 0;
    }
}

int strace_call(struct strace_src *s, struct strace_task *k, const char *name, size_t nlen,
                const char *text, size_t n, int64_t t)
{
    struct strace_arg a[MAX_ARGS];
    struct iot_event ev;
    struct strace_ret r;
    size_t rest;
    int op, na, kind;
    const struct strace_syscall *sc = syscall_find(name, nlen, &op);
    struct strace_proc *p = k->proc;
    const char *path = NULL;
    int32_t fd;

    na = strace_split_args(text, n, a, &rest);
    if (na < 0 || strace_parse_ret(s, text + rest, n - rest, &r) < 0) {
        strace_unknown_line(s, s->cur);
        return 0;
    }
    /* before it can announce a process of its own; a call that never
       returned ("= ?": killed in it) may have been cut short by strace */
    if (sc && r.known && na < min_args(sc))
        return misshaped(s);
    /* a chdir that succeeded moves the cwd where no annotation names it:
       unknown until the next AT_FDCWD annotation */
    if (sc && (sc->kind == IOT_SC_CHDIR || sc->kind == IOT_SC_FCHDIR)) {
        if (r.known && r.val == 0)
            p->cwd = NULL;
        sc = NULL;  /* no call of its own */
    }
    if (!sc || !r.known) {
        if (!p->announced)
            return strace_proc_announce(s, p, t);
        return 0;
    }
    kind = sc->kind;
    if (kind == IOT_SC_EXECVE || kind == IOT_SC_EXECVEAT) {
        int pa = kind == IOT_SC_EXECVEAT ? 1 : 0;
        if (r.val != 0 || na < pa + 2) {
            if (!p->announced)
                return strace_proc_announce(s, p, t);
            return 0;
        }
        if (strace_proc_exec(s, p, a[pa], a[pa + 1]) < 0)
            return -1;
        /* a successful exec starts a new image of the same process */
        return strace_proc_announce(s, p, t);
    }
    if (!p->announced && strace_proc_announce(s, p, t) < 0)
        return -1;
    if (cwd_seen(s, k, a, na, t) < 0)
        return -1;

    call_init(&ev, k, op < 0 ? 0 : op, t, &r);
    switch (kind) {
    case IOT_SC_ARGS:
        if (sc->fd_arg >= 0) {
            fd = arg_fd(s, p, a[sc->fd_arg], &path);
            set_fd(&ev, fd, path);
        }
        if (sc->size_arg >= 0) {
            ev.has |= IOT_HAS_SIZE;
            ev.size = strace_arg_int(a[sc->size_arg], NULL);
        }
        if (sc->off_arg >= 0 && na > sc->off_arg) {
            ev.has |= IOT_HAS_OFFSET;
            ev.offset = strace_arg_int(a[sc->off_arg], NULL);
        }
        break;
    case IOT_SC_OPEN:
    case IOT_SC_OPENAT:
    case IOT_SC_OPENAT2:
    case IOT_SC_CREAT: {
        int pa = (kind == IOT_SC_OPENAT || kind == IOT_SC_OPENAT2) ? 1 : 0;
        const char *arg_path;
        if (!(arg_path = strace_arg_str(s, a[pa])))
            return 0;
        if (kind == IOT_SC_CREAT)
            ev.flags = O_CREAT | O_WRONLY | O_TRUNC;
        else if (kind == IOT_SC_OPENAT2 && na > 2) {
            const char *f = memmem(a[2].p, a[2].n, "flags=", 6);
            struct strace_arg fa = { f, f ? a[2].n - (size_t)(f - a[2].p) : 0 };
            ev.flags = f ? strace_open_flags(fa) : 0;
        } else if (na > pa + 1)
            ev.flags = strace_open_flags(a[pa + 1]);
        /* The path as the program gave it when absolute, else joined to the
         * directory it is relative to (the -y annotation of dirfd, which is
         * the cwd for AT_FDCWD), as the recorder does; else the -y
         * annotation of the new fd; else as given. */
        path = arg_path;
        if (arg_path[0] != '/' && arg_path[0] != '\0') {
            const char *dir = pa ? strace_annotation_path(s, a[0].p, a[0].n) : NULL;
            if (dir) {
                if (join_path(s, dir, arg_path, &path) < 0)
                    return -1;
            } else if (r.path) {
                path = r.path;
            } else if (rel_path(s, p, NULL, arg_path, &path) < 0) {
                return -1;
            }
        }
        ev.has |= IOT_HAS_PATH | IOT_HAS_FLAGS;
        ev.path = path;
        if (r.val >= 0 && new_fd(&ev, p, r.val, path) < 0)
            return -1;
        break;
    }
    case IOT_SC_CLOSE:
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        if (r.val == 0)
            strace_fd_set(p, fd, NULL);
        break;
    case IOT_SC_RWV:
    case IOT_SC_PRWV:
    case IOT_SC_PRWV2:
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_SIZE;
        ev.size = strace_iov_sum(a[1]);
        if (kind != IOT_SC_RWV && na > 3) {
            int64_t off = strace_arg_int(a[3], NULL);
            if (kind == IOT_SC_PRWV2 && off == -1) {
                /* -1: the file position, as readv/writev */
                ev.op = ev.op == IOT_OP_PREADV ? IOT_OP_READV : IOT_OP_WRITEV;
            } else {
                ev.has |= IOT_HAS_OFFSET;
                ev.offset = off;
            }
        }
        break;
    case IOT_SC_LSEEK:
    case IOT_SC_LLSEEK: {
        struct strace_arg w;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_OFFSET | IOT_HAS_WHENCE;
        ev.offset = strace_arg_int(a[1], NULL);
        w = a[kind == IOT_SC_LLSEEK ? 3 : 2];
        ev.whence = strace_arg_is(w, "SEEK_SET") ? SEEK_SET :
                    strace_arg_is(w, "SEEK_CUR") ? SEEK_CUR :
                    strace_arg_is(w, "SEEK_END") ? SEEK_END :
                    strace_arg_is(w, "SEEK_DATA") ? SEEK_DATA :
                    strace_arg_is(w, "SEEK_HOLE") ? SEEK_HOLE : (int32_t)strace_arg_int(w, NULL);
        /* _llseek returns the new offset in its [result] argument */
        if (kind == IOT_SC_LLSEEK && r.val == 0)
            ev.ret = strace_arg_bracket(a[2]);
        break;
    }
    case IOT_SC_DUP:
    case IOT_SC_DUP2:
    case IOT_SC_DUP3:
    case IOT_SC_FCNTL:
        if (kind == IOT_SC_FCNTL && na >= 3 && strace_arg_is(a[1], "F_SETFD")) {
            /* whether the fd survives exec: shells mark their script fd */
            fd = arg_fd(s, p, a[0], &path);
            set_fd(&ev, fd, path);
            ev.op = IOT_OP_FCNTL;
            ev.has |= IOT_HAS_FLAGS;
            ev.flags = memmem(a[2].p, a[2].n, "FD_CLOEXEC", 10) || strace_arg_int(a[2], NULL) == 1
                       ? O_CLOEXEC : 0;
            break;
        }
        if (kind == IOT_SC_FCNTL && (na < 2 || !(strace_arg_is(a[1], "F_DUPFD") ||
                                              strace_arg_is(a[1], "F_DUPFD_CLOEXEC"))))
            return 0;
        if ((kind == IOT_SC_FCNTL && strace_arg_is(a[1], "F_DUPFD_CLOEXEC")) ||
            ((kind == IOT_SC_DUP2 || kind == IOT_SC_DUP3) && na >= 3 &&
             memmem(a[2].p, a[2].n, "O_CLOEXEC", 9))) {
            ev.has |= IOT_HAS_FLAGS;
            ev.flags = O_CLOEXEC;
        }
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_NEWFD;
        ev.newfd = (int32_t)r.val;
        if (r.val >= 0 &&
            strace_fd_set(p, r.val, strace_fd_get(p, fd) ? strace_fd_get(p, fd) : path) < 0)
            return -1;
        break;
    case IOT_SC_NEWFD:
    case IOT_SC_SIGNALFD:
    case IOT_SC_MEMFD:
        if (r.val >= 0 && new_fd(&ev, p, r.val, NULL) < 0)
            return -1;
        break;
    case IOT_SC_PIPE: {
        /* "[3, 4]" or, with -y, "[3<pipe:[91]>, 4<pipe:[91]>]" (socketpair: the 4th) */
        struct strace_arg fds;
        int64_t first, second = -1;

        fds = a[na > 3 ? 3 : 0];
        first = strace_arg_bracket(fds);

        for (size_t j = 1; j + 2 < fds.n; j++)
            if (fds.p[j] == ',' && fds.p[j + 1] == ' ' &&
                fds.p[j + 2] >= '0' && fds.p[j + 2] <= '9') {
                struct strace_arg tail = { fds.p + j + 2, fds.n - j - 2 };
                second = strace_arg_int(tail, NULL);
                break;
            }
        if (r.val != 0 || first < 0 || second < 0 || first > INT32_MAX || second > INT32_MAX)
            break;
        ev.has |= IOT_HAS_FD | IOT_HAS_NEWFD;
        ev.fd = (int32_t)first;
        ev.newfd = (int32_t)second;
        if (strace_fd_set(p, first, NULL) < 0 || strace_fd_set(p, second, NULL) < 0)
            return -1;
        break;
    }
    case IOT_SC_MMAP:
    case IOT_SC_MMAP2:
        fd = arg_fd(s, p, a[4], &path);
        if (fd < 0)
            return 0;  /* anonymous memory is not file I/O */
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_FLAGS;
        ev.size = strace_arg_int(a[1], NULL);
        /* what its stores do to the file, as the recorder says it (strace
           names the bits; MAP_SHARED_VALIDATE starts as MAP_SHARED does) */
        ev.flags = (memmem(a[2].p, a[2].n, "PROT_WRITE", 10) ? IOT_MAP_WRITE : 0) |
                   (memmem(a[3].p, a[3].n, "MAP_SHARED", 10) ? IOT_MAP_SHARED : 0);
        /* mmap2 counts 4096-byte pages (unsigned: a bad log wraps, never UB) */
        ev.offset = (int64_t)((uint64_t)strace_arg_int(a[5], NULL) *
                              (kind == IOT_SC_MMAP2 ? 4096u : 1u));
        if (r.val != -1 && strace_map_add(p, (uint64_t)r.val, (uint64_t)ev.size) < 0)
            return -1;
        break;
    case IOT_SC_MUNMAP:
        if (!strace_map_remove(p, (uint64_t)strace_arg_int(a[0], NULL)))
            return 0;  /* not a file mapping (malloc's arenas) */
        ev.has |= IOT_HAS_SIZE;
        ev.size = strace_arg_int(a[1], NULL);
        break;
    case IOT_SC_SENDFILE: {
        const char *in_path;
        int64_t off;
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev.in_fd = arg_fd(s, p, a[1], &in_path);
        ev.size = strace_arg_int(a[3], NULL);
        if ((off = strace_arg_bracket(a[2])) >= 0) {
            ev.has |= IOT_HAS_OFFSET;
            ev.offset = off;
        }
        break;
    }
    case IOT_SC_COPY: {
        const char *in_path;
        fd = arg_fd(s, p, a[2], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev.in_fd = arg_fd(s, p, a[0], &in_path);
        ev.size = strace_arg_int(a[4], NULL);
        break;
    }
    case IOT_SC_CLOSE_RANGE: {
        int64_t first, last;
        first = strace_arg_int(a[0], NULL);
        last = strace_arg_int(a[1], NULL);
        if (last < 0 || last > INT32_MAX)
            last = INT32_MAX;
        ev.has |= IOT_HAS_FD | IOT_HAS_LAST_FD;
        ev.fd = (int32_t)first;
        ev.last_fd = (int32_t)last;
        if (na >= 3 && memmem(a[2].p, a[2].n, "CLOSE_RANGE_CLOEXEC", 19)) {
            /* marks the range close-on-exec, closes nothing */
            ev.has |= IOT_HAS_FLAGS;
            ev.flags = O_CLOEXEC;
        } else if (r.val == 0) {
            strace_fd_forget(p, first, last);
        }
        break;
    }
    case IOT_SC_PATH:
    case IOT_SC_PATHAT: {
        int rc = meta_call(s, p, &ev, sc, a, na);
        if (rc)
            return rc < 0 ? -1 : misshaped(s);
        break;
    }
    case IOT_SC_PATH2:
    case IOT_SC_PATH2AT:
    case IOT_SC_SYMLINK:
    case IOT_SC_SYMLINKAT: {
        int rc = meta_call2(s, p, &ev, sc, a, na);
        if (rc)
            return rc < 0 ? -1 : misshaped(s);
        break;
    }
    case IOT_SC_DENTS:
        fd = arg_fd(s, p, a[0], &path);
        set_fd(&ev, fd, path);
        ev.has |= IOT_HAS_SIZE;
        ev.size = r.val >= 0 ? dents_entries(a[1]) : 0;
        if (r.val >= 0)
            ev.ret = ev.size;
        break;
    case IOT_SC_CLONE:
    case IOT_SC_FORK: {
        int is_thread = kind == IOT_SC_CLONE && memmem(text, rest, "CLONE_THREAD", 12) != NULL;
        return strace_task_clone(s, k, (int32_t)r.val, is_thread, t);
    }
    case IOT_SC_PRCTL:
        if (na >= 2 && strace_arg_is(a[0], "PR_SET_NAME") && r.val == 0) {
            const char *nm = strace_arg_str(s, a[1]);
            return nm ? strace_thread_announce(s, k, t, nm) : 0;
        }
        return 0;
    }
    if (ev.op == IOT_OP_OPEN)
        return strace_emit_open(s, &ev);
    return strace_emit(s, &ev);
}
