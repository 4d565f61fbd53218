/*
 * stack.c - call stacks at open/fopen: raw return addresses, walked from the
 * modules' .eh_frame with a rule cached per return address.
 *
 * Nothing is symbolized here. A stack is stored as the SPEC's frame text
 * with no symbol, "MODULE+0xOFF", where MODULE is the module's full path
 * and OFF the return address minus the module's load bias (the ELF virtual
 * address, what addr2line and libdw take); modules.c writes each module's
 * build-id once per process, and ioanalyze turns frames into functions and
 * source lines offline.
 *
 * The walk: on x86-64 the return address of a frame is at CFA-8, and the
 * CFA is rsp or rbp plus a constant at every call site of ordinary
 * compiled code; where rbp was saved is the other thing a caller's frame
 * needs. That rule is worked out once per return address from the
 * module's CFI (stack_cfi.c) and kept in a lock-free table, so a repeated
 * stack costs a table probe and two loads per frame. A CFA given by a
 * DWARF expression (signal trampolines) or an undefined return address
 * (_start, thread starts) ends the walk there.
 *
 * Code that no FDE covers - JIT code and interpreter trampolines in
 * anonymous memory, a runtime's hand-made code in its binary (V8's
 * builtins) - is stepped over by its frame pointer (stack_nocfi.c). Such
 * a frame outside every module is stored as "[jit:PID]+0xADDR", and
 * perfmap.c copies the runtime's name for it into the trace.
 *
 * The recorder's own frames (anything in this library) are dropped, so the
 * first frame is the caller of the libc function. Whole stack strings are
 * cached by their addresses. Memory comes from mmap'd arenas (arena.c) and
 * is never freed: the encoder refers to stack strings by pointer.
 */
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "beamframe.h"
#include "hash.h"
#include "sandbox.h"
#include "modules.h"
#include "perfmap.h"
#include "pyframe.h"
#include "rec.h"
#include "stack_cfi.h"
#include "stack_nocfi.h"

#define MAX_FRAMES   24
#define MAX_WALK     64            /* frames walked, the recorder's included */
#define MAX_FP_STEPS 32            /* of them, by frame pointer */
#define PC_SLOTS     8192
#define STACK_SLOTS  4096

static uintptr_t self_lo, self_hi;          /* this library's mapping */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * This thread holds the lock, or is about to: set before taking it and
 * cleared after letting go, so that a signal handler which interrupts
 * the holder and forks does not wait in the fork handler for its own
 * thread (the child starts the lock anew either way).
 */
static __thread int lock_mine REC_TLS;
static __thread int fork_locked REC_TLS;   /* the fork handler took it */

static void stack_lock(void)
{
    lock_mine = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pthread_mutex_lock(&lock);
}

/* stack_lock without waiting: 1 taken, 0 not. */
static int stack_trylock(void)
{
    lock_mine = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (pthread_mutex_trylock(&lock) == 0)
        return 1;
    lock_mine = 0;
    return 0;
}

static void stack_unlock(void)
{
    pthread_mutex_unlock(&lock);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    lock_mine = 0;
}

/*
 * Bumped by every dlclose (wrap_dl.c): rules, cached stacks and the module
 * table of an earlier generation are not trusted.
 */
static unsigned modules_gen;
static unsigned scanned_gen;                /* under the lock */

/*
 * Written under the lock, read without it: a free slot gets its rule, then
 * its pc (release); a slot keeps its pc for good, and only its rule is
 * replaced, by a newer generation's for the same pc (one 64-bit store).
 */
static struct { uintptr_t pc; uint64_t rule; } pc_cache[PC_SLOTS];
/* Under the lock. */
static struct { uint64_t hash; const char *s; } stack_cache[STACK_SLOTS];

static inline unsigned pc_slot(uintptr_t pc)
{
    return (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 51) % PC_SLOTS;
}

/* Under the lock: read the modules again when one was unloaded since. */
static void modules_current(unsigned gen)
{
    if (scanned_gen != gen) {
        rec_modules_scan();
        scanned_gen = gen;
    }
}

