/*
 * beamframe.c - reading a BEAM process's Erlang frames from the dirty
 * scheduler thread that runs its NIF (beamframe.h).
 *
 * The layouts below are offsetof() in ERTS's own headers for x86-64:
 * struct ErtsSchedulerData_ and struct process in erl_process.h, the
 * ErtsPTabElementCommon that begins a process in erl_ptab.h (80 bytes),
 * and ErtsThrPrgrData in erl_thr_progress.h (104 bytes, before the
 * scheduler's current_process). A process has a frame_pointer member after
 * stop only in a build with ERLANG_FRAME_POINTERS, the one that exports
 * erts_frame_layout. The release is the one ERTS states for its debugger
 * macros (etp_otp_release, with etp_beamasm and etp_debug_compiled); a
 * release or build not in the table is not read, and its dirty stacks are
 * counted as lost.
 *
 * BEAM is looked for once, at the first stack, by its exported names
 * (dlsym outside stack.c's lock, as pyframe.c does). Nothing is read where
 * a seccomp filter may stand: the recorder makes no syscall of its own
 * there.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "beamframe.h"
#include "pyframe.h"
#include "rec.h"
#include "sandbox.h"

/* Offsets in bytes, for one OTP release and build. */
struct beam_layout {
    const char *release;        /* etp_otp_release */
    int frame_pointers;         /* built with ERLANG_FRAME_POINTERS */
    int esd_tid;                /* ErtsSchedulerData: the thread's pthread_t */
    int esd_current_process;    /* the process it runs */
    int esd_type;               /* ERTS_SCHED_NORMAL 0, DIRTY_CPU 1, DIRTY_IO 2 */
    int p_htop, p_stop;         /* Process: heap top, stack top */
    int p_heap, p_hend;         /* the heap's start and end (the stack's bottom) */
    int p_abandoned_heap, p_heap_sz;
};

static const struct beam_layout layouts[] = {
    /* release fp tid current type htop stop heap hend abandoned heap_sz */
    { "25", 1, 32, 168, 176, 80, 88, 128, 136, 144, 152 },
    { "25", 0, 32, 168, 176, 80, 88, 120, 128, 136, 144 },
};

#define ESD_BYTES   184         /* of ErtsSchedulerData, past the last member read */
#define PROC_BYTES  160         /* of a process, past the last member read */
#define STACK_BYTES 2048        /* of its stack read from stop: the innermost frames */
#define PID_TAG_MASK 0xfu       /* an Eterm's primary and immediate-1 tags */
#define PID_TAG      0x3u       /* _TAG_IMMED1_PID */
#define CP_MASK      0x3u       /* a continuation pointer's tag bits are 0 */

static struct beam_layout beam;
static void *(*scheduler_data)(void);
static uintptr_t dirty_lo, dirty_hi;   /* erts_call_dirty_nif's code */

/* 0 not looked for yet, 1 looking, 2 readable, 3 not BEAM, 4 BEAM of a layout not known */
static int state;

static int int_at(const char *name, int want)
{
    const int *p = dlsym(RTLD_DEFAULT, name);

    return p && *p == want;
}

