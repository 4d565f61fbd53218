/*
 * rec_fortify: the names a -D_FORTIFY_SOURCE=2 build calls (__read_chk,
 * __pread_chk, __open_2, __openat_2, __fread_chk, __fgets_chk,
 * __fprintf_chk), as Debian packages are built.
 * Usage: rec_fortify DIR
 */
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#include <errno.h>

#include "expect.h"

/* Non-constant flags and sizes keep the checked entry points in use. */
static volatile int v_flags = O_RDONLY;
static volatile size_t v_n = 5;

int main(int argc, char **argv)
{
    char path[4096], buf[64];
    int fd, fd2;
    FILE *f;
    ssize_t r;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(path, sizeof(path), "%s/f.txt", argv[1]);
    f = fopen(path, "w");
    CHECK(f != NULL);
    expect("op=fopen path=%s mode=w fd=3 stream ret=*", path);
    CHECK(fprintf(f, "%s %d\n", "forty", 2) == 8);
    expect("op=fprintf fd=3 stream size=8 ret=8");
    CHECK(fclose(f) == 0);
    /* the size once the close wrote the buffered 8 bytes */
    expect("op=fclose fd=3 stream file_size=8 ret=0");

    fd = open(path, v_flags);
    CHECK(fd == 3);
    expect("op=open path=%s flags=0 fd=3 ret=3", path);
    r = read(fd, buf, v_n);
    CHECK(r == 5);
    expect("op=read fd=3 size=5 ret=5");
    r = pread(fd, buf, v_n, 1);
    CHECK(r == 5);
    expect("op=pread fd=3 size=5 offset=1 ret=5");
    fd2 = openat(AT_FDCWD, path, v_flags);
    CHECK(fd2 == 4);
    expect("op=open path=%s flags=0 fd=4 ret=4", path);
    f = fdopen(fd2, "r");
    CHECK(f != NULL);
    expect("op=fdopen fd=4 mode=r stream ret=*");
    CHECK(fread(buf, 1, v_n, f) == 5);
    expect("op=fread fd=4 stream size=5 ret=5");
    CHECK(fgets(buf, (int)v_n, f) != NULL && strlen(buf) == 3);
    expect("op=fgets fd=4 stream size=5 ret=3");
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=4 stream file_size=8 ret=0");
    CHECK(close(fd) == 0);
    expect("op=close fd=3 file_size=8 ret=0");
    expect_flush();
    return 0;
}
