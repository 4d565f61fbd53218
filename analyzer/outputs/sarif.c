/*
 * sarif.c - issues as a SARIF 2.1.0 log (see ci.h), for code-scanning
 * dashboards such as GitHub's.
 *
 * A result points at code: its primary location is the first stack frame
 * whose source file lies under the source root, as a uri relative to the
 * SRCROOT base (the run's originalUriBaseIds says where that is on the
 * machine that analysed), with the frame's line. The whole stack follows
 * as a thread flow (frames outside the root by name only) and the frames in
 * the user's code as related locations. The issue's stack is the site of
 * the harmful calls (the sync loop, the small writes); where the file was
 * opened elsewhere, the open's frames in the user's code are related
 * locations too, their messages saying so. The data file the program touched
 * goes in the message and the properties: its path changes from run to run
 * (temporary directories) and is no place to put an alert. An issue with no
 * frame in the user's code is placed on the module under the root that
 * made the call, else on the executable when it lies under the root, at
 * line 1, else on no file at all (a logical location naming the process:
 * GitHub shows no alert on a file the repository lacks). The issue's
 * fingerprint goes in partialFingerprints, so the dashboard recognises the
 * same problem across runs the way `ioanalyze diff` does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "issue.h"
#include "issue_rec.h"
#include "scope.h"
#include "version.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define FINGERPRINT_KEY "ioscope/v1"
#define BASE_ID "SRCROOT"

/*
 * A path as a URI reference: bytes outside RFC 3986's unreserved set and '/'
 * are percent-encoded, so "src/a b.c" becomes "src/a%20b.c".
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
    const char *fix = r->fix;
    char *text = NULL, *md = NULL, uri[256];
    json_t *d;

    if (asprintf(&text, "%s\n\nHow to fix: %s", help, fix ? fix : "see the issue's message.") < 0)
        text = NULL;
    if (asprintf(&md, "**%s**\n\n%s\n\n**How to fix:** %s\n\nThe issue's stack is where the harmful "
                 "calls were made; where the file was opened elsewhere, the open's frames are "
                 "related locations. The message and properties name the file and the figures.",
                 r->name ? r->name : r->id, help, fix ? fix : "see the issue's message.") < 0)
        md = NULL;
    snprintf(uri, sizeof(uri), "%s/blob/main/README.md#rules", IOSCOPE_URL);
    d = json_pack("{s:s, s:s, s:{s:o}, s:{s:s}, s:{s:s, s:s}, s:s, s:{s:s}, "
                  "s:{s:i, s:[s,s], s:s}}",
                  "id", r->id,
                  "name", r->name ? r->name : r->id,
                  "shortDescription", "text", first_sentence(help),
                  "fullDescription", "text", help,
                  "help", "text", text ? text : help, "markdown", md ? md : help,
                  "helpUri", uri,
                  "defaultConfiguration", "level", "warning",
                  "properties", "type", r->type, "tags", "io", "performance",
                  "precision", "high");
    /* a name equal to the id is a fault to SARIF validators: none is better */
    if (d && !r->name)
        json_object_del(d, "name");
    free(text);
    free(md);
    return d;
}

/* Index of rule `id` in the descriptors, adding one when it is unknown. */
static int rule_index(json_t *descriptors, const char *id, int type)
{
    size_t i;
    json_t *d;
    struct sarif_rule r = { id, NULL, NULL, type, NULL };

    json_array_foreach(descriptors, i, d)
        if (strcmp(json_string_value(json_object_get(d, "id")), id) == 0)
            return (int)i;
    if (json_array_append_new(descriptors, rule_descriptor(&r)) < 0)
        return -1;
    return (int)json_array_size(descriptors) - 1;
}

/* The issue's figures that help triage, as the result's property bag:
   those members as the JSON issue writes them. */
