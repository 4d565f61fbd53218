/*
 * The cost model's table (analyzer/engine/cost_model.c, docs/analyzer.md
 * "The cost model") and the severity made from modelled costs and counts
 * (issue_impact.c): exact figures, and that a measured time changes no
 * severity.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "cost_model.h"
#include "issue.h"
#include "issue_cost.h"
#include "issue_rec.h"
#include "iotrace.h"
#include "unit.h"

/* The table as docs/analyzer.md lists it. */
static void test_table(void)
{
    static const struct {
        unsigned role;
        int64_t call_ns;
        double byte_ns;
    } rows[] = {
        {IOT_ROLE_READ, 1000, 0.3},      {IOT_ROLE_WRITE, 1000, 0.3},
        {IOT_ROLE_COPY, 1000, 0.3},      {IOT_ROLE_SEEK, 200, 0},
        {IOT_ROLE_SYNC, 2000000, 2.0},   {IOT_ROLE_FLUSH, 200, 0},
        {IOT_ROLE_HINT, 1000, 0},        {IOT_ROLE_OPEN, 5000, 0},
        {IOT_ROLE_CLOSE, 1000, 0},       {IOT_ROLE_LOOKUP, 2000, 0},
        {IOT_ROLE_CHANGE, 20000, 0},     {IOT_ROLE_LIST, 5000, 0},
        {IOT_ROLE_MAP, 2000, 0},         {IOT_ROLE_STREAM, 50, 0},
        {IOT_ROLE_FDTABLE, 500, 0},      {IOT_ROLE_PROC, 0, 0},
        {IOT_ROLE_UNSEEN, 0, 0},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct cost_model_row *r = cost_model_row(rows[i].role);

        CU_ASSERT_EQUAL(r->call_ns, rows[i].call_ns);
        CU_ASSERT_DOUBLE_EQUAL(r->byte_ns, rows[i].byte_ns, 1e-12);
        CU_ASSERT(r->what && *r->what);
    }
    /* a role out of range costs nothing */
    CU_ASSERT_EQUAL(cost_model_row(1000)->call_ns, 0);
    CU_ASSERT_EQUAL(cost_model_ns(1000, 5, 5), 0);
}

/* Calls and bytes priced, a sync by what it makes durable. */
static void test_prices(void)
{
    /* 3 reads of 1000 bytes in all: 3 us + 300 ns */
    CU_ASSERT_EQUAL(cost_model_ns(IOT_ROLE_READ, 3, 1000), 3300);
    /* 4 MiB in one read: over main_thread's 1 ms; 3 MiB: under */
    CU_ASSERT_EQUAL(cost_model_ns(IOT_ROLE_READ, 1, 4 << 20), 1259291);
    CU_ASSERT_EQUAL(cost_model_ns(IOT_ROLE_READ, 1, 3 << 20), 944718);
    /* a sync: the flush, and 2 ns per byte written since the previous one */
    CU_ASSERT_EQUAL(cost_model_sync_ns(0), 2000000);
    CU_ASSERT_EQUAL(cost_model_sync_ns(4096), 2008192);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_FSYNC, 0), 2000000);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_FDATASYNC, 0), 2000000);
    /* a stdio call that moves bytes inside its buffer is a library call */
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_FWRITE, 100), COST_MODEL_STDIO_CALL_NS);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_FPUTS, 100), COST_MODEL_STDIO_CALL_NS);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_STAT, 0), 2000);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_OPEN, 0), 5000);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_RENAME, 0), 20000);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_READDIR, 0), 5000);
    CU_ASSERT_EQUAL(cost_model_op_ns(IOT_OP_COUNT, 0), 0);
    /* saturates instead of wrapping */
    CU_ASSERT(cost_model_ns(IOT_ROLE_SYNC, UINT64_MAX / 2, INT64_MAX) > 0);
}

/* The severity issue_judge gives a cost, and the impact's figures. */
static const char *judge(const struct issue_cost *c, int64_t proc_model_ns, int timing,
                         json_t **impact_out)
{
    struct issue issue = {.detail = NULL};
    json_t *j;
    static char sev[16];

    issue_judge(&issue, c, proc_model_ns, timing);
    /* as the JSON writer writes them */
    j = issue_to_json(&issue);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    snprintf(sev, sizeof(sev), "%s", json_string_value(json_object_get(j, "severity")));
    if (impact_out)
        *impact_out = json_incref(json_object_get(j, "impact"));
    json_decref(j);
    return sev;
}

static void test_severity(void)
{
    struct issue_cost c;
    json_t *impact;

    /* git's 61 lookups: 0.122 ms modelled, 2.8% of its process's: low,
       whatever they took (1 ms or 1 s measured) */
    c = (struct issue_cost){.known = 1, .has_model = 1, .model_ns = 61 * 2000,
                            .has_time = 1, .time_ns = 100040, .excess_calls = 60};
    CU_ASSERT_STRING_EQUAL(judge(&c, 4377386, 1, &impact), "low");
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(impact, "model_ms")), 0.122, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(impact, "io_share")), 0.0279, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(impact, "time_ms")), 0.1, 1e-9);
    json_decref(impact);
    c.time_ns = 1000000000;
    CU_ASSERT_STRING_EQUAL(judge(&c, 4377386, 1, NULL), "low");
    /* ... and without durations: the same severity, time_ms null */
    CU_ASSERT_STRING_EQUAL(judge(&c, 4377386, 0, &impact), "low");
    CU_ASSERT(json_is_null(json_object_get(impact, "time_ms")));
    json_decref(impact);
    /* the same lookups as most of a small process's cost: medium */
    CU_ASSERT_STRING_EQUAL(judge(&c, 200000, 1, NULL), "medium");
    /* 20 syncs (40 ms modelled): high as most of the process's cost,
       medium at 7% of it; 50 syncs (100 ms) are high anywhere */
    c = (struct issue_cost){.known = 1, .has_model = 1, .model_ns = 20 * 2000200,
                            .has_time = 1, .time_ns = 1, .excess_syncs = 19};
    CU_ASSERT_STRING_EQUAL(judge(&c, 40100000, 1, NULL), "high");
    CU_ASSERT_STRING_EQUAL(judge(&c, 40004000 * 14, 1, NULL), "medium");
    c.model_ns = 50 * 2000000;
    CU_ASSERT_STRING_EQUAL(judge(&c, INT64_MAX / 4, 1, NULL), "high");
    /* no modelled cost of its own (a leak, bytes written in excess): never low */
    c = (struct issue_cost){.known = 1, .handles = 3};
    CU_ASSERT_STRING_EQUAL(judge(&c, 1000000000, 1, NULL), "medium");
    c = (struct issue_cost){.known = 1, .excess_bytes = 100LL << 20};
    CU_ASSERT_STRING_EQUAL(judge(&c, 0, 1, NULL), "high");
    /* a rule that states no cost: medium */
    c = (struct issue_cost){0};
    CU_ASSERT_STRING_EQUAL(judge(&c, 0, 1, NULL), "medium");
}

void cost_model_suite(void)
{
    CU_pSuite s = CU_add_suite("cost_model", NULL, NULL);

    CU_add_test(s, "the table as documented", test_table);
    CU_add_test(s, "calls, bytes and syncs priced", test_prices);
    CU_add_test(s, "severity from modelled costs and counts, not times", test_severity);
}
