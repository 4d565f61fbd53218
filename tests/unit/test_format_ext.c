/*
 * test_format_ext.c - extension records (5.9) added to the native format:
 * JIT symbols and labels read back, in JSONL too, a later version's longer
 * payload stepped over at its length. In the format suite (test_format.c).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enc_io.h"
#include "format_util.h"
#include "iotrace.h"
#include "unit.h"

#define tmp_path unit_tmp_path
#define spill unit_spill

/*
 * JIT symbol records (tag 0x46): start, code size and name read back, in
 * JSONL and back; bytes a later version appends are stepped over, and a
 * record of size 0 (no code) is skipped like an unknown kind, the records
 * after it intact.
 */
static void test_jit_symbol_record(void)
{
    static uint8_t rec[1024], frames[4096];
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 8, .tid = 8, .chain_id = 1,
                               .base_t = 5000 };
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *js = iot_jsonl_scratch_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL, back;
    struct iot_enc e;
    char err[IOT_ERRBUF_SIZE] = "", *line = NULL;
    static const char name1[] = "JS:~writeMany /app/w.js:2:19", name2[] = "py::main:/app/w.py";
    size_t len = 0, at;
    FILE *f;
    long n;

    iot_enc_begin(&e, rec, sizeof(rec), h.base_t);
    CU_ASSERT_FATAL(iot_enc_jit_symbol(&e, 5010, 0x7f1c28569000ull, 0x378, name1,
                                       strlen(name1)) == 0);
    /* a later version's: one more byte at the payload's end */
    at = e.len;
    CU_ASSERT_FATAL(iot_enc_jit_symbol(&e, 5020, 0x7f1c285697bcull, 11, name2,
                                       strlen(name2)) == 0);
    CU_ASSERT_FATAL(rec[at] == 0x46 && rec[at + 1] < 0x7f);
    rec[at + 1]++;
    rec[e.len++] = 0x2a;
    /* size 0: no code */
    CU_ASSERT_FATAL(iot_enc_jit_symbol(&e, 5025, 0x1000, 0, "x", 1) == 0);
    CU_ASSERT_FATAL(iot_enc_exit(&e, 5030, 0, 0) == 0);
    h.bytes = (uint32_t)e.len;
    h.nrec = e.nrec;
    n = (long)iot_chunk_compress(c, &h, rec, frames, sizeof(frames));
    CU_ASSERT_FATAL(n > 0);
    spill(tmp_path("jit.zst"), frames, (size_t)n);
    n = read_all(tmp_path("jit.zst"), &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.records_unknown, 1);
    CU_ASSERT_EQUAL(evs[0].kind, IOT_EV_JIT_SYMBOL);
    CU_ASSERT_EQUAL(evs[0].pid, 8);
    CU_ASSERT_EQUAL(evs[0].t, 10);
    CU_ASSERT_EQUAL(evs[0].bias, 0x7f1c28569000ull);
    CU_ASSERT_EQUAL(evs[0].code_size, 0x378);
    CU_ASSERT_STRING_EQUAL(evs[0].symbol, name1);
    CU_ASSERT_EQUAL(evs[1].kind, IOT_EV_JIT_SYMBOL);
    CU_ASSERT_EQUAL(evs[1].t, 20);
    CU_ASSERT_EQUAL(evs[1].code_size, 11);
    CU_ASSERT_STRING_EQUAL(evs[1].symbol, name2);
    CU_ASSERT_EQUAL(evs[2].kind, IOT_EV_EXIT);

    /* JSONL and back */
    f = open_memstream(&line, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(iot_jsonl_write(f, &evs[0]) == 0);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"ev\":\"jit_symbol\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "\"code_size\":888"));
    CU_ASSERT_EQUAL(iot_jsonl_parse(line, len, &back, st, js, err), 1);
    CU_ASSERT(iot_event_equal(&back, &evs[0]));
    CU_ASSERT_STRING_EQUAL(back.symbol, name1);
    free(line);
    free(evs);
    iot_jsonl_scratch_free(js);
    iot_strtab_free(st);
    iot_chunker_free(c);
}

/*
 * Python code records (tag 0x4B): the bytes the spec gives (5.18), read
 * back with the line table as text, which makes the same bytes again; a
 * line table cut inside a pair is damage, stepped over like an unknown kind.
 */
