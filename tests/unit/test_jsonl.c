/*
 * test_jsonl.c - the JSONL event model: events -> JSONL -> events identical,
 * SPEC examples parse, malformed lines are refused with the key named.
 */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "iotrace.h"
#include "unit.h"

static void test_roundtrip(void)
{
    uint64_t seed = unit_seed() ^ 0x7501;
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
    char err[IOT_ERRBUF_SIZE];
    struct gen g;
    int bad = 0;

    gen_init(&g, seed, 2, 3);
    for (int i = 0; i < 5000; i++) {
        struct iot_event ev, back;
        char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);

        gen_event(&g, &ev, 1);
        CU_ASSERT_FATAL(iot_jsonl_write(f, &ev) == 0);
        fclose(f);
        CU_ASSERT(len > 0 && line[len - 1] == '\n');
        CU_ASSERT(memchr(line, '\n', len - 1) == NULL);  /* one line per event */
        if (iot_jsonl_parse(line, len, &back, st, sc, err) != 1 || !iot_event_equal(&ev, &back)) {
            if (!bad++)
                fprintf(stderr, "\njsonl roundtrip: event %d differs (IOSCOPE_SEED=%llu): %s\n",
                        i, (unsigned long long)unit_seed(), line);
        }
        free(line);
    }
    CU_ASSERT_EQUAL(bad, 0);
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

/* ev as a line, plain (x NULL) or the dump's; malloc'ed, in *len. */
static char *line_of(const struct iot_event *ev, const struct iot_jsonl_extra *x, size_t *len)
{
    char *line = NULL;
    FILE *f = open_memstream(&line, len);

    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(iot_jsonl_write_line(f, ev, x) == 0);
    fclose(f);
    return line;
}

/*
 * An event of every kind (IOT_KINDS), module and JIT symbol included, reads back equal
 * from its own line and from the dump's line, whose keys are every kind's
 * in one order; equality tells a module's members apart.
 */
