/* ioanalyze profile: the per-file profile (CSV) on stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "opt_parse.h"

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
    struct opt_list inputs = {0}, sets = {0};
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 0};
    struct analyze_result res = {0};
    int ret = 2, parsed;
    const struct opt_spec opts[] = {
        {"--strict", .flag = &req.strict},
        {"--config", .value = &req.config_path},
        {"--set", .list = &sets},
    };

    parsed = opt_parse(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), profile_usage, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    req.inputs = inputs.v;
    req.ninputs = inputs.n;
    req.sets = sets.v;
    req.nsets = sets.n;
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
    free(inputs.v);
    free(sets.v);
    return ret;
}
