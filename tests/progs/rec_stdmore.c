/*
 * rec_stdmore: the rest of stdio (issue 17) - printf/vprintf/__printf_chk
 * on a redirected stdout (announced as an fdopen of fd 1), scanf on a
 * redirected stdin, putchar/getchar, the *_unlocked exports, the inline
 * getc_unlocked/putc_unlocked macros (__overflow/__uflow and the bytes they
 * move in between), dprintf, fwrite, fread, fputc and fgetc repeated
 * within a buffer (untimed repeats), and the wide-character calls. At the end the
 * bytes recorded on stdout add up to the size of the file it names.
 * Usage: rec_stdmore DIR [threaded]
 * threaded: the same calls while a second thread waits (no I/O of its
 * own), so that the process is not single-threaded: the recorder's untimed
 * repeats take their multi-threaded path, with the same results.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <wchar.h>

#include "expect.h"

/* Called through pointers so the compiler keeps each call as written. */
static int (*volatile p_printf)(const char *, ...) = printf;
static int (*volatile p_vprintf)(const char *, va_list) = vprintf;
static int (*volatile p_putchar)(int) = putchar;
static int (*volatile p_fputc)(int, FILE *) = fputc;
static int (*volatile p_fgetc)(FILE *) = fgetc;
static int (*volatile p_putchar_unlocked)(int) = putchar_unlocked;
static int (*volatile p_fputc_unlocked)(int, FILE *) = fputc_unlocked;
static int (*volatile p_fputs_unlocked)(const char *, FILE *) = fputs_unlocked;
static int (*volatile p_getchar)(void) = getchar;
static int (*volatile p_getc_unlocked)(FILE *) = getc_unlocked;
static int (*volatile p_scanf)(const char *, ...) = scanf;
static int (*volatile p_dprintf)(int, const char *, ...) = dprintf;
static int (*volatile p_fwprintf)(FILE *, const wchar_t *, ...) = fwprintf;
static wint_t (*volatile p_fputwc)(wchar_t, FILE *) = fputwc;
static int (*volatile p_fputws)(const wchar_t *, FILE *) = fputws;
static wint_t (*volatile p_fgetwc)(FILE *) = fgetwc;
extern int __printf_chk(int, const char *, ...);
static int (*volatile p_printf_chk)(int, const char *, ...) = __printf_chk;

static int via_vprintf(const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = p_vprintf(fmt, ap);
    va_end(ap);
    return r;
}

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;

/* The second thread of the threaded mode: waits until main lets it go. */
static void *idle(void *arg)
{
    pthread_mutex_lock(&idle_lock);
    pthread_mutex_unlock(&idle_lock);
    return arg;
}

static long size_of(const char *path)
{
    struct stat st;

    CHECK(stat(path, &st) == 0);
    expect("op=stat path=%s flags=0 ret=0", path);   /* a metadata call: recorded too */
    return (long)st.st_size;
}

