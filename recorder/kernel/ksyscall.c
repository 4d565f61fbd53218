/*
 * ksyscall.c - a syscall (or io_uring request) the BPF side recorded, as
 * the trace's call: its op, fields and paths.
 */
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kconv_int.h"
#include "kevent.h"
#include "path.h"
#include "syscalls.h"

/* A syscall the kernel path records, as the catalogue (syscalls.h) gives it. */
struct ksyscall {
    const char *name;        /* NULL: not one the kernel path records */
    int8_t op;               /* IOT_OP_*, IOT_OP_NONE for the process model's */
    uint8_t shape;           /* enum iot_sc_shape */
    int8_t fd, size, off;    /* IOT_SC_ARGS: the arguments' positions, -1 for none */
    int8_t extra;            /* PATH, PATHAT, PATH2AT: the call's one number, -1 for none */
};

/* By number; a number given twice fails the build (-Woverride-init). */
#define KSYSCALL_ROW_(name, nr, op, shape, fd, size, off, extra, who) \
    IOT_SC_KERNEL_##who([nr] = { #name, IOT_OP_##op, IOT_SC_##shape, fd, size, off, extra },)
static const struct ksyscall ksyscalls[IOT_SC_NR_MAX] = { IOT_SYSCALLS(KSYSCALL_ROW_) };
#undef KSYSCALL_ROW_

/*
 * A path as the trace keeps it, made absolute as the preload makes it
 * (abspath.c there): joined to the process's working directory, or to the
 * directory dirfd names now (/proc/PID/fd), less a leading "./"; as given
 * when neither is known.
 */
const char *abs_path(const struct kproc *p, int64_t dirfd, const char *path,
                     char *buf, size_t cap)
{
    size_t n;

    if (path[0] == '/' || path[0] == '\0')
        return path;
    if ((int32_t)dirfd == AT_FDCWD) {
        n = strlen(p->cwd);
        if (n == 0 || n >= cap)
            return path;
        memcpy(buf, p->cwd, n + 1);
    } else {
        char link[64];
        ssize_t r;

        snprintf(link, sizeof(link), "/proc/%d/fd/%d", p->pid, (int32_t)dirfd);
        r = readlink(link, buf, cap - 1);
        if (r <= 0 || buf[0] != '/')
            return path;
        buf[r] = '\0';
        n = (size_t)r;
    }
    if (iot_path_join(buf, cap, n, path) == 0)
        return iot_path_skip_dot(path);
    return buf;
}

/* The new fd of a dup (or fcntl F_DUPFD): cloexec when it is close-on-exec. */
static void dup_of(const struct kev *e, struct iot_event *ev, int cloexec)
{
    ev->op = IOT_OP_DUP;
    ev->has = IOT_HAS_FD | (e->ret >= 0 ? IOT_HAS_NEWFD : 0) | (cloexec ? IOT_HAS_FLAGS : 0);
    ev->newfd = (int32_t)e->ret;
    ev->flags = cloexec ? O_CLOEXEC : 0;
}

/* A call that made one fd that is not a file (op SOCKET, ANONFD): fd = the result. */
static void new_fd_of(const struct kev *e, struct iot_event *ev)
{
    ev->has = e->ret >= 0 ? IOT_HAS_FD : 0;
    ev->fd = (int32_t)e->ret;
}

/* Argument i of e as the BPF side recorded it (a0..a3). */
static int64_t arg(const struct kev *e, int i)
{
    const __u64 a[4] = { e->a0, e->a1, e->a2, e->a3 };

    return i >= 0 && i < 4 ? (int64_t)a[i] : 0;
}

/*
 * A metadata call of shape PATH or PATHAT (stat, unlink, mkdir): its path
 * relative to the cwd or its dirfd, its one number (the catalogue's extra
 * argument) as the op keeps it: flags (lstat: AT_SYMLINK_NOFOLLOW), an
 * unlinkat of AT_REMOVEDIR as rmdir; an op that may name an fd names it
 * for AT_EMPTY_PATH and an empty path (fstatat(fd, "", AT_EMPTY_PATH)).
 */
static void meta_of(const struct kproc *p, const struct kev *e, const struct ksyscall *sc,
                    struct iot_event *ev, const char **path, const char *p1, char *b1, size_t cap)
{
    int at = sc->shape == IOT_SC_PATHAT;
    int64_t x = sc->extra >= 0 ? arg(e, sc->extra) : 0;
    unsigned fields;

