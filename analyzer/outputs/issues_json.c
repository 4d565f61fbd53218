/* The issues as JSON: one array, or one object a line (output_format.h). */
#include "output_format.h"

/* Reals with 15 significant digits, what a double holds exactly: 0.1 is
   written 0.1, not jansson's 17-digit 0.10000000000000001. */
#define REALS JSON_REAL_PRECISION(15)

int issues_write_json(FILE *f, const struct output_issues *in)
{
    json_dumpf(in->issues, f, JSON_INDENT(2) | REALS);
    fputc('\n', f);
    return 0;
}

int issues_write_jsonl(FILE *f, const struct output_issues *in)
{
    size_t i;
    json_t *v;

    json_array_foreach(in->issues, i, v) {
        json_dumpf(v, f, JSON_COMPACT | REALS);
        fputc('\n', f);
    }
    return 0;
}
