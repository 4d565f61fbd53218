/*
 * symbolize_python.h - Python frames, "[py:PID]+0xCODE+0xOFF" (a code
 * object's address and the byte offset of the frame's instruction in it),
 * named from the trace's Python code records (docs/trace-format.md, 5.18),
 * for the symbolizer (internal to the engine).
 */
#ifndef SYMBOLIZE_PYTHON_H
#define SYMBOLIZE_PYTHON_H

#include <stddef.h>
#include <stdint.h>

struct iot_strtab;
struct py_table;

/* Names are interned in strs, which outlives the table. */
struct py_table *py_table_create(struct iot_strtab *strs);
void py_table_free(struct py_table *t);

/*
 * A code record: in process pid the code object at code is qualname in
 * file from first_line on, lines its line table as the event's text
 * ("OFF:LINE ..."). A later record for the same code wins. -1 on out of
 * memory or a table that does not parse.
 */
int py_table_add(struct py_table *t, int32_t pid, uint64_t code, const char *file,
                 const char *qualname, int64_t first_line, const char *lines);

/* A Python frame of a stack, named where a record says. */
struct py_frame {
    const char *function, *file;    /* interned; NULL when no record names the code */
    int line;                       /* 0 when unknown */
    uint64_t offset;                /* the instruction's byte offset */
};

/* 1 and *out when text[0..len) is a Python frame, else 0. */
int py_frame_of(const struct py_table *t, const char *text, size_t len, struct py_frame *out);

#endif /* SYMBOLIZE_PYTHON_H */