    if ((ev->op == IOT_OP_STAT || ev->op == IOT_OP_CHOWN) && !at && sc->name[0] == 'l')
        x = AT_SYMLINK_NOFOLLOW;
    if (ev->op == IOT_OP_UNLINK && at && (x & AT_REMOVEDIR))
        ev->op = IOT_OP_RMDIR;
    fields = iot_ops[ev->op].fields;
    ev->has = 0;
    if (fields & IOT_HAS_FLAGS) {
        ev->has |= IOT_HAS_FLAGS;
        ev->flags = x;
    }
    if ((fields & IOT_HAS_FD) && at && !p1[0] && (x & AT_EMPTY_PATH)) {
        ev->has |= IOT_HAS_FD;
    } else {
        ev->has |= IOT_HAS_PATH;
        *path = abs_path(p, at ? (int64_t)e->a0 : AT_FDCWD, p1, b1, cap);
    }
}

/* The trace's call for syscall e; 0 when it is not one the trace keeps. */
int call_of(const struct kproc *p, const struct kev *e, struct iot_event *ev,
                   const char **path, const char **newpath, char *b1, char *b2, size_t cap)
{
    const struct ksyscall *sc = e->nr < IOT_SC_NR_MAX ? &ksyscalls[e->nr] : NULL;
    const int64_t a0 = (int64_t)e->a0, a1 = (int64_t)e->a1, a2 = (int64_t)e->a2,
                  a3 = (int64_t)e->a3;
    const char *p1 = e->npaths >= 1 ? e->path : "", *p2 = e->npaths == 2 ? e->path2 : "";

    *path = *newpath = NULL;
    if (!sc || !sc->name || sc->op == IOT_OP_NONE)
        return 0;   /* the cwd, thread names and the like are kfollow.c's */
    ev->op = (uint8_t)sc->op;
    ev->fd = (int32_t)a0;
    switch (sc->shape) {
    case IOT_SC_ARGS:
        /* fd, size and offset where the catalogue puts them; an op with
           flags (fstat as stat) has none */
        ev->has = 0;
        if (sc->fd >= 0) {
            ev->has |= IOT_HAS_FD;
            ev->fd = (int32_t)arg(e, sc->fd);
        }
        if (sc->size >= 0) {
            ev->has |= IOT_HAS_SIZE;
            ev->size = arg(e, sc->size);
        }
        if (sc->off >= 0) {
            ev->has |= IOT_HAS_OFFSET;
            ev->offset = arg(e, sc->off);
        }
        if (iot_ops[ev->op].fields & IOT_HAS_FLAGS) {
            ev->has |= IOT_HAS_FLAGS;
            ev->flags = 0;
        }
        break;
    case IOT_SC_RWV:
        /* capture.bpf.c put the bytes the iovecs ask in size */
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE;
        ev->size = e->size;
        break;
    case IOT_SC_PRWV: case IOT_SC_PRWV2:
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev->size = e->size;
        ev->offset = a3;
        break;
    case IOT_SC_LSEEK:
        ev->has = IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE;
        ev->offset = a1;
        ev->whence = (int32_t)a2;
        break;
    case IOT_SC_CLOSE:
        ev->has = IOT_HAS_FD;
        if (e->size >= 0) {
            ev->has |= IOT_HAS_FILE_SIZE;
            ev->file_size = e->size;
        }
        break;
    case IOT_SC_OPEN: case IOT_SC_CREAT: case IOT_SC_OPENAT: case IOT_SC_OPENAT2: {
        int at = sc->shape == IOT_SC_OPENAT || sc->shape == IOT_SC_OPENAT2;

        ev->has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS;
        /* openat2's flags: capture.bpf.c read them from its open_how into size */
        ev->flags = sc->shape == IOT_SC_OPEN ? a1 : sc->shape == IOT_SC_CREAT
                    ? O_CREAT | O_TRUNC | O_WRONLY : sc->shape == IOT_SC_OPENAT ? a2 : e->size;
        *path = abs_path(p, at ? a0 : AT_FDCWD, p1, b1, cap);
        /* the fd is the one made, the return value */
        ev->fd = e->ret >= 0 ? (int32_t)e->ret : -1;
        break;
    }
    case IOT_SC_PATH: case IOT_SC_PATHAT:
        meta_of(p, e, sc, ev, path, p1, b1, cap);
        break;
    case IOT_SC_PATH2: case IOT_SC_PATH2AT: {
        int at = sc->shape == IOT_SC_PATH2AT;

        /* renameat2's flags: capture.bpf.c put its argument 4 in a3 */
        ev->has = IOT_HAS_PATH | IOT_HAS_NEWPATH | IOT_HAS_FLAGS;
        ev->flags = at && sc->extra >= 0 ? (int64_t)(uint32_t)a3 : 0;
        *path = abs_path(p, at ? a0 : AT_FDCWD, p1, b1, cap);
        *newpath = abs_path(p, at ? a2 : AT_FDCWD, p2, b2, cap);
        break;
    }
    case IOT_SC_SENDFILE: case IOT_SC_COPY: {
        /* as the preload's rec_copy (wrap_posix.c): fd the output, the
           length asked, the input's offset where the call was given one
           and copied (capture.bpf.c put it, as the call left it, in size,
           and splice's and copy_file_range's length in a3) */
        int copy = sc->shape == IOT_SC_COPY;
        int64_t ptr = copy ? a1 : a2;

        ev->has = IOT_HAS_FD | IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev->fd = (int32_t)(copy ? a2 : a0);
        ev->in_fd = (int32_t)(copy ? a0 : a1);
        ev->size = a3;
        if (ptr && e->ret >= 0) {
            ev->has |= IOT_HAS_OFFSET;
            ev->offset = e->size - e->ret;
        }
        break;
    }
    /* the fd table, as the preload records it (wrap_posix.c, wrap_fds.c, wrap_names.c) */
    case IOT_SC_DUP: case IOT_SC_DUP2: case IOT_SC_DUP3:
        dup_of(e, ev, sc->shape == IOT_SC_DUP3 && (a2 & O_CLOEXEC));
        break;
    case IOT_SC_FCNTL:
        if (a1 == F_DUPFD || a1 == F_DUPFD_CLOEXEC) {
            dup_of(e, ev, a1 == F_DUPFD_CLOEXEC);
        } else if (a1 == F_SETFD) {
            ev->op = IOT_OP_FCNTL;
            ev->has = IOT_HAS_FD | IOT_HAS_FLAGS;
            ev->flags = (a2 & FD_CLOEXEC) ? O_CLOEXEC : 0;
        } else {
            return 0;
        }
        break;
    case IOT_SC_PIPE:
        /* capture.bpf.c put the two fds made in size, the first low */
        ev->has = e->ret == 0 ? IOT_HAS_FD | IOT_HAS_NEWFD : 0;
        ev->fd = (int32_t)(uint32_t)((uint64_t)e->size & 0xffffffffu);
        ev->newfd = (int32_t)(uint32_t)((uint64_t)e->size >> 32);
        break;
    case IOT_SC_SIGNALFD:
        /* with an fd it changes that one's mask: no new fd */
        if ((int32_t)a0 != -1)
            return 0;
        new_fd_of(e, ev);
        break;
    case IOT_SC_NEWFD:
        new_fd_of(e, ev);
        break;
    case IOT_SC_MEMFD:
        ev->has = IOT_HAS_PATH | IOT_HAS_FLAGS | (e->ret >= 0 ? IOT_HAS_FD : 0);
        ev->fd = (int32_t)e->ret;
        ev->flags = O_RDWR;
        snprintf(b1, cap, "memfd:%s", e->ret >= 0 ? p1 : "");
        *path = b1;
        break;
    case IOT_SC_MMAP: {
        /* capture.bpf.c put the fd in size and the offset in a0 */
        int32_t fd = (int32_t)e->size;

        /* anonymous maps are memory, not file I/O */
        if (fd < 0 || (a3 & MAP_ANONYMOUS))
            return 0;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_FLAGS;
        ev->fd = fd;
        ev->size = a1;
        ev->offset = a0;
        ev->flags = ((a2 & PROT_WRITE) ? IOT_MAP_WRITE : 0) |
                    ((a3 & MAP_TYPE) == MAP_SHARED || (a3 & MAP_TYPE) == MAP_SHARED_VALIDATE
                     ? IOT_MAP_SHARED : 0);
        break;
    }
    case IOT_SC_MUNMAP:
        ev->has = IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev->size = a1;
        ev->offset = a0;   /* the mapping's address */
        break;
    default:
        /* a shape the kernel path does not decode: a catalogue row marked
           BOTH before its decoding here */
        return 0;
    }
    return 1;
}

/* The trace's call for a completed io_uring request; 0 for other opcodes. */
int uring_call_of(const struct kev *e, struct iot_event *ev)
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
