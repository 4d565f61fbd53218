/*
 * cost_model.h - what a call costs the program by what it did, never by how
 * long it took here: the judgement of every rule and every severity rests on
 * these figures, so that the same work is judged the same on a quiet and on
 * a loaded machine. Measured durations stay evidence in the issues.
 *
 * One table (cost_model.c) gives each op class (enum iot_role) a cost per
 * call and per byte moved; a sync costs by what it makes durable: the
 * device's cache flush and journal commit, plus the bytes written since the
 * file's previous sync. docs/analyzer.md ("The cost model") lists the table
 * and how its values were set.
 */
#ifndef COST_MODEL_H
#define COST_MODEL_H

#include <stdint.h>

struct cost_model_row {
    const char *what;        /* the op class, as docs/analyzer.md names it */
    int64_t call_ns;         /* per call */
    double byte_ns;          /* per byte moved (a sync: per byte made durable) */
};

/* The row of op class role (enum iot_role); a zero row for a role out of range. */
const struct cost_model_row *cost_model_row(unsigned role);

/* calls calls of op class role moving bytes bytes in all (saturating). */
int64_t cost_model_ns(unsigned role, uint64_t calls, int64_t bytes);

/* The modelled cost of op (enum iot_op) moving bytes (0 for a call that
   moves none). */
int64_t cost_model_op_ns(unsigned op, int64_t bytes);

/* One sync that makes durable the bytes written since the file's previous
   sync (a directory's: its entries, 0 bytes). */
int64_t cost_model_sync_ns(int64_t durable_bytes);

/* A library call that moves bytes within the program's stdio buffer (an
   fwrite that makes no syscall): per call, per byte. */
#define COST_MODEL_STDIO_CALL_NS 50

#endif /* COST_MODEL_H */
