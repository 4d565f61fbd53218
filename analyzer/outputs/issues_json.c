/* The issues as JSON: one array, or one object a line (output_format.h). */
#include "output_format.h"

/* Reals with 15 significant digits, what a double holds exactly: 0.1 is
   written 0.1, not jansson's 17-digit 0.10000000000000001. */
#define REALS JSON_REAL_PRECISION(15)

int issues_write_json(FILE *f, const struct output_issues *in)
{
    json_t *a = issue_list_to_json(in->list);

    if (!a)
        return -1;
    json_dumpf(a, f, JSON_INDENT(2) | REALS);
    json_decref(a);
    fputc('\n', f);
    return 0;
}

int issues_write_jsonl(FILE *f, const struct output_issues *in)
{
    for (size_t i = 0; i < in->list->n; i++) {
        json_t *o = issue_to_json(in->list->v[i]);

        if (!o)
            return -1;
        json_dumpf(o, f, JSON_COMPACT | REALS);
        json_decref(o);
        fputc('\n', f);
    }
    return 0;
}
