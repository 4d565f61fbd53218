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
#include "stack_nocfi.h"

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
 * chunk, so its last WINDOW bytes below datastack_top are taken at once and
 * the frames there read from the copy.
 *
 * What is read without a system call, and why it cannot fault:
 * - the thread state: CPython's own for this thread (its thread-specific
 *   slot), which lives as long as the thread and which CPython itself
 *   reads at every call;
 * - the main thread's stack between sp and its top (stack_nocfi.c), where
 *   3.11 and 3.12 keep the current cframe;
 * - the data stack chunk the thread state names now, once this thread has
 *   read all of it through the kernel: the current
 *   chunk is freed only after the thread state has moved to the previous
 *   one, so while the state names it, it is mapped.
 * - on 3.8-3.10, a current frame object the last walk read, and its
 *   callers (legacy_walk below).
 * Everything else (another thread's cframe, a frame outside the window: a
 * generator's, other 3.8-3.10 frame objects, code objects) is read by the
 * kernel, where a bad pointer is an error, not a fault.
 */
#define WINDOW 4096

struct window {
    uintptr_t lo, hi;
    uint8_t bytes[WINDOW];
};

/* The chunk this thread checked last, and its size. */
static __thread uintptr_t chunk_seen REC_TLS, chunk_size REC_TLS;

/*
 * Whether [lo, hi) lies in the chunk at chunk, the whole of which was
 * read through the kernel once (into scratch, WINDOW bytes, again and
 * again): a header that lies about the size, or a chunk that spans a hole,
 * fails that read instead of a later copy.
 */
static int in_checked_chunk(uintptr_t chunk, uintptr_t lo, uintptr_t hi, uint8_t *scratch)
{
    enum { PIECES = 64 };   /* chunks up to 256 KiB (CPython makes 16 KiB ones) */

    if (chunk != chunk_seen) {
        uint64_t size;
        struct iovec local[PIECES], remote;
        int saved = errno, pieces;
        long r;

        chunk_seen = 0;
        /* the header: previous, size, top */
        if (rec_py_peek(chunk + 8, &size, sizeof(size)) < 0 || size < 24 ||
            size > (uint64_t)PIECES * WINDOW || chunk + size < chunk)
            return 0;
        pieces = (int)((size + WINDOW - 1) / WINDOW);
        for (int i = 0; i < pieces; i++)
            local[i] = (struct iovec){ scratch, i + 1 < pieces ? WINDOW : size - (uint64_t)i * WINDOW };
        remote = (struct iovec){ (void *)chunk, size };
        r = syscall(SYS_process_vm_readv, (long)rec_pid, local, (long)pieces, &remote, 1L, 0L);
        errno = saved;
        if (r != (long)size)
            return 0;
        chunk_seen = chunk;
        chunk_size = size;
    }
    return lo >= chunk + 24 && hi >= lo && hi - chunk <= chunk_size;
}

/* The first frame of the thread state ts, or 0; w filled on 3.11+. */
static uintptr_t first_frame(uintptr_t ts, struct window *w)
{
    uintptr_t at, chunk = 0, top = 0, sp = (uintptr_t)__builtin_frame_address(0);

    /* the thread state is this thread's own, and live (above) */
    memcpy(&at, (const void *)(ts + (uintptr_t)rec_py.ts_frame), sizeof(at));
    if (rec_py.ts_chunk >= 0) {
        memcpy(&chunk, (const void *)(ts + (uintptr_t)rec_py.ts_chunk), sizeof(chunk));
        memcpy(&top, (const void *)(ts + (uintptr_t)rec_py.ts_chunk + 8), sizeof(top));
    }
    if (rec_py.cframe_current >= 0) {
        uintptr_t cur = at + (uintptr_t)rec_py.cframe_current;

        if (!at || (rec_stack_read(cur, sp, &at, 1) < 0 &&
                    rec_py_peek(cur, &at, sizeof(at)) < 0))
            return 0;
    }
    /* the chunk's frames begin after its header (previous, size, top) */
    if (chunk && top > chunk + 24 && top - chunk < ((uintptr_t)1 << 30)) {
        w->lo = top - chunk - 24 > WINDOW ? top - WINDOW : chunk + 24;
        w->hi = top;
        if (in_checked_chunk(chunk, w->lo, w->hi, w->bytes))
            memcpy(w->bytes, (const void *)w->lo, (size_t)(w->hi - w->lo));
        else if (rec_py_peek(w->lo, w->bytes, (size_t)(w->hi - w->lo)) < 0)
            w->lo = w->hi = 0;
    }
    return at;
}

/*
 * The frame at fr, fr_size bytes (buf holds 128), from the window, else
 * from the main thread's stack (3.12+ keep the frame that enters the
 * interpreter from C there), else read by the kernel.
 */
static const uint8_t *frame_at(uintptr_t fr, const struct window *w, uint8_t *buf)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

    if (fr >= w->lo && fr < w->hi && w->hi - fr >= (uintptr_t)rec_py.fr_size)
        return w->bytes + (fr - w->lo);
    if (rec_stack_read(fr, sp, (uintptr_t *)(void *)buf, ((unsigned)rec_py.fr_size + 7) / 8) == 0)
        return buf;
    return rec_py_peek(fr, buf, (size_t)rec_py.fr_size) == 0 ? buf : NULL;
}

