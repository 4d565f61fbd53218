/*
 * fuzz_issues.c - issue files as `diff` and `--baseline` read them, then
 * what those commands do with what loads: baseline, diff, the records
 * (issue_rec.h) and the JSON written from them, SARIF, and the findings of the human reports (groups and ranks).
 */
#include <jansson.h>

#include "ci.h"
#include "fuzz.h"
#include "iotrace.h"
#include "issue.h"
#include "report.h"

void fuzz_issues(const uint8_t *data, size_t size)
{
    static const struct sarif_rule rules[] = {{"leak", "Leak", "leaks", 4, NULL}};
    char err[IOT_ERRBUF_SIZE];
    json_t *issues = NULL, *copy, *out, *sarif;
    struct issue_list list = {0};
    size_t nnew;

    issues_detect((const char *)data, size);
    if (issues_load(fuzz_file(data, size), &issues, err) == 0) {
        out = json_object();
        if (out) {
            issues_diff(issues, issues, out, &nnew);
            json_decref(out);
        }
        /* the records every writer reads, the JSON written back, SARIF */
        if (issue_list_from_json(&list, issues) == 0) {
            json_t *back = issue_list_to_json(&list);

            json_decref(back);
            sarif = sarif_render(&list, rules, 1, "/src");
            json_decref(sarif);
            issues_group(&list);
        }
        issue_list_release(&list);
        copy = json_deep_copy(issues);
        if (copy) {
            struct report_finding *f;
            size_t nf = 0;

            issues_drop_baseline(copy, issues);
            f = report_findings(copy, &nf);
            report_findings_free(f, nf);
            json_decref(copy);
        }
        json_decref(issues);
    }
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_issues)
