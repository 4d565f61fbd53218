/*
 * text_wrap.h - the text report fitted to a width: lines longer than the
 * terminal's are broken at a space, else after a '/' (a long path), else
 * where the width ends, the rest indented under the line's own indent.
 * ANSI color sequences take no column, a UTF-8 character one.
 */
#ifndef TEXT_WRAP_H
#define TEXT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* The width to wrap f's text to: COLUMNS when it is a number (at least
   20), else the terminal's when f is one, else 80. */
int text_wrap_width(FILE *f);

/* Writes the text buf[0..len) to f, each line wrapped to width columns. */
void text_wrap_write(FILE *f, const char *buf, size_t len, int width);

#endif /* TEXT_WRAP_H */