static json_t *result_properties(const struct issue *is)
{
    static const char *keys[] = { "type", "path", "process", "pid", "tid", "thread", "cost",
                                  "size", "op", "buffer", "opType", "opSize", "repeat", "time",
                                  "stack", "open_stack", "detail", "severity", "impact", "labels",
                                  "group", "fix" };
    json_t *props = json_object(), *issue = issue_to_json(is);

    for (size_t i = 0; props && issue && i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_t *v = json_object_get(issue, keys[i]);
        if (v)
            json_object_set(props, keys[i], v);
    }
    json_decref(issue);
    return props;
}

/*
 * The result's level from the issue's severity: SARIF's "error" is a
 * serious problem, "warning" a problem, "note" a minor one or an
 * opportunity (SARIF 2.1.0, 3.27.10). An issue file written before
 * severities has medium ones: "warning", as before.
 */
static const char *sarif_level(const struct issue *is)
{
    static const char *const level[ISSUE_NSEVERITIES] = {
        [ISSUE_LOW] = "note", [ISSUE_MEDIUM] = "warning", [ISSUE_HIGH] = "error",
    };

    return level[is->severity];
}

static json_t *physical(const char *rel, int64_t line)
{
    char *uri = path_uri(rel);
    json_t *loc;

    if (!uri)
        return NULL;
    loc = json_pack("{s:{s:s, s:s}, s:{s:I}}", "artifactLocation", "uri", uri, "uriBaseId",
                    BASE_ID, "region", "startLine", (json_int_t)(line > 0 ? line : 1));
    free(uri);
    return loc;
}

/* "load_plugin (inlined)" or "__libc_start_main (libc.so.6)" */
static json_t *frame_message(const struct issue_frame *f)
{
    const char *fn = f->function, *mod = f->module;
    const char *b = mod ? strrchr(mod, '/') : NULL;
    char buf[512];

    snprintf(buf, sizeof(buf), "%s%s%s%s", fn ? fn : "?",
             f->inlined ? " (inlined)" : "",
             mod ? " in " : "", mod ? (b ? b + 1 : mod) : "");
    return json_pack("{s:s}", "text", buf);
}

/* The open's frames in the user's code (open_frames: the issue's open
   site, where its stack is another) as related locations from id on. */
static void open_locations(json_t *related, const struct issue *is, const char *root, int id)
{
    for (size_t i = 0; i < is->open_frames.n; i++) {
        const struct issue_frame *f = &is->open_frames.v[i];
        const char *rel = path_below(f->file, root);
        int64_t line = f->line;
        const char *fn = f->function;
        char text[512];

        if (!rel || line <= 0)
            continue;
        snprintf(text, sizeof(text), "the file was opened here%s%s", fn ? ": " : "",
                 fn ? fn : "");
        json_array_append_new(related, json_pack("{s:i, s:o, s:{s:s}}", "id", id++,
                                                 "physicalLocation", physical(rel, line),
                                                 "message", "text", text));
    }
}

/* Primary location, thread flow and related locations from the issue's frames. */
static int frame_locations(json_t *res, const struct issue *is, const char *root)
{
    const struct issue_frames *frames = &is->frames;
    json_t *flow = json_array(), *related = json_array(), *primary = NULL;
    size_t i;
    int id = 0;

    if (!flow || !related)
        goto fail;
    for (i = 0; i < frames->n; i++) {
        const struct issue_frame *f = &frames->v[i];
        const char *rel = path_below(f->file, root);
        int64_t line = f->line;
        json_t *loc = json_object();

        if (!loc)
            goto fail;
        if (rel && line > 0)
            json_object_set_new(loc, "physicalLocation", physical(rel, line));
        json_object_set_new(loc, "message", frame_message(f));
        if (rel && line > 0) {
            json_t *r = json_deep_copy(loc);

            json_object_set_new(r, "id", json_integer(id++));
            json_array_append_new(related, r);
            if (!primary)
                primary = json_deep_copy(loc);
        }
        json_array_append_new(flow, json_pack("{s:o, s:i}", "location", loc, "nestingLevel",
                                              (int)i));
    }
    if (!primary)
        /* no frame in the user's source: no file at all, the process by
           name. A module or executable under the root is a build output,
           not a file of the repository, and code scanning cannot show an
           alert on "prog:1" any more than on "ld" or "cc1:1" */
        primary = json_pack("{s:[{s:s, s:s}]}", "logicalLocations", "name",
                            is->process && *is->process ? is->process : "unknown",
                            "kind", "module");
    open_locations(related, is, root, id);
    json_object_set_new(res, "locations", json_pack("[o]", primary));
    if (json_array_size(flow))
        json_object_set_new(res, "codeFlows",
                            json_pack("[{s:[{s:o}]}]", "threadFlows", "locations", flow));
    else
        json_decref(flow);
    if (json_array_size(related))
        json_object_set_new(res, "relatedLocations", related);
    else
        json_decref(related);
    return 0;
fail:
    json_decref(flow);
    json_decref(related);
    return -1;
}