static void test_py_code_record(void)
{
    static const uint8_t spec[] = { 0x4b, 0x12, 0x00, 0x80, 0x20, 0x04, 'a', '.', 'p', 'y', 0x01,
                                    'f', 0x03, 0x06, 0x00, 0x00, 0x04, 0x04, 0x06, 0x09 };
    static const uint8_t lines[] = { 0x00, 0x00, 0x04, 0x04, 0x06, 0x09 };
    static uint8_t rec[1024], frames[4096], back_lines[64];
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 8, .tid = 8, .chain_id = 1,
                               .base_t = 5000 };
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL;
    struct iot_enc e;
    char err[IOT_ERRBUF_SIZE] = "";
    long n;

    iot_enc_begin(&e, rec, sizeof(rec), h.base_t);
    CU_ASSERT_FATAL(iot_enc_py_code(&e, 5000, 0x1000, "a.py", 4, "f", 1, 3, lines,
                                    sizeof(lines)) == 0);
    CU_ASSERT_EQUAL_FATAL(e.len, sizeof(spec));
    CU_ASSERT(memcmp(rec, spec, sizeof(spec)) == 0);
    /* cut inside its last pair: the line table is damaged */
    CU_ASSERT_FATAL(iot_enc_py_code(&e, 5010, 0x2000, "b.py", 4, "g", 1, 1, lines, 5) == 0);
    CU_ASSERT_FATAL(iot_enc_exit(&e, 5030, 0, 0) == 0);
    h.bytes = (uint32_t)e.len;
    h.nrec = e.nrec;
    n = (long)iot_chunk_compress(c, &h, rec, frames, sizeof(frames));
    CU_ASSERT_FATAL(n > 0);
    spill(tmp_path("py.zst"), frames, (size_t)n);
    n = read_all(tmp_path("py.zst"), &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(ts.records_unknown, 1);
    CU_ASSERT_EQUAL(evs[0].kind, IOT_EV_PY_CODE);
    CU_ASSERT_EQUAL(evs[0].bias, 0x1000);
    CU_ASSERT_STRING_EQUAL(evs[0].py_file, "a.py");
    CU_ASSERT_STRING_EQUAL(evs[0].symbol, "f");
    CU_ASSERT_EQUAL(evs[0].first_line, 3);
    CU_ASSERT_STRING_EQUAL(evs[0].py_lines, "0:3 4:5 10:0");
    CU_ASSERT_EQUAL(iot_py_lines_parse(evs[0].py_lines, 3, back_lines, sizeof(back_lines)),
                    (long)sizeof(lines));
    CU_ASSERT(memcmp(back_lines, lines, sizeof(lines)) == 0);
    /* text that is not a table */
    CU_ASSERT_EQUAL(iot_py_lines_parse("4:5 0:3", 3, back_lines, sizeof(back_lines)), -1);
    CU_ASSERT_EQUAL(iot_py_lines_parse("0:3,4:5", 3, back_lines, sizeof(back_lines)), -1);
    CU_ASSERT_EQUAL(evs[1].kind, IOT_EV_EXIT);
    free(evs);
    iot_strtab_free(st);
    iot_chunker_free(c);
}

/*
 * Label records: read back in order with their time, a later version's
 * longer payload stepped over at its length; the list form and the checks
 * of a label (iot_labels_parse, iot_label_check).
 */
struct label_seen { int n; char text[256]; };

static void label_collect(void *arg, const char *key, size_t klen, const char *value, size_t vlen)
{
    struct label_seen *s = arg;
    size_t at = strlen(s->text);

    snprintf(s->text + at, sizeof(s->text) - at, "[%.*s=%.*s]", (int)klen, key, (int)vlen, value);
    s->n++;
}

