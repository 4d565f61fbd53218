/*
 * output_format.h - every output format of ioanalyze, declared once in
 * output_format.c's table: the command that takes it, its name, one line of
 * help and its writer. The commands' --format check and --help, the
 * top-level help, the bash completion (which reads --help) and the man page
 * test (tests/e2e/test_man.sh) follow the table. A new format is its
 * writer's file in analyzer/outputs/ and one row.
 */
#ifndef OUTPUT_FORMAT_H
#define OUTPUT_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "engine.h"
#include "issue_rec.h"
#include "report.h"

/* The commands that take --format. */
enum output_command { OUTPUT_ANALYZE, OUTPUT_DUMP, OUTPUT_DIFF };

/* What an issues writer (analyze) is given. */
struct output_issues {
    /* The issues as records (issue_rec.h): what writers read, member by member. */
    const struct issue_list *list;
    const struct report *report;  /* the collector's sums, when the format asks for them */
    const char *source_root;      /* --source-root resolved; NULL when it cannot be */
    int color;                    /* the output is a terminal that wants color */
};

/* What a diff writer (diff) is given: the two sides matched by fingerprint
   (ci.h's issues_diff), new and fixed already cut to --min-severity. */
struct output_diff {
    const struct issue_list *added;   /* issues of NEW whose fingerprint BASE lacks */
    const struct issue_list *fixed;   /* issues of BASE whose fingerprint NEW lacks */
    const struct issue_list *kept;    /* the other issues of NEW (the unchanged ones) */
    const struct issue_list *near;    /* of added and fixed, what --ci counted as
                                         unchanged (near its threshold); empty without */
    const char *source_root;      /* --source-root resolved; NULL when it cannot be */
    const char *outside;          /* --scope own: the line counting NEW's findings
                                     outside the project (scope.h); NULL or "" none */
};

/* An event hook of the analysis (struct analyze_opts' observe). */
typedef void output_observe_fn(void *arg, struct engine *e, const struct iot_event *const *evs,
                               size_t n);

struct output_format {
    enum output_command command;
    const char *name;
    const char *help;             /* one line: what the format is */
    /* analyze: the issues once the analysis is done; report: the events go
       through the report collector first (report.h); source_root: it needs
       --source-root resolved. 0, or -1 on a write error. */
    int (*write_issues)(FILE *f, const struct output_issues *in);
    int report, source_root;
    /* dump, either event by event through the analysis (observe, with the
       state begin made, or f itself without begin; end gets the issues,
       which the rules make when want_issues, and finishes), or straight
       from the inputs (write_event, no analysis). */
    output_observe_fn *observe;
    void *(*begin)(FILE *f);
    int (*end)(void *state, const struct issue_list *issues);
    int want_issues;
    void (*write_event)(FILE *f, const struct iot_event *ev);
    /* diff: the diff once both sides are matched. 0, or -1 on a write error. */
    int (*write_diff)(FILE *f, const struct output_diff *in);
    /* dump --top: one call written to `to` as one element of the output
       (arg: the state begin made, else the output FILE), and an element so
       written put into the output (NULL: its bytes as they are) */
    void (*write_call)(void *arg, FILE *to, struct engine *e, const struct iot_event *ev);
    int (*put_element)(void *arg, const char *s, size_t len);
    /* dump --schema: the type of each column the format writes; 0 or -1 */
    int (*write_schema)(FILE *f);
};

/* The format of command c called name; NULL when c has none by that name. */
const struct output_format *output_format_find(enum output_command c, const char *name);
/* c's format names in table order joined by sep, the last two by last
   ("a|b|c" or "a, b or c"), in buf; returns buf. */
const char *output_format_names(enum output_command c, const char *sep, const char *last,
                                char *buf, size_t size);
/* c's formats as help: "Formats:", then a line "  name  help" each, names
   aligned, in buf; returns buf. */
const char *output_format_help(enum output_command c, char *buf, size_t size);

/* The writers of the formats (one file each). */
int issues_write_json(FILE *f, const struct output_issues *in);
int issues_write_jsonl(FILE *f, const struct output_issues *in);
int issues_write_sarif(FILE *f, const struct output_issues *in);
int issues_write_codequality(FILE *f, const struct output_issues *in);
void dump_text(FILE *f, const struct iot_event *ev);
int diff_write_json(FILE *f, const struct output_diff *in);
int diff_write_sarif(FILE *f, const struct output_diff *in);
int diff_write_codequality(FILE *f, const struct output_diff *in);
int diff_write_text(FILE *f, const struct output_diff *in);
int diff_write_markdown(FILE *f, const struct output_diff *in);
int diff_write_junit(FILE *f, const struct output_diff *in);

#endif /* OUTPUT_FORMAT_H */
