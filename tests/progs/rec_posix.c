/*
 * rec_posix: the fd family - open/openat/creat (+64 forms), read, write,
 * pread, pwrite, readv, writev, preadv, pwritev, lseek, fsync, fdatasync,
 * fallocate, posix_fadvise, ftruncate, close - including failures (ENOENT,
 * EBADF, an error number returned) and EOF reads.
 * Usage: rec_posix DIR (an absolute, empty directory)
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "expect.h"

int main(int argc, char **argv)
{
    char path[4096], path2[4096], missing[4096], buf[256] = { 0 };
    struct iovec iov[2];
    int fd, fd2, dfd, flags;
    ssize_t r;
    off_t o;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(path, sizeof(path), "%s/a.dat", argv[1]);
    snprintf(path2, sizeof(path2), "%s/b.dat", argv[1]);
    snprintf(missing, sizeof(missing), "%s/missing", argv[1]);

    flags = O_CREAT | O_RDWR | O_TRUNC;
    fd = open(path, flags, 0644);
    CHECK(fd == 3);
    expect("op=open path=%s flags=%d fd=%d ret=%d stack=rec_posix+0x", path,
           flags, fd, fd);

    r = write(fd, "hello world\n", 12);
    CHECK(r == 12);
    expect("op=write fd=3 size=12 ret=12");

    r = pwrite(fd, "XY", 2, 100);
    CHECK(r == 2);
    expect("op=pwrite fd=3 size=2 offset=100 ret=2");

    o = lseek(fd, 0, SEEK_SET);
    CHECK(o == 0);
    expect("op=lseek fd=3 offset=0 whence=0 ret=0");

    r = read(fd, buf, 5);
    CHECK(r == 5 && memcmp(buf, "hello", 5) == 0);
    expect("op=read fd=3 size=5 ret=5");

    r = pread(fd, buf, 4, 6);
    CHECK(r == 4 && memcmp(buf, "worl", 4) == 0);
    expect("op=pread fd=3 size=4 offset=6 ret=4");

    iov[0].iov_base = buf;
    iov[0].iov_len = 3;
    iov[1].iov_base = buf + 3;
    iov[1].iov_len = 4;
    r = readv(fd, iov, 2);
    CHECK(r == 7);
    expect("op=readv fd=3 size=7 ret=7");

    r = preadv(fd, iov, 2, 1);
    CHECK(r == 7);
    expect("op=preadv fd=3 size=7 offset=1 ret=7");

    iov[0].iov_base = "ab";
    iov[0].iov_len = 2;
    iov[1].iov_base = "cde";
    iov[1].iov_len = 3;
    r = writev(fd, iov, 2);
    CHECK(r == 5);
    expect("op=writev fd=3 size=5 ret=5");

    r = pwritev(fd, iov, 2, 200);
    CHECK(r == 5);
    expect("op=pwritev fd=3 size=5 offset=200 ret=5");

    o = lseek(fd, -5, SEEK_END);
    CHECK(o == 200);
    expect("op=lseek fd=3 offset=-5 whence=2 ret=200");

    r = read(fd, buf, 100);
    CHECK(r == 5);
    expect("op=read fd=3 size=100 ret=5");

    r = read(fd, buf, 100);   /* end of file */
    CHECK(r == 0);
    expect("op=read fd=3 size=100 ret=0");

    o = lseek(fd, 0, 7);      /* bad whence */
    CHECK(o == -1 && errno == EINVAL);
    expect("op=lseek fd=3 offset=0 whence=7 ret=-1 errno=%d", EINVAL);

    CHECK(fsync(fd) == 0);
    expect("op=fsync fd=3 ret=0");
    CHECK(fdatasync(fd) == 0);
    expect("op=fdatasync fd=3 ret=0");
    /* a file system without fallocate says EOPNOTSUPP: recorded as it is */
    if (fallocate(fd, 0, 0, 4096) == 0)
        expect("op=fallocate fd=3 offset=0 size=4096 ret=0");
    else
        expect("op=fallocate fd=3 offset=0 size=4096 ret=-1 errno=%d", errno);
    CHECK(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) == 0);
    expect("op=fadvise fd=3 offset=0 size=0 ret=0");
    /* an error number returned, errno untouched; recorded as ret -1 */
    errno = 0;
    CHECK(posix_fadvise(fd, 10, 20, 12345) == EINVAL && errno == 0);
    expect("op=fadvise fd=3 offset=10 size=20 ret=-1 errno=%d", EINVAL);
    CHECK(ftruncate(fd, 50) == 0);
    expect("op=ftruncate fd=3 size=50 ret=0");

    CHECK(close(fd) == 0);
    expect("op=close fd=3 file_size=50 ret=0");

    r = read(fd, buf, 10);
    CHECK(r == -1 && errno == EBADF);
    expect("op=read fd=3 size=10 ret=-1 errno=%d", EBADF);
    r = write(fd, buf, 10);
    CHECK(r == -1 && errno == EBADF);
    expect("op=write fd=3 size=10 ret=-1 errno=%d", EBADF);
    CHECK(close(fd) == -1 && errno == EBADF);
    expect("op=close fd=3 ret=-1 errno=%d", EBADF);

    fd = open(missing, O_RDONLY);
    CHECK(fd == -1 && errno == ENOENT);
    expect("op=open path=%s flags=0 ret=-1 errno=%d nofd", missing, ENOENT);

    /* Relative names are recorded as absolute paths. */
    dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
    CHECK(dfd == 3);
    expect("op=open path=%s flags=%d fd=3 ret=3", argv[1],
           O_RDONLY | O_DIRECTORY);
    fd = openat(dfd, "a.dat", O_RDONLY);
    CHECK(fd == 4);
    expect("op=open path=%s flags=0 fd=4 ret=4", path);
    fd2 = creat(path2, 0600);
    CHECK(fd2 == 5);
    expect("op=open path=%s flags=%d fd=5 ret=5", path2,
           O_CREAT | O_WRONLY | O_TRUNC);
    CHECK(chdir(argv[1]) == 0);
    CHECK(close(fd2) == 0);
    /* Nothing went through fd 5 since it was made: no fstat for its size. */
    expect("op=close fd=5 nosize ret=0");
    fd2 = open64("./b.dat", O_WRONLY | O_APPEND);
    CHECK(fd2 == 5);
    expect("op=open path=%s flags=%d fd=5 ret=5", path2, O_WRONLY | O_APPEND);
    fd2 = openat64(AT_FDCWD, "missing", O_RDONLY);
    CHECK(fd2 == -1 && errno == ENOENT);
    expect("op=open path=%s flags=0 ret=-1 errno=%d nofd", missing, ENOENT);

    r = pread64(fd, buf, 10, 0);
    CHECK(r == 10);
    expect("op=pread fd=4 size=10 offset=0 ret=10");
    o = lseek64(fd, 3, SEEK_CUR);
    CHECK(o == 3);
    expect("op=lseek fd=4 offset=3 whence=1 ret=3");
    r = pwrite64(5, "q", 1, 0);   /* O_APPEND: the kernel appends anyway */
    CHECK(r == 1);
    expect("op=pwrite fd=5 size=1 offset=0 ret=1");

    CHECK(close(5) == 0);
    expect("op=close fd=5 file_size=1 ret=0");
    CHECK(close(4) == 0);
    expect("op=close fd=4 file_size=50 ret=0");
    CHECK(close(3) == 0);
    expect("op=close fd=3 ret=0");
    expect_flush();
    return 0;
}
