/*
 * launch_capture.c - how iorecord chooses between its capture paths: the
 * preload (which sees libc calls with their stacks and streams) and the
 * kernel path (recorder/kernel/, which sees the syscalls of any program).
 *
 * In AUTO and BOTH both run (in AUTO the kernel path only from when a
 * process asks for it, launch_ask.c): the kernel path follows the tree but
 * writes only the processes the preload cannot enter (static, set-id,
 * file capabilities: the same judge the launcher and the library use);
 * in the others it only counts the file syscalls, for the coverage record.
 * So no call is recorded twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exejudge.h"
#include "kcapture.h"
#include "launch.h"

int launch_capture_mode(const char *s)
{
    static const char *const names[] = {
        [LAUNCH_CAPTURE_AUTO] = "auto", [LAUNCH_CAPTURE_PRELOAD] = "preload",
        [LAUNCH_CAPTURE_KERNEL] = "kernel", [LAUNCH_CAPTURE_BOTH] = "both",
    };

    if (!s)
        return LAUNCH_CAPTURE_AUTO;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

int launch_may_bpf(void)
{
    enum { CAP_PERFMON_ = 38, CAP_BPF_ = 39 };
    const unsigned long long need = (1ULL << CAP_PERFMON_) | (1ULL << CAP_BPF_);
    unsigned long long eff = 0;
    char line[256];
    FILE *f;

    if (geteuid() == 0)
        return 1;
    f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "CapEff:", 7) == 0)
            eff = strtoull(line + 7, NULL, 16);
    fclose(f);
    return (eff & need) == need;
}

int launch_preload_enters(const char *path)
{
    struct rec_exe_verdict v;

    rec_exe_judge(path, &v);
    return v.why == NULL;
}

struct kcap *launch_kernel_start(int fifo_fd, const char *trace_path, kconv_preload_judge judge,
                                 char *why, size_t cap)
{
    struct kcap *kc;
    int fd;

    if (!kcap_built()) {
        kcap_open(-1, NULL, why, cap);
        return NULL;
    }
    if (!launch_may_bpf()) {
        snprintf(why, cap, "the kernel path needs root or CAP_BPF and CAP_PERFMON");
        return NULL;
    }
    fd = fifo_fd >= 0 ? fcntl(fifo_fd, F_DUPFD_CLOEXEC, 3)
                      : open(trace_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, cap, "cannot open the trace: %s", strerror(errno));
        return NULL;
    }
    kc = kcap_open(fd, judge, why, cap);
    /* on success the kernel path writes through fd for as long as it runs */
    if (!kc)
        close(fd);
    return kc;
}
