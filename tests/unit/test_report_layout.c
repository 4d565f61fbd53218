/*
 * The text report's wrapping (text_wrap.h) and own-code scope (scope.h):
 * exact outputs for the cases that decide where a line breaks and which
 * findings are the project's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "scope.h"
#include "text_wrap.h"
#include "unit.h"

/* text wrapped to width, as a new string */
static char *wrapped(const char *text, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    text_wrap_write(f, text, strlen(text), width);
    fclose(f);
    return buf;
}

static void check(const char *text, int width, const char *want)
{
    char *got = wrapped(text, width);

    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "\nwrap(%d) of [%s]:\n[%s]\nwanted\n[%s]\n", width, text, got, want);
    free(got);
}

static void test_wrap(void)
{
    /* short lines and empty ones stay as they are */
    check("ab\n\ncd\n", 20, "ab\n\ncd\n");
    /* at a space, the rest two columns under the line's indent */
    check("  one two three four five\n", 12, "  one two\n    three\n    four\n    five\n");
    /* a path: after a '/' */
    check("    /srv/data/archive/2026/file.log\n", 20,
          "    /srv/data/\n      archive/2026/\n      file.log\n");
    /* nowhere to break: where the width ends */
    check("abcdefghijklmnopqrstuvwxyz\n", 10, "abcdefghij\n  klmnopqr\n  stuvwxyz\n");
    /* color codes take no column, a UTF-8 character one */
    check("\033[1mab\033[0m cd\n", 5, "\033[1mab\033[0m cd\n");
    check("\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\n", 5, "\xc3\xa9\xc3\xa9\xc3\xa9\n  \xc3\xa9\xc3\xa9\n");
    /* no newline at the end: one is written */
    check("abc", 10, "abc\n");
}

static void test_width(void)
{
    FILE *f = tmpfile();

    setenv("COLUMNS", "120", 1);
    CU_ASSERT_EQUAL(text_wrap_width(f), 120);
    setenv("COLUMNS", "12x", 1);
    CU_ASSERT_EQUAL(text_wrap_width(f), 80);    /* not a number: a file is 80 */
    setenv("COLUMNS", "5", 1);
    CU_ASSERT_EQUAL(text_wrap_width(f), 80);    /* too narrow to mean it */
    unsetenv("COLUMNS");
    CU_ASSERT_EQUAL(text_wrap_width(f), 80);
    fclose(f);
}

static json_t *issue(const char *process, const char *exe, const char *file, const char *module)
{
    json_t *is = json_pack("{s:s, s:[{s:s?, s:s?}]}", "process", process, "frames", "file", file,
                           "module", module);

    if (exe)
        json_object_set_new(is, "exe", json_string(exe));
    return is;
}

static const char *process_at(const struct issue_list *l, size_t i)
{
    return i < l->n ? l->v[i]->process : NULL;
}

static void test_scope(void)
{
    json_t *v = json_array();
    struct issue_list l = {0};
    struct scope_outside out;
    char line[256];

    CU_ASSERT(path_under("/p/x", "/p"));
    CU_ASSERT(path_under("/p", "/p/"));
    CU_ASSERT(!path_under("/px/x", "/p"));
    CU_ASSERT(!path_under("p/x", "/p"));
    CU_ASSERT(path_under("/anything", "/"));
    json_array_append_new(v, issue("app", "/p/build/app", NULL, "/p/build/app"));
    json_array_append_new(v, issue("ld", "/usr/bin/ld", NULL, "/usr/bin/ld"));
    json_array_append_new(v, issue("python3", "/usr/bin/python3", "/p/tool.c", NULL));
    json_array_append_new(v, issue("cc1", "/usr/lib/gcc/cc1", NULL, NULL));
    json_array_append_new(v, issue("ld", NULL, NULL, NULL));
    json_array_append_new(v, issue("plug", "/usr/bin/host", NULL, "/p/lib/libplug.so"));
    CU_ASSERT_EQUAL_FATAL(issue_list_from_json(&l, v), 0);
    CU_ASSERT_EQUAL(issues_keep_own(&l, "/p", &out), 0);
    CU_ASSERT_EQUAL_FATAL(l.n, 3);
    CU_ASSERT_STRING_EQUAL(process_at(&l, 0), "app");
    CU_ASSERT_STRING_EQUAL(process_at(&l, 1), "python3");
    CU_ASSERT_STRING_EQUAL(process_at(&l, 2), "plug");
    CU_ASSERT_EQUAL(out.n, 3);
    CU_ASSERT_STRING_EQUAL(scope_outside_line(&out, line, sizeof(line)),
                           "3 findings in programs outside the project: ld, cc1");
    CU_ASSERT_EQUAL(issues_keep_own(&l, "/p", &out), 0);
    CU_ASSERT_STRING_EQUAL(scope_outside_line(&out, line, sizeof(line)), "");
    CU_ASSERT_EQUAL(issue_scope_parse("own"), SCOPE_OWN);
    CU_ASSERT_EQUAL(issue_scope_parse("all"), SCOPE_ALL);
    CU_ASSERT_EQUAL(issue_scope_parse("mine"), -1);
    issue_list_release(&l);
    json_decref(v);
}

void report_layout_suite(void)
{
    CU_pSuite s = CU_add_suite("report_layout", NULL, NULL);

    CU_add_test(s, "wrap", test_wrap);
    CU_add_test(s, "width", test_width);
    CU_add_test(s, "scope", test_scope);
}