static uint64_t rule_for(uintptr_t pc, unsigned gen)
{
    unsigned slot = pc_slot(pc);
    uint64_t r;

    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % PC_SLOTS;
        uintptr_t key = __atomic_load_n(&pc_cache[k].pc, __ATOMIC_ACQUIRE);

        if (key == pc) {
            r = __atomic_load_n(&pc_cache[k].rule, __ATOMIC_RELAXED);
            if (RULE_GEN(r) == (gen & RULE_GEN_MASK))
                return r;
            break;
        }
        if (key == 0)
            break;
    }
    stack_lock();
    modules_current(gen);
    r = rec_cfi_rule(pc) | (uint64_t)(gen & RULE_GEN_MASK) << RULE_GEN_SHIFT;
    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % PC_SLOTS;

        if (pc_cache[k].pc == pc) {
            __atomic_store_n(&pc_cache[k].rule, r, __ATOMIC_RELAXED);
            break;
        }
        if (pc_cache[k].pc == 0) {
            pc_cache[k].rule = r;
            __atomic_store_n(&pc_cache[k].pc, pc, __ATOMIC_RELEASE);
            break;
        }
    }
    stack_unlock();
    return r;
}

void rec_stack_modules_unloaded(void)
{
    __atomic_add_fetch(&modules_gen, 1, __ATOMIC_RELEASE);
}

/*
 * The return addresses of the calling stack outside this library, innermost
 * first, into pcs[0..MAX_FRAMES). Never inlined: it starts from its own
 * frame, which __builtin_frame_address gives it with rbp as frame pointer.
 */
static __attribute__((noinline)) int walk(uintptr_t *pcs, unsigned gen)
{
#if !defined(__x86_64__)
    (void)pcs;
    (void)gen;
    return 0;   /* the rules above are x86-64's (rsp, rbp, CFA-8) */
#else
    const uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t sp = (uintptr_t)(fp + 2), bp = fp[0], pc = fp[1];
    uintptr_t bottom = sp;
    int n = 0, fp_steps = 0;

    for (int i = 0; i < MAX_WALK && n < MAX_FRAMES && pc; i++) {
        uint64_t r;
        uintptr_t cfa, ra_at, bp_at;

        if (pc < self_lo || pc >= self_hi)
            pcs[n++] = pc;
        r = rule_for(pc, gen);
        if (RULE_KIND(r) != RULE_WALK) {
            /* code without CFI: stepped over by its frame pointer */
            if (!(r & RULE_NO_CFI) || ++fp_steps > MAX_FP_STEPS ||
                rec_stack_nocfi_step(&pc, &sp, &bp, (unsigned)(r & 0xff)) < 0)
                break;
            continue;
        }
        cfa = ((r & RULE_CFA_BP) ? bp : sp) + (uintptr_t)(intptr_t)(int32_t)(uint32_t)r;
        /* the stack grows down: a caller's frame lies above, and not far */
        if (cfa <= sp || (cfa & 7) || cfa - bottom > ((uintptr_t)1 << 28))
            break;
        ra_at = cfa + (intptr_t)((r >> 33) & 0xff) - 128;
        bp_at = cfa + (intptr_t)((r >> 42) & 0xff) - 128;
        /* past a frame without CFI, the rbp the CFA may come from is
           not vouched for: the loads are checked */
        if (REC_UNLIKELY(fp_steps)) {
            if (rec_stack_read(ra_at, sp, &pc, 1) < 0 ||
                ((r & RULE_BP_SAVED) && rec_stack_read(bp_at, sp, &bp, 1) < 0))
                break;
        } else {
            pc = *(const uintptr_t *)ra_at;
            if (r & RULE_BP_SAVED)
                bp = *(const uintptr_t *)bp_at;
        }
        sp = cfa;
    }
    return n;
#endif
}

/* ------------------------------------------------------------ stack text */

/*
 * The process ends: JIT frames its runtime named only at exit (the JVM's
 * -XX:+DumpPerfMapAtExit) get their records. A thread holding the lock
 * (a stack being taken as another thread exits) leaves them unnamed.
 */
void rec_stack_finish(void)
{
    if (!stack_trylock())
        return;
    rec_perfmap_finish();
    stack_unlock();
}

void rec_stack_fork_prepare(void)
{
    fork_locked = !lock_mine;
    if (fork_locked)
        pthread_mutex_lock(&lock);
}