/*
 * 3.8-3.10 keep each frame in a heap object of its own, linked to its
 * caller by f_back, so a walk read one frame per system call. The frames
 * above a thread's current one are mostly those of its last walk (a loop
 * calls the same function from the same callers): those are read in the
 * same system call as the current one, and kept as far as the links agree
 * (a frame read is taken only when a frame taken before it links to its
 * address, and both were read in one call of a thread whose chain stands
 * still while it is in this one). A chain that changed costs a call more
 * from where it changed.
 *
 * A current frame that the last walk read (a loop's, or the frame
 * CPython keeps for each code object and reuses at its next call) is read
 * directly, and so is each caller it links to: the thread's current frame
 * and the callers of a live frame are live objects, in memory that stays
 * mapped while the thread is in this call. Only the thread state's word
 * is taken on trust, and only when it names a frame read before; any
 * other goes through the kernel, so that a thread state the program broke
 * cannot fault the walk.
 */
#define LEGACY_BATCH (REC_PY_FRAMES + 1)

/* This thread's frames of its last walk, outermost last. */
static __thread uintptr_t last_chain[REC_PY_FRAMES] REC_TLS;
static __thread int last_chain_n REC_TLS;

/* Frame fr and the last walk's frames after from (no longer fr's) into
   buf (fr_size each, WINDOW bytes); how many were read whole. */
static int read_batch(uintptr_t fr, int from, uintptr_t *addrs, uint8_t *buf)
{
    struct iovec local = { buf, 0 }, remote[LEGACY_BATCH];
    size_t size = (size_t)rec_py.fr_size;
    int n = 0, saved = errno;
    long r;

    addrs[n++] = fr;
    for (int i = from; i < last_chain_n && n < LEGACY_BATCH && (size_t)(n + 1) * size <= WINDOW; i++)
        if (last_chain[i] != fr)
            addrs[n++] = last_chain[i];
    for (int i = 0; i < n; i++)
        remote[i] = (struct iovec){ (void *)addrs[i], size };
    local.iov_len = (size_t)n * size;
    r = syscall(SYS_process_vm_readv, (long)rec_pid, &local, 1L, remote, (long)n, 0L);
    errno = saved;
    return r > 0 ? (int)((size_t)r / size) : 0;
}

/* Where last_chain holds fr: its index, else last_chain_n. */
static int in_last_chain(uintptr_t fr)
{
    int k = 0;

    while (k < last_chain_n && last_chain[k] != fr)
        k++;
    return k;
}

static int legacy_walk(uintptr_t fr, struct rec_pyframe *out, int max, uint8_t *buf)
{
    uintptr_t addrs[LEGACY_BATCH], chain[REC_PY_FRAMES];
    int n = 0, got = 0, at = 0, direct = fr && in_last_chain(fr) < last_chain_n;

    /* a chain that loops (a misread) ends at the walk's bound */
    for (int steps = 0; fr && n < max && n < REC_PY_FRAMES && steps < 4 * REC_PY_FRAMES; steps++) {
        const uint8_t *f;
        uintptr_t code;
        int32_t lasti;

        if (direct) {
            f = (const uint8_t *)fr;
        } else {
            /* fr among those read, after the last taken: else a batch from
               fr, with what came after fr in the last walk (all of it for
               a frame it did not have: the caller of a new innermost frame
               is there) */
            while (at < got && addrs[at] != fr)
                at++;
            if (at == got) {
                int k = in_last_chain(fr);

                if ((got = read_batch(fr, k < last_chain_n ? k + 1 : 0, addrs, buf)) == 0)
                    break;
                at = 0;
            }
            f = buf + (size_t)at++ * (size_t)rec_py.fr_size;
        }
        code = word(f, rec_py.fr_code);
        memcpy(&lasti, f + rec_py.fr_lasti, sizeof(lasti));
        chain[n] = fr;
        fr = word(f, rec_py.fr_prev);
        if (!code)
            continue;
        out[n++] = (struct rec_pyframe){ code, word(f, rec_py.fr_globals),
                                         lasti > 0 ? (uint32_t)lasti * (uint32_t)rec_py.lasti_unit : 0 };
    }
    memcpy(last_chain, chain, (size_t)n * sizeof(chain[0]));
    last_chain_n = n;
    return n;
}

int rec_py_walk(struct rec_pyframe *out, int max)
{
    uint64_t frame[16];
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
    if (rec_py.fr_instr < 0)
        return legacy_walk(fr, out, max, w.bytes);
    /* 3.11+; a chain that loops (a misread) ends at the walk's bound */
    for (int steps = 0; fr && n < max && steps < 4 * REC_PY_FRAMES; steps++) {
        uintptr_t code, off, ident, instr;

        if (!(buf = frame_at(fr, &w, (uint8_t *)frame)))
            break;
        code = word(buf, rec_py.fr_code);
        /* a code object freed and another made at its address (a module's,
           once it has run) runs with other globals: the frame's tell them apart */
        ident = word(buf, rec_py.fr_globals);
        instr = word(buf, rec_py.fr_instr);
        fr = word(buf, rec_py.fr_prev);
        /* 3.12+: a C caller's shim frame (owned by the C stack) */
        if (rec_py.minor >= 12 && buf[rec_py.fr_owner] == 3)
            continue;
        /* a frame being set up has no instruction yet */
        off = instr - (code + (uintptr_t)rec_py.co_code_adaptive);
        if (instr < code + (uintptr_t)rec_py.co_code_adaptive || off >= (1u << 26))
            continue;
        if (code)
            out[n++] = (struct rec_pyframe){ code, ident, (uint32_t)off };
    }
    return n;
}
