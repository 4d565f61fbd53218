/*
 * The typed issue (issue_rec.h) and the detail builder (rule.h, on
 * issue_detail.h): the detail keeps the order keys were first set and
 * their types; an issue as the engine writes it is parsed and written back
 * byte for byte, without falling back to what was read; an issue file of
 * another shape is written back as it was; a file without severity reads
 * as medium and is written without one.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "issue.h"
#include "issue_rec.h"
#include "rule.h"
#include "unit.h"

#define REALS JSON_REAL_PRECISION(15)

/* d as compact JSON (allocated) */
static char *detail_text(const struct rule_detail *d)
{
    json_t *j = issue_detail_to_json(d);
    char *s = json_dumps(j, JSON_COMPACT | REALS);

    json_decref(j);
    return s;
}

static void test_builder(void)
{
    struct rule_detail *d = rule_detail_new(NULL), *o;
    const int64_t sizes[] = {4096, -1};
    char *s;

    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    rule_detail_string(d, "layer", "stdio");
    rule_detail_int(d, "syscalls", 20);
    rule_detail_uint(d, "big", UINT64_MAX);
    rule_detail_double(d, "ratio", 0.25);
    rule_detail_double(d, "nan", NAN);
    rule_detail_bool(d, "stdio", 7);
    rule_detail_string(d, "none", NULL);
    rule_detail_ints(d, "sizes", sizes, 2);
    o = rule_detail_add_object(d, "open_sites");
    rule_detail_string(o, "stack", "main+0x1 (/bin/app)");
    rule_detail_int(o, "sessions", 3);
    o = rule_detail_add_object(d, "open_sites");
    rule_detail_int(o, "sessions", 1);
    /* set again: its place stays, its value and type change */
    rule_detail_double(d, "syscalls", 20.5);
    /* an object list cannot take a scalar's key, nor a scalar an object */
    CU_ASSERT_PTR_NULL(rule_detail_add_object(d, "layer"));
    s = detail_text(d);
    CU_ASSERT_STRING_EQUAL(s, "{\"layer\":\"stdio\",\"syscalls\":20.5,\"big\":1.84467440737096e19,"
                              "\"ratio\":0.25,\"nan\":null,\"stdio\":true,\"none\":null,"
                              "\"sizes\":[4096,-1],\"open_sites\":[{\"stack\":\"main+0x1 "
                              "(/bin/app)\",\"sessions\":3},{\"sessions\":1}]}");
    free(s);
    CU_ASSERT_EQUAL(issue_detail_int(d, "syscalls", -1), 20);
    CU_ASSERT_EQUAL(issue_detail_int(d, "missing", -1), -1);
    CU_ASSERT_STRING_EQUAL(issue_detail_str(d, "layer"), "stdio");
    CU_ASSERT_PTR_NULL(issue_detail_str(d, "syscalls"));
    issue_detail_del(d, "layer");
    CU_ASSERT_PTR_NULL(issue_detail_get(d, "layer"));
    CU_ASSERT_EQUAL(d->n, 8);
    rule_detail_free(d);
    /* every builder call takes a NULL detail */
    rule_detail_int(NULL, "x", 1);
    rule_detail_string(NULL, "x", "y");
    rule_detail_ints(NULL, "x", sizes, 2);
    CU_ASSERT_PTR_NULL(rule_detail_add_object(NULL, "x"));
    rule_detail_free(NULL);
}

/* An issue as issues_finish makes it (every key, in its order). */
static const char engine_issue[] =
    "{\"tag\":\"io\",\"type\":9,\"process\":\"app\",\"time\":1763800000080,"
    "\"path\":\"/data/db-journal\",\"size\":65535,\"op\":20,\"buffer\":65535,\"cost\":20,"
    "\"opType\":2,\"opSize\":1310700,\"thread\":\"main\",\"stack\":\"f+0x1 (/bin/app)\","
    "\"repeat\":20,\"rule\":\"sync_storm\",\"pid\":100,\"tid\":101,"
    "\"fingerprint\":\"c29a305bf59fb826\",\"message\":\"20 syncs\",\"detail\":{\"syncs\":20,"
    "\"sync_time_share\":0.25,\"open_sites\":[{\"stack\":\"\",\"sessions\":2}],"
    "\"occurrences\":3},\"path_hex\":\"2f64ff\",\"frames\":[{\"function\":\"f\",\"file\":\"a.c\","
    "\"line\":4,\"module\":\"/bin/app\",\"build_id\":null,\"offset\":1,\"inlined\":false}],"
    "\"fix\":\"batch\",\"open_stack\":\"g (/bin/app)\",\"open_frames\":[{\"function\":\"g\","
    "\"file\":null,\"line\":null,\"module\":\"/bin/app\",\"build_id\":\"ab\",\"offset\":null,"
    "\"inlined\":true}],\"impact\":{\"time_ms\":null,\"model_ms\":42.6214,\"io_share\":0.9876,"
    "\"excess_syncs\":1,\"handles\":2},\"severity\":\"high\",\"labels\":{\"run\":\"7\"},"
    "\"group\":\"b61d25b2\"}";