void rec_stack_fork_parent(void)
{
    if (fork_locked)
        pthread_mutex_unlock(&lock);
}

void rec_stack_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    rec_modules_forked();
    rec_perfmap_forked();
    rec_py_forked();
}

/*
 * The modules are not scanned here but at the first stack (rec_module_at
 * scans when it meets a module it has not seen): most processes a build
 * or a shell starts never open a file of their own, and the scan reads
 * every module's headers and notes. This library's own range, which the
 * walk skips, is its image as the linker bounds it.
 */
void rec_stack_init(void)
{
    rec_arena_init();
    self_lo = (uintptr_t)__ehdr_start;
    self_hi = (uintptr_t)_end;
}

/*
 * One frame as "MODULE+0xOFF", or outside every module (JIT code) as
 * "[jit:PID]+0xADDR": the address means something only in this process.
 */
static int frame_text(char *buf, size_t cap, uintptr_t pc, int *jit)
{
    const struct rec_module *m = rec_module_at(pc - 1);

    if (m)
        return snprintf(buf, cap, "%s+0x%lx", m->path, (unsigned long)(pc - m->bias));
    *jit = 1;
    return snprintf(buf, cap, "[jit:%d]+0x%lx", (int)rec_pid, (unsigned long)pc);
}

const char *rec_stack_capture(void)
{
    uintptr_t pcs[MAX_FRAMES];
    struct rec_pyframe py[REC_PY_FRAMES];
    uint64_t h = IOT_FNV64_INIT;
    const char *result = NULL;
    char buf[MAX_FRAMES * (PATH_MAX / 4)];
    struct rec_stack_text *text;
    size_t len = 0;
    unsigned gen = __atomic_load_n(&modules_gen, __ATOMIC_ACQUIRE), slot;
    int n = walk(pcs, gen), jit = 0, npy = n ? rec_py_walk(py, REC_PY_FRAMES) : 0;

    /* a BEAM dirty NIF's: the Erlang caller's frames in front */
    n = rec_beam_frames(pcs, n, MAX_FRAMES);

    if (n == 0)
        return NULL;
    /* an interpreter's frames: the script's, innermost first, above its own */
    for (int i = 0; i < npy; i++)
        h = iot_fnv64_word(iot_fnv64_word(iot_fnv64_word(h, py[i].code), py[i].ident),
                           py[i].offset);
    /* a stack of an earlier generation may name an unloaded module */
    h = iot_fnv64_word(h, gen);
    for (int i = 0; i < n; i++)
        h = iot_fnv64_word(h, pcs[i]);
    h |= 1;   /* 0 marks an empty cache slot */
    slot = (unsigned)(h % STACK_SLOTS);
    stack_lock();
    modules_current(gen);
    if (REC_UNLIKELY(rec_modules_unrecorded))
        rec_modules_record();
    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % STACK_SLOTS;

        if (stack_cache[k].hash == h) {
            result = stack_cache[k].s;
            goto out;
        }
        if (stack_cache[k].hash == 0) {
            slot = k;
            break;
        }
    }
    for (int i = 0; i < npy + n; i++) {
        int w = i < npy ? rec_py_frame_text(buf + len, sizeof(buf) - len, &py[i])
                        : frame_text(buf + len, sizeof(buf) - len, pcs[i - npy], &jit);

        if (w == 0)
            continue;
        if (w < 0 || (size_t)w + 1 >= sizeof(buf) - len)
            break;
        len += (size_t)w;
        buf[len++] = '\n';
    }
    if (len == 0)
        goto out;
    buf[len - 1] = '\0';
    /* a frame in a module loaded just now: its record goes before the call */
    if (rec_modules_unrecorded)
        rec_modules_record();
    /* and so do the runtime's names for its JIT frames */
    if (jit)
        rec_perfmap_name(pcs, n);
    text = rec_arena_alloc(sizeof(*text) + len);
    if (!text)
        goto out;
    text->key = h;
    text->len = len - 1;
    memcpy(text->s, buf, len);
    if (stack_cache[slot].hash == 0) {
        stack_cache[slot].s = text->s;
        stack_cache[slot].hash = h;
    }
    result = text->s;
out:
    stack_unlock();
    return result;
}
