/*
 * ksyscall.c - a syscall (or io_uring request) the BPF side recorded, as
 * the trace's call: its op, fields and paths.
 */
#include <linux/types.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kconv_int.h"
#include "kevent.h"
#include "path.h"




#define AT_EMPTY_PATH_ 0x1000
#define O_CLOEXEC_ 02000000
#define O_RDWR_ 02
#define F_DUPFD_ 0
#define F_SETFD_ 2
#define F_DUPFD_CLOEXEC_ 1030
#define MAP_ANONYMOUS_ 0x20
#define MAP_TYPE_ 0x0f
#define PROT_WRITE_ 0x2
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define O_CREAT_TRUNC_WRONLY (01000 | 0100 | 01)

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
    if ((int32_t)dirfd == AT_FDCWD_) {
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
    ev->flags = cloexec ? O_CLOEXEC_ : 0;
}

/* A call that made one fd that is not a file (op SOCKET, ANONFD): fd = the result. */
static void new_fd_of(const struct kev *e, struct iot_event *ev, unsigned op)
{
    ev->op = (uint8_t)op;
    ev->has = e->ret >= 0 ? IOT_HAS_FD : 0;
    ev->fd = (int32_t)e->ret;
}

/* The trace's call for syscall e; 0 when it is not one the trace keeps. */
int call_of(const struct kproc *p, const struct kev *e, struct iot_event *ev,
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
    case NR_sendfile: case NR_splice: case NR_copy_file_range: {
        /* as the preload's rec_copy (wrap_posix.c): fd the output, the
           length asked, the input's offset where the call was given one
           and copied (capture.bpf.c put it, as the call left it, in size,
           and splice's and copy_file_range's length in a3) */
        int64_t ptr = e->nr == NR_sendfile ? a2 : a1;

        ev->op = e->nr == NR_sendfile ? IOT_OP_SENDFILE
                 : e->nr == NR_splice ? IOT_OP_SPLICE : IOT_OP_COPY_FILE_RANGE;
        ev->has = IOT_HAS_FD | IOT_HAS_IN_FD | IOT_HAS_SIZE;
        ev->fd = (int32_t)(e->nr == NR_sendfile ? a0 : a2);
        ev->in_fd = (int32_t)(e->nr == NR_sendfile ? a1 : a0);
        ev->size = a3;
        if (ptr && e->ret >= 0) {
            ev->has |= IOT_HAS_OFFSET;
            ev->offset = e->size - e->ret;
        }
        break;
    }
    /* the fd table, as the preload records it (wrap_posix.c, wrap_fds.c, wrap_names.c) */
    case NR_dup: case NR_dup2: case NR_dup3:
        dup_of(e, ev, e->nr == NR_dup3 && (a2 & O_CLOEXEC_));
        break;
    case NR_fcntl:
        if (a1 == F_DUPFD_ || a1 == F_DUPFD_CLOEXEC_) {
            dup_of(e, ev, a1 == F_DUPFD_CLOEXEC_);
        } else if (a1 == F_SETFD_) {
            ev->op = IOT_OP_FCNTL;
            ev->has = IOT_HAS_FD | IOT_HAS_FLAGS;
            ev->flags = (a2 & 1) ? O_CLOEXEC_ : 0;   /* FD_CLOEXEC */
        } else {
            return 0;
        }
        break;
    case NR_pipe: case NR_pipe2: case NR_socketpair:
        /* capture.bpf.c put the two fds made in size, the first low */
        ev->op = IOT_OP_PIPE;
        ev->has = e->ret == 0 ? IOT_HAS_FD | IOT_HAS_NEWFD : 0;
        ev->fd = (int32_t)(uint32_t)((uint64_t)e->size & 0xffffffffu);
        ev->newfd = (int32_t)(uint32_t)((uint64_t)e->size >> 32);
        break;
    case NR_socket: case NR_accept: case NR_accept4:
        new_fd_of(e, ev, IOT_OP_SOCKET);
        break;
    case NR_signalfd: case NR_signalfd4:
        /* with an fd it changes that one's mask: no new fd */
        if ((int32_t)a0 != -1)
            return 0;
        new_fd_of(e, ev, IOT_OP_ANONFD);
        break;
    case NR_eventfd: case NR_eventfd2: case NR_timerfd_create: case NR_inotify_init:
    case NR_inotify_init1: case NR_epoll_create: case NR_epoll_create1:
        new_fd_of(e, ev, IOT_OP_ANONFD);
        break;
    case NR_memfd_create:
        ev->op = IOT_OP_MEMFD;
        ev->has = IOT_HAS_PATH | IOT_HAS_FLAGS | (e->ret >= 0 ? IOT_HAS_FD : 0);
        ev->fd = (int32_t)e->ret;
        ev->flags = O_RDWR_;
        snprintf(b1, cap, "memfd:%s", e->ret >= 0 ? p1 : "");
        *path = b1;
        break;
    case NR_mmap: {
        /* capture.bpf.c put the fd in size and the offset in a0 */
        int32_t fd = (int32_t)e->size;

        /* anonymous maps are memory, not file I/O */
        if (fd < 0 || (a3 & MAP_ANONYMOUS_))
            return 0;
        ev->op = IOT_OP_MMAP;
        ev->has = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_FLAGS;
        ev->fd = fd;
        ev->size = a1;
        ev->offset = a0;
        ev->flags = ((a2 & PROT_WRITE_) ? IOT_MAP_WRITE : 0) |
                    ((a3 & MAP_TYPE_) == 1 || (a3 & MAP_TYPE_) == 3 ? IOT_MAP_SHARED : 0);
        break;
    }
    case NR_munmap:
        ev->op = IOT_OP_MUNMAP;
        ev->has = IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev->size = a1;
        ev->offset = a0;   /* the mapping's address */
        break;
    default:
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
