/*
 * launch_library.c - where iorecord finds the preload library
 * (libiorecord.so) it puts in LD_PRELOAD.
 *
 * In order:
 *  - $IORECORD_LIB;
 *  - the installed layout seen from where iorecord is: `make install` put
 *    it in BINDIR and the library in PKGLIBDIR (install_dirs.h), so when
 *    its own directory ends with BINDIR, what comes before it (nothing
 *    once installed, DESTDIR in a staged tree) is put before PKGLIBDIR.
 *    This keeps a staged tree using its own library, never an older
 *    install's;
 *  - the build tree: ../lib/libiorecord.so beside it (build/bin, build/lib);
 *  - PKGLIBDIR itself, for an iorecord copied out of BINDIR.
 *
 * Its own executable is /proc/self/exe; in a sandbox without /proc (bwrap
 * --ro-bind / / --dev /dev) it is the file the kernel was asked to run
 * (AT_EXECFN: what the shell or execvp found on PATH, or the path given),
 * with its symbolic links resolved as /proc would have. Only when neither
 * names it is the library searched in PKGLIBDIR alone, and a failure says
 * to set IORECORD_LIB.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "install_dirs.h"
#include "launch.h"

static const char lib_name[] = "libiorecord.so";

/* out = the first n bytes of dir + rest, when it fits and is readable. */
static int try_at(char *out, size_t cap, const char *dir, size_t n, const char *rest)
{
    int len = snprintf(out, cap, "%.*s%s", (int)n, dir, rest);

    return len > 0 && (size_t)len < cap && access(out, R_OK) == 0;
}

/* The directory iorecord's executable is in, into dir; 0, or -1. */
static int own_dir(char *dir, size_t cap)
{
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    char *slash;

    if (n > 0) {
        self[n] = '\0';
    } else if (!execfn || !*execfn || !realpath(execfn, self)) {
        return -1;
    }
    slash = strrchr(self, '/');
    if (!slash || (size_t)(slash - self) >= cap)
        return -1;
    *slash = '\0';
    memcpy(dir, self, (size_t)(slash - self) + 1);
    return 0;
}

int launch_find_library(char *out, size_t cap, char *why, size_t why_cap)
{
    const char *env = getenv("IORECORD_LIB");
    size_t dlen, blen = strlen(IOSCOPE_BINDIR);
    char self[PATH_MAX], cwd[PATH_MAX];

    if (env && *env) {
        if (env[0] != '/' && getcwd(cwd, sizeof(cwd)))
            snprintf(out, cap, "%s/%s", cwd, env);
        else
            snprintf(out, cap, "%s", env);
        if (access(out, R_OK) == 0)
            return 0;
        snprintf(why, why_cap, "cannot find the recorder library '%s' (IORECORD_LIB): %s", out,
                 strerror(errno));
        return -1;
    }
    if (own_dir(self, sizeof(self)) != 0) {
        if (try_at(out, cap, IOSCOPE_PKGLIBDIR "/", strlen(IOSCOPE_PKGLIBDIR "/"), lib_name))
            return 0;
        snprintf(why, why_cap, "cannot find my own executable (no /proc?) nor %s in %s/: "
                 "set IORECORD_LIB to the path of %s", lib_name, IOSCOPE_PKGLIBDIR, lib_name);
        return -1;
    }
    dlen = strlen(self);
    if (dlen >= blen && strcmp(self + dlen - blen, IOSCOPE_BINDIR) == 0 &&
        try_at(out, cap, self, dlen - blen, IOSCOPE_PKGLIBDIR "/libiorecord.so"))
        return 0;
    if (try_at(out, cap, self, dlen, "/../lib/libiorecord.so"))
        return 0;
    if (try_at(out, cap, IOSCOPE_PKGLIBDIR "/", strlen(IOSCOPE_PKGLIBDIR "/"), lib_name))
        return 0;
    snprintf(why, why_cap, "cannot find the recorder library %s: not in %s/ nor in %s/../lib/ "
             "(set IORECORD_LIB to its path)", lib_name, IOSCOPE_PKGLIBDIR, self);
    return -1;
}
