/*
 * ioanalyze: argument dispatch only. Each subcommand lives in its own
 * cmd_<name>.c; with no subcommand, `analyze` is meant.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/*
 * Whether word, not a command, is a misspelt one rather than an input: it
 * names no file and is a plain lowercase word, as every command is. An
 * input that does not exist ("trace.zst", "out/x", "-") keeps its own
 * "cannot open" message.
 */
static int looks_like_command(const char *word)
{
    struct stat st;

    if (!*word || strspn(word, "abcdefghijklmnopqrstuvwxyz-_") != strlen(word) || word[0] == '-')
        return 0;
    return stat(word, &st) != 0;
}

/*
 * The command nearest to word, if at most two edits (a letter added,
 * dropped, changed or two swapped) away, else NULL: what a misspelt
 * command was meant to be.
 */
static const char *nearest_command(const char *word)
{
    size_t n = strlen(word), best_d = 3;
    const char *best = NULL;

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        const char *c = commands[i].name;
        size_t m = strlen(c), d[16][16];

        if (n >= 15 || m >= 15)
            continue;
        /* Damerau-Levenshtein distance (optimal string alignment) */
        for (size_t a = 0; a <= n; a++)
            for (size_t b = 0; b <= m; b++) {
                if (!a || !b) {
                    d[a][b] = a + b;
                    continue;
                }
                d[a][b] = d[a - 1][b - 1] + (word[a - 1] != c[b - 1]);
                if (d[a - 1][b] + 1 < d[a][b])
                    d[a][b] = d[a - 1][b] + 1;
                if (d[a][b - 1] + 1 < d[a][b])
                    d[a][b] = d[a][b - 1] + 1;
                if (a > 1 && b > 1 && word[a - 1] == c[b - 2] && word[a - 2] == c[b - 1] &&
                    d[a - 2][b - 2] + 1 < d[a][b])
                    d[a][b] = d[a - 2][b - 2] + 1;
            }
        if (d[n][m] < best_d) {
            best_d = d[n][m];
            best = c;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    /* the program itself, for the errors that come before any command */
    static const struct opt_cmd program = { .synopsis = "" };

    opt_program("ioanalyze", IOT_FORMAT_VERSION);
    if (argc < 2) {
        opt_usage_error(&program, "no command or input given");
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
    if (looks_like_command(argv[1])) {
        const char *meant = nearest_command(argv[1]);

        if (meant)
            opt_usage_error(&program, "unknown command '%s' (did you mean '%s'?)", argv[1], meant);
        else
            opt_usage_error(&program, "unknown command '%s'", argv[1]);
        return 2;
    }
    /* No subcommand: analyze; argv[0] stands in for the command name. */
    argv[0] = "analyze";
    return cmd_analyze(argc, argv);
}