static void test_every_kind(void)
{
    static const char *const argv[] = { "app", "-v", NULL };
    struct iot_event evs[IOT_KIND_COUNT] = {
        [IOT_EV_CALL] = { .kind = IOT_EV_CALL, .op = IOT_OP_READ, .pid = 7, .tid = 8, .t = 5,
                          .dur = 3, .ret = 10, .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = 3,
                          .size = 10 },
        [IOT_EV_PROCESS] = { .kind = IOT_EV_PROCESS, .pid = 7, .tid = 7, .t = 1, .ppid = 1,
                             .exe = "/bin/app", .argc = 2, .argv = argv,
                             .start_unix_ns = 1763800000123456789LL },
        [IOT_EV_THREAD] = { .kind = IOT_EV_THREAD, .pid = 7, .tid = 8, .t = 2, .name = "worker" },
        [IOT_EV_EXIT] = { .kind = IOT_EV_EXIT, .pid = 7, .tid = 7, .t = 9, .status = 137,
                          .signal = 9, .has = IOT_HAS_SIGNAL },
        [IOT_EV_MODULE] = { .kind = IOT_EV_MODULE, .pid = 7, .tid = 7, .t = 3,
                            .path = "/lib/libz.so.1", .bias = 0x7f0000001000ull,
                            .build_id = "8563cc5c" },
        [IOT_EV_JIT_SYMBOL] = { .kind = IOT_EV_JIT_SYMBOL, .pid = 7, .tid = 7, .t = 4,
                                .bias = 0x7f1c28569000ull, .code_size = 0x378,
                                .symbol = "JS:~writeMany /app/w.js:2:19" },
        [IOT_EV_LABEL] = { .kind = IOT_EV_LABEL, .pid = 7, .tid = 7, .t = 1,
                           .label_key = "version", .label_value = "1.2" },
        [IOT_EV_HOME] = { .kind = IOT_EV_HOME, .pid = 7, .tid = 7, .t = 1, .path = "/home/u" },
        [IOT_EV_TEMPLATE] = { .kind = IOT_EV_TEMPLATE, .pid = 7, .tid = 7, .t = 6,
                              .path = "/tmp/app-Ab12Cd", .random_at = 9, .random_len = 6 },
        [IOT_EV_WAITS] = { .kind = IOT_EV_WAITS, .pid = 7, .tid = 8, .t = 6, .waits = 1 },
        [IOT_EV_PY_CODE] = { .kind = IOT_EV_PY_CODE, .pid = 7, .tid = 7, .t = 7,
                             .bias = 0x7f0000a0b0c0ull, .py_file = "app/log.py",
                             .symbol = "Log.write_records", .first_line = 40,
                             .py_lines = "0:0 2:40 18:42 30:0 32:41" },
        [IOT_EV_RUNTIME_ENV] = { .kind = IOT_EV_RUNTIME_ENV, .pid = 7, .tid = 7, .t = 1,
                                 .label_key = "JAVA_TOOL_OPTIONS",
                                 .label_value = "-XX:+PreserveFramePointer" },
    };
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
    char err[IOT_ERRBUF_SIZE];
    size_t dump_keys = 0;

    for (unsigned k = 0; k < IOT_KIND_COUNT; k++) {
        struct iot_jsonl_extra x = { 1, 42, "app", evs[k].kind == IOT_EV_CALL ? "/data" : NULL };
        struct iot_event back, other;
        size_t len, keys = 0;
        char *plain, *dump;

        if (k == IOT_EV_MODULE || k == IOT_EV_HOME || k == IOT_EV_TEMPLATE)
            x.path = evs[k].path;
        plain = line_of(&evs[k], NULL, &len);
        CU_ASSERT_EQUAL(iot_jsonl_parse(plain, len, &back, st, sc, err), 1);
        CU_ASSERT(iot_event_equal(&evs[k], &back));
        dump = line_of(&evs[k], &x, &len);
        CU_ASSERT_EQUAL(iot_jsonl_parse(dump, len, &back, st, sc, err), 1);
        /* the dump's path column is the file a call touched: a read has none of its own */
        if (k == IOT_EV_CALL) {
            CU_ASSERT_EQUAL(back.has, evs[k].has | IOT_HAS_PATH);
        } else {
            CU_ASSERT(iot_event_equal(&evs[k], &back));
        }
        for (const char *c = dump; (c = strstr(c, "\":")); c++)
            keys++;
        CU_ASSERT(dump_keys == 0 || keys == dump_keys);  /* one schema for every line */
        dump_keys = keys;
        /* a member changed is told apart */
        other = evs[k];
        other.t++;
        CU_ASSERT(!iot_event_equal(&evs[k], &other));
        free(plain);
        free(dump);
    }
    {
        struct iot_event other = evs[IOT_EV_MODULE];

        other.build_id = "ffff";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_MODULE], &other));
        other = evs[IOT_EV_MODULE];
        other.bias = 0;
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_MODULE], &other));
        other = evs[IOT_EV_JIT_SYMBOL];
        other.code_size++;
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_JIT_SYMBOL], &other));
        other = evs[IOT_EV_JIT_SYMBOL];
        other.symbol = "py::main:/app/w.py";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_JIT_SYMBOL], &other));
        other = evs[IOT_EV_PY_CODE];
        other.py_file = "app/log2.py";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_PY_CODE], &other));
        other = evs[IOT_EV_PY_CODE];
        other.py_lines = "0:0 2:40 18:43 30:0 32:41";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_PY_CODE], &other));
    }
    {
        struct iot_event other = evs[IOT_EV_LABEL];

        other.label_value = "1.3";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_LABEL], &other));
        other = evs[IOT_EV_LABEL];
        other.label_key = "versio";
        CU_ASSERT(!iot_event_equal(&evs[IOT_EV_LABEL], &other));
    }
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

