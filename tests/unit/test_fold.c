/*
 * test_fold.c - what differs between two runs of the same program folded in
 * fingerprints (analyzer/engine/fold.h): the shape rules with the names
 * they fold and those they must leave, names made from templates, Python's
 * tempfile names made by an exclusive create, the cwd and $HOME; and the
 * name record (5.17) that carries templates and homes, read back from a
 * trace and from JSONL.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "enc_io.h"
#include "fold.h"
#include "format_util.h"
#include "issue.h"
#include "iotrace.h"
#include "unit.h"

static void check_shape(const char *in, const char *want)
{
    char buf[4096];

    snprintf(buf, sizeof(buf), "%s", in);
    fold_random(buf);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "\nfold_random('%s') = '%s', expected '%s'\n", in, buf, want);
    CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_shapes(void)
{
    /* UUIDs, either case, anywhere in a component */
    check_shape("/tmp/run-3f2a9c1e-7b4d-4e8a-9c2f-0a1b2c3d4e5f/out.bin", "/tmp/run-<uuid>/out.bin");
    check_shape("/srv/3F2A9C1E-7B4D-4E8A-9C2F-0A1B2C3D4E5F", "/srv/<uuid>");
    check_shape("/j/3f2a9c1e-7b4d-4e8a-9c2f-0a1b2c3d4e5f.json", "/j/<uuid>.json");
    /* 16 or more hex digits of one case (restic's and borg's repository
       ids, docker's, git's objects, a nanosecond counter) */
    check_shape("/r/repo/5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d/config",
                "/r/repo/<hex>/config");
    check_shape("/r/data/3f/3f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d",
                "/r/data/<hex>/<hex>");
    check_shape("/w/.git/objects/ab/cdef0123456789abcdef0123456789abcdef01", "/w/.git/objects/<hex>/<hex>");
    check_shape("/c/go-build/ab/abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789-d",
                "/c/go-build/<hex>/<hex>-d");
    check_shape("/t/1700000000123456789.log", "/t/<hex>.log");
    check_shape("/run/machine/0123456789abcdef", "/run/machine/<hex>");
    /* base32/64-like ids */
    check_shape("/s/aZ3kQ9mP0xL7vB2n/f", "/s/<id>/f");
    check_shape("/s/JBSWY3DPEHPK3PXP7Q", "/s/<id>");
    check_shape("/u/01HGW2N7EBV4KQ9Z3T5XRJ8M6Y.json", "/u/<id>.json");
    /* names that stay: too short, one digit, few class changes, words */
    check_shape("/etc/app/config-2024.json", "/etc/app/config-2024.json");
    check_shape("/usr/lib/libfoo.so.6", "/usr/lib/libfoo.so.6");
    check_shape("/srv/www/index.html", "/srv/www/index.html");
    check_shape("/usr/lib/x86_64-linux-gnu/libQt5WebEngineCore.so.5",
                "/usr/lib/x86_64-linux-gnu/libQt5WebEngineCore.so.5");
    check_shape("/d/sha256sum2019report", "/d/sha256sum2019report");
    check_shape("/d/0123456789abcde", "/d/0123456789abcde");         /* 15 hex digits */
    check_shape("/d/DeadBeefDeadBeef", "/d/DeadBeefDeadBeef");       /* mixed case, no digit */
    check_shape("/d/abcdef0123456789g", "/d/abcdef0123456789g");     /* not all hex */
    check_shape("/data/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/f1", "/data/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/f1");
    check_shape("/d/0000000000000000", "/d/0000000000000000");       /* fewer than 4 distinct */
    check_shape("/d/20240101T120000Z.log", "/d/20240101T120000Z.log");
    check_shape("/d/ab/notes.txt", "/d/ab/notes.txt");               /* a fan-out name alone */
    check_shape("/d/ab/<hex>", "/d/ab/<hex>");                       /* not folded here: stays */
    check_shape("/", "/");
    check_shape("", "");
    check_shape("relative/3f2a9c1e-7b4d-4e8a-9c2f-0a1b2c3d4e5f", "relative/<uuid>");
}

