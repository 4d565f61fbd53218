/*
 * wrap_dl.c - dlclose, so that the unwinder (stack.c) does not trust what it
 * learnt of an unloaded module's code: another module may be mapped at the
 * same addresses next.
 *
 * dlopen is not wrapped: glibc finds $ORIGIN, RUNPATH and the namespace of
 * a dlopen from its caller's address, and a wrapper would be that caller. A
 * module loaded later is found when a stack first reaches into it
 * (modules.c).
 */
#include <dlfcn.h>

#include "modules.h"
#include "real.h"
#include "rec.h"

REAL_HERE(int, dlclose, (void *));

int dlclose(void *handle)
{
    int r = CALL_REAL(-1, dlclose, handle);

    if (r == 0)
        rec_stack_modules_unloaded();
    return r;
}
