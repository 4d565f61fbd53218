/*
 * The diff as machines read it (output_format.h): the JSON object `diff`
 * has always written, and the new issues as a SARIF log.
 */
#include "ci.h"
#include "output_format.h"

/*
 * {"new":[...],"fixed":[...],"unchanged":N}; "unchanged" counts what --ci
 * kept near its threshold too, and only then is "near_threshold" there,
 * listing those issues.
 */
int diff_write_json(FILE *f, const struct output_diff *in)
{
    size_t nnear = in->near->n;
    json_t *out = json_pack("{s:o,s:o,s:I}", "new", issue_list_to_json(in->added), "fixed",
                            issue_list_to_json(in->fixed), "unchanged",
                            (json_int_t)(in->kept->n + nnear));
    int rc;

    if (!out)
        return -1;
    if (nnear && json_object_set_new(out, "near_threshold", issue_list_to_json(in->near)) < 0) {
        json_decref(out);
        return -1;
    }
    rc = json_dumpf(out, f, JSON_INDENT(2));
    json_decref(out);
    return rc < 0 || fputc('\n', f) == EOF ? -1 : 0;
}

/* Only the new issues: what a code-scanning upload of a gate should flag. */
int diff_write_sarif(FILE *f, const struct output_diff *in)
{
    return issues_write_sarif(f, &(struct output_issues){.list = in->added,
                                                         .source_root = in->source_root});
}
