/*
 * fuzz_analyze.c - the whole analysis on one input of any kind (detected by
 * content, as `ioanalyze` does): input detection, the replay engine, every
 * rule, issues and the profile. The other targets reach the parsers; this one
 * feeds hostile but well-formed events to the engine and the rules.
 *
 * Leading lines "#set RULE.PARAM=VALUE" are taken off the input and applied
 * as --set options, so extreme parameters meet extreme events.
 */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"
#include "fuzz.h"
#include "profile.h"

#define MAX_SETS 4

void fuzz_analyze(const uint8_t *data, size_t size)
{
    char sets[MAX_SETS][128];
    const char *setp[MAX_SETS];
    size_t nsets = 0;
    const char *path;
    struct profile *prof;
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 1};
    struct analyze_result res;
    FILE *null;

    while (nsets < MAX_SETS && size > 5 && memcmp(data, "#set ", 5) == 0) {
        const uint8_t *nl = memchr(data, '\n', size);
        size_t len = (nl ? (size_t)(nl - data) : size) - 5;

        if (len >= sizeof(sets[0]))
            len = sizeof(sets[0]) - 1;
        memcpy(sets[nsets], data + 5, len);
        sets[nsets][len] = '\0';
        setp[nsets] = sets[nsets];
        nsets++;
        if (!nl) {
            size = 0;
            break;
        }
        size -= (size_t)(nl + 1 - data);
        data = nl + 1;
    }
    path = fuzz_file(data, size);
    prof = profile_create();
    null = fopen("/dev/null", "w");
    req.inputs = &path;
    req.ninputs = 1;
    req.sets = setp;
    req.nsets = nsets;
    o.profile = prof;
    if (analyze_run(&req, &o, &res) == 0) {
        if (null && prof)
            profile_write_csv(prof, null);
        json_decref(res.issues);
    }
    if (null)
        fclose(null);
    profile_free(prof);
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_analyze)
