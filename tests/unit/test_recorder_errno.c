/*
 * test_recorder_errno.c - errno is the program's: every wrapper the
 * recorder has, driven through a failing call (tests/progs/rec_errno.c),
 * from ordinary code and from a stub in anonymous executable memory (a
 * JIT's), with and without a perf map, with stacks on and off, leaves in
 * errno (and returns) exactly what the plain run does.
 *
 * The op table is the measure of coverage: every op of IOT_OPS is either
 * recorded by a case of the program, or listed in no_failing_form below
 * with the reason no wrapper of it can be made to fail.
 */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "iotrace.h"
#include "rec_harness.h"
#include "unit.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* Ops no wrapper records a failing call of, and why. */
static const struct {
    const char *op, *why;
} no_failing_form[] = {
    { "fdpath", "the recorder's own naming of an inherited fd, no call of the program's" },
    { "inline_put", "bytes inline putc macros moved, seen at the next stdio call; no call" },
    { "inline_get", "bytes inline getc macros moved, seen at the next stdio call; no call" },
    { "lost", "the recorder's own record of what it could not keep" },
    { "coverage", "the recorder's own record of what it follows" },
    { "tzset", "glibc's check of the time zone file inside a time call, which reports no error" },
};

/* The op of each case line ("MODE TAG OP RET ERRNO"): covered[op] set. */
static void mark_ops(const char *out, int *covered)
{
    char mode[16], tag[64], op[64];

    for (const char *line = out; *line;) {
        if (sscanf(line, "%15s %63s %63s", mode, tag, op) == 3) {
            int k = iot_op_from_name(op, strlen(op));

            if (k >= 0)
                covered[k] = 1;
        }
        line += strcspn(line, "\n");
        if (*line)
            line++;
    }
}

static size_t count_lines(const char *s, const char *needle)
{
    size_t n = 0;

    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* The first line where a and b differ, printed; 1 when they are equal. */
static int same_lines(const char *a, const char *b, const char *what)
{
    size_t line = 1;

    for (;;) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

        if (la != lb || memcmp(a, b, la) != 0) {
            printf("\n  %s, line %zu: plain '%.*s', recorded '%.*s'\n", what, line,
                   (int)la, a, (int)lb, b);
            return 0;
        }
        if (!a[la] || !b[lb])
            return !a[la] && !b[lb];
        a += la + 1;
        b += lb + 1;
        line++;
    }
}

/*
 * Run rec_errno DIR [map], recorded into trace (stacks on or off), or
 * plainly when trace is NULL; its output, malloc'ed, or NULL when it did
 * not exit 0 (*status: its wait status).
 */
static char *run_errno(const char *dir, const char *trace, int stacks, int map, int *status)
{
    char progpath[PATH_MAX + 64], iorec[PATH_MAX + 64], lib[PATH_MAX + 64];
    char out[PATH_MAX + 64];
    char *mapword = map ? "map" : NULL;
    const char *env[] = { NULL };

    rt_paths("rec_errno", iorec, lib, progpath);
    snprintf(out, sizeof(out), "%s/%s%s.out", dir, trace ? (stacks ? "stacks" : "nostacks") : "plain",
             map ? "_map" : "");
    if (!trace) {
        char *argv[] = { progpath, (char *)dir, mapword, NULL };

        *status = rt_run(argv, env, out);
    } else {
        char *argv[] = { iorec, stacks ? "--stacks" : "--no-stacks", "-o", (char *)trace, "--",
                         progpath, (char *)dir, mapword, NULL };

        *status = rt_run(argv, env, out);
    }
    if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
        return NULL;
    return rt_slurp(out);
}

