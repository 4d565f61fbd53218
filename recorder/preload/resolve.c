/*
 * resolve.c - the real libc functions behind the wrappers: one pointer per
 * name of real.h's table and per REAL_HERE() of a wrapper file, resolved
 * together as dlsym(RTLD_NEXT) would: from libc's hash table directly
 * where that gives its answer (nextsym.c), else by dlsym.
 */
#include <dlfcn.h>

#include "internal.h"
#include "real.h"

/* dlsym(RTLD_NEXT, name), through the scope s when it can tell. */
static void *next_sym(const struct rec_next_scope *s, int fast, const char *name)
{
    void *p = fast ? rec_next_sym(s, name) : NULL;

    return p ? p : dlsym(RTLD_NEXT, name);
}

#define REAL_DEF_(ret, name, params) ret(*real_##name) params REAL_PTR;
REAL_FUNCS(REAL_DEF_)
#undef REAL_DEF_
#define SOLO_DEF_(ret, name, twin, params) ret(*solo_##name) params REAL_PTR;
REAL_SOLO_PAIRS(SOLO_DEF_)
#undef SOLO_DEF_

/* Both are libc's, as the scope tells: no object before libc defines either. */
static int libc_owns(const struct rec_next_scope *s, int fast, const char *a,
                     const char *b)
{
    return fast && rec_next_sym(s, a) && rec_next_sym(s, b);
}

int rec_direct_rw;

/* The linker's bounds of the REAL_HERE() entries (there is always one). */
extern const struct rec_real __start_rec_real[], __stop_rec_real[];

void rec_resolve(void)
{
    static int done;
    struct rec_next_scope scope;
    int fast;

    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        return;
    fast = rec_next_init(&scope) == 0;
    /* Racing threads store the same values; that is harmless. */
#define REAL_RESOLVE_(ret, name, params)                                       \
    if (!real_##name)                                                          \
        __atomic_store_n(&real_##name,                                         \
                         (ret(*) params)next_sym(&scope, fast, #name),         \
                         __ATOMIC_RELEASE);
    REAL_FUNCS(REAL_RESOLVE_)
#undef REAL_RESOLVE_
    for (const struct rec_real *e = __start_rec_real; e < __stop_rec_real; e++)
        if (!__atomic_load_n(e->ptr, __ATOMIC_ACQUIRE))
            __atomic_store_n(e->ptr, next_sym(&scope, fast, e->name),
                             __ATOMIC_RELEASE);
#define SOLO_RESOLVE_(ret, name, twin, params)                                 \
    __atomic_store_n(&solo_##name,                                             \
                     libc_owns(&scope, fast, #name, #twin) ? real_##twin       \
                                                           : real_##name,      \
                     __ATOMIC_RELEASE);
    REAL_SOLO_PAIRS(SOLO_RESOLVE_)
#undef SOLO_RESOLVE_
#if defined(__x86_64__)
    /* another library's read or write between us and libc is called, never skipped */
    if (libc_owns(&scope, fast, "read", "write") && libc_owns(&scope, fast, "pread", "pread64") &&
        libc_owns(&scope, fast, "pwrite", "pwrite64"))
        __atomic_store_n(&rec_direct_rw, 1, __ATOMIC_RELAXED);
#endif
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
