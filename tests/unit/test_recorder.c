/*
 * test_recorder.c - the recorder, end to end through the format reader.
 *
 * Each test runs a program from tests/progs under build/bin/iorecord and
 * reads the trace back with iot_trace_open(). Programs state every call
 * they make (tests/progs/expect.h); the recorded calls of their process must
 * match those statements one for one, field for field, and a plain run of
 * the program must state exactly the same results (transparency).
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

static char bindir[PATH_MAX];
static char tmpdir[PATH_MAX];
static char preload_first[PATH_MAX];   /* sanitizer runtime, when built so */
static int usable = -1;

/* ------------------------------------------------------------ plumbing */

/* A stack frame's module name without its directory ("rec_posix+0x11a9"). */
static const char *frame_module(const char *frame)
{
    const char *base = frame;

    for (const char *p = frame; *p && *p != '\n' && *p != '+'; p++)
        if (*p == '/')
            base = p + 1;
    return base;
}

static int setup(void)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n;

    if (usable >= 0)
        return usable;
    usable = 0;
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(bindir, sizeof(bindir), "%s", self);
    snprintf(path, sizeof(path), "%s/../lib/libiorecord.so", bindir);
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
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/ioscope-rec-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 0;
    usable = 1;
    return 1;
}

/* A fresh empty directory under tmpdir. */
static void fresh_dir(const char *name, char *out, size_t cap)
{
    char cmd[PATH_MAX * 2 + 32];

    snprintf(out, cap, "%s/%s", tmpdir, name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", out, out);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

/*
 * Start argv with extra environment entries ("K=V", NULL-terminated), its
 * stdout going to `out` (NULL: /dev/null) and no inherited fd above 2.
 */
static pid_t start(char *const argv[], const char *const env[], const char *out)
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

static int finish(pid_t pid)
{
    int st = -1;

    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return st;
}

/* Run to the end; the wait status. */
static int run(char *const argv[], const char *const env[], const char *out)
{
    return finish(start(argv, env, out));
}

/* Events of a trace, strings interned in `st`. */
struct evs {
    struct iot_event *v;
    size_t n, cap;
    struct iot_strtab *st;
    struct iot_trace_stats stats;
    /* the first process record's command line, its arguments joined by spaces */
    char cmdline[4096];
};

static int load(const char *path, struct evs *e)
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

static void unload(struct evs *e)
{
    free(e->v);
    iot_strtab_free(e->st);
    memset(e, 0, sizeof(*e));
}

/* Drop lines ending in " addr": they hold addresses that differ per run. */
static void drop_addr_lines(char *s)
{
    char *w = s;

    for (char *line = s; *line;) {
        size_t len = strcspn(line, "\n");
        int drop = len >= 5 && !strncmp(line + len - 5, " addr", 5);

        if (!drop) {
            memmove(w, line, len);
            w += len;
            if (line[len])
                *w++ = '\n';
        }
        line += len + (line[len] ? 1 : 0);
    }
    *w = '\0';
}

static char *slurp(const char *path)
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

/* Whether ev satisfies one expectation line; prints the first mismatch. */
static int match_line(const struct iot_event *ev, char *line, size_t lineno)
{
    int want_errno = 0, ok = 1;
    char *save = NULL;

    for (char *tok = strtok_r(line, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        const char *key = tok, *val = eq ? eq + 1 : "";
        long long num = strtoll(val, NULL, 10);
        int good = 1;

        if (eq)
            *eq = '\0';
        int fi = iot_field_from_key(key, strlen(key));

        if (!strcmp(key, "op"))
            good = iot_op_name(ev->op) && !strcmp(iot_op_name(ev->op), val);
        else if (!strcmp(key, "nofd"))
            good = !(ev->has & IOT_HAS_FD);
        else if (!strcmp(key, "nosize"))
            good = !(ev->has & IOT_HAS_FILE_SIZE);
        else if (!strcmp(key, "untimed"))   /* an untimed repeat */
            good = ev->dur == 0;
        else if (!strcmp(key, "timed"))     /* a call that reached the file */
            good = ev->dur > 0;
        else if (!strcmp(key, "ret"))
            good = !strcmp(val, "*") || ev->ret == num;
        else if (!strcmp(key, "stack")) {
            /* The first frame is the caller of the libc function (a
             * sanitizer runtime's interceptor may come before it); frames
             * are "/path/to/module+0xOFF", compared from the base name. */
            const char *st = (ev->has & IOT_HAS_STACK) ? ev->stack : NULL;

            while (st && !strncmp(frame_module(st), "libasan", 7) && strchr(st, '\n'))
                st = strchr(st, '\n') + 1;
            good = st && !strncmp(frame_module(st), val, strlen(val));
        } else if (!strcmp(key, "stream")) {
            /* an address: only that there is one */
            good = (ev->has & IOT_HAS_STREAM) != 0;
        } else if (fi >= 0) {
            const struct iot_field_info *f = &iot_fields[fi];

            want_errno |= f->bit == IOT_HAS_ERRNO;
            good = (ev->has & f->bit) != 0;
            if (good && f->type == IOT_FT_STR)
                good = iot_field_str(ev, (unsigned)fi) && !strcmp(iot_field_str(ev, (unsigned)fi), val);
            else if (good && f->type == IOT_FT_BUFMODE)
                good = !strcmp(val, iot_bufmode_name((unsigned)iot_field_int(ev, (unsigned)fi)));
            else if (good)
                good = iot_field_int(ev, (unsigned)fi) == num;
        }
        if (!good) {
            printf("\n  expectation %zu: %s=%s does not match the event "
                   "(op %s fd %d size %lld ret %lld errno %d)\n",
                   lineno, key, val, iot_op_name(ev->op), ev->fd,
                   (long long)ev->size, (long long)ev->ret,
                   (ev->has & IOT_HAS_ERRNO) ? ev->err : 0);
            ok = 0;
            break;
        }
    }
    if (ok && !want_errno && (ev->has & IOT_HAS_ERRNO)) {
        printf("\n  expectation %zu: unexpected errno %d\n", lineno, ev->err);
        ok = 0;
    }
    return ok;
}

/*
 * A call of the program: not a cwd record, which notes the process's state
 * (at its start and after a chdir) rather than a call it made to file I/O;
 * tests/e2e/test_an_server_facts.sh checks those.
 */
static int program_call(const struct iot_event *ev, int32_t pid)
{
    return ev->kind == IOT_EV_CALL && ev->pid == pid && ev->op != IOT_OP_CWD;
}

/* The calls of process `pid` equal the expectation file, line by line. */
static void check_calls(const struct evs *e, int32_t pid, const char *expfile)
{
    char *text = slurp(expfile), *save = NULL;
    size_t i = 0, lineno = 0, bad = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        while (i < e->n && !program_call(&e->v[i], pid))
            i++;
        if (i == e->n) {
            printf("\n  expectation %zu (%s): no more recorded calls\n",
                   lineno, line);
            bad++;
            break;
        }
        if (!match_line(&e->v[i], line, lineno))
            bad++;
        /* the op table says which fields each op's records carry */
        if (e->v[i].has & ~(iot_ops[e->v[i].op].fields | IOT_HAS_ERRNO | IOT_HAS_STACK)) {
            printf("\n  expectation %zu (%s): fields 0x%x beyond the op table's 0x%x\n", lineno,
                   line, e->v[i].has, iot_ops[e->v[i].op].fields);
            bad++;
        }
        i++;
    }
    while (i < e->n && !program_call(&e->v[i], pid))
        i++;
    if (i < e->n) {
        printf("\n  unexpected recorded call: %s fd %d\n",
               iot_op_name(e->v[i].op), e->v[i].fd);
        bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(lineno > 0);
    free(text);
}

/* Paths of the launcher, the library and a test program. */
static void paths(const char *prog, char *iorec, char *lib, char *progpath)
{
    snprintf(iorec, PATH_MAX + 64, "%s/iorecord", bindir);
    snprintf(lib, PATH_MAX + 64, "%s/../lib/libiorecord.so", bindir);
    snprintf(progpath, PATH_MAX + 64, "%s/progs/%s", bindir, prog);
}

/*
 * How a family program is recorded. Its plain run always has the same
 * arguments as the recorded one.
 */
enum family_way {
    WAY_LAUNCHER,       /* iorecord -o TRACE -- PROG DIR */
    WAY_THREADED,       /* the same with PROG DIR threaded: a second thread waits */
    WAY_INTERPOSED,     /* preloaded without the launcher, count_stdio.so after it */
};

/*
 * Run prog (in build/bin/progs) with DIR (and "threaded" for WAY_THREADED),
 * recorded into trace the given way, or plainly when trace is NULL.
 * EXPECT_OUT=expfile; COUNT_STDIO_OUT=countfile for WAY_INTERPOSED.
 * Returns the wait status.
 */
static int run_prog(const char *prog, const char *dir, enum family_way way,
                    const char *trace, const char *expfile,
                    const char *countfile)
{
    char progpath[PATH_MAX + 64], iorec[PATH_MAX + 64], lib[PATH_MAX + 64];
    char env_exp[PATH_MAX + 16], env_pre[2 * PATH_MAX + 160],
        env_out[PATH_MAX + 48], env_count[PATH_MAX + 48];
    const char *env[5] = { env_exp, NULL };
    char *extra = way == WAY_THREADED ? "threaded" : NULL;

    paths(prog, iorec, lib, progpath);
    snprintf(env_exp, sizeof(env_exp), "EXPECT_OUT=%s", expfile);
    if (!trace) {
        char *argv[] = { progpath, (char *)dir, extra, NULL };

        return run(argv, env, NULL);
    }
    if (way == WAY_INTERPOSED) {
        char *argv[] = { progpath, (char *)dir, NULL };

        snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s:%s/../lib/test/count_stdio.so",
                 lib, bindir);
        snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
        snprintf(env_count, sizeof(env_count), "COUNT_STDIO_OUT=%s", countfile);
        env[1] = env_pre;
        env[2] = env_out;
        env[3] = env_count;
        return run(argv, env, NULL);
    } else {
        char *argv[] = { iorec, "-o", (char *)trace, "--", progpath,
                         (char *)dir, extra, NULL };

        return run(argv, env, NULL);
    }
}

/* The pid of the first process record whose exe ends in name. */
static int32_t pid_of(const struct evs *e, const char *name)
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

/* Lines of text that start with prefix. */
static long lines_with(const char *text, const char *prefix)
{
    size_t pl = strlen(prefix);
    long n = 0;

    for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, prefix, pl))
            n++;
    return n;
}

