/* ioanalyze profile: the per-file profile (CSV) on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "msg.h"
#include "opt_parse.h"

int cmd_profile(int argc, char **argv)
{
    struct opt_list inputs = {0}, sets = {0};
    struct analyze_request req = {0};
    struct analyze_opts o = {.want_issues = 0, .progress = "ioanalyze profile"};
    struct analyze_result res = {0};
    int ret = 2, parsed;
    const struct opt_spec opts[] = {
        {"config", 'c', "FILE", .value = &req.config_path,
         .help = "JSON configuration (main_thread_names, continual_gap_ms)"},
        {"set", 0, "RULE.PARAM=VALUE", .list = &sets, .help = "accepted for symmetry with analyze"},
        {"strict", 0, NULL, .flag = &req.strict,
         .help = "exit 2 on a damaged trace instead of a warning"},
    };
    const struct opt_cmd cmd = {
        .name = "profile",
        .synopsis = "profile [OPTIONS] INPUT...",
        .about = "Writes one CSV row per (pid, path, layer): counts, bytes, times, seeks,\n"
                 "sequential/random accesses, fsyncs, main-thread calls (RFC 4180).",
        OPT_SPECS(opts),
        .needs_input = 1,
    };

    parsed = opt_parse(&cmd, argc, argv, &inputs);
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
        iot_error("cannot write the profile: %s", strerror(errno));
        goto out;
    }
    ret = 0;
out:
    profile_free(o.profile);
    free(inputs.v);
    free(sets.v);
    return ret;
}