static void test_label_record(void)
{
    static uint8_t rec[1024], frames[4096];
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 9, .tid = 9, .chain_id = 1,
                               .base_t = 7000 };
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_strtab *st = iot_strtab_create();
    struct iot_trace_stats ts;
    struct iot_event *evs = NULL;
    struct iot_enc e;
    struct label_seen seen = { 0, "" };
    char err[IOT_ERRBUF_SIZE] = "", big[IOT_LABEL_MAX_VALUE + 2];
    size_t at;
    long n;

    iot_enc_begin(&e, rec, sizeof(rec), h.base_t);
    CU_ASSERT_FATAL(iot_enc_label(&e, 7001, "version", 7, "1.2", 3) == 0);
    at = e.len;
    CU_ASSERT_FATAL(iot_enc_label(&e, 7001, "device", 6, "", 0) == 0);
    /* a later version's label record: one more byte at the payload's end */
    CU_ASSERT_FATAL(rec[at] == 0x47 && rec[at + 1] < 0x7f);
    rec[at + 1]++;
    rec[e.len++] = 0x2a;
    CU_ASSERT_FATAL(iot_enc_exit(&e, 7030, 0, 0) == 0);
    h.bytes = (uint32_t)e.len;
    h.nrec = e.nrec;
    n = (long)iot_chunk_compress(c, &h, rec, frames, sizeof(frames));
    CU_ASSERT_FATAL(n > 0);
    spill(tmp_path("labels.zst"), frames, (size_t)n);
    n = read_all(tmp_path("labels.zst"), &evs, st, &ts, err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(ts.chunks_damaged, 0);
    CU_ASSERT_EQUAL(ts.records_unknown, 0);
    CU_ASSERT_EQUAL(evs[0].kind, IOT_EV_LABEL);
    CU_ASSERT_EQUAL(evs[0].pid, 9);
    CU_ASSERT_EQUAL(evs[0].t, 1);
    CU_ASSERT_STRING_EQUAL(evs[0].label_key, "version");
    CU_ASSERT_STRING_EQUAL(evs[0].label_value, "1.2");
    CU_ASSERT_EQUAL(evs[1].kind, IOT_EV_LABEL);
    CU_ASSERT_STRING_EQUAL(evs[1].label_key, "device");
    CU_ASSERT_STRING_EQUAL(evs[1].label_value, "");
    CU_ASSERT_EQUAL(evs[2].kind, IOT_EV_EXIT);
    CU_ASSERT_STRING_EQUAL(iot_kind_name(IOT_EV_LABEL), "label");
    free(evs);
    iot_strtab_free(st);
    iot_chunker_free(c);

    CU_ASSERT_EQUAL(iot_labels_parse("a=1,b.c-d_E=x y,e=", label_collect, &seen, err), 3);
    CU_ASSERT_STRING_EQUAL(seen.text, "[a=1][b.c-d_E=x y][e=]");
    CU_ASSERT_EQUAL(iot_labels_parse(NULL, NULL, NULL, err), 0);
    CU_ASSERT_EQUAL(iot_labels_parse("", NULL, NULL, err), 0);
    CU_ASSERT_EQUAL(iot_labels_parse("a=1,b", NULL, NULL, err), -1);
    CU_ASSERT_STRING_EQUAL(err, "label 'b': not KEY=VALUE");
    CU_ASSERT_EQUAL(iot_labels_parse("a/b=1", NULL, NULL, err), -1);
    CU_ASSERT_STRING_EQUAL(err, "label 'a/b': a key not of [A-Za-z0-9_.-]");
    CU_ASSERT_EQUAL(iot_labels_parse("a=\t", NULL, NULL, err), -1);
    CU_ASSERT_EQUAL(iot_label_check("a", 1, "\xc3\xa9", 2, NULL), -1);
    memset(big, 'v', sizeof(big));
    CU_ASSERT_EQUAL(iot_label_check("k", 1, big, IOT_LABEL_MAX_VALUE, NULL), 0);
    CU_ASSERT_EQUAL(iot_label_check("k", 1, big, IOT_LABEL_MAX_VALUE + 1, err), -1);
    CU_ASSERT_STRING_EQUAL(err, "label 'k': a value longer than 256 bytes");
    CU_ASSERT_EQUAL(iot_label_check(big, IOT_LABEL_MAX_KEY, "", 0, NULL), 0);
    CU_ASSERT_EQUAL(iot_label_check(big, IOT_LABEL_MAX_KEY + 1, "", 0, NULL), -1);
    {
        char list[33 * 6 + 1] = "";

        for (int i = 0; i < 33; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sk%02d=v", i ? "," : "", i);
        CU_ASSERT_EQUAL(iot_labels_parse(list, NULL, NULL, err), -1);
        CU_ASSERT_STRING_EQUAL(err, "more than 32 labels");
        list[strlen(list) - 6] = '\0';   /* 32 of them */
        CU_ASSERT_EQUAL(iot_labels_parse(list, NULL, NULL, err), 32);
    }
}

void format_extension_tests(CU_pSuite s)
{
    CU_add_test(s, "JIT symbol records, in JSONL too; one of no code skipped", test_jit_symbol_record);
    CU_add_test(s, "label records, their list form and their checks", test_label_record);
    CU_add_test(s, "Python code records: the spec's bytes, the line table as text and back",
                test_py_code_record);
}
