/*
 * CI helpers: issue files, baselines, the diff of two issue sets and SARIF.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "iotrace.h"
#include "issue.h"
#include "unit.h"

static char tmpdir[] = "/tmp/ioscope-ci-test.XXXXXX";

static int ci_init(void)
{
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int ci_clean(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Write text to a file in the temporary directory; returns its path. */
static const char *put(const char *name, const char *text)
{
    static char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

static json_t *issue(const char *rule, const char *path, const char *fp)
{
    return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:{s:i}}", "tag", "io", "type",
                     strcmp(rule, "leak") == 0 ? 4 : 2, "rule", rule, "path", path,
                     "fingerprint", fp, "message", "fix it", "pid", 42, "detail",
                     "occurrences", 1);
}

static const char *fp_at(const json_t *arr, size_t i)
{
    return json_string_value(json_object_get(json_array_get(arr, i), "fingerprint"));
}

static void test_load(void)
{
    char err[IOT_ERRBUF_SIZE];
    json_t *v;
    const char *p;

    p = put("a.json", "[\n {\"rule\":\"leak\",\"fingerprint\":\"aa\"},\n"
                      " {\"rule\":\"small_buffer\",\"fingerprint\":\"bb\"}\n]\n");
    CU_ASSERT_EQUAL_FATAL(issues_load(p, &v, err), 0);
    CU_ASSERT_EQUAL(json_array_size(v), 2);
    CU_ASSERT_STRING_EQUAL(fp_at(v, 1), "bb");
    json_decref(v);

    p = put("a.jsonl", "{\"rule\":\"leak\",\"fingerprint\":\"aa\"}\n\n"
                       "{\"rule\":\"leak\",\"fingerprint\":\"cc\"}\n");
    CU_ASSERT_EQUAL_FATAL(issues_load(p, &v, err), 0);
    CU_ASSERT_EQUAL(json_array_size(v), 2);
    CU_ASSERT_STRING_EQUAL(fp_at(v, 1), "cc");
    json_decref(v);

    p = put("empty.jsonl", "");  /* --format jsonl of a clean run */
    CU_ASSERT_EQUAL_FATAL(issues_load(p, &v, err), 0);
    CU_ASSERT_EQUAL(json_array_size(v), 0);
    json_decref(v);

    p = put("bad.jsonl", "{\"rule\":\"leak\"}\n{\"rule\":\n");
    CU_ASSERT_EQUAL(issues_load(p, &v, err), -1);
    CU_ASSERT_PTR_NULL(v);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.jsonl"));

    p = put("bad.json", "[{\"rule\":\"leak\"}, 3]");
    CU_ASSERT_EQUAL(issues_load(p, &v, err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "element 1"));

    CU_ASSERT_EQUAL(issues_load("/nonexistent/issues.json", &v, err), -1);
    CU_ASSERT_STRING_EQUAL(err, "cannot open issues '/nonexistent/issues.json': "
                                "No such file or directory");
}

static void test_detect(void)
{
    static const char *yes[] = {
        "[]", "  [\n{\"tag\":\"io\"}]",
        "{\"tag\":\"io\",\"rule\":\"leak\",\"fingerprint\":\"ab\"}\n{\"rule\":",
        "",
    };
    static const char *no[] = {
        "{\"ev\":\"process\",\"pid\":1}\n",
        "{\"ev\":\"call\",\"rule\":\"x\"}\n",
        "4214  17:57:30.775915 execve(\"./t\", [\"./t\"], 0x7ff) = 0\n",
        "\x28\xb5\x2f\xfd\x00",
    };

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        CU_ASSERT_EQUAL(issues_detect(yes[i], strlen(yes[i])), 1);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        CU_ASSERT_EQUAL(issues_detect(no[i], strlen(no[i])), 0);
}

/* The records of a JSON array of issues (taken). */
static struct issue_list list_of(json_t *a)
{
    struct issue_list l = {0};

