/*
 * syscalls.h - the syscall catalogue, declared once: every syscall ioscope
 * reads, with its x86_64 number, the op it is recorded as, the shape of its
 * arguments and who reads it. The strace importer (inputs/strace_syscalls.c)
 * and the kernel capture path (recorder/kernel/ksyscall.c on the user side,
 * capture_calls.bpf.h on the BPF side) both expand it: a syscall added here
 * is known by name to the one and by number to the other, and its shape says
 * to both how its arguments are read.
 *
 * Pure macros with no includes, so that the BPF program (built against
 * vmlinux.h, without the C library's headers) can expand it too. The
 * constants a shape needs (open flags, AT_* flags, mmap's bits) come from
 * the system headers on the user side, never copied here.
 */
#ifndef IOT_SYSCALLS_H
#define IOT_SYSCALLS_H

/*
 * How a syscall's arguments are read: IOT_SC_<shape>.
 *
 * ARGS      fd, size and offset are plain arguments at the row's positions
 * OPEN      open(path, flags, mode)       OPENAT   openat(dirfd, path, flags, mode)
 * OPENAT2   openat2(dirfd, path, how)     CREAT    creat(path, mode): O_CREAT|O_WRONLY|O_TRUNC
 * CLOSE     close(fd)
 * RWV       readv(fd, iov, n)             PRWV     preadv(fd, iov, n, off)
 * PRWV2     preadv2(fd, iov, n, off, flags): off -1 is the file position
 * LSEEK     lseek(fd, off, whence)        LLSEEK   _llseek(fd, hi, lo, &result, whence)
 * DUP       dup(fd)                       DUP2     dup2(fd, newfd)
 * DUP3      dup3(fd, newfd, flags): O_CLOEXEC
 * FCNTL     fcntl(fd, cmd, arg): F_DUPFD, F_DUPFD_CLOEXEC, F_SETFD
 * MMAP      mmap(addr, len, prot, flags, fd, off)   MMAP2: off in 4096-byte pages
 * MUNMAP    munmap(addr, len)
 * SENDFILE  sendfile(out, in, &off, count)
 * COPY      splice/copy_file_range(in, &off_in, out, &off_out, len, flags)
 * CLOSE_RANGE close_range(first, last, flags)
 * PIPE      pipe/pipe2(fds[2]) or socketpair(d, t, p, fds[2]): two fds made
 * NEWFD     a call whose result is an fd that names no file (socket, eventfd...)
 * SIGNALFD  signalfd(fd, mask...): a new fd when fd is -1, else fd's mask changes
 * MEMFD     memfd_create(name, flags): a new fd, the file "memfd:NAME"
 * PATH      a path relative to the cwd (stat, mkdir...)
 * PATHAT    a path relative to a dirfd argument before it (newfstatat, mkdirat...)
 * PATH2     two paths (rename, link)      PATH2AT  two (dirfd, path) pairs
 * SYMLINK   symlink(target, name)         SYMLINKAT symlinkat(target, dirfd, name)
 * DENTS     getdents64(fd, dirp, count): the entries read
 * the process model's, no op of their own:
 * CLONE, FORK, EXECVE, EXECVEAT  a new task, a new image
 * PRCTL     prctl(PR_SET_NAME, name): the thread's name
 * CHDIR     chdir(path)                   FCHDIR   fchdir(fd): the cwd moves
 * CREDS     a credential change (the preload lets a process go before one)
 * WAIT      a wait for events (epoll, poll, select): the thread is an event loop
 */
#define IOT_SC_SHAPES(X)                                                                \
    X(ARGS) X(OPEN) X(OPENAT) X(OPENAT2) X(CREAT) X(CLOSE) X(RWV) X(PRWV) X(PRWV2)      \
    X(LSEEK) X(LLSEEK) X(DUP) X(DUP2) X(DUP3) X(FCNTL) X(MMAP) X(MMAP2) X(MUNMAP)       \
    X(SENDFILE) X(COPY) X(CLOSE_RANGE) X(PIPE) X(NEWFD) X(SIGNALFD) X(MEMFD)            \
    X(PATH) X(PATHAT) X(PATH2) X(PATH2AT) X(SYMLINK) X(SYMLINKAT) X(DENTS)              \
    X(CLONE) X(FORK) X(EXECVE) X(EXECVEAT) X(PRCTL) X(CHDIR) X(FCHDIR) X(CREDS) X(WAIT)

