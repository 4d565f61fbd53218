/* The option loop of the INPUT-reading commands (opt_parse.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt_parse.h"

int opt_parse(int argc, char **argv, const struct opt_spec *opts, size_t n,
              void (*usage)(FILE *f), struct opt_list *inputs)
{
    int dashdash = 0;

    /* Room for every argument, taken before any is read, so running short
       of memory is the same silent exit 2 wherever the bad argument is. */
    inputs->v = calloc((size_t)argc + 1, sizeof(char *));
    if (!inputs->v)
        return 2;
    for (size_t k = 0; k < n; k++) {
        if (opts[k].list) {
            opts[k].list->v = calloc((size_t)argc + 1, sizeof(char *));
            if (!opts[k].list->v)
                return 2;
        }
    }
    for (int i = 1; i < argc; i++) {
        const struct opt_spec *o = NULL;
        const char *val = NULL;
        int r = 0;

        if (dashdash || argv[i][0] != '-' || strcmp(argv[i], "-") == 0) {
            inputs->v[inputs->n++] = argv[i];
            continue;
        }
        if (opt_flag(argv, i, "--")) {
            dashdash = 1;
            continue;
        }
        if (opt_flag(argv, i, "--help") || opt_flag(argv, i, "-h")) {
            usage(stdout);
            return 0;
        }
        for (size_t k = 0; k < n && r == 0; k++) {
            o = &opts[k];
            r = o->flag ? opt_flag(argv, i, o->name)
                        : opt_value(argc, argv, &i, o->name, &val);
        }
        if (r == 0)
            return opt_unknown(argv[0], argv[i]);
        if (r < 0)
            return 2;
        if (o->flag)
            *o->flag = 1;
        else if (o->check && o->check(val) != 0)
            return 2;
        else if (o->list)
            o->list->v[o->list->n++] = val;
        else
            *o->value = val;
    }
    if (!inputs->n) {
        fprintf(stderr, "ioanalyze: no input given\n");
        usage(stderr);
        return 2;
    }
    return -1;
}
