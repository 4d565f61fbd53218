/*
 * Configuration and fingerprints: parameters from files and --set, errors
 * naming the key, default normalisation (pids, temp names, load addresses),
 * and what must and must not change a fingerprint.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "issue.h"
#include "registry.h"
#include "unit.h"

static double param(const struct config *c, const char *rule, const char *name)
{
    int ri = config_rule_index(c, rule, strlen(rule));

    for (size_t j = 0; ri >= 0 && j < c->rules[ri]->nparams; j++)
        if (strcmp(c->rules[ri]->params[j].name, name) == 0)
            return c->params[ri][j];
    return -1;
}

static int enabled(const struct config *c, const char *rule)
{
    return c->enabled[config_rule_index(c, rule, strlen(rule))];
}

static void test_defaults(void)
{
    struct config c;
    size_t nbuiltin;

    /* every rule the registry has, each enabled by default */
    rules_all(&nbuiltin);
    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(c.nrules, nbuiltin);
    CU_ASSERT(nbuiltin > 0);
    for (size_t i = 0; i < c.nrules; i++)
        CU_ASSERT(c.enabled[i]);
    CU_ASSERT_EQUAL(param(&c, "main_thread", "scope"), 0);     /* "waited" */
    /* modelled costs now (docs/analyzer.md, "The cost model"): one sync
       (2 ms modelled) on a thread others wait on is over it */
    CU_ASSERT_EQUAL(param(&c, "main_thread", "max_once_ms"), 1);
    CU_ASSERT_EQUAL(param(&c, "main_thread", "max_continual_ms"), 500);
    CU_ASSERT_EQUAL(param(&c, "small_buffer", "buffer_bytes"), 4096);
    CU_ASSERT_EQUAL(param(&c, "small_buffer", "min_ops"), 20);
    /* a modelled cost now, 0: the count decides, the severity weighs it */
    CU_ASSERT_EQUAL(param(&c, "small_buffer", "min_continual_ms"), 0);
    CU_ASSERT_EQUAL(param(&c, "repeat_read", "threshold"), 5);
    CU_ASSERT_EQUAL(param(&c, "repeat_read", "window_ms"), 17);
    CU_ASSERT_EQUAL(param(&c, "leak", "min_count"), 3);
    CU_ASSERT_EQUAL(param(&c, "random_read", "min_bytes"), 262144);
    CU_ASSERT_EQUAL(param(&c, "sync_storm", "min_syncs"), 20);
    CU_ASSERT_EQUAL(param(&c, "repeat_open", "min_opens"), 100);
    CU_ASSERT_EQUAL(param(&c, "redundant_read", "min_factor"), 4);
    CU_ASSERT_EQUAL(param(&c, "write_amplification", "min_bytes"), 1048576);
    CU_ASSERT_EQUAL(param(&c, "metadata_storm", "min_missing"), 1000);
    CU_ASSERT_EQUAL(param(&c, "metadata_storm", "min_repeats"), 50);
    CU_ASSERT_EQUAL(param(&c, "random_write", "min_writes"), 20);
    CU_ASSERT_DOUBLE_EQUAL(param(&c, "random_read", "min_random_ratio"), 0.2, 1e-12);
    CU_ASSERT_EQUAL(c.gap_ns, 8000000);
    CU_ASSERT(config_ignored(&c, "/proc/self/maps"));
    CU_ASSERT(config_ignored(&c, "/dev/null"));
    CU_ASSERT(!config_ignored(&c, "/data/proc/x"));
    config_release(&c);
}