#define IOT_SC_SHAPE_ENUM_(s) IOT_SC_##s,
enum iot_sc_shape { IOT_SC_SHAPES(IOT_SC_SHAPE_ENUM_) IOT_SC_SHAPE_COUNT };
#undef IOT_SC_SHAPE_ENUM_

/*
 * X(name, nr, op, shape, fd, size, off, extra, who)
 *
 * name   the syscall as strace prints it (and the kernel path's NR_<name>)
 * nr     its x86_64 number; -1 where x86_64 has none (strace prints it on
 *        other architectures: pread, _llseek, mmap2, fstat64...)
 * op     IOT_OP_<op> it is recorded as; NONE for the process model's
 *        shapes, which change tasks, the cwd or a thread's name
 * shape  IOT_SC_<shape>: how its arguments are read (above)
 * fd, size, off
 *        ARGS: the positions of the fd, the size and the offset (-1: none)
 * extra  PATH, PATHAT, PATH2AT: the position of the call's one number (the
 *        AT_* or RENAME_* flags, access's mode, mkdir's and chmod's
 *        permissions, readlink's buffer size, truncate's length); -1: none
 * who    who reads it:
 *          BOTH    the strace importer and the kernel path
 *          STRACE  the strace importer only (no x86_64 number, or one the
 *                  kernel path does not record yet: giving it BOTH is all
 *                  the kernel path needs for a shape it decodes)
 *          KERNEL  the kernel path only, which follows it without a record
 *                  of its own (strace's lines of it are read as unknown)
 *
 * Rows of one op are together, in the order strace_syscalls.c looks them
 * up; a name appears once, a number at most once.
 */