/*
 * A family program recorded one way: exact calls, same results with and
 * without recording. WAY_INTERPOSED: every fread and fwrite the program
 * made reached the interposer after the recorder, as the same function.
 */
static void family_way(const char *prog, enum family_way way)
{
    static const char *const way_dir[] = { "", "-threaded", "-interposed" };
    char dir[PATH_MAX], trace[PATH_MAX + 32], er[PATH_MAX + 32],
        ep[PATH_MAX + 32], counts[PATH_MAX + 32], dir2[PATH_MAX],
        name[128];
    char *a, *b;
    struct evs e;

    if (!setup())
        return;
    snprintf(name, sizeof(name), "%s%s", prog, way_dir[way]);
    fresh_dir(name, dir, sizeof(dir));
    snprintf(dir2, sizeof(dir2), "%s/run", dir);
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(er, sizeof(er), "%s/expect.rec", dir);
    snprintf(ep, sizeof(ep), "%s/expect.plain", dir);
    snprintf(counts, sizeof(counts), "%s/counts", dir);
    mkdir(dir2, 0755);
    CU_ASSERT_EQUAL(run_prog(prog, dir2, way, trace, er, counts), 0);
    /* The plain run works in the same (emptied) directory. */
    {
        char cmd[PATH_MAX * 2];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s'", dir2, dir2);
        CU_ASSERT_EQUAL(system(cmd), 0);
    }
    CU_ASSERT_EQUAL(run_prog(prog, dir2, way, NULL, ep, NULL), 0);
    a = slurp(er);
    b = slurp(ep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    drop_addr_lines(a);
    drop_addr_lines(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    if (way == WAY_INTERPOSED) {
        char *got = slurp(counts), want[256];

        snprintf(want, sizeof(want),
                 "fread %ld fread_unlocked 0 fwrite %ld fwrite_unlocked 0\n",
                 lines_with(a, "op=fread "), lines_with(a, "op=fwrite "));
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
    }
    free(a);
    free(b);
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    {
        /* the command line as the program got it */
        char want[sizeof(e.cmdline)];

        snprintf(want, sizeof(want), "%s/progs/%s %s%s", bindir, prog, dir2,
                 way == WAY_THREADED ? " threaded" : "");
        CU_ASSERT_STRING_EQUAL(e.cmdline, want);
    }
    check_calls(&e, pid_of(&e, prog), er);
    unload(&e);
}

static void family(const char *prog)
{
    family_way(prog, WAY_LAUNCHER);
}

static void test_posix(void) { family("rec_posix"); }
static void test_stdio(void) { family("rec_stdio"); }
static void test_fdops(void) { family("rec_fdops"); }
static void test_fortify(void) { family("rec_fortify"); }
static void test_stdmore(void) { family("rec_stdmore"); }
static void test_stdmore_threaded(void) { family_way("rec_stdmore", WAY_THREADED); }
static void test_stdmore_interposed(void) { family_way("rec_stdmore", WAY_INTERPOSED); }
static void test_meta(void) { family("rec_meta"); }

/* 8 threads x 100k reads: exactly 800k, 100k per named thread. */
static void test_threads(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32], prog[PATH_MAX + 64],
        iorec[PATH_MAX + 64];
    int32_t tids[8], pid;
    long counts[8] = { 0 }, unnamed[8] = { 0 }, total = 0;
    const char *names[8] = { 0 };
    int ntid = 0;
    long wrong = 0;
    struct evs e;

    if (!setup())
        return;
    fresh_dir("threads", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(prog, sizeof(prog), "%s/progs/rec_threads", bindir);
    snprintf(iorec, sizeof(iorec), "%s/iorecord", bindir);
    {
        char *argv[] = { iorec, "-o", trace, prog, NULL };

        CU_ASSERT_EQUAL_FATAL(run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = pid_of(&e, "rec_threads");
    for (size_t i = 0; i < e.n; i++) {
        const struct iot_event *ev = &e.v[i];
        int k;

        if (ev->pid != pid || ev->tid == pid)
            continue;
        for (k = 0; k < ntid && tids[k] != ev->tid; k++)
            ;
        if (k == ntid) {
            CU_ASSERT_FATAL(ntid < 8);
            tids[ntid++] = ev->tid;
        }
        if (ev->kind == IOT_EV_THREAD)
            names[k] = ev->name;
        if (ev->kind == IOT_EV_CALL) {
            if (ev->op != IOT_OP_READ || ev->size != 1 || ev->ret != 1)
                wrong++;
            if (!names[k] || strncmp(names[k], "worker-", 7) != 0)
                unnamed[k]++;
            counts[k]++;
            total++;
        }
    }
    CU_ASSERT_EQUAL(ntid, 8);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(total, 800000);
    for (int k = 0; k < ntid; k++) {
        CU_ASSERT_EQUAL(counts[k], 100000);
        CU_ASSERT(names[k] && !strncmp(names[k], "worker-", 7));
        /* A rename by another thread shows after the renamed one's next
         * call: worker-7 makes exactly 2 reads under its old name. */
        if (unnamed[k] > 2)
            printf("\n  thread %d: %ld reads before its new name\n", tids[k],
                   unnamed[k]);
        CU_ASSERT(unnamed[k] <= 2);
    }
    unload(&e);
}

/* The pid that opened a path ending in name, or -1. */
static int32_t opener(const struct evs *e, const char *name)
{
    size_t nl = strlen(name);

    for (size_t i = 0; i < e->n; i++) {
        const struct iot_event *ev = &e->v[i];

        if (ev->kind == IOT_EV_CALL && ev->op == IOT_OP_OPEN && ev->path &&
            strlen(ev->path) >= nl &&
            !strcmp(ev->path + strlen(ev->path) - nl, name))
            return ev->pid;
    }
    return -1;
}

/* Exit status of pid (-1 when none recorded); *sig its signal or 0. */
static int exit_of(const struct evs *e, int32_t pid, int *sig)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_EXIT && e->v[i].pid == pid) {
            *sig = (e->v[i].has & IOT_HAS_SIGNAL) ? e->v[i].signal : 0;
            return e->v[i].status;
        }
    return -1;
}

/* Process records of pid; *ppid the parent of the last one. */
static int processes_of(const struct evs *e, int32_t pid, int32_t *ppid)
{
    int n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_PROCESS && e->v[i].pid == pid) {
            *ppid = e->v[i].ppid;
            n++;
        }
    return n;
}

/*
 * Record test program prog under the launcher, its one argument a fresh
 * directory DIR/run: the trace is DIR/trace.zst, DIR the fresh directory
 * `name` (fresh_dir). Returns the wait status.
 */
static int record_in_dir(const char *name, const char *prog, char *trace,
                         size_t cap)
{
    char dir[PATH_MAX], run_dir[PATH_MAX + 8];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], progpath[PATH_MAX + 64];

    fresh_dir(name, dir, sizeof(dir));
    snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
    mkdir(run_dir, 0755);
    snprintf(trace, cap, "%s/trace.zst", dir);
    paths(prog, iorec, lib, progpath);
    {
        char *argv[] = { iorec, "-o", trace, progpath, run_dir, NULL };

        return run(argv, NULL, NULL);
    }
}

