/* The text report fitted to a width (text_wrap.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "text_wrap.h"

#define MIN_WIDTH 20

int text_wrap_width(FILE *f)
{
    const char *cols = getenv("COLUMNS");
    struct winsize ws;
    char *end;

    if (cols && *cols) {
        long n = strtol(cols, &end, 10);

        if (!*end && n >= MIN_WIDTH && n <= 10000)
            return (int)n;
    }
    if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= MIN_WIDTH)
        return ws.ws_col;
    return 80;
}

/* Bytes of the ANSI sequence "ESC [ ... letter" at s, 0 when s is none. */
static size_t escape_len(const char *s, const char *end)
{
    const char *p = s + 2;

    if (end - s < 2 || s[0] != '\033' || s[1] != '[')
        return 0;
    while (p < end && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
        p++;
    return p < end ? (size_t)(p + 1 - s) : (size_t)(end - s);
}

/* Bytes of the character at s: a whole UTF-8 sequence (continuation bytes
   follow their lead), or an ANSI sequence (then *cols is 0). */
static size_t char_len(const char *s, const char *end, int *cols)
{
    size_t n = escape_len(s, end);

    if (n) {
        *cols = 0;
        return n;
    }
    *cols = 1;
    for (n = 1; s + n < end && ((unsigned char)s[n] & 0xC0) == 0x80; n++)
        ;
    return n;
}

/* One line (no newline) wrapped to width. */
static void wrap_line(FILE *f, const char *s, const char *end, int width)
{
    int indent = 0, col, first = 1;

    if (s == end) {
        fputc('\n', f);
        return;
    }
    while (s + indent < end && s[indent] == ' ')
        indent++;
    /* the rest of a broken line goes under its start, two columns in; a
       deep indent leaves at least half the width for text */
    int cont = indent + 2 > width / 2 ? width / 2 : indent + 2;

    while (s < end) {
        const char *p = s, *brk = NULL, *resume = NULL;
        int lead = first ? 0 : cont;

        col = lead;
        /* the longest piece that fits, and its last break */
        while (p < end) {
            int w;
            size_t n = char_len(p, end, &w);

            if (col + w > width)
                break;
            col += w;
            p += n;
            if (p < end && *p == ' ' && p > s + (first ? indent : 0)) {
                brk = p;       /* before a space: the spaces are dropped */
                resume = p;
            } else if (p[-1] == '/' && p - 1 > s) {
                brk = p;       /* after a '/': a path goes on below */
                resume = p;
            }
        }
        if (p >= end) {
            fprintf(f, "%*s%.*s\n", lead, "", (int)(end - s), s);
            return;
        }
        if (!brk) {
            brk = resume = p > s ? p : s + char_len(s, end, &col);
        }
        fprintf(f, "%*s%.*s\n", lead, "", (int)(brk - s), s);
        s = resume;
        while (s < end && *s == ' ')
            s++;
        first = 0;
    }
}

void text_wrap_write(FILE *f, const char *buf, size_t len, int width)
{
    const char *s = buf, *end = buf + len;

    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;

        wrap_line(f, s, e, width);
        s = nl ? nl + 1 : end;
    }
}