static void test_file_and_set(void)
{
    struct config c;
    char err[256];

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_load_string(&c,
        "{\"rules\": {\"small_buffer\": {\"min_ops\": 10, \"enabled\": false},"
        " \"repeat_read\": {\"window_ms\": 30.5}},"
        " \"continual_gap_ms\": 2, \"main_thread_names\": [\"^ui$\"],"
        " \"ignore_paths\": [\"\\\\.tmp$\"],"
        " \"normalize\": [{\"pattern\": \"run-[0-9]+\", \"replace\": \"run-N\"}]}", "t", err), 0);
    CU_ASSERT_EQUAL(param(&c, "small_buffer", "min_ops"), 10);
    CU_ASSERT(!enabled(&c, "small_buffer"));
    CU_ASSERT_DOUBLE_EQUAL(param(&c, "repeat_read", "window_ms"), 30.5, 1e-12);
    CU_ASSERT_EQUAL(c.gap_ns, 2000000);
    CU_ASSERT(config_main_name(&c, "ui"));
    CU_ASSERT(!config_main_name(&c, "ui-2"));
    CU_ASSERT(config_ignored(&c, "/x/a.tmp"));
    CU_ASSERT(!config_ignored(&c, "/dev/null"));   /* the list replaces the default */
    /* --set after the file wins */
    CU_ASSERT_EQUAL(config_set(&c, "small_buffer.min_ops=7", err), 0);
    CU_ASSERT_EQUAL(param(&c, "small_buffer", "min_ops"), 7);
    CU_ASSERT_EQUAL(config_set(&c, "small_buffer.enabled=true", err), 0);
    CU_ASSERT(enabled(&c, "small_buffer"));
    CU_ASSERT_EQUAL(config_set(&c, "random_read.min_random_ratio=0.5", err), 0);
    CU_ASSERT_DOUBLE_EQUAL(param(&c, "random_read", "min_random_ratio"), 0.5, 1e-12);
    {
        char *n = config_normalize(&c, "/var/run-1234/x");

        CU_ASSERT_STRING_EQUAL(n, "/var/run-N/x");
        free(n);
    }
    config_release(&c);
}

static void expect_error(const char *json, const char *msg)
{
    struct config c;
    char err[256] = "";

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_load_string(&c, json, "c.json", err), -1);
    if (!strstr(err, msg))
        fprintf(stderr, "\nexpected '%s' in '%s'\n", msg, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
    config_release(&c);
}

static void test_errors_name_the_key(void)
{
    struct config c;
    char err[256] = "";

    expect_error("{\"rulez\": {}}", "config 'c.json': rulez: unknown key");
    expect_error("{\"rules\": {\"small_bufer\": {}}}", "rules.small_bufer: unknown rule");
    expect_error("{\"rules\": {\"small_buffer\": {\"min_opps\": 1}}}",
                 "rules.small_buffer.min_opps: unknown parameter");
    expect_error("{\"rules\": {\"small_buffer\": {\"min_ops\": \"20\"}}}",
                 "rules.small_buffer.min_ops: expected a non-negative integer");
    expect_error("{\"rules\": {\"small_buffer\": {\"min_ops\": 2.5}}}",
                 "rules.small_buffer.min_ops: expected a non-negative integer");
    expect_error("{\"rules\": {\"leak\": {\"enabled\": 1}}}", "rules.leak.enabled: expected true or false");
    expect_error("{\"continual_gap_ms\": \"8\"}", "continual_gap_ms: expected a non-negative number");
    expect_error("{\"ignore_paths\": [\"(\"]}", "ignore_paths[0]: bad pattern '('");
    expect_error("{\"normalize\": [{\"pattern\": \"x\", \"with\": \"y\"}]}", "normalize[0].with: unknown key");
    expect_error("{\"rules\": ", "config 'c.json': line 1");
    expect_error("{\"rules\": {\"main_thread\": {\"scope\": \"some\"}}}",
                 "rules.main_thread.scope: expected one of the words its help lists (ioanalyze rules)");
    expect_error("{\"rules\": {\"main_thread\": {\"scope\": 1}}}",
                 "rules.main_thread.scope: expected one of the words its help lists (ioanalyze rules)");

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_set(&c, "small_buffer.nope=1", err), -1);
    CU_ASSERT_STRING_EQUAL(err, "--set 'small_buffer.nope=1': rule small_buffer has no parameter 'nope'");
    CU_ASSERT_EQUAL(config_set(&c, "nope.x=1", err), -1);
    CU_ASSERT_STRING_EQUAL(err, "--set 'nope.x=1': unknown rule 'nope'");
    CU_ASSERT_EQUAL(config_set(&c, "small_buffer.min_ops=lots", err), -1);
    CU_ASSERT_STRING_EQUAL(err, "--set 'small_buffer.min_ops=lots': small_buffer.min_ops: expected a non-negative integer");
    CU_ASSERT_EQUAL(config_set(&c, "small_buffer", err), -1);
    /* a choice parameter takes one of its words, in --set and in a config */
    CU_ASSERT_EQUAL(config_set(&c, "main_thread.scope=all", err), 0);
    CU_ASSERT_EQUAL(param(&c, "main_thread", "scope"), 1);
    /* the old default's word is still accepted (its own index; the rule
       reads it as "waited") */
    CU_ASSERT_EQUAL(config_set(&c, "main_thread.scope=multithreaded", err), 0);
    CU_ASSERT_EQUAL(param(&c, "main_thread", "scope"), 2);
    CU_ASSERT_EQUAL(config_set(&c, "main_thread.scope=1", err), -1);
    CU_ASSERT_STRING_EQUAL(err, "--set 'main_thread.scope=1': main_thread.scope: expected one of "
                                "the words its help lists (ioanalyze rules)");
    CU_ASSERT_EQUAL(config_set(&c, "main_thread.scope=al", err), -1);
    CU_ASSERT_EQUAL(config_select(&c, "leak,bogus", 1, err), -1);
    CU_ASSERT_STRING_EQUAL(err, "--rules: unknown rule 'bogus' (see 'ioanalyze rules')");
    CU_ASSERT_EQUAL(config_select(&c, "leak,random_read", 1, err), 0);
    CU_ASSERT(enabled(&c, "leak") && enabled(&c, "random_read") && !enabled(&c, "small_buffer"));
    CU_ASSERT_EQUAL(config_select(&c, "leak", 0, err), 0);
    CU_ASSERT(!enabled(&c, "leak") && enabled(&c, "random_read"));
    config_release(&c);
}