    CU_ASSERT_EQUAL_FATAL(issue_list_from_json(&l, a), 0);
    json_decref(a);
    return l;
}

static const char *fp_of(const struct issue_list *l, size_t i)
{
    return i < l->n ? l->v[i]->fingerprint : NULL;
}

static void test_baseline(void)
{
    struct issue_list now = list_of(json_pack("[o,o,o,o]", issue("leak", "/a", "f1"),
                                              issue("leak", "/b", "f2"),
                                              issue("small_buffer", "/c", "f3"),
                                              issue("leak", "/d", "f4")));
    struct issue_list base = list_of(json_pack("[o,o,o]", issue("leak", "/a", "f1"),
                                               issue("small_buffer", "/c", "f3"),
                                               issue("leak", "/x", "f9")));
    struct issue_list none = {0};

    CU_ASSERT_EQUAL(issues_drop_baseline(&now, &none), 0);
    CU_ASSERT_EQUAL(now.n, 4);
    CU_ASSERT_EQUAL(issues_drop_baseline(&now, &base), 2);
    CU_ASSERT_EQUAL_FATAL(now.n, 2);
    CU_ASSERT_STRING_EQUAL(fp_of(&now, 0), "f2");  /* order kept */
    CU_ASSERT_STRING_EQUAL(fp_of(&now, 1), "f4");
    CU_ASSERT_EQUAL(issues_drop_baseline(&now, &now), 2);
    CU_ASSERT_EQUAL(now.n, 0);
    issue_list_release(&now);
    issue_list_release(&base);
}

/* The severity cut: medium stays, low goes, an issue without one counts as medium. */
static void test_drop_below(void)
{
    json_t *low = issue("leak", "/l", "f1"), *high = issue("leak", "/h", "f2");
    struct issue_list l;

    json_object_set_new(low, "severity", json_string("low"));
    json_object_set_new(high, "severity", json_string("high"));
    l = list_of(json_pack("[o,o,o]", low, issue("leak", "/m", "f3"), high));
    CU_ASSERT_EQUAL(issues_drop_below(&l, ISSUE_MEDIUM), 1);
    CU_ASSERT_EQUAL_FATAL(l.n, 2);
    CU_ASSERT_STRING_EQUAL(fp_of(&l, 0), "f3");
    CU_ASSERT_STRING_EQUAL(fp_of(&l, 1), "f2");
    CU_ASSERT_EQUAL(issues_drop_below(&l, ISSUE_HIGH), 1);
    CU_ASSERT_STRING_EQUAL(fp_of(&l, 0), "f2");
    issue_list_release(&l);
}

/* The diff of copies of base and next (the diff takes its sides). */
static void check_diff(const json_t *base, const json_t *next, size_t want_new,
                       size_t want_fixed, size_t want_unchanged)
{
    struct issue_list b = list_of(json_deep_copy(base)), n = list_of(json_deep_copy(next));
    struct issue_list added = {0}, fixed = {0}, kept = {0};

    CU_ASSERT_EQUAL_FATAL(issues_diff(&b, &n, &added, &fixed, &kept), 0);
    CU_ASSERT_EQUAL(b.n + n.n, 0);
    CU_ASSERT_EQUAL(added.n, want_new);
    CU_ASSERT_EQUAL(fixed.n, want_fixed);
    CU_ASSERT_EQUAL(kept.n, want_unchanged);
    issue_list_release(&added);
    issue_list_release(&fixed);
    issue_list_release(&kept);
}

/* Each outcome: unchanged, new, fixed, and a changed stack (another
 * fingerprint for the same rule and file: one new and one fixed). */
