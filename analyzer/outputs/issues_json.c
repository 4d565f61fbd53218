/* The issues as JSON: one array, or one object a line (output_format.h). */
#include "output_format.h"

int issues_write_json(FILE *f, const struct output_issues *in)
{
    json_dumpf(in->issues, f, JSON_INDENT(2));
    fputc('\n', f);
    return 0;
}

int issues_write_jsonl(FILE *f, const struct output_issues *in)
{
    size_t i;
    json_t *v;

    json_array_foreach(in->issues, i, v) {
        json_dumpf(v, f, JSON_COMPACT);
        fputc('\n', f);
    }
    return 0;
}
