/*
 * rec_kfollow.c - what a recorder must follow beyond the file calls
 * themselves: a file dup2'd onto another fd and written there in small
 * chunks, a copy made by fcntl(F_DUPFD_CLOEXEC), a pipe, a socketpair and
 * an eventfd written (not file I/O), a chdir and relative paths after it,
 * a thread that names itself and writes, a memfd, a file mmap'd.
 * test_rec_kernel_follow.sh builds it static and compares the kernel
 * path's trace of it with the preload's of its dynamic build. Run in an
 * empty directory: it makes "w" there. Each small-write loop makes 1000
 * calls: the count alone (small_buffer's min_ops_alone) makes it an issue
 * however fast the run, so the issues do not depend on timing.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void *worker(void *arg)
{
    int fd;

    (void)arg;
    prctl(PR_SET_NAME, "kf-worker", 0, 0, 0);
    fd = open("t.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return (void *)1;
    for (int i = 0; i < 1000; i++)
        if (write(fd, "t", 1) != 1)
            return (void *)1;
    close(fd);
    return NULL;
}

int main(void)
{
    char buf[4096];
    struct stat st;
    pthread_t th;
    void *res;
    int fd, p[2], sv[2], efd, mfd, copy;
    uint64_t one = 1;
    char *map;

    if (mkdir("w", 0755) != 0 || chdir("w") != 0)
        return 2;
    /* small writes through an fd that is a dup2 of the file's */
    fd = open("./a.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 9) != 9)
        return 3;
    close(fd);
    for (int i = 0; i < 1000; i++)
        if (write(9, "xy", 2) != 2)
            return 3;
    close(9);
    /* a pipe gets the numbers the file had: its writes are no file's */
    if (pipe(p) != 0)
        return 4;
    for (int i = 0; i < 1000; i++)
        if (write(p[1], "p", 1) != 1)
            return 4;
    if (read(p[0], buf, 1000) != 1000)
        return 4;
    close(p[0]);
    close(p[1]);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 5;
    /* each write read at once: a unix socket's buffer holds few tiny writes */
    for (int i = 0; i < 1000; i++)
        if (write(sv[0], "s", 1) != 1 || read(sv[1], buf, 1) != 1)
            return 5;
    close(sv[0]);
    close(sv[1]);
    efd = eventfd(0, 0);
    for (int i = 0; efd >= 0 && i < 100; i++)
        if (write(efd, &one, sizeof(one)) != sizeof(one))
            return 6;
    close(efd);
    /* a copy of an fd, written in small chunks */
    fd = open("b.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    copy = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 20);
    if (copy < 20)
        return 7;
    close(fd);
    for (int i = 0; i < 1000; i++)
        if (write(copy, "b", 1) != 1)
            return 7;
    close(copy);
    /* a file mapped */
    fd = open("m.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
    memset(buf, 'm', sizeof(buf));
    if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
        return 8;
    map = mmap(NULL, sizeof(buf), PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED || map[0] != 'm')
        return 8;
    munmap(map, sizeof(buf));
    close(fd);
    /* a file in memory */
    mfd = memfd_create("kf", 0);
    if (mfd < 0 || write(mfd, buf, 16) != 16)
        return 9;
    close(mfd);
    /* a thread that names itself */
    if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, &res) != 0 || res)
        return 10;
    /* relative paths after the chdir, and after another */
    if (stat("a.dat", &st) != 0 || st.st_size != 2000)
        return 11;
    for (int i = 0; i < 200; i++) {
        fd = open("./a.dat", O_RDONLY);
        if (fd < 0 || read(fd, buf, 1) != 1)
            return 11;
        close(fd);
    }
    if (chdir("..") != 0 || unlink("w/b.dat") != 0)
        return 12;
    printf("done\n");
    return 0;
}