/* fork + exec, vfork + exec, posix_spawn, a killed child: all recorded. */
static void test_forkexec(void)
{
    char trace[PATH_MAX + 32];
    int32_t parent, forked, vforked, spawned, ppid = 0;
    int sig = -1, killed = 0;
    struct evs e;

    if (!setup())
        return;
    CU_ASSERT_EQUAL_FATAL(record_in_dir("forkexec", "rec_forkexec", trace,
                                        sizeof(trace)), 0);
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    parent = opener(&e, "/parent.dat");
    forked = opener(&e, "/forked.dat");
    vforked = opener(&e, "/vexec.dat");
    spawned = opener(&e, "/spawn.dat");
    CU_ASSERT(parent > 0 && forked > 0 && vforked > 0 && spawned > 0);
    CU_ASSERT_EQUAL(opener(&e, "/parent-end.dat"), parent);
    /* The forked child keeps recording, and so does the image it execs. */
    CU_ASSERT_EQUAL(opener(&e, "/exec.dat"), forked);
    CU_ASSERT_EQUAL(processes_of(&e, forked, &ppid), 2);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, forked, &sig), 3);
    CU_ASSERT_EQUAL(processes_of(&e, vforked, &ppid), 1);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, vforked, &sig), 4);
    CU_ASSERT_EQUAL(processes_of(&e, spawned, &ppid), 1);
    CU_ASSERT_EQUAL(ppid, parent);
    CU_ASSERT_EQUAL(exit_of(&e, spawned, &sig), 5);
    CU_ASSERT_EQUAL(exit_of(&e, parent, &sig), 0);
    CU_ASSERT_EQUAL(sig, 0);
    /* The killed child cannot say so itself: its parent's waitpid does. */
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_EXIT && e.v[i].status == 128 + SIGKILL &&
            (e.v[i].has & IOT_HAS_SIGNAL) && e.v[i].signal == SIGKILL)
            killed++;
    CU_ASSERT_EQUAL(killed, 1);
    unload(&e);
}

