/*
 * The symbolizer's JIT frames: "[jit:PID]+0xADDR" named from the process's
 * JIT symbol records, as node and CPython write their perf map names.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "symbolize.h"
#include "unit.h"

/* The only frame of stack (one frame, so no other module is looked up). */
static const struct sym_frame *one_frame(struct symbolizer *s, const char *stack,
                                         const struct sym_stack **out)
{
    const struct sym_stack *st = symbolizer_stack(s, stack);

    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_EQUAL_FATAL(st->n, 1);
    *out = st;
    return &st->frames[0];
}

/*
 * node's "JS:<tier>name file:line:column": the function without its tier
 * mark, the script as file and module, the line; CPython's
 * "py::name:file": no line. A return address is looked up one byte back,
 * so an address one past a record's end is still its code, and one more is
 * not.
 */
static void test_jit_names(void)
{
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;
    const struct sym_frame *f;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    symbolizer_jit_symbol(s, 41, 0x7f0000001000ull, 0x100, "JS:~writeMany /app/w.js:2:19");
    symbolizer_jit_symbol(s, 41, 0x7f0000002000ull, 0x40, "py::App.write_many:/app/w.py");
    symbolizer_jit_symbol(s, 41, 0x7f0000003000ull, 0x40, "JS:^ node:internal/main/run:1:1");
    symbolizer_jit_symbol(s, 41, 0x7f0000004000ull, 0x40, "Builtin:ArrayPrototypePush");

    f = one_frame(s, "[jit:41]+0x7f0000001100", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "writeMany");
    CU_ASSERT_STRING_EQUAL(f->file, "/app/w.js");
    CU_ASSERT_STRING_EQUAL(f->module, "/app/w.js");
    CU_ASSERT_EQUAL(f->line, 2);
    CU_ASSERT_FALSE(f->has_offset);
    CU_ASSERT_STRING_EQUAL(st->text, "writeMany (w.js:2)");
    CU_ASSERT_STRING_EQUAL(st->key, "writeMany (w.js)");

    f = one_frame(s, "[jit:41]+0x7f0000002011", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "App.write_many");
    CU_ASSERT_STRING_EQUAL(f->file, "/app/w.py");
    CU_ASSERT_EQUAL(f->line, 0);
    CU_ASSERT_STRING_EQUAL(st->text, "App.write_many (w.py)");
    CU_ASSERT_STRING_EQUAL(st->key, "App.write_many (w.py)");

    f = one_frame(s, "[jit:41]+0x7f0000003001", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "(anonymous)");
    CU_ASSERT_STRING_EQUAL(f->file, "node:internal/main/run");
    CU_ASSERT_EQUAL(f->line, 1);

    /* another runtime's name: a function, no file */
    f = one_frame(s, "[jit:41]+0x7f0000004010", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "Builtin:ArrayPrototypePush");
    CU_ASSERT_PTR_NULL(f->file);

    /* past the code, another process, an unknown one: unnamed, keyed without the address */
    for (int i = 0; i < 3; i++) {
        static const char *const unnamed[] = { "[jit:41]+0x7f0000001101", "[jit:42]+0x7f0000001100",
                                               "[jit:7]+0x10" };

        f = one_frame(s, unnamed[i], &st);
        CU_ASSERT_PTR_NULL(f->function);
        CU_ASSERT_STRING_EQUAL(f->module, "[jit]");
        CU_ASSERT_TRUE(f->has_offset);
        CU_ASSERT_STRING_EQUAL(st->key, "[jit]");
    }
    CU_ASSERT_STRING_EQUAL(symbolizer_stack(s, "[jit:42]+0x7f0000001100")->text,
                           "[jit]+0x7f0000001100");
    symbolizer_free(s);
}

