/*
 * test_infile.c - input files under a bound on descriptors: files read in
 * turn, more of them than may be open, each resume exactly where it
 * stopped; a parked file replaced under its path is refused; an unseekable file
 * gives back the bytes detection peeked at; its copy is capped.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "infile.h"
#include "unit.h"

enum { NFILES = 9, NLINES = 50, MAX_OPEN = 2 };

/* Descriptors open in this process. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *de;
    int n = -1;   /* the directory's own */

    if (!d)
        return -1;
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A pool that keeps at most MAX_OPEN files open: made under a limit of 4 * MAX_OPEN. */
static struct infiles *small_pool(void)
{
    struct rlimit rl, low;
    struct infiles *p;

    CU_ASSERT_FATAL(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    low = rl;
    low.rlim_cur = 4 * MAX_OPEN;
    CU_ASSERT_FATAL(setrlimit(RLIMIT_NOFILE, &low) == 0);
    p = infiles_create();
    CU_ASSERT_FATAL(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    CU_ASSERT_FATAL(p != NULL);
    return p;
}

static void test_round_robin(void)
{
    struct infiles *p = small_pool();
    struct infile *f[NFILES];
    char path[NFILES][64], peek[INFILE_PEEK], *line = NULL;
    size_t npeek, cap = 0;
    int base = open_fds(), most = 0;

    for (int i = 0; i < NFILES; i++) {
        FILE *w;
        long size;

        snprintf(path[i], sizeof(path[i]), "%s", unit_tmp_path("rr"));
        snprintf(path[i] + strlen(path[i]), sizeof(path[i]) - strlen(path[i]), "%d", i);
        w = fopen(path[i], "w");
        CU_ASSERT_FATAL(w != NULL);
        for (int k = 0; k < NLINES; k++)
            fprintf(w, "file %d line %d\n", i, k);
        size = ftell(w);
        fclose(w);
        f[i] = infile_open(p, path[i], peek, &npeek);
        CU_ASSERT_FATAL(f[i] != NULL);
        /* the whole small file, its first line first */
        CU_ASSERT_EQUAL(npeek, (size_t)size);
        CU_ASSERT(strncmp(peek, "file ", 5) == 0 && peek[5] == '0' + i);
        CU_ASSERT(!infile_is_unseekable(f[i]));
    }
    /* a line of each in turn: every file is parked and resumed many times */
    for (int k = 0; k < NLINES; k++) {
        for (int i = 0; i < NFILES; i++) {
            char want[64];
            FILE *fp = infile_file(f[i]);

            CU_ASSERT_FATAL(fp != NULL);
            CU_ASSERT_FATAL(getline(&line, &cap, fp) > 0);
            snprintf(want, sizeof(want), "file %d line %d\n", i, k);
            CU_ASSERT_STRING_EQUAL(line, want);
            if (open_fds() - base > most)
                most = open_fds() - base;
        }
    }
    CU_ASSERT(most <= MAX_OPEN);
    for (int i = 0; i < NFILES; i++) {
        FILE *fp = infile_file(f[i]);

        CU_ASSERT_FATAL(fp != NULL);
        CU_ASSERT(getline(&line, &cap, fp) < 0 && !ferror(fp));
        infile_done(f[i]);
        CU_ASSERT(infile_file(f[i]) == NULL);
    }
    CU_ASSERT_EQUAL(open_fds(), base);
    free(line);
    infiles_free(p);
}

static void test_replaced(void)
{
    struct infiles *p = small_pool();
    struct infile *f[MAX_OPEN + 1];
    char path[MAX_OPEN + 1][64], peek[INFILE_PEEK], *line = NULL;
    const char *other = unit_tmp_path("replacement");
    size_t npeek, cap = 0;

    for (int i = 0; i <= MAX_OPEN; i++) {
        snprintf(path[i], sizeof(path[i]), "%s%d", unit_tmp_path("repl"), i);
        unit_spill(path[i], "a\nb\n", 4);
        f[i] = infile_open(p, path[i], peek, &npeek);
        CU_ASSERT_FATAL(f[i] != NULL);
        CU_ASSERT_FATAL(getline(&line, &cap, infile_file(f[i])) == 2);
    }
    /* f[0] was parked to open the last: another file under its path now */
    unit_spill(other, "a\nc\n", 4);
    CU_ASSERT_FATAL(rename(other, path[0]) == 0);
    errno = 0;
    CU_ASSERT(infile_file(f[0]) == NULL);
    CU_ASSERT_EQUAL(errno, ESTALE);
    /* the others read on */
    CU_ASSERT_FATAL(getline(&line, &cap, infile_file(f[MAX_OPEN])) == 2);
    CU_ASSERT_STRING_EQUAL(line, "b\n");
    free(line);
    infiles_free(p);
}

/* A pipe holding text, given as a path (as bash's <(...) gives one). */
static struct infile *pipe_input(struct infiles *p, const char *text, int *keep,
                                 char *peek, size_t *npeek)
{
    int fds[2];
    char path[64];
    struct infile *f;

    CU_ASSERT_FATAL(pipe(fds) == 0);
    CU_ASSERT_FATAL(write(fds[1], text, strlen(text)) == (ssize_t)strlen(text));
    close(fds[1]);
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    f = infile_open(p, path, peek, npeek);
    *keep = fds[0];
    return f;
}

static void test_unseekable(void)
{
    struct infiles *p = infiles_create();
    char peek[INFILE_PEEK], *line = NULL;
    size_t npeek, cap = 0;
    int keep;
    struct infile *f = pipe_input(p, "first line\nsecond\n", &keep, peek, &npeek);
    FILE *fp;

    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(infile_is_unseekable(f));
    CU_ASSERT(npeek >= 11 && memcmp(peek, "first line\n", 11) == 0);
    fp = infile_file(f);
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT(getline(&line, &cap, fp) == 11);
    CU_ASSERT_STRING_EQUAL(line, "first line\n");
    CU_ASSERT(getline(&line, &cap, fp) == 7);
    CU_ASSERT_STRING_EQUAL(line, "second\n");
    CU_ASSERT(getline(&line, &cap, fp) < 0);
    CU_ASSERT_EQUAL(infile_bytes(f), 18);
    close(keep);
    free(line);
    infiles_free(p);
}

static void test_unseekable_copy(void)
{
    struct infiles *p = infiles_create();
    char peek[INFILE_PEEK], buf[64];
    size_t npeek;
    int keep, fd;
    struct infile *f = pipe_input(p, "0123456789\nabcdef", &keep, peek, &npeek);

    CU_ASSERT_FATAL(f != NULL);
    fd = infile_take_fd(f, 17);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(pread(fd, buf, sizeof(buf), 0), 17);
    CU_ASSERT(memcmp(buf, "0123456789\nabcdef", 17) == 0);
    CU_ASSERT_EQUAL(infile_bytes(f), 17);
    close(fd);
    close(keep);
    /* one byte over the cap */
    f = pipe_input(p, "0123456789\nabcdef", &keep, peek, &npeek);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(infile_take_fd(f, 16), -1);
    CU_ASSERT_EQUAL(errno, EFBIG);
    close(keep);
    infiles_free(p);
}

void infile_suite(void)
{
    CU_pSuite s = CU_add_suite("infile", NULL, NULL);

    CU_add_test(s, "more files than may be open, read in turn, resume exactly", test_round_robin);
    CU_add_test(s, "a parked file replaced under its path is refused", test_replaced);
    CU_add_test(s, "an unseekable file gives back what detection peeked", test_unseekable);
    CU_add_test(s, "an unseekable file's copy is whole, and capped", test_unseekable_copy);
}
