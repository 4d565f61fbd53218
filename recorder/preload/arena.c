/*
 * arena.c - memory that lives as long as the process, for the stack
 * strings (stack.c) and the module paths (modules.c): mmap'd arenas handed
 * out in 8-byte steps and never freed, since the encoder refers to stack
 * strings by pointer. Used under stack.c's lock only.
 */
#include <stddef.h>
#include <sys/mman.h>

#include "arena.h"
#include "rec.h"
#include "sandbox.h"

#define ARENA_SIZE (1u << 20)

static char *arena;
static size_t arena_used = ARENA_SIZE;

void *rec_arena_alloc(size_t n)
{
    void *p;

    if (n > ARENA_SIZE)
        return NULL;
    if (arena_used + n > ARENA_SIZE) {
        if (rec_filter_may_stand()) {
            rec_skipped(REC_SKIP_STACK);   /* mmap is not the program's */
            return NULL;
        }
        p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        arena = p;
        arena_used = 0;
    }
    p = arena + arena_used;
    arena_used += (n + 7) & ~(size_t)7;
    return p;
}

void rec_arena_init(void)
{
    void *p;

    /*
     * The first arena now: a process that comes under a seccomp filter
     * later, where no mmap of ours is made, still has stacks. Untouched
     * pages of a private map cost nothing until used, and nearly every
     * process opens something, which would map it anyway.
     */
    p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
        arena = p;
        arena_used = 0;
    }
}