/* Calls in the trace that carry errno, and how many of them a stack. */
static void trace_errnos(const char *trace, size_t *with_errno, size_t *stacked)
{
    struct evs e = { 0 };

    *with_errno = *stacked = 0;
    if (rt_load(trace, &e) != 0)
        return;
    for (size_t i = 0; i < e.n; i++) {
        const struct iot_event *ev = &e.v[i];

        if (ev->kind == IOT_EV_CALL && (ev->has & IOT_HAS_ERRNO)) {
            (*with_errno)++;
            *stacked += (ev->has & IOT_HAS_STACK) != 0;
        }
    }
    rt_unload(&e);
}

static void test_errno_every_wrapper(void)
{
    char dir[PATH_MAX], trace[PATH_MAX + 32];
    int covered[IOT_OP_COUNT] = { 0 }, status;
    char *plain;
    size_t ncases, nerr_first = 0;

    if (!rt_setup())
        return;
    if (rt_sanitized()) {
        /* the failing calls pass bad pointers on purpose (EFAULT), which the
           sanitizer's interceptors dereference first in the plain run */
        printf("\n  SKIP errno of every wrapper: a sanitizer build's interceptors fault on "
               "the bad pointers the failing calls pass\n");
        return;
    }
    rt_fresh_dir("errno", dir, sizeof(dir));
    plain = run_errno(dir, NULL, 0, 0, &status);
    if (!plain && WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        printf("\n  SKIP errno: writable executable memory is refused here\n");
        return;
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    ncases = count_lines(plain, "direct ");
    /* every case ran in both ways, and none of its children died */
    CU_ASSERT(ncases >= 250);
    CU_ASSERT_EQUAL(count_lines(plain, "jit "), ncases);
    CU_ASSERT_PTR_NULL(strstr(plain, "child-failed"));
    mark_ops(plain, covered);
    for (size_t i = 0; i < sizeof(no_failing_form) / sizeof(no_failing_form[0]); i++) {
        int k = iot_op_from_name(no_failing_form[i].op, strlen(no_failing_form[i].op));

        CU_ASSERT(k >= 0 && !covered[k]);   /* listed only when no case covers it */
        if (k >= 0)
            covered[k] = 1;
    }
    for (unsigned k = 0; k < IOT_OP_COUNT; k++)
        if (!covered[k]) {
            printf("\n  op %s: no failing case and no reason given\n", iot_op_name(k));
            CU_FAIL("an op of IOT_OPS is neither driven nor excused");
        }
    for (int stacks = 1; stacks >= 0; stacks--)
        for (int map = 0; map <= 1; map++) {
            char what[64];
            char *rec;
            size_t nerr, nstacked;

            snprintf(trace, sizeof(trace), "%s/t%d%d.zst", dir, stacks, map);
            snprintf(what, sizeof(what), "stacks %s, perf map %s", stacks ? "on" : "off",
                     map ? "present" : "absent");
            rec = run_errno(dir, trace, stacks, map, &status);
            CU_ASSERT_PTR_NOT_NULL(rec);
            if (!rec)
                continue;
            CU_ASSERT(same_lines(plain, rec, what));
            /* the failing calls were recorded, with stacks when on */
            trace_errnos(trace, &nerr, &nstacked);
            printf("\n  %s: %zu cases, %zu calls with errno recorded, %zu with a stack\n",
                   what, ncases, nerr, nstacked);
            /* the same failing calls recorded whatever the stacks and the map */
            CU_ASSERT(nerr >= ncases);
            if (!nerr_first)
                nerr_first = nerr;
            CU_ASSERT_EQUAL(nerr, nerr_first);
            if (stacks) {
                CU_ASSERT(nstacked >= ncases);
            } else {
                CU_ASSERT_EQUAL(nstacked, 0);
            }
            free(rec);
        }
    free(plain);
}

void recorder_errno_suite(void)
{
    CU_pSuite s = CU_add_suite("recorder_errno", NULL, rt_clean);

    CU_add_test(s, "every wrapper's failing call keeps the plain run's errno "
                   "(direct and JIT code, perf map or none, stacks on and off)",
                test_errno_every_wrapper);
}
