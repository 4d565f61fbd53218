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

static const struct cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"analyze", cmd_analyze, "[OPTIONS] INPUT...     issues (JSON) on stdout (the default command)"},
    {"profile", cmd_profile, "[OPTIONS] INPUT...     per-file profile (CSV) on stdout"},
    {"dump",    cmd_dump,    "[--format jsonl|text|perfetto] INPUT...  every event, in time order"},
    {"info",    cmd_info,    "INPUT...               processes, threads, counts, time span, bytes/event"},
    {"diff",    cmd_diff,    "[OPTIONS] BASE NEW     regression diff of two issue sets"},
    {"rules",   cmd_rules,   "                       each rule: name, type, parameters, defaults"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: ioanalyze [analyze] [OPTIONS] INPUT...\n"
               "       ioanalyze COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
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
