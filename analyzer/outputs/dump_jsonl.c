/*
 * `ioanalyze dump --format jsonl`: the SPEC's JSONL events, written through
 * the replay engine so that every line also says which file and process it
 * belongs to, and with one schema for every line, so that pandas and
 * DuckDB read it with their default settings (docs/analyzer.md, "JSONL
 * for data tools"):
 *
 *  - every line has every key of the schema, in the same order, null where
 *    it does not apply: DuckDB's read_json infers the columns from the first
 *    lines it samples, and drops keys it meets only later (stdio's `stream`,
 *    `mode`, `bufmode` in a trace whose stdio calls come late);
 *  - every call has `path` (the fd's file when the call has no path of its
 *    own) and `process`, so GROUP BY path needs no join;
 *  - `unix_ms` (every line) and `start_unix_ms` (process lines) are
 *    integers below 2^53: a double holds them exactly, where
 *    `start_unix_ns` (kept, exact for JSON readers with 64-bit integers) is
 *    rounded by jq 1.6 and by pandas once the column holds a null.
 *
 * ioanalyze's own JSONL reader takes null as absent, so the dump reads back
 * as the same events. The lines are iot_jsonl_write's, with every key.
 */
#include <string.h>

#include "dump_jsonl.h"
#include "path.h"

void dump_jsonl_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n)
{
    FILE *f = arg;

    for (size_t i = 0; i < n; i++) {
        const struct iot_event *ev = evs[i];
        int proc = ev->kind == IOT_EV_PROCESS;
        struct iot_jsonl_extra x = {
            /* a process line names its new image: the engine has not seen it yet */
            .process = proc ? engine_image_name(ev) : engine_proc_name_of(e, ev->pid),
            .path = ev->kind == IOT_EV_CALL ? engine_call_path(e, ev)
                    : ev->kind == IOT_EV_MODULE || ev->kind == IOT_EV_HOME ||
                              ev->kind == IOT_EV_TEMPLATE ? ev->path : NULL,
        };

        if (proc) {
            x.have_unix_ms = ev->start_unix_ns != 0;
            x.unix_ms = ev->start_unix_ns / 1000000;
        } else {
            x.have_unix_ms = engine_unix_ms(e, ev->pid, ev->t, &x.unix_ms);
        }
        iot_jsonl_write_line(f, ev, &x);
    }
}

/* Each column type as DuckDB's read_json(columns=...) and pandas take it. */
static const struct {
    enum iot_jsonl_type type;
    const char *duckdb, *pandas;
} column_types[] = {
    {IOT_JSONL_STRING, "VARCHAR", "string"},
    {IOT_JSONL_INT32, "INTEGER", "Int32"},
    {IOT_JSONL_INT64, "BIGINT", "Int64"},
    {IOT_JSONL_UINT64, "UBIGINT", "UInt64"},
    {IOT_JSONL_STRINGS, "VARCHAR[]", "object"},
};

/* "name": "TYPE" for every column, in the dump's order, as one object. */
static void write_map(FILE *f, const struct iot_jsonl_column *cols, size_t n, int pandas)
{
    fputs("{", f);
    for (size_t i = 0; i < n; i++) {
        const char *t = "VARCHAR";

        for (size_t k = 0; k < sizeof(column_types) / sizeof(column_types[0]); k++)
            if (column_types[k].type == cols[i].type)
                t = pandas ? column_types[k].pandas : column_types[k].duckdb;
        fprintf(f, "%s\n    \"%s\": \"%s\"", i ? "," : "", cols[i].name, t);
    }
    fputs("\n  }", f);
}

int dump_jsonl_schema(FILE *f)
{
    struct iot_jsonl_column cols[96];
    size_t n = iot_jsonl_dump_columns(cols, sizeof(cols) / sizeof(cols[0]));

    if (n > sizeof(cols) / sizeof(cols[0]))
        return -1;
    fputs("{\n  \"duckdb\": ", f);
    write_map(f, cols, n, 0);
    fputs(",\n  \"pandas\": ", f);
    write_map(f, cols, n, 1);
    fputs("\n}\n", f);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
