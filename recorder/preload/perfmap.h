/*
 * perfmap.h - names for the stack frames in code no module covers (JIT
 * code, interpreter trampolines), from the perf map the runtime writes:
 * node --perf-basic-prof and python3.12 -X perf write /tmp/perf-PID.map.
 *
 * Everything here runs under stack.c's lock.
 */
#ifndef REC_PERFMAP_H
#define REC_PERFMAP_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * The frames of a stack just built whose return addresses lie in no
 * module: the map lines that cover those not named before are written as
 * JIT symbol records into the calling thread's chunk, before the call
 * whose stack names them.
 */
void rec_perfmap_name(const uintptr_t *pcs, int n);
/* At the process's end: the frames still unnamed, from the map as it is now. */
void rec_perfmap_finish(void);
/* In a forked child: its frames are named from its own map. */
void rec_perfmap_forked(void);

#pragma GCC visibility pop

#endif
