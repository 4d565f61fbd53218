/* ioanalyze diff (see ci.h). Work in progress. */
#include <stdio.h>

#include "ci.h"

int cmd_diff(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ioanalyze: diff is not implemented yet\n");
    return 2;
}
