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
    json_t *issues = NULL, *copy, *sarif;
    struct issue_list list = {0}, grouped = {0}, twin = {0}, added = {0}, fixed = {0}, kept = {0};

    issues_detect((const char *)data, size);
    if (issues_load(fuzz_file(data, size), &issues, err) == 0) {
        /* the records every writer reads, the JSON written back, SARIF */
        if (issue_list_from_json(&list, issues) == 0) {
            json_t *back = issue_list_to_json(&list);
            struct report_finding *f;
            size_t nf = 0;
            char sev[96];

            json_decref(back);
            sarif = sarif_render(&list, rules, 1, "/src");
            json_decref(sarif);
            f = report_findings(&list, &nf);
            report_findings_free(f, nf);
            report_severity_counts(&list, sev, sizeof(sev));
        }
        copy = json_deep_copy(issues);
        if (copy) {
            if (issue_list_from_json(&grouped, copy) == 0 &&
                issue_list_from_json(&twin, copy) == 0) {
                struct report_finding *f;
                size_t nf = 0;

                /* the groups the engine sets, then the findings they make */
                issues_group(&grouped);
                f = report_findings(&grouped, &nf);
                report_findings_free(f, nf);
                issues_drop_baseline(&twin, &list);
                issues_drop_below(&grouped, ISSUE_HIGH);
                issues_diff(&grouped, &twin, &added, &fixed, &kept);
            }
            json_decref(copy);
        }
        issue_list_release(&list);
        issue_list_release(&grouped);
        issue_list_release(&twin);
        issue_list_release(&added);
        issue_list_release(&fixed);
        issue_list_release(&kept);
        json_decref(issues);
    }
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_issues)