/* Calls of pid with op (and ret when ret_only is set). */
static long count_op(const struct evs *e, int32_t pid, unsigned op,
                     int ret_only, int64_t ret)
{
    long n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_CALL && e->v[i].pid == pid &&
            e->v[i].op == op && (!ret_only || e->v[i].ret == ret))
            n++;
    return n;
}

/*
 * Closing every fd and dup2 onto every high fd leaves the trace whole (the
 * trace fd is in the program's table, hidden from it): under the launcher,
 * and preloaded without it (preload != 0).
 */
static void closeall(int preload)
{
    char dir[PATH_MAX], run_dir[PATH_MAX + 8], trace[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    struct rlimit rl;
    int32_t pid;
    long lim;
    int sig;
    struct evs e;

    if (!setup())
        return;
    fresh_dir(preload ? "closeall-preload" : "closeall", dir, sizeof(dir));
    snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
    mkdir(run_dir, 0755);
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    paths("rec_closeall", iorec, lib, prog);
    if (preload) {
        char env_pre[PATH_MAX + 80], env_out[PATH_MAX + 48];
        const char *env[] = { env_pre, env_out, NULL };
        char *argv[] = { prog, run_dir, NULL };

        snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s", lib);
        snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
        CU_ASSERT_EQUAL_FATAL(run(argv, env, NULL), 0);
    } else {
        char *argv[] = { iorec, "-o", trace, prog, run_dir, NULL };

        CU_ASSERT_EQUAL_FATAL(run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &rl), 0);
    lim = rl.rlim_cur > 4096 ? 4096 : (long)rl.rlim_cur;
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = pid_of(&e, "rec_closeall");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE, 0, 0), (lim - 3) + 101);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE, 1, 0), 101);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_CLOSE_RANGE, 0, 0), 3);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_DUP, 1, -1), 0);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_DUP, 0, 0), 100);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_WRITE, 1, 1), 1100);
    CU_ASSERT_EQUAL(exit_of(&e, pid, &sig), 0);
    unload(&e);
}

