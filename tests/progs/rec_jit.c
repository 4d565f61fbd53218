/*
 * rec_jit: code in anonymous executable memory, with no CFI, that calls
 * open() the way a JIT's or an interpreter trampoline's code does, and a
 * perf map naming it, as node --perf-basic-prof and python3.12 -X perf
 * write one. Each open leaks its fd (a leak issue carries its stack).
 *
 *   fp      a frame with rbp as frame pointer (V8's, CPython 3.13's)
 *   stub    CPython 3.12's trampoline, no frame pointer:
 *           sub $8,%rsp; call *%rcx; add $8,%rsp; ret
 *   badfp   a frame whose rbp points 1 MiB above the stack pointer: the
 *           recorder must stop walking there, not fault
 *   thread  fp on a second thread (a stack the recorder has no bound for)
 *
 * Usage: rec_jit DIR: opens DIR/fp, DIR/stub, DIR/badfp, DIR/thread; the
 * perf map is removed before the program exits (the trace must carry the
 * names), and prints "opened 4". Exits 3 where writable executable
 * memory is refused.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void (*opener_fn)(const char *);
typedef void (*jit_fn)(const char *path, long unused1, long unused2, opener_fn target);

static const struct {
    const char *mode;       /* also the file opened under DIR */
    const char *name;       /* its perf map name */
    unsigned char code[24];
    size_t len;
} stubs[] = {
    /* push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret */
    { "fp", "JS:~fpFunction /src/app/fake.js:12:5",
      { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd1, 0x5d, 0xc3 }, 8 },
    /* sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
    { "stub", "py::stub_function:/src/app/fake.py",
      { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 }, 11 },
    /* push %rbp; mov %rsp,%rbp; lea 0x100000(%rsp),%rbp; call *%rcx;
       mov %rsp,%rbp; pop %rbp; ret */
    { "badfp", "JS:*badFrame /src/app/fake.js:40:1",
      { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x8d, 0xac, 0x24, 0x00, 0x00, 0x10, 0x00,
        0xff, 0xd1, 0x48, 0x89, 0xe5, 0x5d, 0xc3 }, 19 },
};

static volatile int leaked[8];
static int nleaked;
static unsigned char *page;
static char dir[4096];

static __attribute__((noinline)) void opener(const char *path)
{
    leaked[nleaked++ % 8] = open(path, O_RDONLY | O_CREAT, 0644);
    __asm__ volatile("" ::: "memory");   /* no tail call: a frame of its own */
}

/* The stub i on path DIR/name. */
static void call_stub(size_t i, const char *name)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ((jit_fn)(void *)(page + 64 * i))(path, 0, 0, opener);
}

static void *thread_main(void *arg)
{
    (void)arg;
    call_stub(0, "thread");
    return NULL;
}

int main(int argc, char **argv)
{
    char map[64];
    FILE *f;
    pthread_t t;

    if (argc != 2 || strlen(argv[1]) >= sizeof(dir)) {
        fprintf(stderr, "usage: rec_jit DIR\n");
        return 2;
    }
    strcpy(dir, argv[1]);
    page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0);
    if (page == MAP_FAILED) {
        perror("mmap");   /* writable executable memory refused here */
        return 3;
    }
    snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
    if (!(f = fopen(map, "w"))) {
        perror(map);
        return 1;
    }
    for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++) {
        memcpy(page + 64 * i, stubs[i].code, stubs[i].len);
        fprintf(f, "%lx %zx %s\n", (unsigned long)(page + 64 * i), stubs[i].len, stubs[i].name);
    }
    fclose(f);
    for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++)
        call_stub(i, stubs[i].mode);
    if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
        return 1;
    unlink(map);
    printf("opened %d\n", nleaked);
    return 0;
}