static void test_diff(void)
{
    json_t *base = json_pack("[o,o]", issue("leak", "/a", "f1"), issue("small_buffer", "/c", "f3"));
    json_t *same = json_deep_copy(base);
    json_t *more = json_pack("[o,o,o]", issue("leak", "/a", "f1"),
                             issue("small_buffer", "/c", "f3"), issue("leak", "/n", "f5"));
    json_t *fewer = json_pack("[o]", issue("small_buffer", "/c", "f3"));
    json_t *moved = json_pack("[o,o]", issue("leak", "/a", "f1"),
                              issue("small_buffer", "/c", "f3-other-stack"));
    json_t *empty = json_array();
    struct issue_list b, m, added = {0}, fixed = {0}, kept = {0};

    check_diff(base, same, 0, 0, 2);
    check_diff(base, more, 1, 0, 2);
    check_diff(base, fewer, 0, 1, 1);
    check_diff(base, moved, 1, 1, 1);
    check_diff(empty, base, 2, 0, 0);
    check_diff(base, empty, 0, 2, 0);
    check_diff(empty, empty, 0, 0, 0);

    b = list_of(json_deep_copy(base));
    m = list_of(json_deep_copy(moved));
    CU_ASSERT_EQUAL_FATAL(issues_diff(&b, &m, &added, &fixed, &kept), 0);
    CU_ASSERT_STRING_EQUAL(fp_of(&added, 0), "f3-other-stack");
    CU_ASSERT_STRING_EQUAL(fp_of(&fixed, 0), "f3");
    CU_ASSERT_STRING_EQUAL(fp_of(&kept, 0), "f1");
    /* the issues themselves are carried whole */
    CU_ASSERT_STRING_EQUAL(added.v[0]->path, "/c");
    CU_ASSERT_STRING_EQUAL(added.v[0]->message, "fix it");
    issue_list_release(&added);
    issue_list_release(&fixed);
    issue_list_release(&kept);

    /* an issue without a fingerprint matches nothing, not even itself */
    json_t *nofp = json_pack("[{s:s}]", "rule", "leak");
    check_diff(nofp, nofp, 1, 1, 0);
    json_decref(nofp);
    /* a fingerprint twice on one side: each issue counts */
    json_t *twice = json_pack("[o,o]", issue("leak", "/a", "f1"), issue("leak", "/a2", "f1"));
    check_diff(base, twice, 0, 1, 2);
    check_diff(twice, base, 1, 0, 1);
    json_decref(twice);

    json_decref(base);
    json_decref(same);
    json_decref(more);
    json_decref(fewer);
    json_decref(moved);
    json_decref(empty);
}

static const struct sarif_rule rules[] = {
    { "small_buffer", "SmallBuffer", "Many small reads or writes. Use a bigger buffer.", 2, NULL },
    { "leak", "Leak", "Files still open at exit.", 4, "Close it." },
};

static const char *sget(const json_t *o, const char *path)
{
    /* "a.b.c" through objects */
    char buf[128], *save = NULL, *k;

    snprintf(buf, sizeof(buf), "%s", path);
    for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        o = json_object_get(o, k);
    return json_string_value(o);
}

