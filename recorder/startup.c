/*
 * startup.c - the library's constructor: what the environment asks for,
 * this library's path and the trace's (both absolute, so exec'd children
 * that chdir still find them), the trace, the clock, and the main thread's
 * stream with the process record.
 *
 * Any failure leaves recording off and the program running as if we were
 * not there.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "real.h"

int rec_started;
int rec_stacks = 1;
int32_t rec_pid;
char rec_lib_path[PATH_MAX];
char rec_out_path[PATH_MAX];
char rec_preload_start[PATH_MAX];

static int env_true(const char *name, int dflt)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return dflt;
    return !(strcmp(v, "0") == 0 || strcmp(v, "no") == 0 ||
             strcmp(v, "false") == 0);
}

/* This library's own path, so exec'd children can preload it again. */
static void find_lib_path(void)
{
    Dl_info info;

    if (dladdr((void *)rec_resolve, &info) && info.dli_fname &&
        !realpath(info.dli_fname, rec_lib_path))
        snprintf(rec_lib_path, sizeof(rec_lib_path), "%s", info.dli_fname);
}

/* rec_out_path: IORECORD_OUTPUT made absolute. */
static void out_path_init(void)
{
    const char *out = getenv("IORECORD_OUTPUT");
    char cwd[PATH_MAX];

    if (!out || !*out)
        out = "iorecord.zst";
    if (out[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
        strlen(cwd) + 1 + strlen(out) >= sizeof(rec_out_path)) {
        snprintf(rec_out_path, sizeof(rec_out_path), "%s", out);
    } else {
        size_t cl = strlen(cwd);

        memcpy(rec_out_path, cwd, cl);
        rec_out_path[cl] = '/';
        strcpy(rec_out_path + cl + 1, out);
    }
}

__attribute__((constructor)) static void rec_init(void)
{
    int saved = errno;

    rec_guard = 1;
    rec_resolve();
    if (env_true("IORECORD_DISABLE", 0))
        goto out;
    rec_pid = (int32_t)getpid();
    rec_stacks = env_true("IORECORD_STACKS", 1);
    rec_warn_init(env_true("IORECORD_WARNED", 0), getenv("IORECORD_ONCE"));
    find_lib_path();
    {
        const char *pre = getenv("LD_PRELOAD");

        if (pre && rec_lib_path[0] && strstr(pre, rec_lib_path) &&
            strlen(pre) < sizeof(rec_preload_start))
            strcpy(rec_preload_start, pre);
    }
    rec_stream_ids_init();
    out_path_init();
    if (rec_trace_open() != 0 || rec_thread_key_init() != 0)
        goto out;
    rec_started = 1;
    rec_clock_init();
    if (rec_stacks)
        rec_stack_init();
    rec_fork_init();
    rec_active = 1;
    rec_thread_init(1, rec_mono_ns());
out:
    rec_guard = 0;
    errno = saved;
}
