/*
 * symbolize_jit.h - the names runtimes give code that has no ELF file (JIT
 * code, interpreter trampolines), from the trace's JIT symbol records, for
 * the symbolizer (internal to the engine).
 */
#ifndef SYMBOLIZE_JIT_H
#define SYMBOLIZE_JIT_H

#include <stddef.h>
#include <stdint.h>

struct jit_table;

struct jit_table *jit_table_create(void);
void jit_table_free(struct jit_table *t);
/* Process pid's code at [start, start + size) is name; -1 on out of memory. */
int jit_table_add(struct jit_table *t, int32_t pid, uint64_t start, uint64_t size,
                  const char *name);
/* The name of the code at addr in process pid (the latest record that covers it), or NULL. */
const char *jit_table_find(const struct jit_table *t, int32_t pid, uint64_t addr);

/*
 * A perf map name split into what a frame shows. node writes
 * "JS:~writeMany /app/w.js:2:19" (the mark after "JS:" is the tier, which
 * changes as code warms up and is left out), CPython "py::writer:/app/w.py";
 * another runtime's name is a function with no file. The parts point into
 * name; file is NULL and line 0 where it does not say.
 */
struct jit_name {
    const char *function, *file;
    size_t function_len, file_len;
    int line;
};
void jit_name_parse(const char *name, struct jit_name *out);

/* Whether process pid has any JIT symbol record: its runtime wrote a map. */
int jit_table_has(const struct jit_table *t, int32_t pid);

/*
 * One word process pid was started with (an argument, or a word of a
 * runtime's variable): a flag that decides what a runtime's stacks show
 * is noted as given, or as not (its negation); reset forgets every flag
 * noted for pid. -1 on out of memory.
 */
int jit_table_option(struct jit_table *t, int32_t pid, const char *word, size_t len, int reset);

struct sym_frame;
/*
 * Whether the JIT frames among f[0..n) are of a runtime that tiers (the
 * JVM, node: which frames one call shows moves with how warm the run was);
 * 0 for BEAM's, and for a runtime not known (a stack that shows none of a
 * known runtime's modules), whose frames count like any others.
 */
int sym_frames_tier(const struct sym_frame *f, size_t n);

#endif /* SYMBOLIZE_JIT_H */
