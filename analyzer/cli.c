/* Option helpers shared by the subcommands (cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int opt_flag(char **argv, int i, const char *name)
{
    return strcmp(argv[i], name) == 0;
}

int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);

    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n])
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ioanalyze: option '%s' needs a value\n", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int opt_unknown(const char *cmd, const char *arg)
{
    fprintf(stderr, "ioanalyze: unknown option '%s'; see 'ioanalyze %s --help'\n", arg, cmd);
    return 2;
}