/* BEAM, once: state 2 when its processes can be read, 4 when not, 3 not BEAM. */
static int look_for_beam(void)
{
    void *call = dlsym(RTLD_DEFAULT, "erts_call_dirty_nif");
    const char *release = dlsym(RTLD_DEFAULT, "etp_otp_release");
    int fp = dlsym(RTLD_DEFAULT, "erts_frame_layout") != NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info info;

    if (!call || !dladdr1(call, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        sym->st_size == 0)
        return 3;
    dirty_lo = (uintptr_t)call;
    dirty_hi = dirty_lo + sym->st_size;
    scheduler_data = (void *(*)(void))dlsym(RTLD_DEFAULT, "erts_get_scheduler_data");
    if (!scheduler_data || !release || !int_at("etp_beamasm", 1) ||
        !int_at("etp_debug_compiled", 0) || !int_at("etp_arch_bits", 64))
        return 4;
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
        if (strcmp(layouts[i].release, release) == 0 && layouts[i].frame_pointers == fp) {
            beam = layouts[i];
            return 2;
        }
    return 4;
}

static uint64_t word(const uint8_t *buf, int off)
{
    uint64_t v;

    memcpy(&v, buf + off, sizeof(v));
    return v;
}

/*
 * The continuation pointers on the stack of the process this dirty
 * scheduler thread runs, innermost first, into out[0..cap): their count,
 * or -1 when the scheduler data or the process is not what the layout says.
 */
static int erlang_frames(uintptr_t *out, int cap)
{
    uint8_t esd[ESD_BYTES], proc[PROC_BYTES];
    uint64_t stack[STACK_BYTES / 8];
    uintptr_t esdp, p, htop, stop, heap, hend;
    uint64_t type;
    size_t len;
    int n = 0;

    esdp = (uintptr_t)scheduler_data();
    if (rec_py_peek(esdp, esd, sizeof(esd)) < 0)
        return -1;
    type = word(esd, beam.esd_type) & 0xffffffffu;
    if (word(esd, beam.esd_tid) != (uint64_t)pthread_self() || (type != 1 && type != 2))
        return -1;
    p = (uintptr_t)word(esd, beam.esd_current_process);
    if (rec_py_peek(p, proc, sizeof(proc)) < 0)
        return -1;
    htop = (uintptr_t)word(proc, beam.p_htop);
    stop = (uintptr_t)word(proc, beam.p_stop);
    heap = (uintptr_t)word(proc, beam.p_heap);
    hend = (uintptr_t)word(proc, beam.p_hend);
    /* a live process's pid, its heap growing up to its stack growing down,
       and the heap's size in words the span they share */
    if ((word(proc, 0) & PID_TAG_MASK) != PID_TAG || word(proc, beam.p_abandoned_heap) != 0 ||
        !(heap <= htop && htop <= stop && stop <= hend) || ((heap | stop | hend) & 7) ||
        (hend - heap) / 8 != word(proc, beam.p_heap_sz))
        return -1;
    len = hend - stop < sizeof(stack) ? hend - stop : sizeof(stack);
    if (len && rec_py_peek(stop, stack, len) < 0)
        return -1;
    /* an Erlang stack holds terms, whose tags are never 0 there, and
       continuation pointers; a frame pointer (a build that keeps them)
       points into the stack itself. Its last word is the exit every
       process returns to (beam_normal_exit), no caller: left out. */
    for (size_t i = 0; i < len / 8 && n < cap; i++) {
        uintptr_t w = (uintptr_t)stack[i];

        if ((w & CP_MASK) == 0 && w >= 4096 && (w < stop || w >= hend) &&
            stop + 8 * i != hend - 8)
            out[n++] = w;
    }
    return n;
}

int rec_beam_frames(uintptr_t *pcs, int n, int max)
{
    uintptr_t cps[REC_BEAM_FRAMES];
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE), i, k, saved;

    if (REC_UNLIKELY(s == 0)) {
        int expect = 0;

        if (__atomic_compare_exchange_n(&state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            saved = errno;
            s = look_for_beam();
            errno = saved;
            __atomic_store_n(&state, s, __ATOMIC_RELEASE);
        }
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s != 2 && s != 4)
        return n;
    /* only a stack under a dirty NIF call has its Erlang caller elsewhere */
    for (i = 0; i < n && !(pcs[i] - 1 >= dirty_lo && pcs[i] - 1 < dirty_hi); i++)
        ;
    if (i == n)
        return n;
    saved = errno;
    k = s == 2 && !rec_filter_may_stand() ? erlang_frames(cps, REC_BEAM_FRAMES) : -1;
    errno = saved;
    if (k < 0) {
        rec_skipped(REC_SKIP_BEAM);
        return n;
    }
    if (k > max)
        k = max;
    if (n > max - k)
        n = max - k;
    memmove(pcs + k, pcs, (size_t)n * sizeof(*pcs));
    memcpy(pcs, cps, (size_t)k * sizeof(*pcs));
    return n + k;
}
