/* The option loop of the programs and their commands (opt_parse.h), on getopt_long. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "opt_parse.h"
#include "version.h"

/* getopt_long's code for an option without a short name: past every char */
#define VAL_LONG 256

/* Option descriptions start two columns after the widest option, up to here. */
#define HELP_COL_MAX 30

/* opt_program's, until it is called */
static const char *program = "ioscope";
static int format_version;

void opt_program(const char *name, int format)
{
    program = name;
    format_version = format;
    iot_msg_prog(name);
}

static const struct opt_spec help_opt = {
    "help", 'h', NULL, .help = "print this help and exit",
};
static const struct opt_spec version_opt = {
    "version", 0, NULL, .help = "print the version and exit",
};

/* The command whose --help an error points to: "ioanalyze diff", "iorecord". */
static const char *cmd_name(const struct opt_cmd *cmd, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", program, cmd->name ? " " : "", cmd->name ? cmd->name : "");
    return buf;
}

void opt_usage_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
    char what[512], name[64];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    iot_error("%s; see '%s --help'", what, cmd_name(cmd, name, sizeof(name)));
}

static int val_of(const struct opt_spec *o, size_t k)
{
    return o->short_name ? (unsigned char)o->short_name : VAL_LONG + (int)k;
}

/* The option (index k of the table, or help/version past it) whose getopt code is val. */
static const struct opt_spec *spec_of(const struct opt_cmd *cmd, int val)
{
    if (val == 'h')
        return &help_opt;
    if (val == VAL_LONG + (int)cmd->nopts)
        return &version_opt;
    for (size_t k = 0; k < cmd->nopts; k++)
        if (val_of(&cmd->opts[k], k) == val)
            return &cmd->opts[k];
    return NULL;
}

static int takes_value(const struct opt_spec *o)
{
    return o->value || o->list;
}

/*
 * getopt_long's failure, in our words. It reports an unknown or ambiguous
 * long option with optopt 0, a flag given a value with the flag's code, an
 * unknown short option with its character; elem is the argument it was
 * reading (where getopt_long stepped past it).
 */
static int bad_option(const struct opt_cmd *cmd, const struct option *lo, int optopt_,
                      const char *elem)
{
    const struct opt_spec *o = optopt_ ? spec_of(cmd, optopt_) : NULL;
    char list[256] = "";
    size_t len, n = 0;

    if (o) {
        opt_usage_error(cmd, "option '--%s' takes no value", o->name);
        return 2;
    }
    if (optopt_) {
        opt_usage_error(cmd, "unknown option '-%c'", optopt_);
        return 2;
    }
    /* ambiguous is getopt_long's other reason: more than one long name starts so */
    len = strncmp(elem, "--", 2) == 0 ? strcspn(elem + 2, "=") : 0;
    for (size_t k = 0; len && lo[k].name; k++) {
        if (strncmp(lo[k].name, elem + 2, len) != 0)
            continue;
        if (n++)
            strncat(list, ", ", sizeof(list) - strlen(list) - 1);
        strncat(list, "--", sizeof(list) - strlen(list) - 1);
        strncat(list, lo[k].name, sizeof(list) - strlen(list) - 1);
    }
    if (n > 1)
        opt_usage_error(cmd, "option '%.*s' is ambiguous (%s)", (int)len + 2, elem, list);
    else
        opt_usage_error(cmd, "unknown option '%s'", elem);
    return 2;
}

