/*
 * issue_text.h - the engine's own: the strings and frames of a trace as an
 * issue record holds them. A record is written as JSON, which holds only
 * UTF-8: what is not is repaired (U+FFFD) or left out, never lost silently
 * (a path's own bytes stay in path_hex).
 */
#ifndef ISSUE_TEXT_H
#define ISSUE_TEXT_H

#include "issue_rec.h"
#include "symbolize.h"

/* A string of the trace as an issue holds it (U+FFFD for bytes that are not
   UTF-8); NULL is "". NULL only out of memory. */
char *issue_trace_text(const char *s);
/* s when it is UTF-8, else NULL. */
const char *issue_utf8_or_null(const char *s);
/* The bytes of a path that is not UTF-8 in hex; NULL for a UTF-8 path. */
char *issue_path_hex(const char *path);
/* The symbolized stack st as frames (none without st); 0, or -1 out of
   memory. */
int issue_frames_of(const struct sym_stack *st, struct issue_frames *out);

#endif
