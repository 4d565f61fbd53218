/*
 * scope.h - own-code scope (`--scope own`): which findings are the
 * project's. A finding is the project's when its process ran an executable
 * under the source root (the issue's "exe") or when a frame of its stack
 * (source file or module) lies under it; the others (the compiler, the
 * linker, the shell a test script runs) are counted by process name.
 * See docs/ci.md, "Own code".
 */
#ifndef SCOPE_H
#define SCOPE_H

#include <stddef.h>

#include <jansson.h>

#include "issue_rec.h"

struct engine;

/* The scopes --scope takes: the project's findings, or every finding. */
enum issue_scope { SCOPE_ALL, SCOPE_OWN };

/* SCOPE_ALL or SCOPE_OWN for "all" or "own"; -1 for anything else. */
int issue_scope_parse(const char *name);

/* 1 when path is root or lies under it (both absolute; root without a
   trailing '/', as realpath gives it). */
int path_under(const char *path, const char *root);

/* path relative to root ("dir/file.c"), or NULL when it does not lie below
   it: what SARIF, Code Quality and JUnit name a project's file by. */
const char *path_below(const char *path, const char *root);

/* 1 when the issue is the project's (root: the resolved source root). */
int issue_is_own(const struct issue *issue, const char *root);

/* What --scope own left out: how many findings, and their process names,
   most findings first ("cc1, ld"), NUL-terminated in names. */
struct scope_outside {
    size_t n;
    char names[160];
};

/* Removes from issues (compacted in place, the others freed) every issue
   that is not the project's, counting them in *out. 0, or -1 out of memory. */
int issues_keep_own(struct issue_list *issues, const char *root, struct scope_outside *out);

/* The one line that counts them ("12 findings in programs outside the
   project: cc1, ld"), in buf (no newline); "" when none was left out. */
const char *scope_outside_line(const struct scope_outside *out, char *buf, size_t size);

/* Sets each issue's "exe" to the executable its process ran, when the
   engine knows it (an issue file then carries it into a later diff). */
void issues_note_exe(json_t *issues, struct engine *e);

#endif /* SCOPE_H */