/* A signal handler doing I/O in the middle of wrapped calls. */
static void test_signals(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32], out[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    long handler_writes, recorded;
    char *text;
    int32_t pid;
    struct evs e;

    if (!setup())
        return;
    fresh_dir("signals", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    paths("rec_signals", iorec, lib, prog);
    {
        char *argv[] = { iorec, "-o", trace, prog, "300000", NULL };

        CU_ASSERT_EQUAL_FATAL(run(argv, NULL, out), 0);
    }
    text = slurp(out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    handler_writes = atol(text);
    free(text);
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = pid_of(&e, "rec_signals");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_READ, 1, 1), 300000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FWRITE, 1, 16), 300000);
    /* Handlers that interrupted the recorder itself were deferred, not lost. */
    recorded = count_op(&e, pid, IOT_OP_WRITE, 1, 1);
    CU_ASSERT(handler_writes > 0);
    CU_ASSERT_EQUAL(recorded, handler_writes);
    unload(&e);
}

/* kill -9 after 3 s: the trace reads and holds at least the first 2 s. */
static void test_kill9(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    char env_pre[PATH_MAX + 80], env_out[PATH_MAX + 48];
    const char *env[3] = { env_pre, env_out, NULL };
    struct timespec three = { 3, 0 };
    int64_t first = -1, last = -1;
    long writes = 0;
    pid_t pid;
    int st;
    struct evs e;

    if (!setup())
        return;
    fresh_dir("kill9", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    paths("rec_longrun", iorec, lib, prog);
    /* Preloaded directly, so the program itself gets the SIGKILL. */
    snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s", lib);
    snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
    {
        char *argv[] = { prog, NULL };

        pid = start(argv, env, NULL);
    }
    nanosleep(&three, NULL);
    kill(pid, SIGKILL);
    st = finish(pid);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_CALL && e.v[i].op == IOT_OP_WRITE) {
            if (first < 0)
                first = e.v[i].t;
            last = e.v[i].t;
            writes++;
        }
    printf("\n  kill -9 after 3 s: %ld writes over %.2f s recovered\n", writes,
           (double)(last - first) / 1e9);
    CU_ASSERT(last - first >= 2000000000LL);
    CU_ASSERT(writes >= 1000);
    unload(&e);
}

