/*
 * The typed issue (issue_rec.h) and the detail builder (rule.h, on
 * issue_detail.h): the detail keeps the order keys were first set and
 * their types; an issue as the engine writes it is parsed and written back
 * byte for byte, without falling back to what was read; an issue file of
 * another shape is written back as it was; a file without severity reads
 * as medium and is written without one.
 */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_frames(const struct issue_frames *a, const struct issue_frames *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct issue_frame *x = &a->v[i], *y = &b->v[i];

        if (!same_str(x->function, y->function) || !same_str(x->file, y->file) ||
            !same_str(x->module, y->module) || !same_str(x->build_id, y->build_id) ||
            x->line != y->line || x->has_offset != y->has_offset ||
            (x->has_offset && x->offset != y->offset) || x->inlined != y->inlined)
            return 0;
    }
    return 1;
}

/* Every member of a equals b's, the detail's values with their types. */
static int same_issue(const struct issue *a, const struct issue *b)
{
    const struct issue_impact *x = &a->impact, *y = &b->impact;

    return a->type == b->type && same_str(a->process, b->process) && a->time == b->time &&
           same_str(a->path, b->path) && a->size == b->size && a->op == b->op &&
           a->buffer == b->buffer && a->cost == b->cost && a->op_type == b->op_type &&
           a->op_size == b->op_size && same_str(a->thread, b->thread) &&
           same_str(a->stack, b->stack) && a->repeat == b->repeat &&
           same_str(a->rule, b->rule) && a->pid == b->pid && a->tid == b->tid &&
           same_str(a->fingerprint, b->fingerprint) && same_str(a->message, b->message) &&
           issue_detail_equal(a->detail, b->detail) && same_str(a->path_hex, b->path_hex) &&
           same_frames(&a->frames, &b->frames) && same_str(a->fix, b->fix) &&
           same_str(a->open_stack, b->open_stack) &&
           same_frames(&a->open_frames, &b->open_frames) && x->has == y->has &&
           x->time_known == y->time_known && x->time_ms == y->time_ms &&
           x->model_ms == y->model_ms && x->io_share == y->io_share &&
           x->excess_bytes == y->excess_bytes && x->excess_syncs == y->excess_syncs &&
           x->excess_opens == y->excess_opens && x->excess_calls == y->excess_calls &&
           x->handles == y->handles && a->severity == b->severity &&
           issue_detail_equal(a->labels, b->labels) && same_str(a->group, b->group) &&
           same_str(a->exe, b->exe) && a->has == b->has;
}

/* The issues of input, as the engine makes them; how many checked. Each
   must be the record its JSON parses back into, and be written back byte
   for byte. */
static size_t check_engine_records(const char *input, struct issue_list *keep)
{
    const char *inputs[] = {input};
    struct analyze_request req = {.inputs = inputs, .ninputs = 1};
    struct analyze_opts o = {.want_issues = 1, .records = 1};
    struct analyze_result res;
    size_t n;

    CU_ASSERT_EQUAL_FATAL(analyze_run(&req, &o, &res), 0);
    CU_ASSERT_PTR_NULL(res.issues);
    for (size_t i = 0; i < res.list.n; i++) {
        json_t *j = issue_to_json(res.list.v[i]);
        struct issue *back = issue_from_json(j);

        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        CU_ASSERT_PTR_NULL(back->raw);
        if (!same_issue(res.list.v[i], back))
            CU_FAIL_FATAL("an engine's issue differs from its JSON parsed back");
        issue_free(back);
        json_decref(j);
    }
    n = res.list.n;
    if (keep)
        *keep = res.list;
    else
        issue_list_release(&res.list);
    return n;
}

/* A file whose name is not UTF-8 (path_hex), written by a thread named in UTF-8. */
static const char hostile_trace[] =
    "{\"ev\":\"process\",\"t\":0,\"pid\":7,\"ppid\":1,\"exe\":\"/usr/bin/app\","
    "\"cmdline\":[\"app\"],\"start_unix_ns\":1763800000000000000}\n"
    "{\"ev\":\"thread\",\"t\":0,\"pid\":7,\"tid\":7,\"name\":\"w\\u00e9\"}\n"
    "{\"ev\":\"call\",\"t\":1000,\"pid\":7,\"tid\":7,\"op\":\"open\",\"dur\":2000,\"ret\":3,"
    "\"path\":\"/d/\\ufffd\",\"path_hex\":\"2f642fff\",\"flags\":577,"
    "\"stack\":\"f+0x1 (/usr/bin/app)\"}\n";

static void test_engine_records(void)
{
    const char *top = getenv("TOP");
    char pattern[4096], tmp[] = "/tmp/issue_rec_XXXXXX.jsonl";
    glob_t g;
    struct issue_list list = {0};
    size_t issues = 0;
    int fd;
    FILE *f;

    snprintf(pattern, sizeof(pattern), "%s/tests/fixtures/rules/*.jsonl", top ? top : ".");
    CU_ASSERT_EQUAL_FATAL(glob(pattern, 0, NULL, &g), 0);
    for (size_t i = 0; i < g.gl_pathc; i++)
        issues += check_engine_records(g.gl_pathv[i], NULL);
    globfree(&g);
    CU_ASSERT(issues >= 100);   /* the fixtures' issues (165 today) */
    /* 64 small writes on a file named otherwise than in UTF-8: small_buffer */
    fd = mkstemps(tmp, 6);
    CU_ASSERT_FATAL(fd >= 0);
    f = fdopen(fd, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(hostile_trace, f);
    for (int i = 0; i < 64; i++)
        fprintf(f, "{\"ev\":\"call\",\"t\":%d,\"pid\":7,\"tid\":7,\"op\":\"write\",\"dur\":1000000,"
                   "\"ret\":64,\"fd\":3,\"size\":64}\n", 4000 + i * 1001000);
    fclose(f);
    CU_ASSERT_EQUAL(check_engine_records(tmp, &list), 1);
    unlink(tmp);
    for (size_t i = 0; i < list.n; i++) {
        CU_ASSERT_STRING_EQUAL(list.v[i]->path, "/d/\xef\xbf\xbd");
        CU_ASSERT_STRING_EQUAL(list.v[i]->path_hex, "2f642fff");
    }
    issue_list_release(&list);
}

void issue_rec_suite(void)
{
    CU_pSuite s = CU_add_suite("issue_rec", NULL, NULL);

    CU_add_test(s, "detail_builder", test_builder);
    CU_add_test(s, "round_trip", test_round_trip);
    CU_add_test(s, "other_shapes", test_other_shapes);
    CU_add_test(s, "engine_records", test_engine_records);
}
