/*
 * stack_prog.c - many distinct call stacks for bench_symbolize.sh: 128
 * functions, each opening a file at its own call site, reached through 6
 * depths of recursion, and every file left open, so that the leak rule
 * reports each of the 768 stacks (under the usual limit of 1024 open files)
 * and ioanalyze symbolizes them all.
 *   stack_prog FILE
 */
#include <fcntl.h>
#include <stdio.h>

/*
 * The store makes each body differ, so that no two are merged (gcc's ICF);
 * the barrier after the call keeps it from being a tail call, which would
 * leave the opener's frame out of the stack.
 */
static volatile int which_opener;
#define OPENER(n)                                                              \
    __attribute__((noinline)) static int open_##n(const char *p)               \
    {                                                                          \
        int fd;                                                                \
                                                                               \
        which_opener = n;                                                      \
        fd = open(p, O_RDONLY);                                                \
        __asm__ volatile("" ::: "memory");                                     \
        return fd;                                                             \
    }
#define OPENERS8(d) OPENER(d##0) OPENER(d##1) OPENER(d##2) OPENER(d##3) \
                    OPENER(d##4) OPENER(d##5) OPENER(d##6) OPENER(d##7)
#define OPENERS64(d) OPENERS8(d##0) OPENERS8(d##1) OPENERS8(d##2) OPENERS8(d##3) \
                     OPENERS8(d##4) OPENERS8(d##5) OPENERS8(d##6) OPENERS8(d##7)
OPENERS64(1) OPENERS64(2)

#define REF(n) open_##n,
#define REFS8(d) REF(d##0) REF(d##1) REF(d##2) REF(d##3) REF(d##4) REF(d##5) REF(d##6) REF(d##7)
#define REFS64(d) REFS8(d##0) REFS8(d##1) REFS8(d##2) REFS8(d##3) \
                  REFS8(d##4) REFS8(d##5) REFS8(d##6) REFS8(d##7)
static int (*const openers[])(const char *) = { REFS64(1) REFS64(2) };

__attribute__((noinline)) static int descend(int depth, int which, const char *p)
{
    int r = depth ? descend(depth - 1, which, p) : openers[which](p);

    __asm__ volatile("" ::: "memory");   /* not a tail call: one frame per level */
    return r;
}

int main(int argc, char **argv)
{
    int n = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: stack_prog FILE\n");
        return 2;
    }
    for (int depth = 0; depth < 6; depth++)
        for (unsigned i = 0; i < sizeof(openers) / sizeof(openers[0]); i++)
            n += descend(depth, (int)i, argv[1]) >= 0;
    printf("%d files left open\n", n);
    return 0;
}