#define IOT_SYSCALLS(X)                                                                 \
    X(open,              2,   OPEN,    OPEN,      -1, -1, -1, -1, BOTH)                 \
    X(openat,            257, OPEN,    OPENAT,    -1, -1, -1, -1, BOTH)                 \
    X(openat2,           437, OPEN,    OPENAT2,   -1, -1, -1, -1, BOTH)                 \
    X(creat,             85,  OPEN,    CREAT,     -1, -1, -1, -1, BOTH)                 \
    X(close,             3,   CLOSE,   CLOSE,     -1, -1, -1, -1, BOTH)                 \
    X(read,              0,   READ,    ARGS,       0,  2, -1, -1, BOTH)                 \
    X(write,             1,   WRITE,   ARGS,       0,  2, -1, -1, BOTH)                 \
    X(pread64,           17,  PREAD,   ARGS,       0,  2,  3, -1, BOTH)                 \
    X(pread,             -1,  PREAD,   ARGS,       0,  2,  3, -1, STRACE)               \
    X(pwrite64,          18,  PWRITE,  ARGS,       0,  2,  3, -1, BOTH)                 \
    X(pwrite,            -1,  PWRITE,  ARGS,       0,  2,  3, -1, STRACE)               \
    X(readv,             19,  READV,   RWV,       -1, -1, -1, -1, BOTH)                 \
    X(writev,            20,  WRITEV,  RWV,       -1, -1, -1, -1, BOTH)                 \
    X(preadv,            295, PREADV,  PRWV,      -1, -1, -1, -1, BOTH)                 \
    X(preadv2,           327, PREADV,  PRWV2,     -1, -1, -1, -1, BOTH)                 \
    X(pwritev,           296, PWRITEV, PRWV,      -1, -1, -1, -1, BOTH)                 \
    X(pwritev2,          328, PWRITEV, PRWV2,     -1, -1, -1, -1, BOTH)                 \
    X(lseek,             8,   LSEEK,   LSEEK,     -1, -1, -1, -1, BOTH)                 \
    X(_llseek,           -1,  LSEEK,   LLSEEK,    -1, -1, -1, -1, STRACE)               \
    X(dup,               32,  DUP,     DUP,       -1, -1, -1, -1, BOTH)                 \
    X(dup2,              33,  DUP,     DUP2,      -1, -1, -1, -1, BOTH)                 \
    X(dup3,              292, DUP,     DUP3,      -1, -1, -1, -1, BOTH)                 \
    X(fcntl,             72,  DUP,     FCNTL,     -1, -1, -1, -1, BOTH)                 \
    X(fcntl64,           -1,  DUP,     FCNTL,     -1, -1, -1, -1, STRACE)               \
    X(fsync,             74,  FSYNC,   ARGS,       0, -1, -1, -1, BOTH)                 \
    X(fdatasync,         75,  FDATASYNC, ARGS,     0, -1, -1, -1, BOTH)                 \
    X(ftruncate,         77,  FTRUNCATE, ARGS,     0,  1, -1, -1, STRACE)               \
    X(ftruncate64,       -1,  FTRUNCATE, ARGS,     0,  1, -1, -1, STRACE)               \
    X(mmap,              9,   MMAP,    MMAP,      -1, -1, -1, -1, BOTH)                 \
    X(mmap2,             -1,  MMAP,    MMAP2,     -1, -1, -1, -1, STRACE)               \
    X(munmap,            11,  MUNMAP,  MUNMAP,    -1, -1, -1, -1, BOTH)                 \
    X(sendfile,          40,  SENDFILE, SENDFILE, -1, -1, -1, -1, BOTH)                 \
    X(sendfile64,        -1,  SENDFILE, SENDFILE, -1, -1, -1, -1, STRACE)               \
    X(copy_file_range,   326, COPY_FILE_RANGE, COPY, -1, -1, -1, -1, BOTH)              \
    X(splice,            275, SPLICE,  COPY,      -1, -1, -1, -1, BOTH)                 \
    X(msync,             26,  MSYNC,   ARGS,      -1,  1, -1, -1, STRACE)               \
    X(close_range,       436, CLOSE_RANGE, CLOSE_RANGE, -1, -1, -1, -1, STRACE)         \
    X(pipe,              22,  PIPE,    PIPE,      -1, -1, -1, -1, BOTH)                 \
    X(pipe2,             293, PIPE,    PIPE,      -1, -1, -1, -1, BOTH)                 \
    X(socketpair,        53,  PIPE,    PIPE,      -1, -1, -1, -1, BOTH)                 \
    X(socket,            41,  SOCKET,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(accept,            43,  SOCKET,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(accept4,           288, SOCKET,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(fallocate,         285, FALLOCATE, ARGS,     0,  3,  2, -1, STRACE)               \
    X(fadvise64,         221, FADVISE, ARGS,       0,  2,  1, -1, STRACE)               \
    X(fadvise64_64,      -1,  FADVISE, ARGS,       0,  2,  1, -1, STRACE)               \
    X(memfd_create,      319, MEMFD,   MEMFD,     -1, -1, -1, -1, BOTH)                 \
    X(eventfd,           284, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(eventfd2,          290, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(timerfd_create,    283, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(inotify_init,      253, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(inotify_init1,     294, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(epoll_create,      213, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(epoll_create1,     291, ANONFD,  NEWFD,     -1, -1, -1, -1, BOTH)                 \
    X(signalfd,          282, ANONFD,  SIGNALFD,   -1, -1, -1, -1, BOTH)                \
    X(signalfd4,         289, ANONFD,  SIGNALFD,   -1, -1, -1, -1, BOTH)                \
    X(io_uring_enter,    426, ASYNC,   ARGS,       0, -1, -1, -1, STRACE)               \
    X(io_uring_setup,    425, ASYNC,   ARGS,      -1, -1, -1, -1, STRACE)               \
    X(io_submit,         209, ASYNC,   ARGS,      -1, -1, -1, -1, STRACE)               \
    X(stat,              4,   STAT,    PATH,      -1, -1, -1, -1, BOTH)                 \
    X(lstat,             6,   STAT,    PATH,      -1, -1, -1, -1, BOTH)                 \
    X(stat64,            -1,  STAT,    PATH,      -1, -1, -1, -1, STRACE)               \
    X(lstat64,           -1,  STAT,    PATH,      -1, -1, -1, -1, STRACE)               \
    X(newfstatat,        262, STAT,    PATHAT,    -1, -1, -1,  3, BOTH)                 \
    X(fstatat64,         -1,  STAT,    PATHAT,    -1, -1, -1,  3, STRACE)               \
    X(statx,             332, STAT,    PATHAT,    -1, -1, -1,  2, BOTH)                 \
    X(fstat,             5,   STAT,    ARGS,       0, -1, -1, -1, BOTH)                 \
    X(fstat64,           -1,  STAT,    ARGS,       0, -1, -1, -1, STRACE)               \
    X(access,            21,  ACCESS,  PATH,      -1, -1, -1,  1, STRACE)               \
    X(faccessat,         269, ACCESS,  PATHAT,    -1, -1, -1,  2, STRACE)               \
    X(faccessat2,        439, ACCESS,  PATHAT,    -1, -1, -1,  2, STRACE)               \
    X(readlink,          89,  READLINK, PATH,     -1, -1, -1,  2, STRACE)               \
    X(readlinkat,        267, READLINK, PATHAT,   -1, -1, -1,  3, STRACE)               \
    X(unlink,            87,  UNLINK,  PATH,      -1, -1, -1, -1, BOTH)                 \
    X(unlinkat,          263, UNLINK,  PATHAT,    -1, -1, -1,  2, BOTH)                 \
    X(rmdir,             84,  RMDIR,   PATH,      -1, -1, -1, -1, STRACE)               \
    X(rename,            82,  RENAME,  PATH2,     -1, -1, -1, -1, BOTH)                 \
    X(renameat,          264, RENAME,  PATH2AT,   -1, -1, -1, -1, BOTH)                 \
    X(renameat2,         316, RENAME,  PATH2AT,   -1, -1, -1,  4, BOTH)                 \
    X(mkdir,             83,  MKDIR,   PATH,      -1, -1, -1,  1, BOTH)                 \
    X(mkdirat,           258, MKDIR,   PATHAT,    -1, -1, -1,  2, BOTH)                 \
    X(link,              86,  LINK,    PATH2,     -1, -1, -1, -1, STRACE)               \
    X(linkat,            265, LINK,    PATH2AT,   -1, -1, -1, -1, STRACE)               \
    X(symlink,           88,  SYMLINK, SYMLINK,   -1, -1, -1, -1, STRACE)               \
    X(symlinkat,         266, SYMLINK, SYMLINKAT, -1, -1, -1, -1, STRACE)               \
    X(chmod,             90,  CHMOD,   PATH,      -1, -1, -1,  1, STRACE)               \
    X(fchmod,            91,  CHMOD,   ARGS,       0, -1, -1, -1, STRACE)               \
    X(fchmodat,          268, CHMOD,   PATHAT,    -1, -1, -1,  2, STRACE)               \
    X(chown,             92,  CHOWN,   PATH,      -1, -1, -1, -1, STRACE)               \
    X(lchown,            94,  CHOWN,   PATH,      -1, -1, -1, -1, STRACE)               \
    X(fchown,            93,  CHOWN,   ARGS,       0, -1, -1, -1, STRACE)               \
    X(fchownat,          260, CHOWN,   PATHAT,    -1, -1, -1,  4, STRACE)               \
    X(utimensat,         280, UTIMES,  PATHAT,    -1, -1, -1,  3, STRACE)               \
    X(utimes,            235, UTIMES,  PATH,      -1, -1, -1, -1, STRACE)               \
    X(utime,             132, UTIMES,  PATH,      -1, -1, -1, -1, STRACE)               \
    X(futimesat,         261, UTIMES,  PATHAT,    -1, -1, -1,  3, STRACE)               \
    X(truncate,          76,  TRUNCATE, PATH,     -1, -1, -1,  1, STRACE)               \
    X(getdents64,        217, READDIR, DENTS,     -1, -1, -1, -1, STRACE)               \
    X(getdents,          78,  READDIR, DENTS,     -1, -1, -1, -1, STRACE)               \
    X(sync,              162, SYNC,    ARGS,      -1, -1, -1, -1, STRACE)               \
    X(syncfs,            306, SYNC,    ARGS,       0, -1, -1, -1, STRACE)               \
    X(sync_file_range,   277, SYNC_FILE_RANGE, ARGS, 0, 2, 1, -1, BOTH)                 \
    /* the process model's */                                                           \
    X(clone,             56,  NONE,    CLONE,     -1, -1, -1, -1, STRACE)               \
    X(clone2,            -1,  NONE,    CLONE,     -1, -1, -1, -1, STRACE)               \
    X(clone3,            435, NONE,    CLONE,     -1, -1, -1, -1, STRACE)               \
    X(fork,              57,  NONE,    FORK,      -1, -1, -1, -1, STRACE)               \
    X(vfork,             58,  NONE,    FORK,      -1, -1, -1, -1, STRACE)               \
    X(execve,            59,  NONE,    EXECVE,    -1, -1, -1, -1, STRACE)               \
    X(execveat,          322, NONE,    EXECVEAT,  -1, -1, -1, -1, STRACE)               \
    X(prctl,             157, NONE,    PRCTL,     -1, -1, -1, -1, BOTH)                 \
    X(chdir,             80,  NONE,    CHDIR,     -1, -1, -1, -1, BOTH)                 \
    X(fchdir,            81,  NONE,    FCHDIR,    -1, -1, -1, -1, BOTH)                 \
    X(setuid,            105, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setgid,            106, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setreuid,          113, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setregid,          114, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setgroups,         116, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setresuid,         117, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setresgid,         119, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setfsuid,          122, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(setfsgid,          123, NONE,    CREDS,     -1, -1, -1, -1, KERNEL)               \
    X(poll,              7,   NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(select,            23,  NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(epoll_wait,        232, NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(pselect6,          270, NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(ppoll,             271, NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(epoll_pwait,       281, NONE,    WAIT,      -1, -1, -1, -1, KERNEL)               \
    X(epoll_pwait2,      441, NONE,    WAIT,      -1, -1, -1, -1, KERNEL)

/*
 * Filters for the who column: IOT_SC_KERNEL_<who>(x) is x for the rows the
 * kernel path records or follows and nothing for the others, and
 * IOT_SC_STRACE_<who>(x) likewise for the strace importer's rows.
 */
#define IOT_SC_KERNEL_BOTH(...) __VA_ARGS__
#define IOT_SC_KERNEL_KERNEL(...) __VA_ARGS__
#define IOT_SC_KERNEL_STRACE(...)
#define IOT_SC_STRACE_BOTH(...) __VA_ARGS__
#define IOT_SC_STRACE_STRACE(...) __VA_ARGS__
#define IOT_SC_STRACE_KERNEL(...)

/* The op of the process model's rows, which are recorded as no op. */
#define IOT_OP_NONE (-1)

/* The kernel path's syscall numbers by name: NR_read is 0. Rows with no
   x86_64 number (-1) name nothing the kernel path can see. */
#define IOT_SC_NR_ENUM_(name, nr, op, shape, fd, size, off, extra, who)                 \
    IOT_SC_KERNEL_##who(NR_##name = nr,)
enum iot_sc_nr { IOT_SYSCALLS(IOT_SC_NR_ENUM_) NR_none_ = -1 };
#undef IOT_SC_NR_ENUM_

/* The highest syscall number the kernel path's tables hold, plus one. */
#define IOT_SC_NR_MAX 512

#endif /* IOT_SYSCALLS_H */
