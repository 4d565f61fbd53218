/*
 * opt_parse.h - the option loop of the programs (iorecord, and every
 * ioanalyze subcommand). A command declares one table of its options
 * (struct opt_cmd); opt_parse() parses with getopt_long from it and
 * opt_usage() writes --help from it, so the options a command takes and the
 * ones its help lists cannot disagree, and every command handles '--', '-',
 * abbreviations, --help, --version and usage errors the same way.
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
 * One option. It is given as --NAME (or any unambiguous prefix), and as -S
 * when short is set; a value as --NAME VALUE, --NAME=VALUE, -S VALUE or
 * -SVALUE. Exactly one of flag, value or list says how it is given and
 * where it goes.
 */
struct opt_spec {
    const char *name;               /* "config", without the dashes */
    char short_name;                /* 'c', or 0 */
    const char *arg;                /* the value's name in --help ("FILE"); NULL for a flag */
    int *flag;                      /* no value: set to 1 */
    const char **value;             /* one value; the last given wins */
    struct opt_list *list;          /* repeatable: each value appended */
    /* value and list only, may be NULL: 0 to take VALUE, 2 after printing why not
       with iot_error() (one line; the parser ends it with "; see ... --help") */
    int (*check)(const char *value);
    const char *help;               /* one line for --help */
    int clears;                     /* flag only: sets *flag to 0 (--no-X beside --X) */
};

/* A command: its options and what its --help says around them. */
struct opt_cmd {
    const char *name;               /* "diff": messages name it; NULL: the program has no commands */
    const char *synopsis;           /* after "usage: PROGRAM ": "diff [OPTIONS] BASE NEW" */
    const char *about;              /* what the command does; may be NULL */
    const struct opt_spec *opts;
    size_t nopts;
    const char *footer;             /* after the options (exit statuses); may be NULL */
    int needs_input;                /* no argument is "no input given" */
    int options_first;              /* the first argument that is not an option ends
                                       them: it and all after it are arguments
                                       (iorecord's COMMAND keeps its own options) */
};
/* The opts and nopts of an opt_cmd, from an array of options. */
#define OPT_SPECS(array) .opts = (array), .nopts = sizeof(array) / sizeof((array)[0])

/*
 * The program whose options these are: its name (in messages, usage lines
 * and --version; it is iot_msg_prog's too) and the trace format version
 * --version states. Called once, first thing in main.
 */
void opt_program(const char *name, int format_version);

/*
 * Parses argv[1..argc-1] (argv[0] is the command name) against cmd's
 * options, plus -h/--help and --version, which every command takes. The
 * other arguments, '-' among them and everything after '--', are appended
 * in order to *args (with options_first, the first of them and all after it). Allocates args->v and each list's v, which the caller
 * frees whatever is returned (start them zeroed: free(NULL) is harmless).
 * Returns -1 when the command should run, else its exit status: 0 after
 * --help or --version (on stdout), 2 after a message on stderr (unknown or
 * ambiguous option, missing or refused value, no input).
 */
int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, struct opt_list *args);

/*
 * A usage error in one line on stderr: "PROGRAM: WHAT; see 'PROGRAM
 * COMMAND --help'" (fmt and its arguments say WHAT). Every wrong argument
 * gets this one line, never the whole --help, so the error is what shows.
 */
void opt_usage_error(const struct opt_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The command's --help text. */
void opt_usage(const struct opt_cmd *cmd, FILE *f);

/* "PROGRAM 0.1.0 (trace format N)" on stdout: what --version prints. */
void opt_version(void);

/*
 * The names of a table of n choices (e.g. --format's), each row row_size
 * bytes and starting with its name (a const char *), joined into buf: with
 * sep "|" and last "|", "a|b|c" (an option's value in --help); with ", " and
 * " or ", "a, b or c" (an error message). Returns buf.
 */
const char *opt_choices(const void *rows, size_t n, size_t row_size, const char *sep,
                        const char *last, char *buf, size_t size);
/* The index of the row of such a table named name, or -1. */
int opt_choice_of(const void *rows, size_t n, size_t row_size, const char *name);

#endif /* OPT_PARSE_H */
