/*
 * dump_top.h - `ioanalyze dump --top N`: the N slowest calls admitted
 * (fileslower's view), slowest first, equal durations in time order.
 *
 * A call is written by its format when it is seen (the path, process and
 * Unix time it has then are the engine's of that moment), into memory, and
 * kept while it is among the N slowest; memory is N calls' lines.
 */
#ifndef DUMP_TOP_H
#define DUMP_TOP_H

#include <stddef.h>
#include <stdio.h>

#include "iotrace.h"

struct dump_top;

/* NULL out of memory. */
struct dump_top *dump_top_create(size_t n);
/*
 * Whether ev would be kept: one of the n slowest so far. When it is, the
 * caller writes it to the FILE dump_top_begin gives and calls dump_top_end.
 */
int dump_top_wants(const struct dump_top *t, const struct iot_event *ev);
FILE *dump_top_begin(struct dump_top *t);
/* Keeps what was written since dump_top_begin for ev; -1 out of memory. */
int dump_top_end(struct dump_top *t, const struct iot_event *ev);
/* emit(arg, bytes, len) for each kept call, slowest first; frees t. -1 when emit did. */
int dump_top_finish(struct dump_top *t, int (*emit)(void *arg, const char *s, size_t len),
                    void *arg);
void dump_top_free(struct dump_top *t);

#endif /* DUMP_TOP_H */
