/*
 * fuzz_issues.c - issue files as `diff` and `--baseline` read them, then
 * what those commands do with what loads: baseline, diff, SARIF.
 */
#include <jansson.h>

#include "ci.h"
#include "fuzz.h"
#include "iotrace.h"

void fuzz_issues(const uint8_t *data, size_t size)
{
    static const struct sarif_rule rules[] = {{"leak", "Leak", "leaks", 4, NULL}};
    char err[IOT_ERRBUF_SIZE];
    json_t *issues = NULL, *copy, *out, *sarif;
    size_t nnew;

    issues_detect((const char *)data, size);
    if (issues_load(fuzz_file(data, size), &issues, err) == 0) {
        out = json_object();
        if (out) {
            issues_diff(issues, issues, out, &nnew);
            json_decref(out);
        }
        sarif = sarif_render(issues, rules, 1, "/src");
        json_decref(sarif);
        copy = json_deep_copy(issues);
        if (copy) {
            issues_drop_baseline(copy, issues);
            json_decref(copy);
        }
        json_decref(issues);
    }
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_issues)
