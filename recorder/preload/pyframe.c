/*
 * pyframe.c - finding and walking a CPython interpreter's frames
 * (pyframe.h).
 *
 * The layouts below are offsetof() of the structures in each version's
 * headers (Include/cpython/pystate.h, frameobject.h, code.h and, for 3.11
 * on, Include/internal/pycore_frame.h), for x86-64 and the default build;
 * tests/e2e/test_rec_python_frames.sh compiles them again against every
 * CPython whose headers it finds and compares. Patch releases keep these
 * structures (they are the ABI debuggers and profilers read), and 3.13
 * says its own in _Py_DebugOffsets, which wins over the table.
 *
 * The interpreter is looked for once, at the first stack, by its exported
 * names (dlsym outside stack.c's lock: the loader's lock is only ever
 * taken before it): _PyRuntime, PyCode_Type, PyGILState_GetThisThreadState
 * and Py_GetVersion. A program that loads libpython later with dlopen is
 * not walked.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "pyframe.h"
#include "rec.h"
#include "sandbox.h"

static const struct rec_py_layout layouts[] = {
    /* minor ts_frame cframe prev code lasti unit instr owner size (to the
       last member read)
       filename name qualname firstlineno lines code adaptive ascii compact
       globals ts_chunk */
    { 8,  24, -1, 24, 32, 104, 1, -1, -1, 108, 104, 112, -1, 40, 120, 48, -1, 48, 72, 48, -1 },
    { 9,  24, -1, 24, 32, 104, 1, -1, -1, 108, 104, 112, -1, 40, 120, 48, -1, 48, 72, 48, -1 },
    { 10, 24, -1, 24, 32, 96,  2, -1, -1, 100, 104, 112, -1, 40, 120, 48, -1, 48, 72, 48, -1 },
    { 11, 56, 8,  48, 32, -1,  0, 56, 69, 70,  112, 120, 128, 72, 136, -1, 184, 48, 72, 8, 296 },
    { 12, 56, 0,  8,  0,  -1,  0, 56, 70, 71,  112, 120, 128, 68, 136, -1, 192, 40, 56, 24, 232 },
    { 13, 72, -1, 8,  0,  -1,  0, 56, 70, 71,  112, 120, 128, 68, 136, -1, 200, 40, 56, 24, 232 },
};

struct rec_py_layout rec_py;
uintptr_t rec_py_code_type;

/* 0 not looked for yet, 1 looking, 2 walkable, 3 not (or not CPython) */
static int state;
static void *(*this_thread_state)(void);

int rec_py_peek(uintptr_t addr, void *out, size_t n)
{
    struct iovec local = { out, n }, remote = { (void *)addr, n };
    int saved = errno;
    long r;

    if (addr < 4096)
        return -1;
    r = syscall(SYS_process_vm_readv, (long)rec_pid, &local, 1L, &remote, 1L, 0L);
    errno = saved;
    return r == (long)n ? 0 : -1;
}

static uint64_t word(const uint8_t *buf, int off)
{
    uint64_t v;

    memcpy(&v, buf + off, sizeof(v));
    return v;
}

/*
 * 3.13: the offsets the runtime states. Its _Py_DebugOffsets is the start
 * of _PyRuntime: "xdebugpy", the version, free-threaded, then groups of
 * u64 offsets (thread state from word 19, interpreter frame from 28, code
 * object from 34, as 3.13's pycore_runtime.h declares them).
 */
static int take_debug_offsets(uintptr_t runtime)
{
    uint64_t w[44];

    if (rec_py_peek(runtime, w, sizeof(w)) < 0 || memcmp(w, "xdebugpy", 8) != 0)
        return -1;
    if ((w[1] >> 16) != 0x030d || w[2] != 0)
        return -1;   /* another minor, or the free-threaded build's objects */
    for (int i = 19; i < 44; i++)
        if (w[i] > 4096)
            return -1;
    rec_py.ts_frame = (int)w[23];
    rec_py.ts_chunk = (int)w[26];   /* datastack_top follows it */
    rec_py.fr_size = (int)w[28];
    rec_py.fr_prev = (int)w[29];
    rec_py.fr_code = (int)w[30];
    rec_py.fr_instr = (int)w[31];
    rec_py.fr_owner = (int)w[33];
    rec_py.co_filename = (int)w[35];
    rec_py.co_name = (int)w[36];
    rec_py.co_qualname = (int)w[37];
    rec_py.co_lines = (int)w[38];
    rec_py.co_firstlineno = (int)w[39];
    rec_py.co_code_adaptive = (int)w[43];
    if (rec_py.fr_size > 128 || rec_py.fr_prev + 8 > rec_py.fr_size ||
        rec_py.fr_code + 8 > rec_py.fr_size || rec_py.fr_instr + 8 > rec_py.fr_size ||
        rec_py.fr_owner >= rec_py.fr_size || rec_py.fr_globals + 8 > rec_py.fr_size)
        return -1;
    return 0;
}

/* Once per process, into the calling thread's chunk: the interpreter whose
   frames are not walked, and why (a code record of code 0, 5.18). */
static void say_unwalked(const char *why)
{
    struct rec_thread *t = rec_self;
    int64_t now;

    if (!t)
        return;
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), rec_stamp());
    if (iot_enc_py_code(&t->enc, now, 0, "", 0, why, strlen(why), 0, NULL, 0) == 0)
        rec_publish(t);
}

