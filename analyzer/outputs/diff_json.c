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
    size_t nnear = json_array_size(in->near);
    json_t *out = json_pack("{s:O,s:O,s:I}", "new", in->added, "fixed", in->fixed, "unchanged",
                            (json_int_t)(json_array_size(in->kept) + nnear));
    int rc;

    if (!out)
        return -1;
    if (nnear && json_object_set(out, "near_threshold", (json_t *)in->near) < 0) {
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
    return issues_write_sarif(f, &(struct output_issues){.issues = in->added,
                                                         .source_root = in->source_root});
}
