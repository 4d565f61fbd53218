/*
 * pyframe.h - the Python frames of a stack: a CPython interpreter's own
 * frame chain, read by the thread that makes the call, with no flag.
 *
 * At a stack capture the calling thread's current interpreter frame is
 * found through its thread state (PyGILState_GetThisThreadState: the
 * thread-specific slot CPython keeps even while the thread has released
 * the GIL around the call) and the chain of frames is followed from it,
 * with a table of the layouts of CPython 3.8 to 3.13 (3.13's own debug
 * offsets, in _PyRuntime, are taken where present). Each frame is kept as
 * (code object, byte offset of its instruction); once per code object its
 * file, qualified name and line table go into the trace (pyframe_code.c),
 * so ioanalyze names "write_records (log.py:42)" offline.
 *
 * Memory is only ever read with process_vm_readv on this process: a
 * pointer that is not what the layout says gives an error, never a fault.
 */
#ifndef REC_PYFRAME_H
#define REC_PYFRAME_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define REC_PY_FRAMES 24

struct rec_pyframe {
    uintptr_t code;     /* the code object's address */
    uint64_t ident;     /* its frame's globals: tells it from an earlier code object
                           at the address */
    uint32_t offset;    /* byte offset of the frame's instruction in its code */
};

/* What differs between CPython versions, in bytes. -1: not in this version. */
struct rec_py_layout {
    int minor;                  /* 3.minor */
    int ts_frame;               /* PyThreadState: the current frame (or cframe) */
    int cframe_current;         /* _PyCFrame: current_frame; -1 without a cframe */
    int fr_prev, fr_code;       /* the frame's caller, and its code object */
    int fr_lasti;               /* 3.8-3.10: f_lasti (an int) */
    int lasti_unit;             /* bytes per f_lasti step */
    int fr_instr;               /* 3.11+: pointer to its instruction */
    int fr_owner;               /* 3.11+: owner byte */
    int fr_size;                /* bytes of the frame read at once */
    int co_filename, co_name, co_qualname, co_firstlineno, co_lines;
    int co_code;                /* 3.8-3.10: the bytes object of the code */
    int co_code_adaptive;       /* 3.11+: where the code units start */
    int str_ascii, str_compact; /* sizeof PyASCIIObject, PyCompactUnicodeObject */
    int fr_globals;             /* the frame's globals */
    int ts_chunk;               /* 3.11+: datastack_chunk, datastack_top after it */
};

extern struct rec_py_layout rec_py;
extern uintptr_t rec_py_code_type;  /* &PyCode_Type */

/*
 * The calling thread's Python frames, innermost first, into out[0..max);
 * 0 when the process is no CPython the recorder knows, or the thread runs
 * no Python code. Any thread, no lock; errno is kept.
 */
int rec_py_walk(struct rec_pyframe *out, int max);

/* n bytes at addr into out: 0, or -1 when they cannot be read. Keeps errno. */
int rec_py_peek(uintptr_t addr, void *out, size_t n);

/*
 * Under stack.c's lock: one frame's text, "[py:PID]+0xKEY+0xOFF" (KEY the
 * code object's address, with a count in bits 48-63 when an earlier code
 * object had the address: a module's code is freed once it has run), after
 * the code record (docs/trace-format.md, 5.18) of its code object when
 * this process has not written it yet (into the calling thread's chunk,
 * before the call whose stack names it). 0 for a frame whose code object
 * is not one (a layout misread): it is left out.
 */
int rec_py_frame_text(char *buf, size_t cap, const struct rec_pyframe *f);
/* In a forked child: its code records are its own. */
void rec_py_forked(void);

#pragma GCC visibility pop

#endif
