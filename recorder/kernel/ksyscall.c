/*
 * ksyscall.c - a syscall (or io_uring request) the BPF side recorded, as
 * the trace's call: its op, fields and paths.
 */
#include <linux/types.h>
#include <stdio.h>
#include <string.h>

#include "kconv_int.h"
#include "kevent.h"


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


#define AT_EMPTY_PATH_ 0x1000
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define O_CREAT_TRUNC_WRONLY (01000 | 0100 | 01)

/*
 * A path as the trace keeps it: absolute, joined to the process's working
 * directory when relative to it (the directory of another fd is not
 * followed: such a path stays as given).
 */
const char *abs_path(const struct kproc *p, int64_t dirfd, const char *path,
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
