/*
 * text.h - strings from a trace made safe to show: the one UTF-8 check and
 * the one escaping of control characters for every text output (text.c).
 */
#ifndef IOT_TEXT_H
#define IOT_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes, n >= 1), 0 if
 * it is not one (stray byte, overlong, surrogate, past U+10FFFF, cut). */
size_t iot_utf8_len(const unsigned char *s, size_t n);
/* 1 when s[0..n) is valid UTF-8 throughout. */
int iot_utf8_valid(const char *s, size_t n);
/* A copy of the string s (malloc'd) in which each byte that is not part of
 * valid UTF-8 is U+FFFD, as JSONL writes it; NULL out of memory. */
char *iot_utf8_repaired(const char *s);

/*
 * A string from a trace as a text output shows it (docs/analyzer.md, "Text
 * output and hostile bytes"): printable ASCII and valid UTF-8 as they are;
 * backslash as \\; newline, CR, tab and ESC as \n \r \t \e; other C0
 * controls, DEL and bytes that are not UTF-8 as \xNN; C1 controls and
 * bidirectional overrides as backslash-u and four hex digits. Writes
 * s[0..n) to f; NULL shows as "?".
 */
void iot_text_write(FILE *f, const char *s, size_t n);
/* The same into buf (size bytes, NUL-terminated), cut with "..." when it
 * does not fit; returns buf, for use as a printf argument. IOT_TEXT_MAX
 * holds a PATH_MAX path whatever its bytes. */
#define IOT_TEXT_MAX (4 * 4096 + 8)
const char *iot_text_safe(char *buf, size_t size, const char *s);

/*
 * A string from a trace as one CSV cell, the one rule of every CSV the
 * project writes (docs/analyzer.md, "CSV cells"; fleet/fleet_report.py's
 * csv_cell mirrors it): the text form above (so no control byte, and bytes
 * that are not UTF-8 as \xNN: the cell is valid UTF-8 and says which bytes
 * they were); then a leading ' when the cell begins with = + - or @ (a
 * spreadsheet's formula; tab and CR, the other two, are escaped already);
 * then RFC 4180 quoting when it holds a comma or a quote. NULL is an empty
 * cell.
 */
void iot_csv_write(FILE *f, const char *s);

#endif /* IOT_TEXT_H */
