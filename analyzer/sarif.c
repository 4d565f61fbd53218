/* SARIF 2.1.0 output (see ci.h). Work in progress. */
#include "ci.h"

json_t *sarif_render(const json_t *issues, const struct sarif_rule *rules, size_t n)
{
    (void)issues;
    (void)rules;
    (void)n;
    return json_pack("{s:s, s:s, s:[]}", "$schema",
                     "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs");
}
