/*
 * rec_fdops: fd bookkeeping and copies - dup/dup2/dup3/fcntl(F_DUPFD*),
 * sendfile, copy_file_range, splice, mmap/msync/munmap, close_range and
 * closefrom, with a failing dup (EBADF).
 * Usage: rec_fdops DIR
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/sendfile.h>

#include "expect.h"

int main(int argc, char **argv)
{
    char a[4096], b[4096], data[8192];
    int fd, out, d, p[2];
    off_t o;
    loff_t lo;
    ssize_t r;
    void *m, *anon;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(a, sizeof(a), "%s/a.dat", argv[1]);
    snprintf(b, sizeof(b), "%s/b.dat", argv[1]);
    memset(data, 'd', sizeof(data));

    fd = open(a, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd == 3);
    expect("op=open path=%s flags=%d fd=3 ret=3", a, O_RDWR | O_CREAT | O_TRUNC);
    CHECK(write(fd, data, sizeof(data)) == (ssize_t)sizeof(data));
    expect("op=write fd=3 size=8192 ret=8192");

    d = dup(fd);
    CHECK(d == 4);
    expect("op=dup fd=3 newfd=4 ret=4");
    CHECK(dup2(fd, 20) == 20);
    expect("op=dup fd=3 newfd=20 ret=20");
    CHECK(dup3(fd, 21, O_CLOEXEC) == 21);
    expect("op=dup fd=3 newfd=21 ret=21");
    CHECK(fcntl(fd, F_DUPFD, 30) == 30);
    expect("op=dup fd=3 newfd=30 ret=30");
    CHECK(fcntl(fd, F_DUPFD_CLOEXEC, 40) == 40);
    expect("op=dup fd=3 newfd=40 ret=40");
    CHECK(fcntl(fd, F_GETFD) == 0);   /* not an fd-creating call: not recorded */
    CHECK(dup(999) == -1 && errno == EBADF);
    expect("op=dup fd=999 ret=-1 errno=%d", EBADF);
    CHECK(dup2(999, 50) == -1 && errno == EBADF);
    expect("op=dup fd=999 ret=-1 errno=%d", EBADF);

    out = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(out == 5);
    expect("op=open path=%s flags=%d fd=5 ret=5", b, O_WRONLY | O_CREAT | O_TRUNC);
    o = 100;
    r = sendfile(out, fd, &o, 1000);
    CHECK(r == 1000 && o == 1100);
    expect("op=sendfile fd=5 in_fd=3 size=1000 offset=100 ret=1000");
    CHECK(lseek(fd, 8000, SEEK_SET) == 8000);
    expect("op=lseek fd=3 offset=8000 whence=0 ret=8000");
    r = sendfile(out, fd, NULL, 1000);   /* from the file position */
    CHECK(r == 192);
    expect("op=sendfile fd=5 in_fd=3 size=1000 ret=192");
    lo = 0;
    r = copy_file_range(fd, &lo, out, NULL, 500, 0);
    CHECK(r == 500);
    expect("op=copy_file_range fd=5 in_fd=3 size=500 offset=0 ret=500");
    CHECK(pipe(p) == 0 && p[0] == 6 && p[1] == 7);
    expect("op=pipe fd=6 newfd=7 ret=0");
    lo = 10;
    r = splice(fd, &lo, p[1], NULL, 100, 0);
    CHECK(r == 100);
    expect("op=splice fd=7 in_fd=3 size=100 offset=10 ret=100");
    r = splice(p[0], NULL, out, NULL, 100, 0);
    CHECK(r == 100);
    expect("op=splice fd=5 in_fd=6 size=100 ret=100");

    m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    expect("op=mmap fd=3 size=8192 offset=0 ret=%lld addr", (long long)(intptr_t)m);
    CHECK(msync(m, 8192, MS_SYNC) == 0);
    expect("op=msync size=8192 ret=0 nofd");
    CHECK(munmap(m, 8192) == 0);
    expect("op=munmap size=8192 ret=0 nofd");
    m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 999, 0);
    CHECK(m == MAP_FAILED && errno == EBADF);
    expect("op=mmap fd=999 size=4096 offset=0 ret=-1 errno=%d", EBADF);
    anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(anon != MAP_FAILED);          /* memory, not file I/O: not recorded */
    CHECK(munmap(anon, 4096) == 0);     /* munmap does not know: recorded */
    expect("op=munmap size=4096 ret=0 nofd");

    CHECK(close_range(20, 21, 0) == 0);
    expect("op=close_range fd=20 last_fd=21 ret=0");
    CHECK(close(20) == -1 && errno == EBADF);
    expect("op=close fd=20 ret=-1 errno=%d", EBADF);
    closefrom(30);
    expect("op=close_range fd=30 last_fd=2147483647 ret=0");
    CHECK(fcntl(40, F_GETFD) == -1 && errno == EBADF);
    CHECK(close(4) == 0);
    expect("op=close fd=4 file_size=8192 ret=0");
    CHECK(close(5) == 0);
    expect("op=close fd=5 file_size=1792 ret=0");
    expect_flush();
    return 0;
}
