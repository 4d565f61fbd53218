/*
 * rec_harness.c - what the recorder suites (test_recorder.c,
 * test_recorder_procs.c) share: running a test program under the recorder
 * and reading its trace back.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iotrace.h"
#include "rec_harness.h"
#include "unit.h"

/* Paths here are short temp paths; truncation would only fail a test. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define REC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REC_TEST_ASAN 1
#endif
#endif

char rt_bindir[PATH_MAX];
char rt_tmpdir[PATH_MAX];
static char preload_first[PATH_MAX];   /* sanitizer runtime, when built so */
static int usable = -1;

int rt_setup(void)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n;

    if (usable >= 0)
        return usable;
    usable = 0;
    /* these tests expect the preload's records alone: as root iorecord
       would add what its kernel path sees (tests/e2e/test_rec_kernel*.sh) */
    setenv("IORECORD_CAPTURE", "preload", 1);
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(rt_bindir, sizeof(rt_bindir), "%s", self);
    snprintf(path, sizeof(path), "%s/../lib/libiorecord.so", rt_bindir);
    if (access(path, R_OK) != 0) {
        printf("\n  (recorder not built: recorder tests skipped)\n");
        return 0;
    }
#ifdef REC_TEST_ASAN
    {
        /* The preload library needs the sanitizer runtime loaded first. */
        FILE *f = fopen("/proc/self/maps", "r");
        char line[1024];

        while (f && fgets(line, sizeof(line), f)) {
            char *p = strstr(line, "/");

            if (p && strstr(p, "libasan.so")) {
                p[strcspn(p, "\n")] = '\0';
                snprintf(preload_first, sizeof(preload_first), "%s", p);
                break;
            }
        }
        if (f)
            fclose(f);
        if (!preload_first[0]) {
            printf("\n  (no shared sanitizer runtime: recorder tests skipped)\n");
            return 0;
        }
    }
#endif
    snprintf(rt_tmpdir, sizeof(rt_tmpdir), "/tmp/ioscope-rec-XXXXXX");
    if (!mkdtemp(rt_tmpdir))
        return 0;
    usable = 1;
    return 1;
}

/* A fresh empty directory under rt_tmpdir. */
void rt_fresh_dir(const char *name, char *out, size_t cap)
{
    char cmd[PATH_MAX * 2 + 32];

    snprintf(out, cap, "%s/%s", rt_tmpdir, name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", out, out);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

int rt_sanitized(void)
{
    return preload_first[0] != '\0';
}

/*
 * Start argv with extra environment entries ("K=V", NULL-terminated), its
 * stdout going to `out` (NULL: /dev/null) and no inherited fd above 2.
 */
pid_t rt_start(char *const argv[], const char *const env[], const char *out)
{
    pid_t pid = fork();

    if (pid == 0) {
        int fd;

        for (int i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        if (preload_first[0]) {
            const char *cur = getenv("LD_PRELOAD");
            char both[2 * PATH_MAX + 2];

            /* the sanitizer runtime first, then whatever the test added */
            snprintf(both, sizeof(both), "%s%s%s", preload_first,
                     cur ? ":" : "", cur ? cur : "");
            setenv("LD_PRELOAD", both, 1);
            setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        }
        fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        close(fd);
        closefrom(3);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

int rt_finish(pid_t pid)
{
    int st = -1;

    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* Run to the end; the wait status. */
int rt_run(char *const argv[], const char *const env[], const char *out)
{
    return rt_finish(rt_start(argv, env, out));
}

int rt_load(const char *path, struct evs *e)
{
    char err[IOT_ERRBUF_SIZE];
    const char *paths[1] = { path };
    struct iot_trace *tr;
    struct iot_event ev;
    int r;

    memset(e, 0, sizeof(*e));
    e->st = iot_strtab_create();
    tr = iot_trace_open(paths, 1, e->st, err);
    if (!tr) {
        printf("\n  cannot read trace: %s\n", err);
        return -1;
    }
    while ((r = iot_trace_next(tr, &ev, err)) == 1) {
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 1024;
            e->v = realloc(e->v, e->cap * sizeof(*e->v));
        }
        if (ev.kind == IOT_EV_PROCESS && !e->cmdline[0]) {
            size_t len = 0;

            for (int i = 0; i < ev.argc && len < sizeof(e->cmdline) - 1; i++)
                len += (size_t)snprintf(e->cmdline + len, sizeof(e->cmdline) - len,
                                        "%s%s", i ? " " : "", ev.argv[i]);
        }
        ev.argv = NULL;
        e->v[e->n++] = ev;
    }
    iot_trace_stats(tr, &e->stats);
    iot_trace_close(tr);
    if (r < 0)
        printf("\n  trace error: %s\n", err);
    return r < 0 ? -1 : 0;
}

void rt_unload(struct evs *e)
{
    free(e->v);
    iot_strtab_free(e->st);
    memset(e, 0, sizeof(*e));
}

char *rt_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        n = 0;
    s[n] = '\0';
    fclose(f);
    return s;
}
/* Paths of the launcher, the library and a test program. */
void rt_paths(const char *prog, char *iorec, char *lib, char *progpath)
{
    snprintf(iorec, PATH_MAX + 64, "%s/iorecord", rt_bindir);
    snprintf(lib, PATH_MAX + 64, "%s/../lib/libiorecord.so", rt_bindir);
    snprintf(progpath, PATH_MAX + 64, "%s/progs/%s", rt_bindir, prog);
}
/* The pid of the first process record whose exe ends in name. */
int32_t rt_pid_of(const struct evs *e, const char *name)
{
    size_t nl = strlen(name);

    for (size_t i = 0; i < e->n; i++) {
        const char *x = e->v[i].exe;

        if (e->v[i].kind == IOT_EV_PROCESS && x && strlen(x) >= nl &&
            !strcmp(x + strlen(x) - nl, name))
            return e->v[i].pid;
    }
    return -1;
}

int rt_clean(void)
{
    char cmd[PATH_MAX + 32];

    if (rt_tmpdir[0] && !getenv("IOSCOPE_KEEP")) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rt_tmpdir);
        if (system(cmd) != 0)
            return 0;
    }
    return 0;
}