int main(int argc, char **argv)
{
    static char sbuf[4096], fbuf[8192];   /* buffers of exact, known sizes */
    char out[4096], in[4096], wide[4096], rep[4096], byc[4096], block[64];
    long total = 0;
    int fd, x = 0, c;
    pthread_t idler;
    int threaded;
    FILE *f;

    CHECK((argc == 2 || argc == 3) && argv[1][0] == '/');
    threaded = argc == 3 && !strcmp(argv[2], "threaded");
    CHECK(argc == 2 || threaded);
    if (threaded) {
        pthread_mutex_lock(&idle_lock);
        CHECK(pthread_create(&idler, NULL, idle, NULL) == 0);
        expect("op=pthread_create ret=0");
    }
    snprintf(out, sizeof(out), "%s/out.txt", argv[1]);
    snprintf(in, sizeof(in), "%s/in.txt", argv[1]);
    snprintf(wide, sizeof(wide), "%s/wide.txt", argv[1]);
    snprintf(rep, sizeof(rep), "%s/rep.txt", argv[1]);
    snprintf(byc, sizeof(byc), "%s/bycaller.txt", argv[1]);
    memset(block, 'r', sizeof(block));

    /* stdout to a file, as a shell's `> out.txt` would */
    fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd == 3);
    expect("op=open path=%s flags=%d fd=3 ret=3 stack=rec_stdmore+0x", out,
           O_WRONLY | O_CREAT | O_TRUNC);
    CHECK(dup2(3, 1) == 1);
    expect("op=dup fd=3 newfd=1 ret=1");
    CHECK(close(3) == 0);
    expect("op=close fd=3 file_size=0 ret=0");

    /* a buffer of a known size, before any I/O (glibc's setvbuf after I/O
       leaves inline putc calling __overflow every time) */
    CHECK(setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf)) == 0);
    expect("op=fdopen fd=1 mode=w stream ret=* bufmode=full");
    expect("op=setvbuf fd=1 stream size=4096 bufmode=full ret=0");
    CHECK(p_printf("%s %d\n", "printf", 1) == 9);
    expect("op=fprintf fd=1 stream size=9 ret=9");
    total += 9;
    CHECK(via_vprintf("%d\n", 22) == 3);
    expect("op=fprintf fd=1 stream size=3 ret=3");
    total += 3;
    CHECK(p_printf_chk(1, "chk %d\n", 3) == 6);
    expect("op=fprintf fd=1 stream size=6 ret=6");
    total += 6;
    CHECK(p_putchar('a') == 'a');
    expect("op=fputc fd=1 stream size=1 ret=1");
    CHECK(p_putchar_unlocked('b') == 'b');
    expect("op=fputc fd=1 stream size=1 ret=1");
    CHECK(p_fputc_unlocked('c', stdout) == 'c');
    expect("op=fputc fd=1 stream size=1 ret=1");
    CHECK(p_fputs_unlocked("de\n", stdout) >= 0);
    expect("op=fputs fd=1 stream size=3 ret=3");
    total += 6;
    /* inline putc_unlocked: the buffer exists, so no call at all, until
       the next stdio call shows the 100 bytes they left */
    for (int i = 0; i < 100; i++)
        putc_unlocked('i', stdout);
    CHECK(fflush(stdout) == 0);
    expect("op=inline_put fd=1 stream size=100 ret=100");
    expect("op=fflush fd=1 stream ret=0");
    total += 100;
    /* 10000 inline bytes through the 4096-byte buffer: __overflow at each
       full buffer, with the bytes before it; the rest at fflush */
    for (int i = 0; i < 10000; i++)
        putc_unlocked('j', stdout);
    expect("op=inline_put fd=1 stream size=4097 ret=4097");
    expect("op=inline_put fd=1 stream size=4096 ret=4096");   /* 4095 + 1 */
    CHECK(fflush(stdout) == 0);
    expect("op=inline_put fd=1 stream size=1807 ret=1807");
    expect("op=fflush fd=1 stream ret=0");
    total += 10000;
    /* dprintf writes to the fd through no stream of the program's */
    CHECK(p_dprintf(1, "dprintf %d\n", 4) == 10);
    expect("op=write fd=1 size=10 ret=10");
    total += 10;
    CHECK(size_of(out) == total);

    /* stdin from a file: scanf, getchar, inline getc_unlocked */
    f = fopen(in, "w");
    CHECK(f != NULL);
    expect("op=fopen path=%s mode=w fd=3 stream ret=* bufmode=full", in);
    CHECK(setvbuf(f, fbuf, _IOFBF, sizeof(fbuf)) == 0);
    expect("op=setvbuf fd=3 stream size=8192 bufmode=full ret=0");
    CHECK(fputs("42 xyz", f) >= 0);
    expect("op=fputs fd=3 stream size=6 ret=6");
    for (int i = 0; i < 5000; i++)
        fputc_unlocked('k', f);     /* inline: fits in the buffer */
    CHECK(fclose(f) == 0);
    expect("op=inline_put fd=3 stream size=5000 ret=5000");
    expect("op=fclose fd=3 stream file_size=5006 ret=0");
    CHECK(size_of(in) == 5006);
    fd = open(in, O_RDONLY);
    CHECK(fd == 3);
    expect("op=open path=%s flags=0 fd=3 ret=3", in);
    CHECK(dup2(3, 0) == 0 && close(3) == 0);
    expect("op=dup fd=3 newfd=0 ret=0");
    expect("op=close fd=3 file_size=5006 ret=0");
    CHECK(p_scanf("%d", &x) == 1 && x == 42);
    expect("op=fdopen fd=0 mode=r stream ret=*");
    expect("op=fscanf fd=0 stream ret=1");
    CHECK(p_getchar() == ' ');
    expect("op=fgetc fd=0 stream size=1 ret=1");
    CHECK(p_getc_unlocked(stdin) == 'x');
    expect("op=fgetc fd=0 stream size=1 ret=1");
    for (int i = 0; i < 3; i++)
        c = getc_unlocked(stdin);   /* y, z, k: inline */
    CHECK(c == 'k');
    CHECK(p_getchar() == 'k');
    expect("op=inline_get fd=0 stream size=3 ret=3");
    expect("op=fgetc fd=0 stream size=1 ret=1");

    /*
     * fwrite and fread repeated within the stream's buffer: untimed repeats
     * (at the previous call's end, lasting 0). Timed: the first of a run,
     * a call after inline bytes, and each call that flushes or refills.
     */
    f = fopen(rep, "w+");
    CHECK(f != NULL);
    expect("op=fopen path=%s mode=w+ fd=3 stream ret=* bufmode=full", rep);
    CHECK(setvbuf(f, fbuf, _IOFBF, sizeof(fbuf)) == 0);
    expect("op=setvbuf fd=3 stream size=8192 bufmode=full ret=0");
    for (int i = 0; i < 3; i++) {
        CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
        expect("op=fwrite fd=3 stream size=64 ret=64%s", i ? " untimed" : "");
    }
    for (int i = 0; i < 10; i++)
        putc_unlocked('p', f);
    for (int i = 0; i < 2; i++) {
        CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
        if (i == 0)
            expect("op=inline_put fd=3 stream size=10 ret=10");
        expect("op=fwrite fd=3 stream size=64 ret=64%s", i ? " untimed" : "");
    }
    {
        long held = 5 * 64 + 10;   /* bytes in the buffer */

        for (int i = 0; i < 200; i++) {
            int flushes = (long)sizeof(fbuf) - held < 64;

            CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
            expect("op=fwrite fd=3 stream size=64 ret=64 %s", flushes ? "timed" : "untimed");
            /* glibc fills the buffer, writes it, keeps the rest */
            held = flushes ? held + 64 - (long)sizeof(fbuf) : held + 64;
        }
    }
    CHECK(fwrite(block, 1, 32, f) == 32);
    expect("op=fwrite fd=3 stream size=32 ret=32");   /* another size */
    for (int i = 0; i < 5; i++) {
        CHECK(p_fputc('q', f) == 'q');
        expect("op=fputc fd=3 stream size=1 ret=1%s", i ? " untimed" : "");
    }
    rewind(f);
    expect("op=fseek fd=3 stream offset=0 whence=0 ret=0");
    for (int i = 0; i < 150; i++) {
        CHECK(fread(block, 1, sizeof(block), f) == sizeof(block));
        expect("op=fread fd=3 stream size=64 ret=64 %s", i % 128 ? "untimed" : "timed");
    }
    for (int i = 0; i < 5; i++) {
        CHECK(p_fgetc(f) == 'r');
        expect("op=fgetc fd=3 stream size=1 ret=1%s", i ? " untimed" : "");
    }
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=%d ret=0", 205 * 64 + 10 + 32 + 5);

    /*
     * A stream whose caller does the locking (FSETLOCKING_BYCALLER): the
     * recorder never takes its lock, so with a second thread its repeats
     * are timed; alone, they are untimed as on any stream.
     */
    f = fopen(byc, "w");
    CHECK(f != NULL);
    expect("op=fopen path=%s mode=w fd=3 stream ret=* bufmode=full", byc);
    CHECK(__fsetlocking(f, FSETLOCKING_BYCALLER) == FSETLOCKING_INTERNAL);
    for (int i = 0; i < 3; i++) {
        CHECK(fwrite(block, 1, sizeof(block), f) == sizeof(block));
        expect("op=fwrite fd=3 stream size=64 ret=64%s",
               i == 0 ? "" : threaded ? " timed" : " untimed");
    }
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=192 ret=0");

    /* wide characters: counted in characters (ASCII here: bytes) */
    f = fopen(wide, "w+");
    CHECK(f != NULL);
    expect("op=fopen path=%s mode=w+ fd=3 stream ret=* bufmode=full", wide);
    CHECK(p_fwprintf(f, L"%ls %d\n", L"wide", 5) == 7);
    expect("op=fprintf fd=3 stream size=7 ret=7");
    CHECK(p_fputwc(L'w', f) == L'w');
    expect("op=fputc fd=3 stream size=1 ret=1");
    CHECK(p_fputws(L"ws\n", f) >= 0);
    expect("op=fputs fd=3 stream size=3 ret=3");
    rewind(f);
    expect("op=fseek fd=3 stream offset=0 whence=0 ret=0");
    CHECK(p_fgetwc(f) == L'w');
    expect("op=fgetc fd=3 stream size=1 ret=1");
    CHECK(fclose(f) == 0);
    expect("op=fclose fd=3 stream file_size=11 ret=0");
    if (threaded) {
        pthread_mutex_unlock(&idle_lock);
        CHECK(pthread_join(idler, NULL) == 0);
    }
    expect_flush();
    return 0;
}
