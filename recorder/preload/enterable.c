/*
 * enterable.c - whether the preload can enter a program a recorded process
 * is about to exec or spawn, and what that child gets when it cannot.
 *
 * A program the preload cannot enter is recorded as `unrecorded` (by the
 * exec and spawn wrappers, wrap_proc.c) with a mode word saying why: the
 * judge's (exejudge.c: static, setuid, fcaps), or
 *   no_library  this library cannot be reached from the process's root
 *               (a chroot without it): the loader would print an error on
 *               the program's stderr, so the child gets no preload at all
 * Such a child does not inherit the recorder's fds either: they are
 * close-on-exec for that exec (and inheritable again if it fails), so a
 * setuid or capable program never holds the run's shared records.
 * Raw syscalls only: this runs in exec wrappers, perhaps in a vfork child.
 */
#include <fcntl.h>
#include <string.h>

#include "exejudge.h"
#include "internal.h"
#include "wrap.h"

const char *rec_unrecordable(const char *path, char *asan)
{
    struct rec_exe_verdict v;

    rec_exe_judge(path, &v);
    memcpy(asan, v.asan, sizeof(v.asan));
    if (!v.why && path && rec_lib_path[0] &&
        syscall(SYS_faccessat, AT_FDCWD, rec_lib_path, R_OK) != 0)
        return "no_library";
    return v.why;
}

/* Whether the recorder's fds of a collector are gone from this fd table. */
static int own_fds_gone(void)
{
    int seg = rec_own_fd_get(REC_OWN_SEG);

    return rec_collected && seg >= 0 && syscall(SYS_fcntl, seg, F_GETFD) < 0;
}

/*
 * Whether envp was set up by another launcher for a run of its own (an
 * iorecord run under iorecord): its spool, or its trace, is not ours. Then
 * its variables stand, so the inner run writes the inner trace. A launcher
 * names both absolute; a relative IORECORD_OUTPUT is the one this process
 * started with (made absolute in rec_out_path), not another run's.
 */
static int another_run(char *const envp[])
{
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *v = envp[i];

        if (strncmp(v, "IORECORD_OUTPUT=/", 17) == 0 && strcmp(v + 16, rec_out_path) != 0)
            return 1;
        if (strncmp(v, "IORECORD_SPOOL=", 15) == 0 && strcmp(v + 15, rec_spool_path) != 0)
            return 1;
    }
    return 0;
}

/* Whether the preload list the child gets starts with an ASan runtime. */
static int asan_first(char *const envp[])
{
    const char *pre = rec_preload_start;

    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 && envp[i][11])
            pre = envp[i] + 11;
    return strncmp(pre, "libasan", 7) == 0 ||
           (strstr(pre, "/libasan") && strcspn(pre, ": ") > (size_t)(strstr(pre, "/libasan") - pre));
}

char **rec_env_child(char *const envp[], const char **why, const char *asan)
{
    if (envp && !rec_ptr_plausible(envp))
        return (char **)envp;   /* the kernel's EFAULT: not ours to read */
    if (another_run(envp)) {
        *why = "another_run";   /* not ours to record: our fds stay here */
        return (char **)envp;
    }
    if (rec_unpreloaded() || own_fds_gone() || (*why && strcmp(*why, "no_library") == 0))
        return rec_env_unpreload(envp);
    return rec_env_fix(envp, asan && asan[0] && !asan_first(envp) ? asan : NULL);
}

void rec_own_fds_inherit(int inherit)
{
    for (int k = REC_OWN_SEG; k <= REC_OWN_LIVE; k++) {
        int fd = rec_own_fd_get(k);

        if (fd >= 0)
            syscall(SYS_fcntl, fd, F_SETFD, inherit ? 0 : FD_CLOEXEC);
    }
}
