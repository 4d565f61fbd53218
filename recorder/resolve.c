/*
 * resolve.c - the real libc functions behind the wrappers: one pointer per
 * name of real.h's table and per REAL_HERE() of a wrapper file, resolved
 * together with dlsym(RTLD_NEXT).
 */
#include <dlfcn.h>

#include "real.h"
#include "rec.h"

#define REAL_DEF_(ret, name, params) ret(*real_##name) params REAL_PTR;
REAL_FUNCS(REAL_DEF_)
#undef REAL_DEF_

/* The linker's bounds of the REAL_HERE() entries (there is always one). */
extern const struct rec_real __start_rec_real[], __stop_rec_real[];

void rec_resolve(void)
{
    static int done;

    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
        return;
    /* Racing threads store the same values; that is harmless. */
#define REAL_RESOLVE_(ret, name, params)                                       \
    if (!real_##name)                                                          \
        __atomic_store_n(&real_##name,                                         \
                         (ret(*) params)dlsym(RTLD_NEXT, #name),               \
                         __ATOMIC_RELEASE);
    REAL_FUNCS(REAL_RESOLVE_)
#undef REAL_RESOLVE_
    for (const struct rec_real *e = __start_rec_real; e < __stop_rec_real; e++)
        if (!__atomic_load_n(e->ptr, __ATOMIC_ACQUIRE))
            __atomic_store_n(e->ptr, dlsym(RTLD_NEXT, e->name), __ATOMIC_RELEASE);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