/* The interpreter, once: state 2 when its frames can be walked. */
static void look_for_python(void)
{
    const char *(*version)(void);
    uintptr_t runtime;
    const char *v;
    char why[96];
    int minor = -1, saved = errno;

    runtime = (uintptr_t)dlsym(RTLD_DEFAULT, "_PyRuntime");
    version = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
    rec_py_code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    this_thread_state = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    if (!runtime || !version || !rec_py_code_type || !this_thread_state) {
        errno = saved;
        __atomic_store_n(&state, 3, __ATOMIC_RELEASE);
        return;
    }
    /* "3.11.2 (main, ...)": the major and minor */
    v = version();
    if (v && v[0] == '3' && v[1] == '.' && v[2] >= '0' && v[2] <= '9')
        minor = v[3] >= '0' && v[3] <= '9' ? (v[2] - '0') * 10 + (v[3] - '0') : v[2] - '0';
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
        if (layouts[i].minor == minor)
            rec_py = layouts[i];
    if (rec_py.minor == 13 && take_debug_offsets(runtime) < 0)
        rec_py.minor = 0;
    if (rec_py.minor == 0) {
        /* the version number, without the build's words after it */
        snprintf(why, sizeof(why), "CPython %.*s: frame layout not known (3.8 to 3.13 are)",
                 v ? (int)strcspn(v, " ") % 16 : 1, v ? v : "?");
        say_unwalked(why);
    }
    errno = saved;
    __atomic_store_n(&state, rec_py.minor ? 2 : 3, __ATOMIC_RELEASE);
}

/*
 * 3.11+: the innermost frames live at the top of the thread's data stack
 * chunk, so its last WINDOW bytes below datastack_top are read at once and
 * the frames there taken from the copy: a walk costs a few reads, not one
 * per frame, where a read is a system call.
 */
#define WINDOW 4096

struct window {
    uintptr_t lo, hi;
    uint8_t bytes[WINDOW];
};

/* The first frame of the thread state ts, or 0; w filled on 3.11+. */
static uintptr_t first_frame(uintptr_t ts, struct window *w)
{
    uint8_t head[512];
    uintptr_t at, chunk = 0, top = 0;
    int lo = rec_py.ts_frame, hi = rec_py.ts_frame + 8;

    if (rec_py.ts_chunk >= 0)
        hi = rec_py.ts_chunk + 16 > hi ? rec_py.ts_chunk + 16 : hi;
    if (hi - lo > (int)sizeof(head) || rec_py_peek(ts + (uintptr_t)lo, head, (size_t)(hi - lo)) < 0)
        return 0;
    at = word(head, 0);
    if (rec_py.ts_chunk >= 0) {
        chunk = word(head, rec_py.ts_chunk - lo);
        top = word(head, rec_py.ts_chunk + 8 - lo);
    }
    if (rec_py.cframe_current >= 0 &&
        (!at || rec_py_peek(at + (uintptr_t)rec_py.cframe_current, &at, sizeof(at)) < 0))
        return 0;
    /* the chunk's frames begin after its header (previous, size, top) */
    if (chunk && top > chunk + 24 && top - chunk < ((uintptr_t)1 << 30)) {
        w->lo = top - chunk - 24 > WINDOW ? top - WINDOW : chunk + 24;
        w->hi = top;
        if (rec_py_peek(w->lo, w->bytes, (size_t)(w->hi - w->lo)) < 0)
            w->lo = w->hi = 0;
    }
    return at;
}

/* The frame at fr, fr_size bytes, from the window or read. */
static const uint8_t *frame_at(uintptr_t fr, const struct window *w, uint8_t *buf)
{
    if (fr >= w->lo && fr < w->hi && w->hi - fr >= (uintptr_t)rec_py.fr_size)
        return w->bytes + (fr - w->lo);
    return rec_py_peek(fr, buf, (size_t)rec_py.fr_size) == 0 ? buf : NULL;
}

int rec_py_walk(struct rec_pyframe *out, int max)
{
    uint8_t frame[128];
    const uint8_t *buf;
    struct window w;
    uintptr_t ts, fr;
    int n = 0, s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

    if (REC_UNLIKELY(s == 0)) {
        int expect = 0;

        if (__atomic_compare_exchange_n(&state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            look_for_python();
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s != 2 || rec_filter_may_stand())
        return 0;
    w.lo = w.hi = 0;
    ts = (uintptr_t)this_thread_state();
    fr = ts ? first_frame(ts, &w) : 0;
    /* a chain that loops (a misread) ends at the walk's bound */
    for (int steps = 0; fr && n < max && steps < 4 * REC_PY_FRAMES; steps++) {
        uintptr_t code, off, ident;

        if (!(buf = frame_at(fr, &w, frame)))
            break;
        code = word(buf, rec_py.fr_code);
        /* a code object freed and another made at its address (a module's,
           once it has run) runs with other globals: the frame's tell them apart */
        ident = word(buf, rec_py.fr_globals);
        if (rec_py.fr_instr >= 0) {
            uintptr_t instr = word(buf, rec_py.fr_instr);

            fr = word(buf, rec_py.fr_prev);
            /* 3.12+: a C caller's shim frame (owned by the C stack) */
            if (rec_py.minor >= 12 && buf[rec_py.fr_owner] == 3)
                continue;
            /* a frame being set up has no instruction yet */
            off = instr - (code + (uintptr_t)rec_py.co_code_adaptive);
            if (instr < code + (uintptr_t)rec_py.co_code_adaptive || off >= (1u << 26))
                continue;
        } else {
            int32_t lasti;

            memcpy(&lasti, buf + rec_py.fr_lasti, sizeof(lasti));
            fr = word(buf, rec_py.fr_prev);
            off = lasti > 0 ? (uintptr_t)lasti * (uintptr_t)rec_py.lasti_unit : 0;
        }
        if (code)
            out[n++] = (struct rec_pyframe){ code, ident, (uint32_t)off };
    }
    return n;
}