/* 400 short-lived threads: every stream flushed at thread exit, no loss. */
static void test_churn(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32];
    char iorec[PATH_MAX + 64], lib[PATH_MAX + 64], prog[PATH_MAX + 64];
    long threads = 0;
    int32_t pid;
    struct evs e;

    if (!setup())
        return;
    fresh_dir("churn", dir, sizeof(dir));
    snprintf(trace, sizeof(trace), "%s/trace.zst", dir);
    paths("rec_churn", iorec, lib, prog);
    {
        char *argv[] = { iorec, "-o", trace, prog, NULL };

        CU_ASSERT_EQUAL_FATAL(run(argv, NULL, NULL), 0);
    }
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = pid_of(&e, "rec_churn");
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].kind == IOT_EV_THREAD && e.v[i].pid == pid &&
            e.v[i].tid != pid)
            threads++;
    CU_ASSERT_EQUAL(threads, 400);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_READ, 1, 1), 800000);
    unload(&e);
}

/* Bytes moved by pid's calls of op (their ret summed). */
static long bytes_of(const struct evs *e, int32_t pid, unsigned op)
{
    long n = 0;

    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].kind == IOT_EV_CALL && e->v[i].pid == pid &&
            e->v[i].op == op && e->v[i].ret > 0)
            n += (long)e->v[i].ret;
    return n;
}