static void test_round_trip(void)
{
    json_t *j = json_loads(engine_issue, 0, NULL), *back;
    struct issue *is = issue_from_json(j);
    char *s;

    CU_ASSERT_PTR_NOT_NULL_FATAL(is);
    CU_ASSERT_PTR_NULL(is->raw);   /* written from its members, not kept */
    CU_ASSERT_EQUAL(is->type, 9);
    CU_ASSERT_EQUAL(is->tid, 101);
    CU_ASSERT_STRING_EQUAL(is->rule, "sync_storm");
    CU_ASSERT_EQUAL(is->severity, ISSUE_HIGH);
    CU_ASSERT_EQUAL(issue_occurrences(is), 3);
    CU_ASSERT_EQUAL(is->frames.n, 1);
    CU_ASSERT_EQUAL(is->frames.v[0].line, 4);
    CU_ASSERT_STRING_EQUAL(is->open_frames.v[0].build_id, "ab");
    CU_ASSERT(is->open_frames.v[0].inlined && !is->open_frames.v[0].has_offset);
    CU_ASSERT(!is->impact.time_known && (is->impact.has & ISSUE_IMPACT_TIME));
    CU_ASSERT_EQUAL(is->impact.excess_syncs, 1);
    CU_ASSERT(!(is->impact.has & ISSUE_IMPACT_EXCESS_BYTES));
    CU_ASSERT_STRING_EQUAL(is->group, "b61d25b2");
    back = issue_to_json(is);
    s = json_dumps(back, JSON_COMPACT | REALS);
    CU_ASSERT_STRING_EQUAL(s, engine_issue);
    free(s);
    json_decref(back);
    issue_free(is);
    json_decref(j);
}

static void test_other_shapes(void)
{
    /* an issue file of an older ioanalyze: no severity, group, impact */
    json_t *j = json_loads("{\"tag\":\"io\",\"type\":2,\"process\":\"p\",\"time\":1,\"path\":\"/f\","
                           "\"size\":0,\"op\":1,\"buffer\":1,\"cost\":0,\"opType\":1,\"opSize\":1,"
                           "\"thread\":\"t\",\"stack\":\"\",\"repeat\":0,\"rule\":\"small_buffer\","
                           "\"pid\":1,\"tid\":1,\"fingerprint\":\"00\",\"message\":\"m\","
                           "\"detail\":{}}", 0, NULL);
    struct issue *is = issue_from_json(j);
    char *a, *b;
    json_t *back;

    CU_ASSERT_PTR_NOT_NULL_FATAL(is);
    CU_ASSERT_PTR_NULL(is->raw);
    CU_ASSERT_EQUAL(is->severity, ISSUE_MEDIUM);
    CU_ASSERT(!(is->has & ISSUE_HAS_SEVERITY));
    back = issue_to_json(is);
    CU_ASSERT_PTR_NULL(json_object_get(back, "severity"));
    json_decref(back);
    issue_free(is);
    json_decref(j);

    /* keys of a newer ioanalyze, in another order: written back as read */
    j = json_loads("{\"rule\":\"x\",\"fingerprint\":\"ff\",\"novel\":[1,2],\"pid\":3}", 0, NULL);
    is = issue_from_json(j);
    CU_ASSERT_PTR_NOT_NULL_FATAL(is);
    CU_ASSERT_PTR_NOT_NULL(is->raw);
    CU_ASSERT_STRING_EQUAL(is->rule, "x");
    CU_ASSERT_EQUAL(is->pid, 3);
    back = issue_to_json(is);
    a = json_dumps(j, JSON_COMPACT);
    b = json_dumps(back, JSON_COMPACT);
    CU_ASSERT_STRING_EQUAL(a, b);
    free(a);
    free(b);
    json_decref(back);
    issue_free(is);
    json_decref(j);
    CU_ASSERT_PTR_NULL(issue_from_json(NULL));
}

void issue_rec_suite(void)
{
    CU_pSuite s = CU_add_suite("issue_rec", NULL, NULL);

    CU_add_test(s, "detail_builder", test_builder);
    CU_add_test(s, "round_trip", test_round_trip);
    CU_add_test(s, "other_shapes", test_other_shapes);
}
