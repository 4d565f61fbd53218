/*
 * Rule fixtures: every tests/fixtures/rules/CASE.jsonl is analysed with the
 * options in CASE.expected.json, and the issues must be exactly the expected
 * ones: same count, same order, every expected key equal (detail key by key;
 * a null one absent).
 * The expected values are derived by hand in tests/fixtures/rules/gen*.py.
 * "--rules A,B" keeps only those rules' issues (as the option does: the
 * rules are independent of each other). "--min-severity LEVEL" keeps the
 * issues at or above it, medium when not given, as the option does.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ci.h"
#include "issue.h"
#include "registry.h"
#include "unit.h"

static const char *fixture_dir(void)
{
    static char buf[4096];
    const char *top = getenv("TOP");

    snprintf(buf, sizeof(buf), "%s/tests/fixtures/rules", top ? top : ".");
    return buf;
}

/* 0 when every key of want equals got's; prints the difference otherwise. */
static int subset(const char *name, size_t idx, const json_t *want, const json_t *got)
{
    const char *k;
    json_t *v;
    int bad = 0;

    json_object_foreach((json_t *)want, k, v) {
        json_t *g = json_object_get(got, k);

        if (json_is_null(v) && !g)
            continue;   /* null: the key is absent */
        if (json_is_object(v) && json_is_object(g)) {
            bad |= subset(name, idx, v, g);
            continue;
        }
        if (!g || !json_equal(v, g) ) {
            /* 0.2 vs 0.2000001: numbers compare as reals */
            if (g && json_is_number(v) && json_is_number(g) &&
                json_number_value(v) == json_number_value(g))
                continue;
            char *ws = json_dumps(v, JSON_ENCODE_ANY), *gs = g ? json_dumps(g, JSON_ENCODE_ANY) : NULL;

            fprintf(stderr, "\n%s: issue %zu: %s: expected %s, got %s", name, idx, k, ws,
                    gs ? gs : "(missing)");
            free(ws);
            free(gs);
            bad = 1;
        }
    }
    return bad;
}

/* The issues at or above min_severity, as JSON again (got is taken). */
static json_t *shown(json_t *got, int min_severity)
{
    struct issue_list l = {0};
    json_t *kept;

    if (issue_list_from_json(&l, got) < 0) {
        issue_list_release(&l);
        return got;
    }
    json_decref(got);
    issues_drop_below(&l, min_severity);
    kept = issue_list_to_json(&l);
    issue_list_release(&l);
    return kept;
}