/*
 * 4 threads writing one stream at once, then 4 reading it: every call
 * with its bytes, and none of them taken for bytes of inline getc/putc
 * (the recorder holds the stream's lock from its check to its record).
 */
static void test_stdshare(void)
{
    char trace[PATH_MAX + 32];
    const long size = 4L * (50000 * 64 + 5000 * 2);
    int32_t pid;
    struct evs e;

    if (!setup())
        return;
    CU_ASSERT_EQUAL_FATAL(record_in_dir("stdshare", "rec_stdshare", trace,
                                        sizeof(trace)), 0);
    CU_ASSERT_EQUAL_FATAL(load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    pid = pid_of(&e, "rec_stdshare");
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FWRITE, 1, 64), 4 * 50000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_FPUTS, 1, 2), 4 * 5000);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_INLINE_PUT, 0, 0), 0);
    CU_ASSERT_EQUAL(count_op(&e, pid, IOT_OP_INLINE_GET, 0, 0), 0);
    CU_ASSERT_EQUAL(bytes_of(&e, pid, IOT_OP_FWRITE) +
                        bytes_of(&e, pid, IOT_OP_FPUTS), size);
    CU_ASSERT_EQUAL(bytes_of(&e, pid, IOT_OP_FREAD), size);
    unload(&e);
}

static void test_closeall(void) { closeall(0); }
static void test_closeall_preload(void) { closeall(1); }

static int suite_clean(void)
{
    char cmd[PATH_MAX + 32];

    if (tmpdir[0] && !getenv("IOSCOPE_KEEP")) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            return 0;
    }
    return 0;
}

void recorder_suite(void)
{
    CU_pSuite s = CU_add_suite("recorder", NULL, suite_clean);

    CU_add_test(s, "fd family: exact calls and transparency", test_posix);
    CU_add_test(s, "stdio family: exact calls and transparency", test_stdio);
    CU_add_test(s, "printf, scanf, wide, unlocked, inline getc/putc, std streams", test_stdmore);
    CU_add_test(s, "the same with a second thread: untimed repeats when threaded",
                test_stdmore_threaded);
    CU_add_test(s, "the same preloaded before another fread/fwrite interposer",
                test_stdmore_interposed);
    CU_add_test(s, "dup, copy, map, close_range: exact calls", test_fdops);
    CU_add_test(s, "fortified entry points: exact calls", test_fortify);
    CU_add_test(s, "metadata calls and directory streams: exact calls", test_meta);
    CU_add_test(s, "8 threads x 100k reads: exactly 800k events",
                test_threads);
    CU_add_test(s, "fork, exec, vfork, posix_spawn, killed child",
                test_forkexec);
    CU_add_test(s, "400 short-lived threads: no event lost", test_churn);
    CU_add_test(s, "4 threads on one stream: every call, no inline bytes",
                test_stdshare);
    CU_add_test(s, "close every fd, dup2 onto high fds", test_closeall);
    CU_add_test(s, "the same preloaded without the launcher", test_closeall_preload);
    CU_add_test(s, "signal handler I/O inside wrapped calls", test_signals);
    CU_add_test(s, "kill -9 after 3 s keeps the first 2 s", test_kill9);
}