static void check_norm(const struct config *c, const char *in, const char *want)
{
    char *got = config_normalize(c, in);

    if (strcmp(got, want))
        fprintf(stderr, "\nnormalize '%s': expected '%s', got '%s'\n", in, want, got);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

static void test_default_normalize(void)
{
    struct config c;

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    check_norm(&c, "/proc/4242/status", "/proc/<pid>/status");
    check_norm(&c, "/proc/self/status", "/proc/self/status");
    check_norm(&c, "/tmp/tmpk3j2_x9a/out.db", "/tmp/tmp*/out.db");
    check_norm(&c, "/tmp/build.Xa81Qz", "/tmp/build.*");
    check_norm(&c, "/tmp/build.Xa81Qz/obj/a.o", "/tmp/build.*/obj/a.o");
    check_norm(&c, "/tmp/tmp.aB3dE5fG7h", "/tmp/tmp.*");
    /* all lower-case suffixes, right under a temp directory */
    check_norm(&c, "/tmp/build.neocgg/obj/a.o", "/tmp/build.*/obj/a.o");
    check_norm(&c, "/tmp/tmp.abcdefghij", "/tmp/tmp.*");
    check_norm(&c, "/var/tmp/x.y.abcdef", "/var/tmp/x.y.*");
    /* ... any directory named tmp, temp or _temp: a TMPDIR in a project, a
       CI runner's temp directory */
    check_norm(&c, "/tmp/ci.lJj2Yx/project/tmp/tmp.wtroupznhf/app.db",
               "/tmp/ci.*/project/tmp/tmp.*/app.db");
    check_norm(&c, "/home/runner/work/_temp/build.neocgg/a.o",
               "/home/runner/work/_temp/build.*/a.o");
    check_norm(&c, "/srv/Temp/x.abcdefg", "/srv/Temp/x.*");
    /* mktemp(1)'s template, tmp.XXXXXXXXXX, wherever it was made */
    check_norm(&c, "/srv/x/tmp.wtroupznhf/app.db", "/srv/x/tmp.*/app.db");
    /* ... but not another directory's lower-case suffixes */
    check_norm(&c, "/home/u/attempt/notes.backup", "/home/u/attempt/notes.backup");
    check_norm(&c, "/srv/x/tmp.wtroupzn/app.db", "/srv/x/tmp.wtroupzn/app.db");
    check_norm(&c, "/srv/tmpl/notes.backup", "/srv/tmpl/notes.backup");
    /* mkstemp("<prefix>XXXXXX") names of gcc, sort -T and sed -i, anywhere */
    check_norm(&c, "/tmp/ccDNH40F.s", "/tmp/cc*.s");
    check_norm(&c, "/tmp/ccxMCLrN.res", "/tmp/cc*.res");
    check_norm(&c, "/build/obj/cc4xHpNn.o", "/build/obj/cc*.o");
    check_norm(&c, "/work/out/sort1lF6ZS", "/work/out/sort*");
    check_norm(&c, "/etc/sedQ1w2E3", "/etc/sed*");
    /* git's tmp_pack_XXXXXX, and temp names holding a pid (redis) */
    check_norm(&c, "/r/.git/objects/pack/tmp_pack_pC7x3d", "/r/.git/objects/pack/tmp_pack_*");
    check_norm(&c, "/srv/r/temp-rewriteaof-27208.aof", "/srv/r/temp-rewriteaof-<n>.aof");
    check_norm(&c, "/srv/r/temp-27208.rdb", "/srv/r/temp-<n>.rdb");
    check_norm(&c, "/srv/r/appendonly.aof.1.incr.aof", "/srv/r/appendonly.aof.1.incr.aof");
    check_norm(&c, "/src/template-2024.txt", "/src/template-2024.txt");
    /* ... and not a name that merely starts so */
    check_norm(&c, "/usr/bin/ccache", "/usr/bin/ccache");
    check_norm(&c, "/src/sorting.c", "/src/sorting.c");
    check_norm(&c, "/src/cc_parser.c", "/src/cc_parser.c");
    /* ordinary names stay */
    check_norm(&c, "/home/u/notes.backup", "/home/u/notes.backup");
    check_norm(&c, "/data/app.log", "/data/app.log");
    check_norm(&c, "/tmp/output.txt", "/tmp/output.txt");
    check_norm(&c, "/tmp/work/notes.backup", "/tmp/work/notes.backup");
    /* in a temp directory a suffix cannot be told from a random one */
    check_norm(&c, "/srv/tmp/notes.backup", "/srv/tmp/notes.*");
    check_norm(&c, "worker+0x1c (/usr/lib/libfoo.so)", "worker (/usr/lib/libfoo.so)");
    /* a frame without a symbol keeps its module offset: it is all that tells
       two functions apart, and it does not depend on the load address */
    check_norm(&c, "libfoo.so+0x2bf1a", "libfoo.so+0x2bf1a");
    check_norm(&c, "libfoo.so+0x2bf1a\nlibfoo.so+0x14db2", "libfoo.so+0x2bf1a\nlibfoo.so+0x14db2");
    check_norm(&c, "0x7f3a12b4c000 (?)", "0x* (?)");
    config_release(&c);
}

static void test_fingerprints(void)
{
    struct config c;
    char a[17], b[17];
    const char *s1 = "save+0x1c (/usr/bin/app)\nmain+0x4a (/usr/bin/app)\n"
                     "__libc_start_main+0x85 (/lib/libc.so.6)\n_start+0x2a (/usr/bin/app)\nextra+0x1 (x)";
    const char *s2 = "save+0x2c (/usr/bin/app)\nmain+0x5a (/usr/bin/app)\n"
                     "__libc_start_main+0x95 (/lib/libc.so.6)\n_start+0x3a (/usr/bin/app)\nother+0x9 (y)";

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    /* other temp dir, other offsets, frames past the 4th: same problem */
    issue_fingerprint(&c, "small_buffer", "/tmp/tmpk3j2_x9a/out.db", s1, a);
    issue_fingerprint(&c, "small_buffer", "/tmp/tmpzz81_qqa/out.db", s2, b);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_EQUAL(strlen(a), 16);
    issue_fingerprint(&c, "leak", "/proc/100/fd", "", a);
    issue_fingerprint(&c, "leak", "/proc/200/fd", NULL, b);
    CU_ASSERT_STRING_EQUAL(a, b);
    /* different rule, path or caller: different problems */
    issue_fingerprint(&c, "small_buffer", "/data/a", s1, a);
    issue_fingerprint(&c, "random_write", "/data/a", s1, b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    issue_fingerprint(&c, "small_buffer", "/data/b", s1, b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    issue_fingerprint(&c, "small_buffer", "/data/a", "load+0x1 (/usr/bin/app)\nmain+0x4a (/usr/bin/app)", b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    /* no stack (strace) fingerprints like an empty one */
    issue_fingerprint(&c, "small_buffer", "/data/a", NULL, a);
    issue_fingerprint(&c, "small_buffer", "/data/a", "", b);
    CU_ASSERT_STRING_EQUAL(a, b);
    config_release(&c);
}

/* "/data/" + 30 a's + "/fN!": "^/data/(a+)+$" almost matches it and, with no
   limit, backtracks through 2^30 ways of splitting the a's (issue 15). */
static void bomb_path(char *buf, size_t size, int n)
{
    snprintf(buf, size, "/data/%.30s/f%d!", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", n);
}

static void test_pattern_limits(void)
{
    struct config c;
    char err[256], path[64], *n;
    const char *msg;

    /* ignore_paths: the first path over the limit fails the configuration,
       naming the config, the key, the pattern and the path; the path is
       not ignored, and the later ones are not even tried (no more CPU) */
    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_load_string(&c, "{\"ignore_paths\": [\"^/data/(a+)+$\"]}", "bomb.json", err), 0);
    CU_ASSERT_PTR_NULL(config_failure(&c));
    for (int i = 0; i < 1000; i++) {
        bomb_path(path, sizeof(path), i);
        CU_ASSERT(!config_ignored(&c, path));
    }
    msg = config_failure(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
    CU_ASSERT_STRING_EQUAL(msg, "config 'bomb.json': ignore_paths[0]: pattern '^/data/(a+)+$' exceeds"
                                " the PCRE2 match limit on '/data/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/f0!'"
                                " (a nested repeat such as (a+)+ backtracks without end; rewrite the pattern)");
    CU_ASSERT(!config_ignored(&c, "/data/aaa"));   /* it matches, but the run is failing */
    config_release(&c);

    /* normalize: the text comes back untouched by every pattern */
    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_load_string(&c,
        "{\"normalize\": [{\"pattern\": \"^/data/(a+)+$\", \"replace\": \"x\"}]}", "n.json", err), 0);
    bomb_path(path, sizeof(path), 7);
    n = config_normalize(&c, path);
    CU_ASSERT_STRING_EQUAL(n, path);
    free(n);
    CU_ASSERT_PTR_NOT_NULL(strstr(config_failure(&c), "config 'n.json': normalize[0]: pattern '^/data/(a+)+$'"));
    n = config_normalize(&c, "/proc/12/fd");
    CU_ASSERT_STRING_EQUAL(n, "/proc/12/fd");
    free(n);
    config_release(&c);

    /* main_thread_names, and a thread name as long as a path */
    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    CU_ASSERT_EQUAL(config_load_string(&c, "{\"main_thread_names\": [\"^(a|aa)+$\"]}", "m.json", err), 0);
    CU_ASSERT(config_main_name(&c, "aaaa"));
    CU_ASSERT_PTR_NULL(config_failure(&c));
    CU_ASSERT(!config_main_name(&c, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(config_failure(&c));
    CU_ASSERT_PTR_NOT_NULL(strstr(config_failure(&c), "aaaaa...'"));  /* cut, on one line */
    config_release(&c);
}

/* Ordinary patterns over a path of PATH_MAX - 1 bytes made to work them
   hard stay within the limits; a pattern that runs out of JIT stack on it
   is matched again by the interpreter instead of silently not matching. */
static void test_pattern_limits_spare_long_paths(void)
{
    /* as JSON strings; whether they match the path "/x/x/.../x" */
    static const struct { const char *re; int match; } pats[] = {
        {"^(/[^/]*)*$", 1}, {"^(?:/[^/]+)+/x$", 1}, {"^/x/(?:[^/]+/)*x$", 1},
        {".*/x/.*\\\\.tmp$", 0}, {"(.*)/(.*)\\\\.(.*)$", 0}, {"^(.*)/(.*)x$", 1},
    };
    struct config c;
    char err[256], *path = malloc(4096), *n;

    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    for (size_t i = 0; i < 4094; i += 2)
        memcpy(path + i, "/x", 2);
    path[4094] = '\0';
    for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
        char json[256];

        CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
        snprintf(json, sizeof(json), "{\"ignore_paths\": [\"%s\"], \"normalize\": [{\"pattern\": \"%s\"}]}",
                 pats[i].re, pats[i].re);
        CU_ASSERT_EQUAL(config_load_string(&c, json, "long.json", err), 0);
        CU_ASSERT_EQUAL(config_ignored(&c, path), pats[i].match);
        /* a match is of the whole path, replaced by nothing */
        n = config_normalize(&c, path);
        CU_ASSERT_PTR_NOT_NULL(n);
        if (n)
            CU_ASSERT_EQUAL(strlen(n), pats[i].match ? 0 : 4094);
        free(n);
        if (config_failure(&c))
            fprintf(stderr, "\n%s\n", config_failure(&c));
        CU_ASSERT_PTR_NULL(config_failure(&c));
        config_release(&c);
    }
    free(path);
}

void config_suite(void)
{
    CU_pSuite s = CU_add_suite("config", NULL, NULL);

    CU_add_test(s, "defaults match the SPEC", test_defaults);
    CU_add_test(s, "file then --set", test_file_and_set);
    CU_add_test(s, "errors name the key", test_errors_name_the_key);
    CU_add_test(s, "default normalize patterns", test_default_normalize);
    CU_add_test(s, "fingerprints", test_fingerprints);
    CU_add_test(s, "a pattern over the PCRE2 limits fails the config", test_pattern_limits);
    CU_add_test(s, "the PCRE2 limits spare ordinary patterns on long paths",
                test_pattern_limits_spare_long_paths);
}
