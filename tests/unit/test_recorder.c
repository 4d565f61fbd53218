/*
 * test_recorder.c - the recorder's call families, end to end through the
 * format reader (the processes, threads and signals are
 * test_recorder_procs.c's).
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
#include "rec_harness.h"
#include "unit.h"

/* Paths here are short temp paths; truncation would only fail a test. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

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
    char *text = rt_slurp(expfile), *save = NULL;
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

    rt_paths(prog, iorec, lib, progpath);
    snprintf(env_exp, sizeof(env_exp), "EXPECT_OUT=%s", expfile);
    if (!trace) {
        char *argv[] = { progpath, (char *)dir, extra, NULL };

        return rt_run(argv, env, NULL);
    }
    if (way == WAY_INTERPOSED) {
        char *argv[] = { progpath, (char *)dir, NULL };

        snprintf(env_pre, sizeof(env_pre), "LD_PRELOAD=%s:%s/../lib/test/count_stdio.so",
                 lib, rt_bindir);
        snprintf(env_out, sizeof(env_out), "IORECORD_OUTPUT=%s", trace);
        snprintf(env_count, sizeof(env_count), "COUNT_STDIO_OUT=%s", countfile);
        env[1] = env_pre;
        env[2] = env_out;
        env[3] = env_count;
        return rt_run(argv, env, NULL);
    } else {
        char *argv[] = { iorec, "-o", (char *)trace, "--", progpath,
                         (char *)dir, extra, NULL };

        return rt_run(argv, env, NULL);
    }
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

    if (!rt_setup())
        return;
    snprintf(name, sizeof(name), "%s%s", prog, way_dir[way]);
    rt_fresh_dir(name, dir, sizeof(dir));
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
    a = rt_slurp(er);
    b = rt_slurp(ep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    drop_addr_lines(a);
    drop_addr_lines(b);
    CU_ASSERT_STRING_EQUAL(a, b);
    if (way == WAY_INTERPOSED) {
        char *got = rt_slurp(counts), want[256];

        snprintf(want, sizeof(want),
                 "fread %ld fread_unlocked 0 fwrite %ld fwrite_unlocked 0\n",
                 lines_with(a, "op=fread "), lines_with(a, "op=fwrite "));
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, want);
        free(got);
    }
    free(a);
    free(b);
    CU_ASSERT_EQUAL_FATAL(rt_load(trace, &e), 0);
    CU_ASSERT_EQUAL(e.stats.chunks_damaged, 0);
    {
        /* the command line as the program got it */
        char want[sizeof(e.cmdline)];

        snprintf(want, sizeof(want), "%s/progs/%s %s%s", rt_bindir, prog, dir2,
                 way == WAY_THREADED ? " threaded" : "");
        CU_ASSERT_STRING_EQUAL(e.cmdline, want);
    }
    check_calls(&e, rt_pid_of(&e, prog), er);
    rt_unload(&e);
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

void recorder_suite(void)
{
    CU_pSuite s = CU_add_suite("recorder", NULL, rt_clean);

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
}