/* The properties SARIF 2.1.0's schema requires, and what dashboards need. */
static void test_sarif(void)
{
    json_t *issues = json_pack("[o,o,o]", issue("leak", "/tmp/a b/x%.db", "f1"),
                               issue("small_buffer", "/var/log/app.log", "f2"),
                               issue("plugin_rule", "/p", "f3"));
    json_t *log, *run, *driver, *res, *v, *flow;

    /* the leak's stack: an inlined call and its caller in the user's code
       under /src, then libc (outside it, no line) */
    json_object_set_new(json_array_get(issues, 0), "frames",
                        json_pack("[{s:s,s:s,s:i,s:s,s:b},{s:s,s:s,s:i,s:s,s:b},"
                                  "{s:s,s:n,s:n,s:s,s:b}]",
                                  "function", "load", "file", "/src/dir/a b.c", "line", 47,
                                  "module", "/src/bin/app", "inlined", 1,
                                  "function", "main", "file", "/src/dir/a b.c", "line", 80,
                                  "module", "/src/bin/app", "inlined", 0,
                                  "function", "__libc_start_main", "file", "line",
                                  "module", "/lib/libc.so.6", "inlined", 0));
    json_object_set_new(json_array_get(issues, 1), "process", json_string("app"));
    json_object_set_new(json_array_get(issues, 1), "exe", json_string("/src/bin/app"));
    json_object_set_new(json_array_get(issues, 2), "process", json_string("cc1"));
    json_object_set_new(json_array_get(issues, 2), "exe",
                        json_string("/usr/lib/gcc/x86_64-linux-gnu/12/cc1"));
    struct issue_list list = {0};
    CU_ASSERT_EQUAL_FATAL(issue_list_from_json(&list, issues), 0);
    log = sarif_render(&list, rules, 2, "/src");
    issue_list_release(&list);
    char *text;
    size_t i;

    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_STRING_EQUAL(sget(log, "version"), "2.1.0");
    CU_ASSERT_PTR_NOT_NULL(strstr(sget(log, "$schema"), "sarif-2.1.0"));
    CU_ASSERT_EQUAL_FATAL(json_array_size(json_object_get(log, "runs")), 1);
    run = json_array_get(json_object_get(log, "runs"), 0);
    driver = json_object_get(json_object_get(run, "tool"), "driver");
    CU_ASSERT_STRING_EQUAL(sget(driver, "name"), "ioscope");
    CU_ASSERT_PTR_NOT_NULL(sget(driver, "version"));

    /* one descriptor per rule, plus one for the rule nobody described */
    v = json_object_get(driver, "rules");
    CU_ASSERT_EQUAL_FATAL(json_array_size(v), 3);
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(v, 0), "id"), "small_buffer");
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(v, 0), "name"), "SmallBuffer");
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(v, 0), "shortDescription.text"),
                           "Many small reads or writes.");
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(v, 0), "fullDescription.text"), rules[0].help);
    CU_ASSERT_PTR_NOT_NULL(strstr(sget(json_array_get(v, 0), "help.text"), rules[0].help));
    CU_ASSERT_PTR_NOT_NULL(strstr(sget(json_array_get(v, 0), "help.text"), "How to fix"));
    CU_ASSERT_PTR_NOT_NULL(strstr(sget(json_array_get(v, 1), "help.markdown"), "Close it."));
    CU_ASSERT_EQUAL(strncmp(sget(json_array_get(v, 1), "helpUri"), "https://", 8), 0);
    CU_ASSERT_EQUAL(strncmp(sget(driver, "informationUri"), "https://", 8), 0);
    CU_ASSERT_STRING_EQUAL(sget(json_object_get(run, "originalUriBaseIds"), "SRCROOT.uri"),
                           "file:///src/");
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(v, 2), "id"), "plugin_rule");
    CU_ASSERT_PTR_NOT_NULL(sget(json_array_get(v, 2), "help.text"));

    res = json_object_get(run, "results");
    CU_ASSERT_EQUAL_FATAL(json_array_size(res), 3);
    json_array_foreach(res, i, v) {
        const json_t *loc = json_array_get(json_object_get(v, "locations"), 0);
        json_int_t idx = json_integer_value(json_object_get(v, "ruleIndex"));
        const json_t *desc = json_array_get(json_object_get(driver, "rules"), (size_t)idx);
        CU_ASSERT_PTR_NOT_NULL(sget(v, "message.text"));
        CU_ASSERT_STRING_EQUAL(sget(v, "level"), "warning");
        CU_ASSERT_PTR_NOT_NULL_FATAL(desc);
        CU_ASSERT_STRING_EQUAL(sget(desc, "id"), sget(v, "ruleId"));
        /* a file in the repository, relative to SRCROOT (code scanning
           refuses absolute uris), or none at all */
        if (!json_object_get(loc, "physicalLocation")) {
            CU_ASSERT_STRING_EQUAL(sget(json_array_get(json_object_get(loc, "logicalLocations"),
                                                       0), "name"), i == 1 ? "app" : "cc1");
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(sget(loc, "physicalLocation.artifactLocation.uri"));
        CU_ASSERT_NOT_EQUAL(sget(loc, "physicalLocation.artifactLocation.uri")[0], '/');
        CU_ASSERT_STRING_EQUAL(sget(loc, "physicalLocation.artifactLocation.uriBaseId"),
                               "SRCROOT");
        CU_ASSERT(json_integer_value(json_object_get(json_object_get(
            json_object_get(loc, "physicalLocation"), "region"), "startLine")) >= 1);
    }
    v = json_array_get(res, 0);
    CU_ASSERT_STRING_EQUAL(sget(v, "ruleId"), "leak");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "ruleIndex")), 1);
    CU_ASSERT_STRING_EQUAL(sget(v, "message.text"), "fix it (file /tmp/a b/x%.db)");
    CU_ASSERT_STRING_EQUAL(sget(json_object_get(v, "properties"), "path"), "/tmp/a b/x%.db");
    /* the first frame in the user's code, with its line */
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(json_object_get(v, "locations"), 0),
                                "physicalLocation.artifactLocation.uri"), "dir/a%20b.c");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(json_object_get(
        json_array_get(json_object_get(v, "locations"), 0), "physicalLocation"), "region"),
        "startLine")), 47);
    /* the whole stack as a thread flow, the user's frames as related locations */
    flow = json_object_get(json_array_get(json_object_get(json_array_get(
        json_object_get(v, "codeFlows"), 0), "threadFlows"), 0), "locations");
    CU_ASSERT_EQUAL(json_array_size(flow), 3);
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(flow, 1), "location.physicalLocation."
                                "artifactLocation.uri"), "dir/a%20b.c");
    CU_ASSERT_PTR_NULL(json_object_get(json_object_get(json_array_get(flow, 2), "location"),
                                       "physicalLocation"));
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(flow, 2), "location.message.text"),
                           "__libc_start_main in libc.so.6");
    CU_ASSERT_EQUAL(json_array_size(json_object_get(v, "relatedLocations")), 2);
    /* no frame in the user's source, whether or not the program was built
       under the root: no file (a binary is no file of the repository), the
       process by name */
    CU_ASSERT_PTR_NULL(json_object_get(json_array_get(json_object_get(json_array_get(res, 1),
                                       "locations"), 0), "physicalLocation"));
    CU_ASSERT_PTR_NULL(json_object_get(json_array_get(json_object_get(json_array_get(res, 2),
                                       "locations"), 0), "physicalLocation"));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(
        json_object_get(v, "partialFingerprints"), "ioscope/v1")), "f1");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(v, "properties"), "pid")),
                    42);
    CU_ASSERT_STRING_EQUAL(sget(json_array_get(res, 1), "ruleId"), "small_buffer");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(res, 1), "ruleIndex")), 0);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(res, 2), "ruleIndex")), 2);

    /* it survives serialisation */
    text = json_dumps(log, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    json_t *back = json_loads(text, 0, NULL);
    CU_ASSERT(json_equal(back, log));
    json_decref(back);
    free(text);
    json_decref(log);

    /* no issues: still a valid log with every rule */
    struct issue_list none = {0};
    log = sarif_render(&none, rules, 2, "/src");
    run = json_array_get(json_object_get(log, "runs"), 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(run, "results")), 0);
    CU_ASSERT_EQUAL(json_array_size(json_object_get(json_object_get(json_object_get(
        run, "tool"), "driver"), "rules")), 2);
    json_decref(log);
    json_decref(issues);
}

