/*
 * count_stdio.so - another interposer of fread and fwrite (no ioscope code),
 * for the recorder's test that its untimed repeats never skip one: preloaded
 * after libiorecord.so, it counts the calls that reach it and passes them
 * on. At exit it writes "fread N fread_unlocked N fwrite N fwrite_unlocked
 * N" to the file named by $COUNT_STDIO_OUT, with raw system calls so that
 * the recorder sees none of it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../progs/rawsys.h"

/* <stdio.h> may define these as macros; the functions are what is wanted */
#undef fread_unlocked
#undef fwrite_unlocked

#define COUNTED(X)                                                             \
    X(fread, void *)                                                           \
    X(fread_unlocked, void *)                                                  \
    X(fwrite, const void *)                                                    \
    X(fwrite_unlocked, const void *)

#define DEFINE_(name, ptype)                                                   \
    static unsigned long n_##name;                                             \
    size_t name(ptype p, size_t sz, size_t n, FILE *f)                         \
    {                                                                          \
        static size_t (*next)(ptype, size_t, size_t, FILE *);                  \
        if (!next)                                                             \
            next = (size_t(*)(ptype, size_t, size_t, FILE *))dlsym(RTLD_NEXT,  \
                                                                  #name);      \
        __atomic_fetch_add(&n_##name, 1, __ATOMIC_RELAXED);                    \
        return next(p, sz, n, f);                                              \
    }
COUNTED(DEFINE_)
#undef DEFINE_

__attribute__((destructor)) static void report(void)
{
    const char *out = getenv("COUNT_STDIO_OUT");
    char line[256];
    int len;
    long fd;

    if (!out)
        return;
    len = snprintf(line, sizeof(line),
                   "fread %lu fread_unlocked %lu fwrite %lu fwrite_unlocked %lu\n",
                   n_fread, n_fread_unlocked, n_fwrite, n_fwrite_unlocked);
    fd = raw_sys(SYS_openat, AT_FDCWD, (long)out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    raw_sys(SYS_write, fd, (long)line, len, 0);
    raw_sys(SYS_close, fd, 0, 0, 0);
}