static json_t *render_result(json_t *descriptors, const struct issue *is, const char *root)
{
    const char *rule = is->rule, *path = is->path, *msg = is->message, *fp = is->fingerprint;
    char *text = NULL;
    int idx;
    json_t *res;

    if (!rule)
        rule = "unknown";
    idx = rule_index(descriptors, rule, is->type);
    if (idx < 0)
        return NULL;
    /* a runtime's hint ends the message: the frames it would show are missing */
    if (asprintf(&text, "%s%s%s%s%s%s", msg && *msg ? msg : rule, path && *path ? " (file " : "",
                 path && *path ? path : "", path && *path ? ")" : "",
                 is->hint ? ". Frames missing: " : "", is->hint ? is->hint : "") < 0)
        return NULL;
    res = json_pack("{s:s, s:i, s:s, s:{s:s}, s:o}",
                    "ruleId", rule,
                    "ruleIndex", idx,
                    "level", sarif_level(is),
                    "message", "text", text,
                    "properties", result_properties(is));
    free(text);
    if (!res || frame_locations(res, is, root) < 0) {
        json_decref(res);
        return NULL;
    }
    if (fp)
        json_object_set_new(res, "partialFingerprints", json_pack("{s:s}", FINGERPRINT_KEY, fp));
    return res;
}

json_t *sarif_render(const struct issue_list *issues, const struct sarif_rule *rules, size_t n,
                     const char *source_root)
{
    json_t *descriptors = json_array(), *results = json_array(), *log = NULL;
    char *root_uri = NULL, *enc = NULL;
    size_t i;

    if (!descriptors || !results)
        goto out;
    for (i = 0; i < n; i++)
        if (json_array_append_new(descriptors, rule_descriptor(&rules[i])) < 0)
            goto out;
    for (i = 0; i < issues->n; i++) {
        json_t *r = render_result(descriptors, issues->v[i], source_root);
        if (!r || json_array_append_new(results, r) < 0)
            goto out;
    }
    /* where SRCROOT was here: an absolute file URI ending in '/' */
    enc = path_uri(source_root && *source_root ? source_root : "/");
    if (!enc || asprintf(&root_uri, "file://%s%s%s", enc[0] == '/' ? "" : "/", enc,
                         enc[0] && enc[strlen(enc) - 1] == '/' ? "" : "/") < 0) {
        root_uri = NULL;
        goto out;
    }
    log = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:s, s:O}}, s:O, s:s, s:{s:{s:s}}}]}",
                    "$schema", SARIF_SCHEMA,
                    "version", "2.1.0",
                    "runs", "tool", "driver", "name", "ioscope",
                    "version", IOSCOPE_VERSION,
                    "semanticVersion", IOSCOPE_VERSION,
                    "informationUri", IOSCOPE_URL,
                    "rules", descriptors,
                    "results", results,
                    "columnKind", "utf16CodeUnits",
                    "originalUriBaseIds", BASE_ID, "uri", root_uri);
out:
    free(enc);
    free(root_uri);
    json_decref(descriptors);
    json_decref(results);
    return log;
}
