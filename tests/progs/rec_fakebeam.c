/*
 * rec_fakebeam: the few things of BEAM (OTP 25's JIT on x86-64, built with
 * frame pointers) the recorder reads to name a dirty NIF's Erlang callers,
 * on a machine with or without Erlang: the exported names it looks up,
 * erts_call_dirty_nif on the native stack, a dirty I/O scheduler's data
 * naming its current process, the process with its heap and its Erlang
 * stack of frame pointers, continuation pointers and terms, and a perf map
 * naming the code the continuation pointers return into.
 *
 * Usage: rec_fakebeam MODE DIR, MODE one of
 *   good     the opens' stacks name prim_file:open/2, fake:write_records/1
 *            and fake:main/1 above the native frames (not the process's
 *            exit at the stack's bottom)
 *   badheap  the process's heap size disagrees with its bounds: native
 *            frames only, and each such stack counted as lost
 *   release  etp_otp_release says "99", a release the recorder does not
 *            know: the same
 *   native   the opens are made outside erts_call_dirty_nif: native frames,
 *            nothing lost
 * It opens DIR/MODE three times, leaking each fd (a leak issue carries the
 * stack), removes its perf map (the trace must carry the names) and prints
 * "opened 3".
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What the recorder looks up (the program is linked with -rdynamic). */
char etp_otp_release[4] = "25";
const int etp_beamasm = 1, etp_debug_compiled = 0, etp_arch_bits = 64;
int erts_frame_layout = 1;   /* ERTS_FRAME_LAYOUT_FP_RA */

static uint64_t esd[32];     /* ErtsSchedulerData: tid 4, current_process 21, type 22 (words) */
static uint64_t proc[20];    /* struct process: id 0, htop 10, stop 11, frame pointer 12,
                                heap 16, hend 17, abandoned_heap 18, heap_sz 19 */
static uint64_t mem[64];     /* its heap, then its stack from mem[52] to the end */
static volatile int leaked[8];
static int nleaked;

void *erts_get_scheduler_data(void)
{
    return esd;
}

static __attribute__((noinline)) void opener(const char *path)
{
    leaked[nleaked++ % 8] = open(path, O_RDONLY | O_CREAT, 0644);
    __asm__ volatile("" ::: "memory");   /* no tail call: a frame of its own */
}

/* Where BEAM calls a dirty NIF: here, the NIF is opener. */
__attribute__((noinline)) void erts_call_dirty_nif(void (*nif)(const char *), const char *path)
{
    nif(path);
    __asm__ volatile("" ::: "memory");
}

/* The perf map's functions, each 0x40 bytes of the "JIT" page, in this order. */
static const char *const functions[] = {
    "$prim_file:open/2", "$fake:write_records/1", "$fake:main/1", "$erts_beamasm:normal_exit/0",
};

static void make_process(uintptr_t code, int bad_heap)
{
    uint64_t *stack = mem + 52;

    /* innermost first: FP, CP, and y registers (a list, nil, a small, an atom) */
    stack[0] = (uintptr_t)&stack[4];
    stack[1] = code + 0x000 + 0x14;
    stack[2] = (uintptr_t)&mem[2] | 1;
    stack[3] = 0x3b;
    stack[4] = (uintptr_t)&stack[8];
    stack[5] = code + 0x040 + 0x18;
    stack[6] = 0x1f;
    stack[7] = 0x8b;
    stack[8] = (uintptr_t)&stack[10];
    stack[9] = code + 0x080 + 0x0c;
    stack[10] = 0;                  /* the first frame's: make_cp(NULL) */
    stack[11] = code + 0x0c0;       /* make_cp(beam_normal_exit) */
    proc[0] = 0x4800000093;         /* a pid */
    proc[10] = (uintptr_t)&mem[20];
    proc[11] = proc[12] = (uintptr_t)stack;
    proc[16] = (uintptr_t)mem;
    proc[17] = (uintptr_t)(mem + 64);
    proc[19] = bad_heap ? 63 : 64;
    esd[4] = (uint64_t)pthread_self();
    esd[21] = (uintptr_t)proc;
    esd[22] = 2;                    /* ERTS_SCHED_DIRTY_IO */
}

/* glibc passes a program's constructors its arguments: the release is set
   before the recorder's first stack looks it up */
__attribute__((constructor)) static void early(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "release") == 0)
        strcpy(etp_otp_release, "99");
}

int main(int argc, char **argv)
{
    char map[64], path[4200];
    unsigned char *code;
    FILE *f;
    int dirty;

    if (argc != 3 || strlen(argv[2]) > 4000) {
        fprintf(stderr, "usage: rec_fakebeam good|badheap|release|native DIR\n");
        return 2;
    }
    dirty = strcmp(argv[1], "native") != 0;
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
    if (!(f = fopen(map, "w"))) {
        perror(map);
        return 1;
    }
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
        fprintf(f, "%lx 40 %s\n", (unsigned long)(code + 0x40 * i), functions[i]);
    fclose(f);
    make_process((uintptr_t)code, strcmp(argv[1], "badheap") == 0);
    snprintf(path, sizeof(path), "%s/%s", argv[2], argv[1]);
    for (int i = 0; i < 3; i++) {
        if (dirty)
            erts_call_dirty_nif(opener, path);
        else
            opener(path);
    }
    unlink(map);
    printf("opened %d\n", nleaked);
    return 0;
}