static void test_made_names(void)
{
    struct fold_made *m = fold_made_create();
    char p[4096];

    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    fold_made_add(m, "/tmp/ioscope-fd_leak-a8Bc9Z", 21, 6);
    fold_made_add(m, "/tmp/ioscope-fd_leak-a8Bc9Z/sub-Q1w2E3", 32, 6);
    fold_made_add(m, "/tmp/rep-Zz00Yy.csv", 9, 6);
    /* not kept: relative, empty span, span past the end */
    fold_made_add(m, "rel-Ab12Cd", 4, 6);
    fold_made_add(m, "/tmp/x-Ab12Cd", 7, 0);
    fold_made_add(m, "/tmp/y-Ab12Cd", 9, 6);

    strcpy(p, "/tmp/ioscope-fd_leak-a8Bc9Z/plugin00.manifest");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/ioscope-fd_leak-XXXXXX/plugin00.manifest");
    strcpy(p, "/tmp/ioscope-fd_leak-a8Bc9Z");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/ioscope-fd_leak-XXXXXX");
    /* nested: both folded */
    strcpy(p, "/tmp/ioscope-fd_leak-a8Bc9Z/sub-Q1w2E3/f");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/ioscope-fd_leak-XXXXXX/sub-XXXXXX/f");
    strcpy(p, "/tmp/rep-Zz00Yy.csv");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/rep-XXXXXX.csv");
    /* only at a component's end: another name that starts alike stays */
    strcpy(p, "/tmp/ioscope-fd_leak-a8Bc9Zx/f");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/ioscope-fd_leak-a8Bc9Zx/f");
    strcpy(p, "/tmp/rel-Ab12Cd");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/rel-Ab12Cd");
    strcpy(p, "/tmp/x-Ab12Cd");
    fold_made_apply(m, p);
    CU_ASSERT_STRING_EQUAL(p, "/tmp/x-Ab12Cd");
    fold_made_free(m);
}

static int made_by(unsigned op, int64_t flags, const char *path, size_t *at)
{
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = (uint8_t)op,
                            .has = IOT_HAS_PATH | IOT_HAS_FLAGS, .flags = flags, .path = path };
    size_t n = 0;
    int r = fold_made_by_call(&ev, at, &n);

    CU_ASSERT(!r || n == 8);
    return r;
}

static void test_python_tempfile(void)
{
    size_t at = 0;

    /* tempfile.mkdtemp(prefix="app-"): os.mkdir(name, 0o700) */
    CU_ASSERT(made_by(IOT_OP_MKDIR, 0700, "/tmp/app-k3j2_x9a", &at));
    CU_ASSERT_EQUAL(at, 9);
    /* tempfile.mkstemp(): O_CREAT | O_EXCL, "tmp" and 8, all letters too */
    CU_ASSERT(made_by(IOT_OP_OPEN, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, "/tmp/tmpabcdefgh", &at));
    CU_ASSERT_EQUAL(at, 8);
    CU_ASSERT(made_by(IOT_OP_OPEN, O_RDWR | O_CREAT | O_EXCL, "/var/tmp/job_x1y2z3w4", &at));
    CU_ASSERT_EQUAL(at, 13);
    /* not: another mode, no O_EXCL, no separator, another alphabet, relative */
    CU_ASSERT(!made_by(IOT_OP_MKDIR, 0755, "/tmp/app-k3j2_x9a", &at));
    CU_ASSERT(!made_by(IOT_OP_OPEN, O_WRONLY | O_CREAT, "/tmp/app-k3j2_x9a", &at));
    CU_ASSERT(!made_by(IOT_OP_OPEN, O_RDWR | O_CREAT | O_EXCL, "/tmp/appk3j2_x9a", &at));
    CU_ASSERT(!made_by(IOT_OP_OPEN, O_RDWR | O_CREAT | O_EXCL, "/tmp/app-K3J2_X9A", &at));
    CU_ASSERT(!made_by(IOT_OP_OPEN, O_RDWR | O_CREAT | O_EXCL, "/tmp/app-x9a", &at));
    CU_ASSERT(!made_by(IOT_OP_MKDIR, 0700, "app-k3j2_x9a", &at));
    CU_ASSERT(!made_by(IOT_OP_STAT, 0700, "/tmp/app-k3j2_x9a", &at));
}

/* The fingerprint the default config gives a path with a fixed stack. */
static void fp(const char *path, char *out)
{
    struct config c;

    CU_ASSERT_EQUAL_FATAL(config_init(&c), 0);
    issue_fingerprint(&c, "small_buffer", path, "save (/usr/bin/app)", out);
    config_release(&c);
}

