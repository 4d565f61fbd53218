/*
 * sarif.c - issues as a SARIF 2.1.0 log (see ci.h), for code-scanning
 * dashboards such as GitHub's.
 *
 * An I/O issue belongs to a file, not to a line of source: each result's
 * location is the file's path with region.startLine 1, because dashboards
 * require a line to show a result at all. The issue's fingerprint goes in
 * partialFingerprints, so the dashboard recognises the same problem across
 * runs the way `ioanalyze diff` does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "version.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define FINGERPRINT_KEY "ioscope/v1"

/*
 * A path as a URI reference: bytes outside RFC 3986's unreserved set and '/'
 * are percent-encoded, so "/tmp/a b" becomes "/tmp/a%20b".
 */
static char *path_uri(const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(path);
    char *out = malloc(3 * n + 1), *o = out;

    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

/* The first sentence of text (up to ". " or the end), as a new string. */
static json_t *first_sentence(const char *text)
{
    const char *dot = strstr(text, ". ");

    return dot ? json_stringn(text, (size_t)(dot - text) + 1) : json_string(text);
}

static json_t *rule_descriptor(const struct sarif_rule *r)
{
    const char *help = r->help && *r->help ? r->help : r->id;

    return json_pack("{s:s, s:s, s:{s:o}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:i, s:[s,s]}}",
                     "id", r->id,
                     "name", r->name ? r->name : r->id,
                     "shortDescription", "text", first_sentence(help),
                     "fullDescription", "text", help,
                     "help", "text", help,
                     "defaultConfiguration", "level", "warning",
                     "properties", "type", r->type, "tags", "io", "performance");
}

/* Index of rule `id` in the descriptors, adding one when it is unknown. */
static int rule_index(json_t *descriptors, const char *id, int type)
{
    size_t i;
    json_t *d;
    struct sarif_rule r = { id, NULL, NULL, type };

    json_array_foreach(descriptors, i, d)
        if (strcmp(json_string_value(json_object_get(d, "id")), id) == 0)
            return (int)i;
    if (json_array_append_new(descriptors, rule_descriptor(&r)) < 0)
        return -1;
    return (int)json_array_size(descriptors) - 1;
}

/* The issue's figures that help triage, as the result's property bag. */
static json_t *result_properties(const json_t *issue)
{
    static const char *keys[] = { "type", "process", "pid", "tid", "thread", "cost", "size",
                                  "op", "buffer", "opType", "opSize", "repeat", "time",
                                  "stack", "detail" };
    json_t *props = json_object();

    for (size_t i = 0; props && i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_t *v = json_object_get(issue, keys[i]);
        if (v)
            json_object_set(props, keys[i], v);
    }
    return props;
}

static json_t *render_result(json_t *descriptors, const json_t *issue)
{
    const char *rule = json_string_value(json_object_get(issue, "rule"));
    const char *path = json_string_value(json_object_get(issue, "path"));
    const char *msg = json_string_value(json_object_get(issue, "message"));
    const char *fp = issue_key(issue);
    int idx;
    char *uri;
    json_t *res;

    if (!rule)
        rule = "unknown";
    idx = rule_index(descriptors, rule, (int)json_integer_value(json_object_get(issue, "type")));
    /* dashboards need a location: an issue without a path names its process */
    if (!path || !*path)
        path = json_string_value(json_object_get(issue, "process"));
    uri = path_uri(path && *path ? path : "unknown");
    if (idx < 0 || !uri) {
        free(uri);
        return NULL;
    }
    res = json_pack("{s:s, s:i, s:s, s:{s:s}, s:[{s:{s:{s:s}, s:{s:i}}}], s:o}",
                    "ruleId", rule,
                    "ruleIndex", idx,
                    "level", "warning",
                    "message", "text", msg && *msg ? msg : rule,
                    "locations", "physicalLocation", "artifactLocation", "uri", uri,
                    "region", "startLine", 1,
                    "properties", result_properties(issue));
    free(uri);
    if (res && fp)
        json_object_set_new(res, "partialFingerprints", json_pack("{s:s}", FINGERPRINT_KEY, fp));
    return res;
}

json_t *sarif_render(const json_t *issues, const struct sarif_rule *rules, size_t n)
{
    json_t *descriptors = json_array(), *results = json_array(), *log = NULL, *issue;
    size_t i;

    if (!descriptors || !results)
        goto out;
    for (i = 0; i < n; i++)
        if (json_array_append_new(descriptors, rule_descriptor(&rules[i])) < 0)
            goto out;
    json_array_foreach(issues, i, issue) {
        json_t *r = render_result(descriptors, issue);
        if (!r || json_array_append_new(results, r) < 0)
            goto out;
    }
    log = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:O}}, s:O, s:s}]}",
                    "$schema", SARIF_SCHEMA,
                    "version", "2.1.0",
                    "runs", "tool", "driver", "name", "ioscope",
                    "version", IOSCOPE_VERSION,
                    "semanticVersion", IOSCOPE_VERSION,
                    "rules", descriptors,
                    "results", results,
                    "columnKind", "utf16CodeUnits");
out:
    json_decref(descriptors);
    json_decref(results);
    return log;
}