static void test_spec_examples(void)
{
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
    char err[IOT_ERRBUF_SIZE];
    struct iot_event ev;
    const char *p = "{\"ev\":\"process\",\"pid\":4242,\"ppid\":1,\"exe\":\"/usr/bin/app\","
                    "\"cmdline\":[\"app\",\"-v\"],\"start_unix_ns\":1763800000000000000}";
    const char *c = "{\"ev\":\"call\",\"t\":5,\"pid\":4242,\"tid\":4243,\"op\":\"pread\",\"dur\":7,"
                    "\"ret\":-1,\"errno\":9,\"fd\":3,\"size\":4096,\"offset\":8192,\"future\":[1]}";

    CU_ASSERT_EQUAL(iot_jsonl_parse(p, strlen(p), &ev, st, sc, err), 1);
    CU_ASSERT_EQUAL(ev.kind, IOT_EV_PROCESS);
    CU_ASSERT_EQUAL(ev.pid, 4242);
    CU_ASSERT_EQUAL(ev.tid, 4242);
    CU_ASSERT_EQUAL(ev.ppid, 1);
    CU_ASSERT_STRING_EQUAL(ev.exe, "/usr/bin/app");
    CU_ASSERT_EQUAL(ev.argc, 2);
    CU_ASSERT_STRING_EQUAL(ev.argv[1], "-v");
    CU_ASSERT_EQUAL(ev.start_unix_ns, 1763800000000000000LL);

    CU_ASSERT_EQUAL(iot_jsonl_parse(c, strlen(c), &ev, st, sc, err), 1);
    CU_ASSERT_EQUAL(ev.kind, IOT_EV_CALL);
    CU_ASSERT_EQUAL(ev.op, IOT_OP_PREAD);
    CU_ASSERT_EQUAL(ev.t, 5);
    CU_ASSERT_EQUAL(ev.dur, 7);
    CU_ASSERT_EQUAL(ev.ret, -1);
    CU_ASSERT_EQUAL(ev.err, 9);
    CU_ASSERT_EQUAL(ev.has, IOT_HAS_ERRNO | IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET);
    CU_ASSERT_EQUAL(ev.offset, 8192);

    CU_ASSERT_EQUAL(iot_jsonl_parse("  \r\n", 4, &ev, st, sc, err), 0);
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

/* A newer writer's op or event kind: skipped with its name, not an error. */
static void test_unknown(void)
{
    static const char op[] =
        "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"ret\":0,\"op\":\"frobnicate\"}";
    static const char kind[] = "{\"ev\":\"syscall\",\"pid\":1,\"t\":0}";
    static const char bad[] = "{\"ev\":\"call\",\"pid\":1,\"t\":0,\"ret\":0,\"op\":7}";
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
    char err[IOT_ERRBUF_SIZE] = "";
    struct iot_event ev;

    CU_ASSERT_EQUAL(iot_jsonl_parse(op, strlen(op), &ev, st, sc, err), IOT_JSONL_UNKNOWN);
    CU_ASSERT_STRING_EQUAL(err, "op \"frobnicate\"");
    CU_ASSERT_EQUAL(iot_jsonl_parse(kind, strlen(kind), &ev, st, sc, err), IOT_JSONL_UNKNOWN);
    CU_ASSERT_STRING_EQUAL(err, "event \"syscall\"");
    /* an op that is not a string stays malformed */
    CU_ASSERT_EQUAL(iot_jsonl_parse(bad, strlen(bad), &ev, st, sc, err), -1);
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

static void test_malformed(void)
{
    static const struct {
        const char *line, *msg;
    } cases[] = {
        { "{\"ev\":\"call\",", "invalid JSON" },
        { "[1,2]", "expected a JSON object" },
        { "{\"pid\":1}", "key \"ev\": missing" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"ret\":0}", "key \"op\": missing" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":\"0\",\"ret\":0,\"op\":\"read\"}", "key \"t\": expected an integer" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"op\":\"read\"}", "key \"ret\": missing" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"ret\":0,\"op\":\"read\",\"fd\":1e3}", "key \"fd\": expected an integer" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"ret\":0,\"op\":\"read\",\"dur\":-4}", "key \"dur\": negative" },
        { "{\"ev\":\"process\",\"pid\":1,\"cmdline\":\"x\"}", "key \"cmdline\"" },
        { "{\"ev\":\"call\",\"pid\":1,\"tid\":1,\"t\":0,\"ret\":0,\"op\":\"setvbuf\",\"bufmode\":\"big\"}", "key \"bufmode\"" },
        { "{\"ev\":\"thread\",\"pid\":1,\"tid\":99999999999}", "key \"tid\": out of range" },
    };
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[IOT_ERRBUF_SIZE] = "";
        struct iot_event ev;

        CU_ASSERT_EQUAL(iot_jsonl_parse(cases[i].line, strlen(cases[i].line), &ev, st, sc, err), -1);
        if (!strstr(err, cases[i].msg)) {
            fprintf(stderr, "\n%s: got \"%s\", want \"%s\"\n", cases[i].line, err, cases[i].msg);
            CU_FAIL("error message");
        }
    }
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

static void test_escaping(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    iot_json_write_string(f, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(out, "\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\"");
    free(out);
}

/* Whether v (not null) is what a column of type t holds. */
static int of_type(const json_t *v, enum iot_jsonl_type t)
{
    switch (t) {
    case IOT_JSONL_STRING:
        return json_is_string(v);
    case IOT_JSONL_INT32:
        return json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
               json_integer_value(v) <= INT32_MAX;
    case IOT_JSONL_INT64:
    case IOT_JSONL_UINT64:
        return json_is_integer(v);
    case IOT_JSONL_STRINGS:
        return json_is_array(v);
    }
    return 0;
}

/*
 * Every dump line has the columns iot_jsonl_dump_columns lists (what
 * `dump --schema` gives data tools), in its order, each null or of its
 * type; a path that is not UTF-8 also has its bytes in hex, the Unix start
 * also as a string.
 */
static void test_dump_columns(void)
{
    static const char *const argv[] = { "app", NULL };
    const struct iot_event evs[] = {
        { .kind = IOT_EV_CALL, .op = IOT_OP_OPEN, .pid = 7, .tid = 8, .t = 5, .dur = 3,
          .ret = 3, .has = IOT_HAS_PATH | IOT_HAS_FLAGS, .path = "/d/\xff\xfe", .flags = 0 },
        { .kind = IOT_EV_CALL, .op = IOT_OP_READ, .pid = 7, .tid = 8, .t = 6, .dur = 3,
          .ret = 10, .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = 3, .size = 10 },
        { .kind = IOT_EV_PROCESS, .pid = 7, .tid = 7, .t = 1, .ppid = 1, .exe = "/bin/app",
          .argc = 1, .argv = argv, .start_unix_ns = 1763800000123456789LL },
        { .kind = IOT_EV_THREAD, .pid = 7, .tid = 8, .t = 2, .name = "worker" },
        { .kind = IOT_EV_EXIT, .pid = 7, .tid = 7, .t = 9, .status = 137, .signal = 9,
          .has = IOT_HAS_SIGNAL },
        { .kind = IOT_EV_MODULE, .pid = 7, .tid = 7, .t = 3, .path = "/lib/libz.so.1",
          .bias = 0x7f0000001000ull, .build_id = "8563cc5c" },
    };
    const char *paths[] = { "/d/\xff\xfe", "/d/caf\xc3\xa9", NULL, NULL, NULL, "/lib/libz.so.1" };
    struct iot_jsonl_column cols[96];
    size_t ncols = iot_jsonl_dump_columns(cols, 96);

    CU_ASSERT_FATAL(ncols > 30 && ncols <= 96);
    for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
        struct iot_jsonl_extra x = { 1, 42, "app", paths[k] };
        size_t len, i = 0;
        char *line = line_of(&evs[k], &x, &len);
        json_t *o = json_loadb(line, len, 0, NULL), *v;
        const char *key;

        CU_ASSERT_FATAL(o != NULL);
        json_object_foreach(o, key, v) {
            CU_ASSERT(i < ncols && strcmp(key, cols[i].name) == 0);
            CU_ASSERT(i >= ncols || json_is_null(v) || of_type(v, cols[i].type));
            i++;
        }
        CU_ASSERT_EQUAL(i, ncols);
        v = json_object_get(o, "path_hex");
        if (k == 0) {
            struct iot_strtab *st = iot_strtab_create();
            struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
            struct iot_event back;
            char err[IOT_ERRBUF_SIZE];

            CU_ASSERT_STRING_EQUAL(json_string_value(v), "2f642ffffe");
            /* read back, the path is the bytes recorded, not their U+FFFD text */
            CU_ASSERT_EQUAL(iot_jsonl_parse(line, len, &back, st, sc, err), 1);
            CU_ASSERT(back.path && strcmp(back.path, paths[0]) == 0);
            iot_jsonl_scratch_free(sc);
            iot_strtab_free(st);
        } else {
            CU_ASSERT(json_is_null(v));   /* UTF-8 (or none): the path says it all */
        }
        v = json_object_get(o, "start_unix_ns_str");
        if (evs[k].kind == IOT_EV_PROCESS) {
            CU_ASSERT_STRING_EQUAL(json_string_value(v), "1763800000123456789");
        } else {
            CU_ASSERT(json_is_null(v));
        }
        json_decref(o);
        free(line);
    }
}

void jsonl_suite(void)
{
    CU_pSuite s = CU_add_suite("jsonl", NULL, NULL);

    CU_add_test(s, "events -> JSONL -> events", test_roundtrip);
    CU_add_test(s, "every kind, its own line and the dump's, back equal", test_every_kind);
    CU_add_test(s, "the dump's columns, their order and types", test_dump_columns);
    CU_add_test(s, "SPEC examples", test_spec_examples);
    CU_add_test(s, "malformed lines name the key", test_malformed);
    CU_add_test(s, "a newer writer's op or event is skipped", test_unknown);
    CU_add_test(s, "string escaping", test_escaping);
}