/* Where the text, markdown and JUnit diffs say an issue's stack starts. */
static void test_top_frame(void)
{
    static const struct {
        const char *issue, *want;
    } cases[] = {
        {"{\"frames\":[{\"function\":\"logger\",\"file\":\"a.c\",\"line\":48,\"module\":\"app\"}]}",
         "logger (a.c:48)"},
        {"{\"frames\":[{\"function\":\"logger\",\"file\":null,\"line\":null,\"module\":\"app\"}]}",
         "logger (app)"},
        {"{\"frames\":[{\"function\":null,\"module\":\"app\"}]}", "app"},
        {"{\"frames\":[],\"stack\":\"app+0x1193\\nlibc+0x10\"}", "app+0x1193"},
        {"{\"frames\":[],\"stack\":\"\"}", ""},
        {"{}", ""},
    };
    char buf[64];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = json_loads(cases[i].issue, 0, NULL);
        struct issue *is = issue_from_json(v);

        CU_ASSERT_PTR_NOT_NULL_FATAL(is);
        CU_ASSERT_STRING_EQUAL(issue_top_frame(is, buf, sizeof(buf)), cases[i].want);
        issue_free(is);
        json_decref(v);
    }
}

/* diff --ci's margin with the default thresholds (cfg NULL). */
static void test_near_threshold(void)
{
    static const struct {
        const char *issue;
        int near;
    } cases[] = {
        {"{\"rule\":\"main_thread\"}", 1},
        {"{\"rule\":\"small_buffer\",\"detail\":{\"syscalls\":999}}", 1},
        {"{\"rule\":\"small_buffer\",\"detail\":{\"syscalls\":1000}}", 0},
        {"{\"rule\":\"small_buffer\",\"detail\":{\"syscalls\":20,\"timing\":\"waived\"}}", 0},
        {"{\"rule\":\"repeat_read\",\"detail\":{\"repeat_count\":9}}", 1},
        {"{\"rule\":\"repeat_read\",\"detail\":{\"repeat_count\":10}}", 0},
        {"{\"rule\":\"sync_storm\",\"detail\":{\"bytes_per_sync\":65536}}", 1},
        {"{\"rule\":\"sync_storm\",\"detail\":{\"bytes_per_sync\":65535}}", 0},
        {"{\"rule\":\"leak\"}", 0},
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"abandoned\",\"leaked\":1}}", 0},
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"abandoned\",\"leaked\":8}}", 1},
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"reopened\",\"leaked\":8}}", 0},
        /* a loop's spread counted in calls: load does not move it; near
           only below halfway from spread_pct (50) to 100 */
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"abandoned\",\"leaked\":8,"
         "\"spread_pct\":75,\"spread_in\":\"calls\"}}", 0},
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"abandoned\",\"leaked\":8,"
         "\"spread_pct\":74,\"spread_in\":\"calls\"}}", 1},
        {"{\"rule\":\"leak\",\"detail\":{\"shape\":\"abandoned\",\"leaked\":8,"
         "\"spread_pct\":100,\"spread_in\":\"time\"}}", 1},
        {"{}", 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = json_loads(cases[i].issue, 0, NULL);
        struct issue *is = issue_from_json(v);

        CU_ASSERT_PTR_NOT_NULL_FATAL(is);
        CU_ASSERT_EQUAL(issue_near_threshold(is, NULL), cases[i].near);
        issue_free(is);
        json_decref(v);
    }
}

void ci_suite(void)
{
    CU_pSuite s = CU_add_suite("ci", ci_init, ci_clean);

    CU_add_test(s, "issues_load", test_load);
    CU_add_test(s, "issues_detect", test_detect);
    CU_add_test(s, "baseline", test_baseline);
    CU_add_test(s, "drop_below", test_drop_below);
    CU_add_test(s, "diff_outcomes", test_diff);
    CU_add_test(s, "sarif_required_fields", test_sarif);
    CU_add_test(s, "top_frame", test_top_frame);
    CU_add_test(s, "near_threshold", test_near_threshold);
}
