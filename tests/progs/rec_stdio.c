/*
 * rec_stdio: the stdio layer - fopen/fdopen/freopen/tmpfile/fclose,
 * setvbuf/setbuf, fwrite/fread/fputs/fgets/fputc/fgetc/fprintf/fscanf/
 * getline/puts, fflush/fseek/ftell/rewind - including a failed fopen, a
 * write to a read-only stream and reads at end of file.
 * Usage: rec_stdio DIR
 */
#include <errno.h>
#include <sys/stat.h>

#include "expect.h"

/* Called through pointers so the compiler keeps each call as written. */
static int (*volatile p_fputs)(const char *, FILE *) = fputs;
static int (*volatile p_fprintf)(FILE *, const char *, ...) = fprintf;
static int (*volatile p_puts)(const char *) = puts;
static int (*volatile p_fputc)(int, FILE *) = fputc;
static int (*volatile p_fscanf)(FILE *, const char *, ...) = fscanf;
static ssize_t (*volatile p_getline)(char **, size_t *, FILE *) = getline;

static long blksize(int fd)
{
    struct stat st;

    CHECK(syscall(SYS_fstat, fd, &st) == 0);
    return (long)st.st_blksize;
}

int main(int argc, char **argv)
{
    char path[4096], missing[4096], buf[256], *line = NULL;
    size_t cap = 0, n;
    FILE *f, *g;
    long pos;
    int c, x = 0, fd;
    ssize_t r;

    CHECK(argc == 2 && argv[1][0] == '/');
    snprintf(path, sizeof(path), "%s/s.txt", argv[1]);
    snprintf(missing, sizeof(missing), "%s/missing.txt", argv[1]);

    f = fopen(path, "w+");
    CHECK(f && fileno(f) == 3);
    expect("op=fopen path=%s mode=w+ fd=3 stream ret=* size=%ld bufmode=full "
           "stack=rec_stdio+0x", path, blksize(3));

    /* glibc ignores the size of a NULL buffer and keeps its own: size 0 */
    CHECK(setvbuf(f, NULL, _IOFBF, 8192) == 0);
    expect("op=setvbuf fd=3 stream size=0 bufmode=full ret=0");

    n = fwrite("abcdefgh", 1, 8, f);
    CHECK(n == 8);
    expect("op=fwrite fd=3 stream size=8 ret=8");
    n = fwrite("0123456789ab", 4, 3, f);
    CHECK(n == 3);
    expect("op=fwrite fd=3 stream size=12 ret=12");
    CHECK(p_fputs("line1\n", f) >= 0);
    expect("op=fputs fd=3 stream size=6 ret=6");
    CHECK(p_fputc('z', f) == 'z');
    expect("op=fputc fd=3 stream size=1 ret=1");
    CHECK(p_fprintf(f, "\n%d\n", 12345) == 7);
    expect("op=fprintf fd=3 stream size=7 ret=7");
    CHECK(p_fputs("last line\n", f) >= 0);
    expect("op=fputs fd=3 stream size=10 ret=10");
    CHECK(fflush(f) == 0);
    expect("op=fflush fd=3 stream ret=0");
    pos = ftell(f);
    CHECK(pos == 44);
    expect("op=ftell fd=3 stream ret=44");

    CHECK(fseek(f, 0, SEEK_SET) == 0);
    expect("op=fseek fd=3 stream offset=0 whence=0 ret=0");
    n = fread(buf, 1, 4, f);
    CHECK(n == 4 && memcmp(buf, "abcd", 4) == 0);
    expect("op=fread fd=3 stream size=4 ret=4");
    CHECK(fgets(buf, 100, f) && strcmp(buf, "efgh0123456789abline1\n") == 0);
    expect("op=fgets fd=3 stream size=100 ret=22");
    c = fgetc(f);
    CHECK(c == 'z');
    expect("op=fgetc fd=3 stream size=1 ret=1");
    CHECK(p_fscanf(f, "%d", &x) == 1 && x == 12345);
    expect("op=fscanf fd=3 stream ret=1");
    CHECK(fseeko(f, -10, SEEK_END) == 0);
    expect("op=fseek fd=3 stream offset=-10 whence=2 ret=0");
    r = p_getline(&line, &cap, f);
    CHECK(r == 10);
    expect("op=getdelim fd=3 stream size=10 ret=10");
    r = p_getline(&line, &cap, f);   /* end of file */
    CHECK(r == -1);
    expect("op=getdelim fd=3 stream size=0 ret=0");
    n = fread(buf, 1, 100, f);       /* end of file */
    CHECK(n == 0 && feof(f));
    expect("op=fread fd=3 stream size=100 ret=0");
    rewind(f);
    expect("op=fseek fd=3 stream offset=0 whence=0 ret=0");
    n = fread(buf, 10, 10, f);       /* a short read: 4 whole items */
    CHECK(n == 4);
    expect("op=fread fd=3 stream size=100 ret=40");
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=44 ret=0");

    /* appending: the size once the close wrote the buffered bytes at the end */
    f = fopen(path, "a");
    CHECK(f && fileno(f) == 3);
    expect("op=fopen path=%s mode=a fd=3 stream ret=* size=%ld bufmode=full",
           path, blksize(3));
    CHECK(fputs("tail\n", f) >= 0);
    expect("op=fputs fd=3 stream size=5 ret=*");
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=49 ret=0");
    /* back to 44 bytes, through syscall(): not a call under test here */
    CHECK(syscall(SYS_truncate, path, 44L) == 0);

    f = fopen(missing, "r");
    CHECK(f == NULL && errno == ENOENT);
    expect("op=fopen path=%s mode=r ret=-1 errno=%d nofd", missing, ENOENT);

    f = fopen(path, "r");
    CHECK(f && fileno(f) == 3);
    expect("op=fopen path=%s mode=r fd=3 stream ret=* size=%ld bufmode=full",
           path, blksize(3));
    n = fwrite("x", 1, 1, f);        /* read-only stream */
    CHECK(n == 0 && ferror(f) && errno == EBADF);
    expect("op=fwrite fd=3 stream size=1 ret=0 errno=%d", EBADF);
    setbuf(f, NULL);
    expect("op=setvbuf fd=3 stream size=0 bufmode=none ret=0");
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=44 ret=0");

    fd = open(path, O_RDONLY);
    CHECK(fd == 3);
    expect("op=open path=%s flags=0 fd=3 ret=3", path);
    g = fdopen(fd, "r");
    CHECK(g != NULL);
    expect("op=fdopen fd=3 mode=r stream ret=* size=%ld bufmode=full",
           blksize(3));
    g = freopen(missing, "w", g);
    CHECK(g && fileno(g) == 3);
    expect("op=freopen path=%s mode=w fd=3 stream ret=*", missing);
    CHECK(fclose(g) == 0);
    expect("op=fclose fd=3 stream file_size=0 ret=0");

    g = tmpfile();
    CHECK(g && fileno(g) == 3);
    expect("op=tmpfile mode=w+b fd=3 stream ret=* size=%ld", blksize(3));
    CHECK(fwrite("t", 1, 1, g) == 1);
    expect("op=fwrite fd=3 stream size=1 ret=1");
    CHECK(fclose(g) == 0);
    expect("op=fclose fd=3 stream file_size=1 ret=0");

    CHECK(p_puts("to stdout") >= 0);
    /* stdout was never opened here: its inherited fd is named, its stream announced */
    expect("op=fdpath fd=1");
    expect("op=fdopen fd=1 mode=w stream ret=*");
    expect("op=fputs fd=1 stream size=10 ret=10");
    free(line);
    expect_flush();
    return 0;
}
