/*
 * rec_meta: the metadata calls (issue 17 item 3) - the stat family with its
 * 64-bit and __xstat forms, access, readlink, mkdir, rename, link, symlink,
 * chmod, chown, the utimes family, truncate, unlink, rmdir, directory
 * streams (a readdir record per pass), sync, syncfs, sync_file_range -
 * with relative paths (joined to the cwd or the dirfd's directory) and
 * failures (ENOENT, EEXIST).
 * Usage: rec_meta DIR
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <utime.h>

#include "expect.h"

/* The forms binaries built against glibc < 2.33 call (no longer declared). */
extern int __xstat(int, const char *, struct stat *);
extern int __lxstat(int, const char *, struct stat *);
extern int __fxstat(int, int, struct stat *);
extern int __fxstatat(int, int, const char *, struct stat *, int);

/* Read a stream to its end: the entries it returned. */
static int read_all(DIR *d)
{
    int n = 0;

    while (readdir(d))
        n++;
    return n;
}

int main(int argc, char **argv)
{
    char f[4096], g[4096], h[4096], sub[4096], sub2[4096], lnk[4096], miss[4096], buf[64];
    struct stat st;
    struct stat64 st64;
    struct statx stx;
    int fd, dfd, n, uid = (int)getuid(), gid = (int)getgid();
    DIR *d;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(f, sizeof(f), "%s/f", argv[1]);
    snprintf(g, sizeof(g), "%s/g", argv[1]);
    snprintf(h, sizeof(h), "%s/h", argv[1]);
    snprintf(sub, sizeof(sub), "%s/sub", argv[1]);
    snprintf(sub2, sizeof(sub2), "%s/sub2", argv[1]);
    snprintf(lnk, sizeof(lnk), "%s/lnk", argv[1]);
    snprintf(miss, sizeof(miss), "%s/missing", argv[1]);
    CHECK(chdir(argv[1]) == 0);   /* not recorded: relative names below */

    fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd == 3);
    expect("op=open path=%s flags=%d fd=3 ret=3", f, O_RDWR | O_CREAT | O_TRUNC);

    /* the stat family */
    CHECK(stat(f, &st) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);
    CHECK(stat(miss, &st) == -1 && errno == ENOENT);
    expect("op=stat path=%s flags=0 ret=-1 errno=%d", miss, ENOENT);
    CHECK(stat("f", &st) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);
    CHECK(fstat(fd, &st) == 0);
    expect("op=stat fd=3 flags=0 ret=0");
    CHECK(fstat(99, &st) == -1 && errno == EBADF);
    expect("op=stat fd=99 flags=0 ret=-1 errno=%d", EBADF);
    CHECK(symlink("f", lnk) == 0);
    expect("op=symlink path=f newpath=%s ret=0", lnk);
    CHECK(lstat("lnk", &st) == 0 && S_ISLNK(st.st_mode));
    expect("op=stat path=%s flags=%d ret=0", lnk, AT_SYMLINK_NOFOLLOW);
    CHECK(fstatat(AT_FDCWD, "f", &st, 0) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);
    CHECK(fstatat(fd, "", &st, AT_EMPTY_PATH) == 0);
    expect("op=stat fd=3 flags=%d ret=0", AT_EMPTY_PATH);
    CHECK(statx(AT_FDCWD, "f", AT_SYMLINK_NOFOLLOW, STATX_SIZE, &stx) == 0);
    expect("op=stat path=%s flags=%d ret=0", f, AT_SYMLINK_NOFOLLOW);
    CHECK(stat64(f, &st64) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);
    CHECK(lstat64(lnk, &st64) == 0);
    expect("op=stat path=%s flags=%d ret=0", lnk, AT_SYMLINK_NOFOLLOW);
    CHECK(fstat64(fd, &st64) == 0);
    expect("op=stat fd=3 flags=0 ret=0");
    CHECK(fstatat64(AT_FDCWD, "missing", &st64, 0) == -1 && errno == ENOENT);
    expect("op=stat path=%s flags=0 ret=-1 errno=%d", miss, ENOENT);
    CHECK(__xstat(1, f, &st) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);
    CHECK(__lxstat(1, lnk, &st) == 0);
    expect("op=stat path=%s flags=%d ret=0", lnk, AT_SYMLINK_NOFOLLOW);
    CHECK(__fxstat(1, fd, &st) == 0);
    expect("op=stat fd=3 flags=0 ret=0");
    CHECK(__fxstatat(1, AT_FDCWD, "f", &st, 0) == 0);
    expect("op=stat path=%s flags=0 ret=0", f);

    /* access */
    CHECK(access(f, R_OK) == 0);
    expect("op=access path=%s flags=%d ret=0", f, R_OK);
    CHECK(access("missing", F_OK) == -1 && errno == ENOENT);
    expect("op=access path=%s flags=0 ret=-1 errno=%d", miss, ENOENT);
    CHECK(faccessat(AT_FDCWD, "f", W_OK, 0) == 0);
    expect("op=access path=%s flags=%d ret=0", f, W_OK);
    CHECK(euidaccess(f, R_OK | W_OK) == 0);
    expect("op=access path=%s flags=%d ret=0", f, R_OK | W_OK);
    CHECK(eaccess(f, F_OK) == 0);
    expect("op=access path=%s flags=0 ret=0", f);

    /* readlink */
    CHECK(readlink(lnk, buf, sizeof(buf)) == 1);
    expect("op=readlink path=%s size=64 ret=1", lnk);
    CHECK(readlink(f, buf, sizeof(buf)) == -1 && errno == EINVAL);
    expect("op=readlink path=%s size=64 ret=-1 errno=%d", f, EINVAL);

    /* directories made, a dirfd's relative names */
    CHECK(mkdir(sub, 0755) == 0);
    expect("op=mkdir path=%s flags=%d ret=0", sub, 0755);
    CHECK(mkdir("sub", 0755) == -1 && errno == EEXIST);
    expect("op=mkdir path=%s flags=%d ret=-1 errno=%d", sub, 0755, EEXIST);
    dfd = open(sub, O_RDONLY | O_DIRECTORY);
    CHECK(dfd == 4);
    expect("op=open path=%s flags=%d fd=4 ret=4", sub, O_RDONLY | O_DIRECTORY);
    CHECK(mkdirat(dfd, "in", 0700) == 0);
    expect("op=mkdir path=%s/in flags=%d ret=0", sub, 0700);
    CHECK(fstatat(dfd, "in", &st, AT_SYMLINK_NOFOLLOW) == 0);
    expect("op=stat path=%s/in flags=%d ret=0", sub, AT_SYMLINK_NOFOLLOW);
    CHECK(readlinkat(AT_FDCWD, "lnk", buf, 10) == 1);
    expect("op=readlink path=%s size=10 ret=1", lnk);

    /* names: rename, link, symlink */
    CHECK(link(f, g) == 0);
    expect("op=link path=%s newpath=%s ret=0", f, g);
    CHECK(rename(g, h) == 0);
    expect("op=rename path=%s newpath=%s flags=0 ret=0", g, h);
    CHECK(renameat(AT_FDCWD, "h", dfd, "h") == 0);
    expect("op=rename path=%s newpath=%s/h flags=0 ret=0", h, sub);
    CHECK(renameat2(dfd, "h", AT_FDCWD, "f", RENAME_NOREPLACE) == -1 && errno == EEXIST);
    expect("op=rename path=%s/h newpath=%s flags=%d ret=-1 errno=%d", sub, f, RENAME_NOREPLACE,
           EEXIST);
    CHECK(linkat(dfd, "h", AT_FDCWD, "g", 0) == 0);
    expect("op=link path=%s/h newpath=%s ret=0", sub, g);
    CHECK(symlinkat("../f", dfd, "sl") == 0);
    expect("op=symlink path=../f newpath=%s/sl ret=0", sub);

    /* permissions, owners, times, length */
    CHECK(chmod(f, 0600) == 0);
    expect("op=chmod path=%s flags=%d ret=0", f, 0600);
    CHECK(fchmod(fd, 0644) == 0);
    expect("op=chmod fd=3 flags=%d ret=0", 0644);
    CHECK(fchmodat(AT_FDCWD, "g", 0640, 0) == 0);
    expect("op=chmod path=%s flags=%d ret=0", g, 0640);
    CHECK(chown(f, (uid_t)uid, (gid_t)gid) == 0);
    expect("op=chown path=%s flags=0 ret=0", f);
    CHECK(lchown(lnk, (uid_t)uid, (gid_t)gid) == 0);
    expect("op=chown path=%s flags=%d ret=0", lnk, AT_SYMLINK_NOFOLLOW);
    CHECK(fchown(fd, (uid_t)uid, (gid_t)gid) == 0);
    expect("op=chown fd=3 flags=0 ret=0");
    CHECK(fchownat(AT_FDCWD, "missing", (uid_t)uid, (gid_t)gid, 0) == -1 && errno == ENOENT);
    expect("op=chown path=%s flags=0 ret=-1 errno=%d", miss, ENOENT);
    CHECK(utimensat(AT_FDCWD, "f", NULL, 0) == 0);
    expect("op=utimes path=%s flags=0 ret=0", f);
    CHECK(futimens(fd, NULL) == 0);
    expect("op=utimes fd=3 flags=0 ret=0");
    CHECK(utimes(f, NULL) == 0);
    expect("op=utimes path=%s flags=0 ret=0", f);
    CHECK(lutimes(lnk, NULL) == 0);
    expect("op=utimes path=%s flags=%d ret=0", lnk, AT_SYMLINK_NOFOLLOW);
    CHECK(futimes(fd, NULL) == 0);
    expect("op=utimes fd=3 flags=0 ret=0");
    CHECK(utime(f, NULL) == 0);
    expect("op=utimes path=%s flags=0 ret=0", f);
    CHECK(truncate(f, 10) == 0);
    expect("op=truncate path=%s size=10 ret=0", f);
    CHECK(truncate64("missing", 10) == -1 && errno == ENOENT);
    expect("op=truncate path=%s size=10 ret=-1 errno=%d", miss, ENOENT);

    /* syncs */
    sync();
    expect("op=sync ret=0 nofd");
    CHECK(syncfs(fd) == 0);
    expect("op=sync fd=3 ret=0");
    CHECK(sync_file_range(fd, 0, 10, SYNC_FILE_RANGE_WRITE) == 0);
    expect("op=sync_file_range fd=3 offset=0 size=10 ret=0");

    /* directory streams: one readdir record per pass, or per unfinished pass at closedir */
    d = opendir(argv[1]);
    CHECK(d != NULL && dirfd(d) == 5);
    expect("op=opendir path=%s flags=%d fd=5 ret=5", argv[1],
           O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY);
    n = read_all(d);
    CHECK(n == 6);   /* . .. f g lnk sub */
    expect("op=readdir fd=5 size=%d ret=%d", n, n);
    rewinddir(d);
    CHECK(readdir(d) != NULL && readdir(d) != NULL);
    expect("op=readdir fd=5 size=2 ret=2");
    CHECK(closedir(d) == 0);
    expect("op=close fd=5 ret=0");
    CHECK(opendir("missing") == NULL && errno == ENOENT);
    expect("op=opendir path=%s flags=%d ret=-1 errno=%d", miss,
           O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY, ENOENT);
    d = fdopendir(dfd);   /* the fd's open is recorded; fdopendir makes none */
    CHECK(d != NULL);
    n = read_all(d);
    CHECK(n == 5);   /* . .. in h sl */
    expect("op=readdir fd=4 size=%d ret=%d", n, n);
    CHECK(closedir(d) == 0);
    expect("op=close fd=4 ret=0");

    /* names removed */
    CHECK(unlink(g) == 0);
    expect("op=unlink path=%s ret=0", g);
    CHECK(unlink("missing") == -1 && errno == ENOENT);
    expect("op=unlink path=%s ret=-1 errno=%d", miss, ENOENT);
    CHECK(unlinkat(AT_FDCWD, "sub/h", 0) == 0);
    expect("op=unlink path=%s/h ret=0", sub);
    CHECK(unlinkat(AT_FDCWD, "sub/sl", 0) == 0);
    expect("op=unlink path=%s/sl ret=0", sub);
    CHECK(unlinkat(AT_FDCWD, "sub/in", AT_REMOVEDIR) == 0);
    expect("op=rmdir path=%s/in ret=0", sub);
    CHECK(rmdir(sub) == 0);
    expect("op=rmdir path=%s ret=0", sub);
    CHECK(rmdir(sub2) == -1 && errno == ENOENT);
    expect("op=rmdir path=%s ret=-1 errno=%d", sub2, ENOENT);
    CHECK(unlink(lnk) == 0);
    expect("op=unlink path=%s ret=0", lnk);
    CHECK(close(fd) == 0);
    /* nothing went through fd 3 (truncate went by the path): no fstat */
    expect("op=close fd=3 nosize ret=0");

    expect_flush();
    return 0;
}