/* A later record for an address wins: the runtime freed the code and reused its memory. */
static void test_jit_reuse(void)
{
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    symbolizer_jit_symbol(s, 9, 0x5000, 0x100, "JS:*old /a.js:1:1");
    symbolizer_jit_symbol(s, 9, 0x5080, 0x100, "JS:*young /a.js:7:1");
    CU_ASSERT_STRING_EQUAL(one_frame(s, "[jit:9]+0x5010", &st)->function, "old");
    CU_ASSERT_STRING_EQUAL(one_frame(s, "[jit:9]+0x5090", &st)->function, "young");
    symbolizer_free(s);
}

/* Text that only looks like a JIT frame is kept as given. */
static void test_jit_not_frames(void)
{
    static const char *const texts[] = { "[jit:]+0x10", "[jit:12]+0x", "[jit:12]+0xzz",
                                         "[jit:12]-0x10", "[jit:99999999999]+0x10",
                                         "[jit:1]+0x10000000000000000" };
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    symbolizer_jit_symbol(s, 12, 0, 0x100, "JS:~f /a.js:1:1");
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        one_frame(s, texts[i], &st);
        CU_ASSERT_STRING_EQUAL(st->text, texts[i]);
        CU_ASSERT_STRING_EQUAL(st->key, texts[i]);
    }
    symbolizer_free(s);
}

/*
 * Python frames: named from their code records with the line of their
 * instruction, above the C frames; the stack's key is its Python frames
 * alone. A reused address's later key, another process's frame, a frame
 * with no record and text that only looks like a frame.
 */
static void test_python_frames(void)
{
    static const char *const not_frames[] = { "[py:]+0x10+0x2", "[py:5]+0x10", "[py:5]+0x10+",
                                              "[py:5]+0x10+0x2x", "[py:5]+0x+0x2" };
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    symbolizer_py_code(s, 5, 0x1000, "/app/log.py", "Log.write_records", 40,
                       "0:0 2:40 18:42 30:0 32:41");
    symbolizer_py_code(s, 5, 0x2000, "/app/main.py", "<module>", 1, "0:1 10:7");
    symbolizer_py_code(s, 5, 0x1000ull | 1ull << 48, "/app/other.py", "<module>", 1, "0:3");
    st = symbolizer_stack(s, "[py:5]+0x1000+0x12\n[py:5]+0x2000+0xa\n/no/such/python3.11+0x1234");
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_STRING_EQUAL(st->text, "Log.write_records (log.py:42)\n<module> (main.py:7)\n"
                                     "python3.11+0x1234");
    CU_ASSERT_STRING_EQUAL(st->key, "Log.write_records (log.py)\n<module> (main.py)");
    CU_ASSERT_EQUAL(st->frames[0].line, 42);
    CU_ASSERT_STRING_EQUAL(st->frames[0].module, "/app/log.py");
    /* the line table's edges: its first entry (no line), a later no line,
       the first line's range, the last entry */
    CU_ASSERT_EQUAL(symbolizer_stack(s, "[py:5]+0x1000+0x0")->frames[0].line, 0);
    CU_ASSERT_EQUAL(symbolizer_stack(s, "[py:5]+0x1000+0x11")->frames[0].line, 40);
    CU_ASSERT_STRING_EQUAL(symbolizer_stack(s, "[py:5]+0x1000+0x1e")->text,
                           "Log.write_records (log.py)");
    CU_ASSERT_EQUAL(symbolizer_stack(s, "[py:5]+0x1000+0x400")->frames[0].line, 41);
    CU_ASSERT_STRING_EQUAL(symbolizer_stack(s, "[py:5]+0x1000000001000+0x2")->text,
                           "<module> (other.py:3)");
    /* another process, no record: unnamed, keyed without the address */
    st = symbolizer_stack(s, "[py:6]+0x1000+0x12\n/no/such/python3.11+0x1234");
    CU_ASSERT_STRING_EQUAL(st->text, "[py]+0x12\npython3.11+0x1234");
    CU_ASSERT_STRING_EQUAL(st->key, "[py]");
    for (size_t i = 0; i < sizeof(not_frames) / sizeof(not_frames[0]); i++) {
        one_frame(s, not_frames[i], &st);
        CU_ASSERT_STRING_EQUAL(st->text, not_frames[i]);
    }
    symbolizer_free(s);
}

