/*
 * startup.c - the library's constructor: what the environment asks for,
 * this library's path and the trace's (both absolute, so exec'd children
 * that chdir still find them), the collector's segment or else the trace,
 * the clock, and the main thread's chunk chain with the process record.
 *
 * Any failure leaves recording off and the program running as if we were
 * not there.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "internal.h"
#include "real.h"
#include "sandbox.h"

int rec_started;
int rec_stacks = 1;
int32_t rec_pid;
char rec_lib_path[PATH_MAX];
char rec_out_path[PATH_MAX];
char rec_spool_path[PATH_MAX];
char rec_preload_start[PATH_MAX];

/*
 * Our fds below the soft fd limit take numbers the program has natively
 * (the hard limit left no room above it, segment.h): it gets EMFILE that
 * many opens early. Said in the trace, once per process.
 */
static void own_fds_report(void)
{
    struct rlimit rl;
    uint64_t in_range = 0;

    if (rec_filter_may_stand())
        return;   /* no getrlimit of our own there */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= 1024)
        return;
    for (int k = 0; k < 3; k++)
        if (rec_own_fd_get(k) >= 0 && (rlim_t)rec_own_fd_get(k) < rl.rlim_cur)
            in_range++;
    rec_own_fds_in_range_say((int)in_range);
}

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

    if (!dladdr((void *)rec_resolve, &info) || !info.dli_fname)
        return;
    /* An absolute name (iorecord's LD_PRELOAD) serves as it is: realpath
       costs a readlink per path component in every process started. */
    if (info.dli_fname[0] == '/' || !realpath(info.dli_fname, rec_lib_path))
        rec_copy_str(rec_lib_path, sizeof(rec_lib_path), info.dli_fname);
}

/* path made absolute into out (PATH_MAX bytes); as given when it cannot be. */
static void abs_path(const char *path, char *out)
{
    char cwd[PATH_MAX];

    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
        strlen(cwd) + 1 + strlen(path) >= PATH_MAX) {
        rec_copy_str(out, PATH_MAX, path);
    } else {
        size_t cl = strlen(cwd);

        memcpy(out, cwd, cl);
        out[cl] = '/';
        strcpy(out + cl + 1, path);
    }
}

/*
 * rec_out_path: IORECORD_OUTPUT made absolute; rec_spool_path: the
 * launcher's IORECORD_SPOOL, where the trace is written until the launcher
 * renames it onto the output.
 */
static void out_path_init(void)
{
    const char *out = getenv("IORECORD_OUTPUT");
    const char *spool = getenv("IORECORD_SPOOL");

    if (!out || !*out)
        out = "iorecord.zst";
    abs_path(out, rec_out_path);
    if (spool && *spool)
        abs_path(spool, rec_spool_path);
}

/* glibc passes main's argc and argv (and envp) to constructors. */
__attribute__((constructor)) static void rec_init(int argc, char **argv)
{
    int saved = errno;

    rec_guard = 1;
    rec_resolve();
    rec_tz_init();
    if (env_true("IORECORD_DISABLE", 0))
        goto out;
    rec_pid = (int32_t)getpid();
    rec_image_args(argc, argv);
    rec_labels_init();
    rec_startenv_init();
    rec_stacks = env_true("IORECORD_STACKS", 1);
    rec_warn_init(env_true("IORECORD_WARNED", 0), getenv("IORECORD_ONCE"));
    find_lib_path();
    {
        const char *pre = getenv("LD_PRELOAD");

        if (pre && rec_lib_path[0] && strstr(pre, rec_lib_path) &&
            strlen(pre) < sizeof(rec_preload_start))
            strcpy(rec_preload_start, pre);
    }
    rec_chain_ids_init();
    rec_retake_lost = rec_lost;
    out_path_init();
    rec_kernel_ask_init();
    if (rec_collect_init() != 0 ||
        (!rec_collected && (rec_creds_output_refused() || rec_trace_open() != 0)) ||
        rec_thread_key_init() != 0)
        goto out;
    rec_started = 1;
    rec_sandbox_init();
    rec_clock_init();
    if (rec_stacks)
        rec_stack_init();
    rec_fork_init();
    rec_active = 1;
    rec_thread_init(1, rec_now_ns());
    own_fds_report();
    rec_pid_shared_report();
    rec_bypass_startup();
    rec_creds_startup();
out:
    rec_guard = 0;
    errno = saved;
}