static int run_case(const char *dir, const char *name)
{
    char path[4096], input[4096];
    json_error_t je;
    json_t *exp, *args, *want, *got = NULL;
    const char *sets[16], *config = NULL, *only = NULL, *min_severity = "medium";
    size_t nsets = 0, i;
    int bad = 0;

    snprintf(path, sizeof(path), "%s/%s.expected.json", dir, name);
    snprintf(input, sizeof(input), "%s/%s.jsonl", dir, name);
    exp = json_load_file(path, 0, &je);
    if (!exp) {
        fprintf(stderr, "\n%s: %s\n", path, je.text);
        return 1;
    }
    args = json_object_get(exp, "args");
    want = json_object_get(exp, "issues");
    static char cfgpath[4096];
    for (i = 0; i + 1 < json_array_size(args); i += 2) {
        const char *opt = json_string_value(json_array_get(args, i));
        const char *val = json_string_value(json_array_get(args, i + 1));

        if (strcmp(opt, "--set") == 0 && nsets < 16) {
            sets[nsets++] = val;
        } else if (strcmp(opt, "--config") == 0) {
            snprintf(cfgpath, sizeof(cfgpath), "%s/%s", dir, val);
            config = cfgpath;
        } else if (strcmp(opt, "--rules") == 0) {
            only = val;
        } else if (strcmp(opt, "--min-severity") == 0) {
            min_severity = val;
        }
    }
    {
        const char *inputs[] = {input};
        struct analyze_request req = {.inputs = inputs, .ninputs = 1, .config_path = config,
                                      .sets = sets, .nsets = nsets};

        if (analyze_collect(&req, &got) != 0) {
            fprintf(stderr, "\n%s: analyze failed\n", name);
            json_decref(exp);
            return 1;
        }
    }
    /* what `ioanalyze analyze` shows: at or above --min-severity (medium) */
    got = shown(got, issue_severity_parse(min_severity));
    for (i = 0; only && i < json_array_size(got);) {
        const char *rule = json_string_value(json_object_get(json_array_get(got, i), "rule"));
        size_t len = rule ? strlen(rule) : 0;
        const char *at = rule ? strstr(only, rule) : NULL;

        if (at && (at == only || at[-1] == ',') && (at[len] == ',' || at[len] == 0))
            i++;
        else
            json_array_remove(got, i);
    }
    if (json_array_size(got) != json_array_size(want)) {
        char *s = json_dumps(got, JSON_INDENT(1));

        fprintf(stderr, "\n%s: %zu issues, expected %zu:\n%s\n", name, json_array_size(got),
                json_array_size(want), s);
        free(s);
        bad = 1;
    } else {
        for (i = 0; i < json_array_size(want); i++)
            bad |= subset(name, i, json_array_get(want, i), json_array_get(got, i));
    }
    json_decref(got);
    json_decref(exp);
    return bad;
}

static void test_rule_fixtures(void)
{
    const char *dir = fixture_dir();
    DIR *d = opendir(dir);
    struct dirent *de;
    int cases = 0, failed = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        char name[256];

        if (len < 15 || strcmp(de->d_name + len - 14, ".expected.json") != 0 || len - 14 >= sizeof(name))
            continue;
        memcpy(name, de->d_name, len - 14);
        name[len - 14] = 0;
        cases++;
        if (run_case(dir, name)) {
            failed++;
            CU_FAIL(name);
        }
    }
    closedir(d);
    CU_ASSERT(cases >= 30);
    CU_ASSERT_EQUAL(failed, 0);
}

/*
 * Every built-in rule is whole: built with this rule.h, named, typed (no two
 * alike) and carrying its summary and its fix, the one copy the text, HTML
 * and SARIF reports show.
 */
static void test_builtin_rules_whole(void)
{
    size_t n;
    const struct rule *const *rules = rules_all(&n);

    CU_ASSERT_FATAL(n > 0);
    for (size_t i = 0; i < n; i++) {
        const struct rule *r = rules[i];
        size_t len;

        CU_ASSERT_EQUAL(r->abi, RULE_ABI_VERSION);
        CU_ASSERT_EQUAL(r->size, sizeof(struct rule));
        CU_ASSERT_FATAL(r->name && *r->name && r->summary && *r->summary);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r->fix);
        len = strlen(r->fix);
        if (len < 20 || r->fix[len - 1] != '.')
            CU_FAIL(r->name);
        CU_ASSERT_PTR_EQUAL(rules_fix(r->name), r->fix);
        CU_ASSERT_PTR_EQUAL(rules_find(r->name, strlen(r->name)), r);
        for (size_t j = 0; j < i; j++) {
            CU_ASSERT(strcmp(rules[j]->name, r->name) != 0);
            CU_ASSERT(rules[j]->type != r->type);
        }
    }
    CU_ASSERT_PTR_NULL(rules_fix("no_such_rule"));
    CU_ASSERT_PTR_NULL(rules_fix(NULL));
}

void rules_suite(void)
{
    CU_pSuite s = CU_add_suite("rules", NULL, NULL);

    CU_add_test(s, "every fixture gives exactly its expected issues", test_rule_fixtures);
    CU_add_test(s, "every built-in rule has its name, type, summary and fix", test_builtin_rules_whole);
}
