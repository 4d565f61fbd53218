/*
 * The issues as a SARIF log (output_format.h): the descriptors of every
 * rule the registry holds, then sarif_render (sarif.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ci.h"
#include "output_format.h"
#include "registry.h"
#include "rule.h"

/*
 * SARIF's rule names, one per built-in rule: what a reader of a code
 * scanning page sees beside the id. A name must differ from its id, case
 * aside (the SARIF multitool's SARIF1001), so a one-word id gets more words.
 */
static const struct {
    const char *id, *name;
} rule_names[] = {
    {"main_thread",         "BlockingIoOnMainThread"},
    {"small_buffer",        "SmallBufferIo"},
    {"repeat_read",         "RepeatedRead"},
    {"leak",                "FileHandleLeak"},
    {"random_write",        "RandomWrite"},
    {"random_read",         "RandomRead"},
    {"sync_storm",          "SyncStorm"},
    {"repeat_open",         "RepeatedOpen"},
    {"redundant_read",      "RedundantRead"},
    {"write_amplification", "WriteAmplification"},
    {"metadata_storm",      "MetadataStorm"},
    {"unobserved",          "UnobservedIo"},
};

/*
 * The SARIF name of rule id: its row above, else (a plugin's rule) id in
 * CamelCase ("slow_file" -> "SlowFile"), with "Rule" after a one-word id
 * so that it still differs from it. Allocated.
 */
static char *sarif_name(const char *s)
{
    const char *id = s;
    char *out, *p;
    int up = 1;

    for (size_t i = 0; i < sizeof(rule_names) / sizeof(rule_names[0]); i++)
        if (strcmp(rule_names[i].id, s) == 0)
            return strdup(rule_names[i].name);
    out = p = malloc(strlen(s) + sizeof("Rule"));
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
    if (strcasecmp(out, id) == 0)
        strcat(out, "Rule");
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
        sr[i] = (struct sarif_rule){rules[i]->name, sarif_name(rules[i]->name), rules[i]->summary,
                                    rules[i]->type, rules[i]->fix};
    log = sarif_render(in->list, sr, n, in->source_root);
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