static void test_fingerprints_fold(void)
{
    char a[17], b[17];

    fp("/tmp/run-3f2a9c1e-7b4d-4e8a-9c2f-0a1b2c3d4e5f/out.bin", a);
    fp("/tmp/run-00000000-1111-4222-a333-444444444444/out.bin", b);
    CU_ASSERT_STRING_EQUAL(a, b);
    fp("/r/data/3f/3f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d", a);
    fp("/r/data/a1/a10c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c00", b);
    CU_ASSERT_STRING_EQUAL(a, b);
    /* a fold never makes two files one: other names, other fingerprints */
    fp("/r/data/3f/3f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d", a);
    fp("/r/index/3f/3f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d5f0c7d2a9b1e4c3d", b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    fp("/etc/app/config-2024.json", a);
    fp("/etc/app/config-2025.json", b);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
}

/*
 * Name records (tag 0x4a): a home and a template read back, a later
 * version's longer payload stepped over at its length, an unknown `what`
 * and a span outside the path skipped like an unknown kind; the same
 * events through JSONL and back.
 */
static void test_name_record(void)
{
    static uint8_t rec[1024];
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *js = iot_jsonl_scratch_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL, back;
    struct iot_enc e;
    char err[IOT_ERRBUF_SIZE] = "", *line = NULL;
    static const char made[] = "/tmp/ioscope-fd_leak-a8Bc9Z";
    size_t at, len = 0;
    FILE *f;
    long n;

    iot_enc_begin(&e, rec, sizeof(rec), 9000);
    CU_ASSERT_FATAL(iot_enc_home(&e, 9001, "/home/u", 7) == 0);
    /* a runtime's variable, at base_t: the bytes docs/trace-format.md 5.17 gives */
    {
        static const uint8_t want[] = { 0x4a, 0x13, 0x00, 0x02, 0x0c, 'N', 'O', 'D', 'E', '_', 'O',
                                        'P', 'T', 'I', 'O', 'N', 'S', 0x03, '-', '-', 'x' };

        at = e.len;
        CU_ASSERT_FATAL(iot_enc_runtime_env(&e, 9000, "NODE_OPTIONS", 12, "--x", 3) == 0);
        CU_ASSERT_EQUAL_FATAL(e.len - at, sizeof(want));
        CU_ASSERT(memcmp(rec + at, want, sizeof(want)) == 0);
        CU_ASSERT_EQUAL(iot_enc_runtime_env(&e, 9000, "", 0, "--x", 3), -1);
    }
    at = e.len;
    CU_ASSERT_FATAL(iot_enc_template(&e, 9002, made, strlen(made), 21, 6) == 0);
    CU_ASSERT_FATAL(rec[at] == 0x4a && rec[at + 1] < 0x7f);
    /* a later version's: one more byte at the payload's end */
    rec[at + 1]++;
    rec[e.len++] = 0x2a;
    CU_ASSERT_EQUAL(iot_enc_template(&e, 9003, made, strlen(made), 22, 6), -1);
    /* what = 7: a kind of name this version does not know */
    {
        static const uint8_t unknown[] = { 0x4a, 4, 0x00, 0x07, 0x01, 'x' };

        memcpy(rec + e.len, unknown, sizeof(unknown));
        e.len += sizeof(unknown);
        e.nrec++;
    }
    CU_ASSERT_FATAL(iot_enc_exit(&e, 9030, 0, 0) == 0);
    spill_chunk(unit_tmp_path("names.zst"), rec, e.len, e.nrec, 9000);
    n = read_all(unit_tmp_path("names.zst"), &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.records_unknown, 1);
    CU_ASSERT_EQUAL(evs[0].kind, IOT_EV_HOME);
    CU_ASSERT_STRING_EQUAL(evs[0].path, "/home/u");
    CU_ASSERT_EQUAL(evs[1].kind, IOT_EV_RUNTIME_ENV);
    CU_ASSERT_STRING_EQUAL(evs[1].label_key, "NODE_OPTIONS");
    CU_ASSERT_STRING_EQUAL(evs[1].label_value, "--x");
    CU_ASSERT_PTR_NULL(evs[1].path);
    CU_ASSERT_EQUAL(evs[2].kind, IOT_EV_TEMPLATE);
    CU_ASSERT_STRING_EQUAL(evs[2].path, made);
    CU_ASSERT_EQUAL(evs[2].random_at, 21);
    CU_ASSERT_EQUAL(evs[2].random_len, 6);
    CU_ASSERT_EQUAL(evs[3].kind, IOT_EV_EXIT);
    CU_ASSERT_STRING_EQUAL(iot_kind_name(IOT_EV_HOME), "home");
    CU_ASSERT_STRING_EQUAL(iot_kind_name(IOT_EV_TEMPLATE), "template");
    CU_ASSERT_STRING_EQUAL(iot_kind_name(IOT_EV_RUNTIME_ENV), "runtime_env");

    /* JSONL: each line reads back as the event it was written from */
    for (int i = 0; i < 3; i++) {
        f = open_memstream(&line, &len);
        CU_ASSERT_FATAL(f != NULL);
        CU_ASSERT_EQUAL(iot_jsonl_write(f, &evs[i]), 0);
        fclose(f);
        CU_ASSERT_EQUAL(iot_jsonl_parse(line, strlen(line), &back, st, js, err), 1);
        CU_ASSERT(iot_event_equal(&evs[i], &back));
        free(line);
        line = NULL;
    }
    /* a span outside the path is refused, with the key named */
    {
        static const char bad[] =
            "{\"ev\":\"template\",\"t\":1,\"pid\":2,\"path\":\"/tmp/a-Ab12Cd\",\"random_at\":9,"
            "\"random_len\":6}";

        CU_ASSERT_EQUAL(iot_jsonl_parse(bad, strlen(bad), &back, st, js, err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "random_len"));
    }
    free(evs);
    iot_jsonl_scratch_free(js);
    iot_strtab_free(st);

    /* the bytes docs/trace-format.md 5.17 gives for the home /home/u */
    {
        static const uint8_t want[] = { 0x4a, 0x0a, 0x00, 0x00, 0x07, '/', 'h', 'o', 'm', 'e',
                                        '/', 'u' };

        iot_enc_begin(&e, rec, sizeof(rec), 9000);
        CU_ASSERT_FATAL(iot_enc_home(&e, 9000, "/home/u", 7) == 0);
        CU_ASSERT_EQUAL(e.len, sizeof(want));
        CU_ASSERT(memcmp(rec, want, sizeof(want)) == 0);
    }
}

/* A process's own pid in a name folds to "<pid>"; other digits stay. */
static void test_pid_names(void)
{
    static const struct { const char *in; int32_t pid; const char *want; } rows[] = {
        { "/d/pg_wal/xlogtemp.22667", 22667, "/d/pg_wal/xlogtemp.<pid>" },
        { "/run/app.22667.lock/22667", 22667, "/run/app.<pid>.lock/<pid>" },
        { "/d/pg_wal/xlogtemp.22667", 2266, "/d/pg_wal/xlogtemp.22667" },   /* part of a run */
        { "/d/pg_wal/xlogtemp.2266", 22667, "/d/pg_wal/xlogtemp.2266" },
        { "/d/000000010000000000022667", 22667, "/d/000000010000000000022667" },
        { "/var/log/app.7", 7, "/var/log/app.7" },                           /* pid < 100 */
        { "/var/log/app.100", 100, "/var/log/app.<pid>" },
    };
    char buf[64];

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        strcpy(buf, rows[i].in);
        fold_pid(buf, sizeof(buf), rows[i].pid);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].want);
    }
    /* a fold that would not fit the buffer is not made */
    strcpy(buf, "/a.100");
    fold_pid(buf, 8, 100);
    CU_ASSERT_STRING_EQUAL(buf, "/a.100");
    fold_pid(buf, 9, 100);
    CU_ASSERT_STRING_EQUAL(buf, "/a.<pid>");
}

void fold_suite(void)
{
    CU_pSuite s = CU_add_suite("fold", NULL, NULL);

    CU_add_test(s, "random shapes folded, names left", test_shapes);
    CU_add_test(s, "names made from templates get their X's back", test_made_names);
    CU_add_test(s, "Python tempfile names made by an exclusive create", test_python_tempfile);
    CU_add_test(s, "fingerprints fold random names, never two files into one",
                test_fingerprints_fold);
    CU_add_test(s, "name records: home and template, in JSONL too", test_name_record);
    CU_add_test(s, "a process's own pid in a name", test_pid_names);
}
