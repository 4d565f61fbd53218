/*
 * dump_jsonl.h - `ioanalyze dump --format jsonl`: the JSONL events with every
 * key of one schema on every line, each call's path and process
 * (dump_jsonl.c, docs/analyzer.md).
 */
#ifndef DUMP_JSONL_H
#define DUMP_JSONL_H

#include <stdio.h>

#include "engine.h"

/* struct analyze_opts' observe hook: arg is the FILE written to. */
void dump_jsonl_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n);

/*
 * The type of every column of the dump's lines, as one JSON object of two
 * maps in the lines' order: "duckdb" (for read_json's columns=) and
 * "pandas" (nullable dtypes: Int64, UInt64, string). 0, or -1 on a write
 * error.
 */
int dump_jsonl_schema(FILE *f);

#endif /* DUMP_JSONL_H */