/*
 * The JVM's "ret pkg.Cls.method(args)" and BEAM's "$mod:fun/arity": the
 * function alone, no file, shown under "[jit]". The key of a stack of a
 * runtime that tiers (the JVM's) stops at its first JIT frame, as "[jit]";
 * BEAM's, and one of no runtime known, keep their named frames.
 */
static void test_jit_runtime_names(void)
{
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;
    const struct sym_frame *f;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    symbolizer_jit_symbol(s, 5, 0x1000, 0x100, "void Leak.writeRecords(java.lang.String, int)");
    symbolizer_jit_symbol(s, 5, 0x2000, 0x100, "$rec:write_records/2");
    symbolizer_jit_symbol(s, 5, 0x3000, 0x100, "StubRoutines (1)");
    f = one_frame(s, "[jit:5]+0x1010", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "Leak.writeRecords");
    CU_ASSERT_PTR_NULL(f->file);
    CU_ASSERT_STRING_EQUAL(st->text, "Leak.writeRecords ([jit])");
    CU_ASSERT_STRING_EQUAL(st->key, "Leak.writeRecords ([jit])");
    st = symbolizer_stack(s, "/nonexistent/lib/libjava.so+0x40\n[jit:5]+0x1010\n[jit:5]+0x3010\n"
                             "/nonexistent/lib/server/libjvm.so+0x20");
    CU_ASSERT_STRING_EQUAL(st->text, "libjava.so+0x40\nLeak.writeRecords ([jit])\n"
                                     "StubRoutines (1) ([jit])\nlibjvm.so+0x20");
    CU_ASSERT_STRING_EQUAL(st->key, "libjava.so+0x40\n[jit]");
    f = one_frame(s, "[jit:5]+0x2010", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "rec:write_records/2");
    st = symbolizer_stack(s, "/nonexistent/lib/libc.so.6+0x40\n[jit:5]+0x2010\n"
                             "/nonexistent/erts-13.1/bin/beam.smp+0x20");
    CU_ASSERT_STRING_EQUAL(st->key, "libc.so.6+0x40\nrec:write_records/2 ([jit])\nbeam.smp+0x20");
    f = one_frame(s, "[jit:5]+0x3010", &st);
    CU_ASSERT_STRING_EQUAL(f->function, "StubRoutines (1)");
    symbolizer_free(s);
}

/*
 * A raw stack's site: all of it, or above its first JIT frame where the
 * runtime tiers (the JVM, node); BEAM's whole, and one of no runtime known.
 */
