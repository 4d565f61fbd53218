/*
 * opt_parse.h - the option loop of the commands that read INPUT... (analyze,
 * profile): each declares a table of its own options and opt_parse() does
 * the rest, so the commands agree on '--', '-', --help and every message.
 */
#ifndef OPT_PARSE_H
#define OPT_PARSE_H

#include <stddef.h>
#include <stdio.h>

/* Values in the order given (v is allocated by opt_parse()). */
struct opt_list {
    const char **v;
    size_t n;
};

/*
 * One option: `name` and exactly one of flag, value or list, which says how
 * it is given and where it goes.
 */
struct opt_spec {
    const char *name;               /* "--strict" */
    int *flag;                      /* name alone: set to 1 */
    const char **value;             /* name VALUE or name=VALUE; the last wins */
    struct opt_list *list;          /* the same, repeatable: each appended */
    /* value only, may be NULL: 0 to take VALUE, 2 after printing why not */
    int (*check)(const char *value);
};

/*
 * Reads argv[1..argc-1]: options from opts[0..n-1], '--help' or '-h' (usage
 * on stdout), '--' (what follows is input), anything else (and '-') input,
 * appended to *inputs. argv[0] names the command in messages.
 * Allocates inputs->v and each list's v, which the caller frees whatever
 * is returned (start them zeroed: free(NULL) is harmless).
 * Returns -1 when the command should run, else its exit status: 0 after
 * --help, 2 after a message on stderr (unknown option, missing or refused
 * value, no input).
 */
int opt_parse(int argc, char **argv, const struct opt_spec *opts, size_t n,
              void (*usage)(FILE *f), struct opt_list *inputs);

#endif /* OPT_PARSE_H */
