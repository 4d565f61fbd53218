/*
 * symbolize.h - stack frames to functions and source lines, offline, with
 * elfutils' libdw.
 *
 * The recorder stores raw frames, "MODULE+0xOFF" (MODULE a full path, OFF a
 * return address minus the module's load bias), and a module record per
 * loaded module with its GNU build-id. This turns each such frame into one
 * or more frames (inlined calls first, then the function they were inlined
 * into), from the module's own symbols and DWARF or from separate debug info
 * found by build-id under /usr/lib/debug/.build-id/ and the --debug-dir
 * directories. Frames of other shapes (an older trace's "function+0xOFF
 * (module)", strace's) are kept as they are. Results are cached per
 * (module, address), and whole stacks per stack string; across symbolizers
 * and runs by build-id (symbolizer_use_process_cache). Missing modules are asked of
 * debuginfod (DEBUGINFOD_URLS) by build-id.
 */
#ifndef SYMBOLIZE_H
#define SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct sym_frame {
    const char *function;   /* NULL when unknown */
    const char *file;       /* source file as the debug info names it, or NULL */
    int line;               /* 0 when unknown */
    const char *module;     /* the module as the trace names it (a path), or NULL */
    const char *build_id;   /* lower-case hex, or NULL */
    uint64_t offset;        /* the frame's address in the module (has_offset) */
    uint64_t fn_offset;     /* offset into function, when there is no line */
    uint8_t has_offset, has_fn_offset;
    uint8_t inlined;        /* inlined into the next frame */
};

struct sym_stack {
    const struct sym_frame *frames;
    size_t n;
    /* The SPEC's stack string: "function (file.c:47)", "function+0xOFF (module)"... */
    const char *text;
    /* What the fingerprint takes: "function (module)" per frame, or the
       frame's module+offset where no function is known */
    const char *key;
    /* JIT frames no record named when it was made: a JIT symbol record
       read later (the JVM writes its map at exit) names them when the
       stack is asked for again */
    size_t unnamed_jit;
    /* JIT frames, named or not */
    size_t jit_frames;
};

/* dirs: extra directories holding .build-id/ trees (--debug-dir); NULL on out of memory. */
struct symbolizer *symbolizer_create(const char *const *dirs, size_t ndirs);
void symbolizer_free(struct symbolizer *s);

/*
 * Share what modules' addresses resolve to, by build-id, through the
 * process's symbol cache (symcache.h: every later symbolizer of the process,
 * and later runs through its files). Without it, s resolves every address
 * itself. symbolizer_flush_cache() writes what was learnt to disk.
 */
void symbolizer_use_process_cache(struct symbolizer *s);
void symbolizer_flush_cache(struct symbolizer *s);

/* A module record: the build-id that the file at path had when it was recorded. */
void symbolizer_module(struct symbolizer *s, const char *path, const char *build_id);

/*
 * A JIT symbol record: in process pid the code at [start, start + size),
 * which no module covers, is name as its runtime's perf map wrote it. The
 * recorder writes such frames as "[jit:PID]+0xADDR" (docs/trace-format.md,
 * 5.11); a later record for an address wins over an earlier one.
 */
void symbolizer_jit_symbol(struct symbolizer *s, int32_t pid, uint64_t start, uint64_t size,
                           const char *name);

/*
 * A Python code record: in process pid the code object at code is
 * qualname in file, its lines as the event's text (docs/trace-format.md,
 * 5.18). The recorder writes such frames as "[py:PID]+0xCODE+0xOFF".
 */
void symbolizer_py_code(struct symbolizer *s, int32_t pid, uint64_t code, const char *file,
                        const char *qualname, int64_t first_line, const char *lines);

/* The symbolized stack, or NULL on out of memory; owned by s. */
const struct sym_stack *symbolizer_stack(struct symbolizer *s, const char *stack);

/*
 * The processes whose stacks miss frames of a runtime that shows them when
 * asked (java, erl, node), each with the flags that would ("java (pid 12):
 * -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit, ...") into buf;
 * how many processes. A flag is missing when its evidence is: JIT frames
 * no perf map named (the map's flags), the JVM's JIT frames without
 * -XX:+PreserveFramePointer given, node's interpreter trampoline standing
 * for a function without --interpreted-frames-native-stack given.
 */
size_t symbolizer_jit_hints(const struct symbolizer *s, char *buf, size_t cap);

/*
 * What process pid was started with, for the flags a runtime takes: its
 * command line (a process record: what was known of the pid before is
 * forgotten, an exec'd image starts anew), then each variable a runtime
 * reads its options from (a runtime environment record; its words split
 * at white space).
 */
void symbolizer_process_args(struct symbolizer *s, int32_t pid, const char *const *argv,
                             int argc);
void symbolizer_runtime_env(struct symbolizer *s, int32_t pid, const char *options);

/*
 * Whether st has a frame of a runtime that names its code in a perf map
 * when asked (the JVM, BEAM, node): its index, else -1.
 */
int sym_stack_runtime(const struct sym_stack *st);

/*
 * How much of a raw stack ("module+0xOFF" lines) names its site: all of
 * it, or, for a stack that enters the JIT code of a runtime that tiers
 * (one of its frames is the JVM's or node's), its frames above the first JIT frame
 * ("[jit:PID]+0x..."): the JIT frames of one call move as the run warms
 * up. What the fingerprint key does with the symbolized frames, read off
 * the raw ones, so that a rule can group by it without symbolizing.
 */
size_t sym_site_len(const char *stack);

/*
 * The hint an issue of process pid whose stack is st carries: the flags
 * that would show what st misses (as symbolizer_jit_hints() judges it, for
 * st alone), and what they show ("java names its JIT frames and keeps its
 * compiled callers on the stack when run with -XX:+UnlockDiagnosticVMOptions
 * -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer") into buf; its length,
 * 0 for none.
 */
size_t symbolizer_hint(const struct symbolizer *s, int32_t pid, const struct sym_stack *st,
                       char *buf, size_t cap);

/* Distinct frames looked up, and how many of them no function was found for. */
void symbolizer_counts(const struct symbolizer *s, size_t *frames, size_t *unresolved);

#endif /* SYMBOLIZE_H */
