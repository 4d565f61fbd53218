/*
 * launch_env.c - what the launcher finds out once for every process it
 * records, passed on in the environment so that no recorded process pays
 * for it: the TSC's rate and whether a seccomp filter stands over them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "launch.h"

/* The TSC rate, measured once here so every recorded process can skip it. */
unsigned long long launch_tsc_mult(void)
{
#if REC_HAVE_TSC
    uint64_t tsc;
    int64_t ns;

    if (!rec_tsc_invariant())
        return 0;
    /* 2 ms, before the command starts: within 0.002% (see clock.c) */
    return rec_tsc_measure(2000000, &tsc, &ns);
#else
    return 0;
#endif
}

/*
 * Whether a seccomp filter stands over the launcher, and so over the
 * command: "Seccomp:" in /proc/self/status. The library takes it from
 * IORECORD_SANDBOX instead of reading the file in every process.
 */
const char *launch_sandbox_env(void)
{
    char line[256];
    const char *v = "none";
    FILE *f = fopen("/proc/self/status", "re");

    if (!f)
        return "filter";    /* unknown: the library assumes the worst */
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "Seccomp:", 8) == 0) {
            v = atoi(line + 8) != 0 ? "filter" : "none";
            break;
        }
    fclose(f);
    return v;
}
