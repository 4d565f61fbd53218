/* ioanalyze profile: the per-file profile (CSV) on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void profile_usage(FILE *f)
{
    fputs("usage: ioanalyze profile [OPTIONS] INPUT...\n"
          "Writes one CSV row per (pid, path, layer): counts, bytes, times, seeks,\n"
          "sequential/random accesses, fsyncs, main-thread calls (RFC 4180).\n\n"
          "  --config FILE          JSON configuration (main_thread_names, continual_gap_ms)\n"
          "  --set RULE.PARAM=VALUE accepted for symmetry with analyze\n"
          "  --strict               exit 2 on a damaged trace instead of a warning\n", f);
}

int cmd_profile(int argc, char **argv)
{
    const char **inputs = calloc((size_t)argc + 1, sizeof(char *));
    const char **sets = calloc((size_t)argc + 1, sizeof(char *));
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 0};
    struct analyze_result res = {0};
    size_t ninputs = 0, nsets = 0;
    int ret = 2, dashdash = 0;
    const char *val;

    if (!inputs || !sets)
        goto out;
    for (int i = 1; i < argc; i++) {
        int r = 0;

        if (dashdash || argv[i][0] != '-' || strcmp(argv[i], "-") == 0) {
            inputs[ninputs++] = argv[i];
            continue;
        }
        if (opt_flag(argv, i, "--")) {
            dashdash = 1;
        } else if (opt_flag(argv, i, "--help") || opt_flag(argv, i, "-h")) {
            profile_usage(stdout);
            ret = 0;
            goto out;
        } else if (opt_flag(argv, i, "--strict")) {
            req.strict = 1;
        } else if ((r = opt_value(argc, argv, &i, "--config", &req.config_path))) {
        } else if ((r = opt_value(argc, argv, &i, "--set", &val))) {
            if (r > 0)
                sets[nsets++] = val;
        } else {
            ret = opt_unknown("profile", argv[i]);
            goto out;
        }
        if (r < 0)
            goto out;
    }
    if (!ninputs) {
        fprintf(stderr, "ioanalyze: no input given\n");
        profile_usage(stderr);
        goto out;
    }
    req.inputs = inputs;
    req.ninputs = ninputs;
    req.sets = sets;
    req.nsets = nsets;
    o.profile = profile_create();
    if (!o.profile || analyze_run(&req, &o, &res) != 0)
        goto out;
    if (profile_write_csv(o.profile, stdout) < 0 || fflush(stdout) != 0) {
        fprintf(stderr, "ioanalyze: cannot write the profile: %m\n");
        goto out;
    }
    ret = 0;
out:
    profile_free(o.profile);
    free(inputs);
    free(sets);
    return ret;
}
