/*
 * The issues as a SARIF log (output_format.h): the descriptors of every
 * rule the registry holds, then sarif_render (sarif.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "output_format.h"
#include "registry.h"
#include "rule.h"

/* "small_buffer" -> "SmallBuffer" (SARIF's rule names) */
static char *camel(const char *s)
{
    char *out = malloc(strlen(s) + 1), *p = out;
    int up = 1;

    if (!out)
        return NULL;
    for (; *s; s++) {
        if (*s == '_') {
            up = 1;
            continue;
        }
        *p++ = up ? (char)toupper((unsigned char)*s) : *s;
        up = 0;
    }
    *p = 0;
    return out;
}

int issues_write_sarif(FILE *f, const struct output_issues *in)
{
    size_t n, i;
    const struct rule *const *rules = rules_all(&n);
    struct sarif_rule *sr = calloc(n ? n : 1, sizeof(*sr));
    json_t *log;

    if (!sr)
        return -1;
    for (i = 0; i < n; i++)
        sr[i] = (struct sarif_rule){rules[i]->name, camel(rules[i]->name), rules[i]->summary,
                                    rules[i]->type, rules[i]->fix};
    log = sarif_render(in->issues, sr, n, in->source_root);
    for (i = 0; i < n; i++)
        free((char *)sr[i].name);
    free(sr);
    if (!log)
        return -1;
    json_dumpf(log, f, JSON_INDENT(2));
    fputc('\n', f);
    json_decref(log);
    return 0;
}
