/*
 * The one escaping of strings from a trace for text output (common/text.c):
 * every control character and every byte that is not UTF-8 shown visibly,
 * valid UTF-8 kept, and a cut output never ending inside an escape.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"
#include "saturate.h"
#include "text.h"
#include "unit.h"

static void expect(const char *in, const char *want)
{
    char buf[IOT_TEXT_MAX];
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);

    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, sizeof(buf), in), want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    iot_text_write(f, in, in ? strlen(in) : 0);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(mem, want);
    if (strcmp(buf, want) != 0 || strcmp(mem, want) != 0)
        fprintf(stderr, "\ntext: got '%s' / '%s', want '%s'\n", buf, mem, want);
    free(mem);
}

static void test_escapes(void)
{
    expect("/plain/path.txt", "/plain/path.txt");
    expect("", "");
    expect(NULL, "?");
    expect("\033[2J", "\\e[2J");
    expect("\033]8;;http://x\007link\033]8;;\007", "\\e]8;;http://x\\x07link\\e]8;;\\x07");
    expect("a\rb\nc\td", "a\\rb\\nc\\td");
    expect("back\\slash", "back\\\\slash");
    expect("\001\037\177", "\\x01\\x1f\\x7f");
    expect("\xff\xfe", "\\xff\\xfe");
    expect("caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80");
    expect("\xc2\x9b" "31m", "\\u009b31m");                /* C1 CSI */
    expect("a\xe2\x80\xae" "b", "a\\u202eb");                /* right-to-left override */
    expect("\xc0\xaf", "\\xc0\\xaf");                       /* overlong '/' */
    expect("\xed\xa0\x80", "\\xed\\xa0\\x80");              /* a surrogate */
    expect("\xe6\x97", "\\xe6\\x97");                       /* cut short */
}

/* A buffer too small: cut at a whole escape, marked "...", terminated. */
static void test_cut(void)
{
    char buf[12];

    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, sizeof(buf), "0123456789"), "0123456789");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, sizeof(buf), "0123456789ab"), "01234567...");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, sizeof(buf), "0123456\033\033\033"), "0123456...");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, 6, "\033\033\033"), "\\e...");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, 5, "\033\033\033"), "...");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, 7, "\033\033\033"), "\\e\\e\\e");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, 3, "\033\033\033"), "");
    CU_ASSERT_STRING_EQUAL(iot_text_safe(buf, 1, "abc"), "");
}

/* As JSONL and the HTML report show a string: valid UTF-8 kept, every other byte U+FFFD. */
static void test_repaired(void)
{
    static const char *const cases[][2] = {
        {"plain", "plain"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"caf\xc3\xa9\xff", "caf\xc3\xa9\xef\xbf\xbd"},
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xe6\x97", "\xef\xbf\xbd\xef\xbf\xbd"},
        {"", ""},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = iot_utf8_repaired(cases[i][0]);

        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, cases[i][1]);
        free(got);
    }
}

/* A saturated sum is never smaller than what it adds up: it stops at the ends. */
static void test_saturate(void)
{
    CU_ASSERT_EQUAL(iot_sadd(2, 3), 5);
    CU_ASSERT_EQUAL(iot_sadd(INT64_MAX - 1, 5), INT64_MAX);
    CU_ASSERT_EQUAL(iot_sadd(INT64_MAX, INT64_MAX), INT64_MAX);
    CU_ASSERT_EQUAL(iot_sadd(INT64_MIN + 1, -5), INT64_MIN);
    CU_ASSERT_EQUAL(iot_sadd(INT64_MAX, INT64_MIN), -1);
}

void text_suite(void)
{
    CU_pSuite s = CU_add_suite("text", NULL, NULL);

    CU_add_test(s, "escapes", test_escapes);
    CU_add_test(s, "cut", test_cut);
    CU_add_test(s, "UTF-8 repaired", test_repaired);
    CU_add_test(s, "saturating sum", test_saturate);
}
