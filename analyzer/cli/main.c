/*
 * ioanalyze: argument dispatch only. Each subcommand lives in its own
 * cmd_<name>.c; with no subcommand, `analyze` is meant.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "iotrace.h"
#include "msg.h"
#include "opt_parse.h"
#include "output_format.h"

/* formats: the command's --format names go first in its synopsis
   (output_format.h), or -1 */
static const struct cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *args, *help;
    int formats;
} commands[] = {
    {"analyze", cmd_analyze, "[OPTIONS] INPUT...", "issues (JSON) on stdout (the default command)", -1},
    {"profile", cmd_profile, "[OPTIONS] INPUT...", "per-file profile (CSV) on stdout", -1},
    {"dump",    cmd_dump,    "INPUT...", "every event, in time order", OUTPUT_DUMP},
    {"info",    cmd_info,    "INPUT...", "processes, threads, counts, time span, bytes/event", -1},
    {"diff",    cmd_diff,    "[OPTIONS] BASE NEW", "regression diff of two issue sets", -1},
    {"rules",   cmd_rules,   "", "each rule: name, type, parameters, defaults", -1},
    {"fleet",   cmd_fleet,   "[--scheduler ADDR] [--format json|csv|text|html] INPUT...",
     "each trace on its own on a Dask cluster, reduced by fingerprint", -1},
};

/* The width of the synopses' column; a longer one is followed by two spaces. */
#define SYNOPSIS_COL 23

static void usage(FILE *f)
{
    fprintf(f, "usage: ioanalyze [analyze] [OPTIONS] INPUT...\n"
               "       ioanalyze COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        char syn[128], names[64];
        int n;

        if (commands[i].formats >= 0)
            n = snprintf(syn, sizeof(syn), "[--format %s] %s",
                         output_format_names((enum output_command)commands[i].formats, "|", "|",
                                             names, sizeof(names)),
                         commands[i].args);
        else
            n = snprintf(syn, sizeof(syn), "%s", commands[i].args);
        fprintf(f, "  %-8s %s%*s%s\n", commands[i].name, syn,
                n + 2 <= SYNOPSIS_COL ? SYNOPSIS_COL - n : 2, "", commands[i].help);
    }
    fprintf(f, "\nINPUT: a native trace, an strace log or a JSONL event file (detected from\n"
               "the content), '-' for standard input, or a directory of them (walked\n"
               "recursively).\n"
               "'ioanalyze COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    opt_program("ioanalyze", IOT_FORMAT_VERSION);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        opt_version();
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    /* No subcommand: analyze; argv[0] stands in for the command name. */
    argv[0] = "analyze";
    return cmd_analyze(argc, argv);
}
