/*
 * childenv.c - the environment an exec'd or spawned child of a recorded
 * process gets: LD_PRELOAD and the IORECORD_* variables put back where the
 * program's envp lacks them (or taken off, for a child the preload cannot
 * enter: enterable.c), in one mapping made with raw syscalls, which is safe
 * in a vfork child (rec_env_fix, rec_env_free: rec.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Whether a colon/space separated LD_PRELOAD list names lib. */
static int preload_has(const char *list, const char *lib)
{
    size_t n = strlen(lib);

    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ": ");

        if (l == n && strncmp(p, lib, n) == 0)
            return 1;
        p += l;
        if (*p)
            p++;
    }
    return 0;
}

/*
 * Layout of a fixed environment: one mapping holding its own size, the
 * pointer array, then the new strings.
 */
char **rec_env_fix(char *const envp[], const char *first)
{
    static char *const empty[] = { NULL };
    const char *old_preload = NULL, *added = NULL;
    size_t n = 0, size, strsz;
    char tsc[32];
    char *base, *str, **out;
    size_t k = 0;

    /* the fd numbers passed on must be the collector's (not in a vfork
       child: it shares our memory, not our fd table) */
    if (!rec_guard)
        rec_collect_fds_check();
    if (!rec_lib_path[0] || !rec_out_path[0])
        return (char **)envp;
    if (!envp)
        envp = empty;
    else if (!rec_ptr_plausible(envp))
        return (char **)envp;   /* the kernel's EFAULT, not our fault */
    for (; envp[n]; n++) {
        if (has_prefix(envp[n], "LD_PRELOAD="))
            old_preload = envp[n] + 11;
        if (has_prefix(envp[n], "IORECORD_ASAN="))
            added = envp[n] + 14;
    }
    /*
     * An environment without LD_PRELOAD gets the list this process started
     * with (which holds our library, and a sanitizer runtime before it
     * when there is one), not our library alone.
     */
    if ((!old_preload || !*old_preload) && rec_preload_start[0])
        old_preload = rec_preload_start;
    /*
     * An ASan runtime the launcher or an exec wrapper put first for an ASan
     * program (IORECORD_ASAN names it) is that program's, not its
     * children's: a plain child would run with ASan's allocator and leak
     * report. It is put first again only for a child that needs it.
     */
    if (added && *added && old_preload && has_prefix(old_preload, added) &&
        old_preload[strlen(added)] == ':')
        old_preload += strlen(added) + 1;
    rec_stpnum(tsc, (unsigned long long)rec_clock_mult());
    strsz = 16 + (old_preload ? strlen(old_preload) + 1 : 0) +
            (first ? 2 * strlen(first) + 20 : 0) +
            strlen(rec_lib_path) + 20 + strlen(rec_out_path) + 20 + 20 +
            strlen(tsc) + 16 + 20 + 16 + 32 +
            (rec_once_path() ? strlen(rec_once_path()) : 0) +
            20 + strlen(rec_spool_path) + 20 + strlen(rec_kernel_ask_name()) + 96;
    /* the variables appended below, at most 12, and the NULL */
    size = sizeof(size_t) + (n + 13) * sizeof(char *) + strsz;
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0);
    if (base == MAP_FAILED)
        return (char **)envp;
    memcpy(base, &size, sizeof(size));
    out = (char **)(base + sizeof(size_t));
    str = (char *)(out + n + 13);
    for (size_t i = 0; i < n; i++)
        if (!has_prefix(envp[i], "LD_PRELOAD=") &&
            !has_prefix(envp[i], "IORECORD_OUTPUT=") &&
            !has_prefix(envp[i], "IORECORD_SPOOL=") &&
            !has_prefix(envp[i], "IORECORD_COLLECT=") &&
            !has_prefix(envp[i], "IORECORD_PROC=") &&
            !has_prefix(envp[i], "IORECORD_STACKS=") &&
            !has_prefix(envp[i], "IORECORD_TSC=") &&
            !has_prefix(envp[i], "IORECORD_SANDBOX=") &&
            !has_prefix(envp[i], "IORECORD_ONCE=") &&
            !has_prefix(envp[i], "IORECORD_ASAN=") &&
            !has_prefix(envp[i], "IORECORD_WARNED=") &&
            !has_prefix(envp[i], "IORECORD_KERNEL="))
            out[k++] = envp[i];
    /* Appended after any other preload (a sanitizer runtime must stay first). */
    out[k++] = str;
    /* stpcpy, not sprintf: see rec_stpnum */
    str = stpcpy(str, "LD_PRELOAD=");
    if (first)
        str = stpcpy(stpcpy(str, first), ":");
    if (old_preload && *old_preload) {
        str = stpcpy(str, old_preload);
        if (!preload_has(old_preload, rec_lib_path))
            str = stpcpy(stpcpy(str, ":"), rec_lib_path);
    } else {
        str = stpcpy(str, rec_lib_path);
    }
    str++;
    out[k++] = str;
    str = stpcpy(stpcpy(str, "IORECORD_OUTPUT="), rec_out_path) + 1;
    if (rec_spool_path[0]) {
        /* Gone once the launcher renamed it: then children open the output. */
        out[k++] = str;
        str = stpcpy(stpcpy(str, "IORECORD_SPOOL="), rec_spool_path) + 1;
    }
    if (first) {
        out[k++] = str;
        str = stpcpy(stpcpy(str, "IORECORD_ASAN="), first) + 1;
    }
    str = rec_collect_env(out, &k, str);
    out[k++] = str;
    str = stpcpy(str, rec_stacks ? "IORECORD_STACKS=1" : "IORECORD_STACKS=0") + 1;
    out[k++] = str;
    str = stpcpy(stpcpy(str, "IORECORD_TSC="), tsc) + 1;
    out[k++] = str;
    str = stpcpy(str, rec_sandbox_env()) + 1;
    if (rec_once_path()) {
        out[k++] = str;
        str = stpcpy(stpcpy(str, "IORECORD_ONCE="), rec_once_path()) + 1;
    }
    if (rec_kernel_ask_name()[0]) {
        out[k++] = str;
        str = stpcpy(stpcpy(str, "IORECORD_KERNEL="), rec_kernel_ask_name()) + 1;
    }
    if (rec_warned()) {
        /* A child must not repeat the warning its ancestor gave. */
        out[k++] = str;
        stpcpy(str, "IORECORD_WARNED=1");
    }
    out[k] = NULL;
    return out;
}

void rec_env_free(char **fixed, char *const envp[])
{
    char *base;
    size_t size;

    if (!fixed || fixed == (char **)envp)
        return;
    base = (char *)fixed - sizeof(size_t);
    memcpy(&size, base, sizeof(size));
    syscall(SYS_munmap, base, size);
}