static void test_jit_site_len(void)
{
    static const struct {
        const char *stack;
        size_t site;   /* of the stack's bytes */
    } cases[] = {
        { "/lib/libc.so.6+0x10\n/usr/bin/app+0x20", 37 },
        { "/lib/libc.so.6+0x10\n/usr/bin/app+0x20\n", 38 },
        { "/jdk/lib/libjava.so+0x40\n[jit:5]+0x1010\n/jdk/lib/server/libjvm.so+0x20", 25 },
        { "[jit:5]+0x1010\n/jdk/lib/server/libjvm.so+0x20", 0 },
        { "/lib/libc.so.6+0x40\n[jit:5]+0x2010", 34 },
        { "/lib/libc.so.6+0x40\n[jit:5]+0x2010\n/usr/bin/node+0x20", 20 },
        { "write+0x14 (/lib/libc.so.6)\n[jit:5]+0x2010\nmain (/usr/bin/node)", 28 },
        { "/lib/libc.so.6+0x40\n[jit:5]+0x2010\n/erts-13.1/bin/beam.smp+0x20", 63 },
        { "/lib/libc.so.6+0x40\n[py:6]+0x1000+0x12\n/usr/bin/python3.11+0x20", 63 },
        { "", 0 },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CU_ASSERT_EQUAL(sym_site_len(cases[i].stack), cases[i].site);
}

/*
 * Frames missing under a runtime's module: its flags, once per process;
 * the map's only for a process no record named anything of, the stack's
 * only where its evidence is and the process was not started with it.
 */
static void test_jit_hints(void)
{
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st;
    char buf[512];

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 0);
    CU_ASSERT_STRING_EQUAL(buf, "");
    symbolizer_stack(s, "[jit:7]+0x10\n/nonexistent/lib/server/libjvm.so+0x20");
    symbolizer_stack(s, "[jit:7]+0x30\n/nonexistent/lib/server/libjvm.so+0x20");
    symbolizer_stack(s, "[jit:8]+0x10\n/nonexistent/bin/node+0x20");
    /* no runtime's module, or no unnamed frame: nothing */
    symbolizer_stack(s, "[jit:9]+0x10\n/nonexistent/bin/app+0x20");
    symbolizer_stack(s, "/nonexistent/lib/server/libjvm.so+0x40");
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 2);
    CU_ASSERT_STRING_EQUAL(buf, "java (pid 7): -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit "
                                "-XX:+PreserveFramePointer, "
                                "node (pid 8): --perf-basic-prof --interpreted-frames-native-stack");
    /* the hint: the same flags, for a stack of the process */
    st = symbolizer_stack(s, "[jit:7]+0x10\n/nonexistent/lib/server/libjvm.so+0x20");
    CU_ASSERT_EQUAL(st->unnamed_jit, 1);
    CU_ASSERT(symbolizer_hint(s, 7, st, buf, sizeof(buf)) > 0);
    CU_ASSERT_STRING_EQUAL(buf, "java names its JIT frames and keeps its compiled callers on the "
                                "stack when run with -XX:+UnlockDiagnosticVMOptions "
                                "-XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer");
    CU_ASSERT_EQUAL(symbolizer_hint(s, 9, symbolizer_stack(s, "[jit:9]+0x10\n/nonexistent/bin/app+0x20"),
                                    buf, sizeof(buf)), 0);
    /* a stack of the runtime with every JIT frame named (none here): no hint */
    CU_ASSERT_EQUAL(symbolizer_hint(s, 7, symbolizer_stack(s, "/nonexistent/lib/server/libjvm.so+0x40"),
                                    buf, sizeof(buf)), 0);
    /* the JVM's map read at its end: its process asks for no map, and for
       -XX:+PreserveFramePointer, which it was not given, still */
    symbolizer_jit_symbol(s, 7, 0x1000, 0x10, "Interpreter");
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 2);
    CU_ASSERT_STRING_EQUAL(buf, "java (pid 7): -XX:+PreserveFramePointer, "
                                "node (pid 8): --perf-basic-prof --interpreted-frames-native-stack");
    /* the map read, but no -XX:+PreserveFramePointer: a named JIT frame is
       the evidence that compiled callers went missing */
    st = symbolizer_stack(s, "[jit:7]+0x1008\n/nonexistent/lib/server/libjvm.so+0x20");
    CU_ASSERT_EQUAL(st->unnamed_jit, 0);
    CU_ASSERT_EQUAL(st->jit_frames, 1);
    CU_ASSERT(symbolizer_hint(s, 7, st, buf, sizeof(buf)) > 0);
    CU_ASSERT_STRING_EQUAL(buf, "java keeps its compiled callers on the stack when run with "
                                "-XX:+PreserveFramePointer");
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 2);
    CU_ASSERT_STRING_EQUAL(buf, "java (pid 7): -XX:+PreserveFramePointer, "
                                "node (pid 8): --perf-basic-prof --interpreted-frames-native-stack");
    /* given in a runtime's variable: nothing asked; negated later: asked again */
    symbolizer_runtime_env(s, 7, "  -Xmx1g\t-XX:+PreserveFramePointer ");
    CU_ASSERT_EQUAL(symbolizer_hint(s, 7, st, buf, sizeof(buf)), 0);
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 1);
    symbolizer_runtime_env(s, 7, "-XX:-PreserveFramePointer");
    CU_ASSERT(symbolizer_hint(s, 7, st, buf, sizeof(buf)) > 0);
    /* on the command line; an exec'd image (a new process record) starts anew */
    symbolizer_process_args(s, 7, (const char *const[]){ "java", "-XX:+PreserveFramePointer" }, 2);
    CU_ASSERT_EQUAL(symbolizer_hint(s, 7, st, buf, sizeof(buf)), 0);
    symbolizer_process_args(s, 7, (const char *const[]){ "java", "Main" }, 2);
    CU_ASSERT(symbolizer_hint(s, 7, st, buf, sizeof(buf)) > 0);
    /* node given --interpreted-frames-native-stack: only the map's flag */
    symbolizer_process_args(s, 8, (const char *const[]){ "node", "--interpreted-frames-native-stack",
                                                          "app.js" }, 3);
    CU_ASSERT_EQUAL(symbolizer_jit_hints(s, buf, sizeof(buf)), 2);
    CU_ASSERT_STRING_EQUAL(buf, "java (pid 7): -XX:+PreserveFramePointer, "
                                "node (pid 8): --perf-basic-prof");
    symbolizer_free(s);
}

