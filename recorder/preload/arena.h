/*
 * arena.h - memory that lives as long as the process (arena.c), for stack
 * strings and module paths. Called under stack.c's lock.
 */
#ifndef REC_ARENA_H
#define REC_ARENA_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* n bytes, 8-aligned, never freed; NULL when none can be had. */
void *rec_arena_alloc(size_t n);
/* Map the first arena at start-up, before any seccomp filter can stand. */
void rec_arena_init(void);

#pragma GCC visibility pop

#endif