int opt_parse(const struct opt_cmd *cmd, int argc, char **argv, struct opt_list *args)
{
    struct option *lo;
    char *shorts;
    size_t ns = 0;
    int c, ret = 2;

    /* Room for every argument, taken before any is read, so running short
       of memory is the same silent exit 2 wherever the bad argument is. */
    args->v = calloc((size_t)argc + 1, sizeof(char *));
    lo = calloc(cmd->nopts + 3, sizeof(*lo));
    shorts = calloc(3 * cmd->nopts + 4, 1);
    if (!args->v || !lo || !shorts)
        goto out;
    /* '-': other arguments come back in order as code 1, so options and
       inputs mix freely whatever POSIXLY_CORRECT says; '+' (options_first):
       the first of them ends the options; ':': a missing value is ':', told
       apart from an unknown option */
    shorts[ns++] = cmd->options_first ? '+' : '-';
    shorts[ns++] = ':';
    shorts[ns++] = 'h';
    for (size_t k = 0; k < cmd->nopts; k++) {
        const struct opt_spec *o = &cmd->opts[k];

        if (o->list) {
            o->list->v = calloc((size_t)argc + 1, sizeof(char *));
            if (!o->list->v)
                goto out;
        }
        lo[k] = (struct option){o->name, takes_value(o) ? required_argument : no_argument,
                                NULL, val_of(o, k)};
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            if (takes_value(o))
                shorts[ns++] = ':';
        }
    }
    lo[cmd->nopts] = (struct option){"help", no_argument, NULL, 'h'};
    lo[cmd->nopts + 1] = (struct option){"version", no_argument, NULL, VAL_LONG + (int)cmd->nopts};

    opterr = 0;
    optind = 0;      /* glibc: start afresh, whatever parsed before */
    while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct opt_spec *o;

        if (c == 1) {
            args->v[args->n++] = optarg;
            continue;
        }
        if (c == '?') {
            ret = bad_option(cmd, lo, optopt, argv[optind - 1]);
            goto out;
        }
        if (c == ':') {
            o = spec_of(cmd, optopt);
            if (strncmp(argv[optind - 1], "--", 2) == 0)
                opt_usage_error(cmd, "option '--%s' needs a value", o->name);
            else
                opt_usage_error(cmd, "option '-%c' needs a value", o->short_name);
            goto out;
        }
        o = spec_of(cmd, c);
        if (o == &help_opt) {
            opt_usage(cmd, stdout);
            ret = 0;
            goto out;
        }
        if (o == &version_opt) {
            opt_version();
            ret = 0;
            goto out;
        }
        if (o->flag) {
            *o->flag = !o->clears;
            continue;
        }
        if (o->check) {
            char see[96], name[64];
            int refused;

            snprintf(see, sizeof(see), "; see '%s --help'", cmd_name(cmd, name, sizeof(name)));
            iot_msg_error_suffix(see);
            refused = o->check(optarg) != 0;
            iot_msg_error_suffix(NULL);
            if (refused)
                goto out;
        }
        if (o->list)
            o->list->v[o->list->n++] = optarg;
        else
            *o->value = optarg;
    }
    while (optind < argc)                /* what followed '--' (or ended the options) */
        args->v[args->n++] = argv[optind++];
    if (cmd->needs_input && !args->n) {
        opt_usage_error(cmd, "no input given");
        goto out;
    }
    ret = -1;
out:
    free(lo);
    free(shorts);
    return ret;
}

/* The left part of an option's help line, "  -c, --config FILE", as snprintf. */
static int usage_left(char *buf, size_t size, const struct opt_spec *o)
{
    return snprintf(buf, size, "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ',
                    o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->name,
                    o->arg ? " " : "", o->arg ? o->arg : "");
}

static void usage_line(FILE *f, const struct opt_spec *o, int col)
{
    char left[128];
    int n = usage_left(left, sizeof(left), o);

    fprintf(f, "%s%*s%s\n", left, n + 2 <= col ? col - n : 2, "", o->help);
}

void opt_usage(const struct opt_cmd *cmd, FILE *f)
{
    int col = usage_left(NULL, 0, &version_opt) + 2;    /* wider than --help */

    for (size_t k = 0; k < cmd->nopts; k++) {
        int n = usage_left(NULL, 0, &cmd->opts[k]) + 2;

        col = n > col ? n : col;
    }
    col = col < HELP_COL_MAX ? col : HELP_COL_MAX;
    fprintf(f, "usage: %s %s\n", program, cmd->synopsis);
    if (cmd->about)
        fprintf(f, "%s\n", cmd->about);
    fputc('\n', f);
    for (size_t k = 0; k < cmd->nopts; k++)
        usage_line(f, &cmd->opts[k], col);
    usage_line(f, &help_opt, col);
    usage_line(f, &version_opt, col);
    if (cmd->footer)
        fprintf(f, "\n%s\n", cmd->footer);
}

void opt_version(void)
{
    printf("%s %s (trace format %d)\n", program, IOSCOPE_VERSION, format_version);
}

/* The name that starts row i of a table of row_size-byte rows. */
static const char *choice_name(const void *rows, size_t i, size_t row_size)
{
    return *(const char *const *)(const void *)((const char *)rows + i * row_size);
}

const char *opt_choices(const void *rows, size_t n, size_t row_size, const char *sep,
                        const char *last, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = 0;
    for (size_t i = 0; i < n && len < size; i++) {
        const char *name = choice_name(rows, i, row_size);
        int w = snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 == n ? last : sep, name);

        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

int opt_choice_of(const void *rows, size_t n, size_t row_size, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, choice_name(rows, i, row_size)) == 0)
            return (int)i;
    return -1;
}