/*
 * A JIT record read after a stack was made (the JVM's map at exit): the
 * stack, asked for again, names the frame, and the symbolizer's counts
 * take the stack once.
 */
static void test_jit_late_record(void)
{
    struct symbolizer *s = symbolizer_create(NULL, 0);
    const struct sym_stack *st, *again;
    const char *stack = "[jit:7]+0x1008\n[jit:7]+0x9000\n/nonexistent/bin/beam.smp+0x20";
    size_t frames, unresolved;

    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    st = symbolizer_stack(s, stack);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_EQUAL(st->unnamed_jit, 2);
    CU_ASSERT_STRING_EQUAL(st->text, "[jit]+0x1008\n[jit]+0x9000\nbeam.smp+0x20");
    /* no record since: the same stack */
    CU_ASSERT_PTR_EQUAL(symbolizer_stack(s, stack), st);
    symbolizer_jit_symbol(s, 7, 0x1000, 0x10, "void Leak.writeRecords(java.lang.String, int)");
    again = symbolizer_stack(s, stack);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_EQUAL(again->unnamed_jit, 1);
    CU_ASSERT_STRING_EQUAL(again->text, "Leak.writeRecords ([jit])\n[jit]+0x9000\nbeam.smp+0x20");
    CU_ASSERT_STRING_EQUAL(again->key, "Leak.writeRecords ([jit])\n[jit]\nbeam.smp+0x20");
    /* the earlier stack is still readable by whoever holds it */
    CU_ASSERT_STRING_EQUAL(st->text, "[jit]+0x1008\n[jit]+0x9000\nbeam.smp+0x20");
    symbolizer_counts(s, &frames, &unresolved);
    CU_ASSERT_EQUAL(frames, 2);
    CU_ASSERT_EQUAL(unresolved, 1);
    symbolizer_free(s);
}

void symbolize_suite(void)
{
    CU_pSuite s = CU_add_suite("symbolize", NULL, NULL);

    CU_add_test(s, "JIT frames named as node and CPython name them", test_jit_names);
    CU_add_test(s, "a later JIT record for an address wins", test_jit_reuse);
    CU_add_test(s, "text that is no JIT frame kept as given", test_jit_not_frames);
    CU_add_test(s, "Python frames named with their lines, keyed by them alone", test_python_frames);
    CU_add_test(s, "JVM and BEAM perf-map names", test_jit_runtime_names);
    CU_add_test(s, "the flag that names a runtime's JIT frames, once per process", test_jit_hints);
    CU_add_test(s, "a raw stack's site stops at a tiering runtime's first JIT frame", test_jit_site_len);
    CU_add_test(s, "a JIT record read after its stack was made names it", test_jit_late_record);
}
