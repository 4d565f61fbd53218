/*
 * text.c - strings from a trace made safe to show (iotrace.h): the one UTF-8
 * check and the one escaping of control characters for every text output.
 *
 * A path, a process name or a stack in a trace is whatever bytes the traced
 * program used. Printed raw, ESC [ 2 J clears the reader's terminal, OSC 8
 * makes a link, CR rewrites the line already shown. So every such byte is
 * shown as a visible escape, and the output holds only printable ASCII, tab
 * (never: it is escaped too) and valid UTF-8 that is not a control.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

size_t iot_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len, i;
    uint32_t cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) { len = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (len > n)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates and values past U+10FFFF */
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* The code point of the valid len-byte UTF-8 sequence at s. */
static uint32_t utf8_cp(const unsigned char *s, size_t len)
{
    uint32_t cp = s[0] & (0x7fu >> len);

    for (size_t i = 1; i < len; i++)
        cp = cp << 6 | (s[i] & 0x3f);
    return cp;
}

/*
 * Code points a terminal acts on rather than shows: C1 controls and the
 * bidirectional overrides and isolates (which reorder what follows them).
 */
static int invisible(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

/*
 * The visible form of the character at s[0..n) into out (at most 7 bytes,
 * not terminated): its length, and in *used the bytes of s it stands for.
 */
static size_t text_one(const unsigned char *s, size_t n, char out[8], size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    unsigned c = s[0];
    size_t len;

    *used = 1;
    if (c >= 0x20 && c < 0x7f && c != '\\') {
        out[0] = (char)c;
        return 1;
    }
    switch (c) {
    case '\\': memcpy(out, "\\\\", 2); return 2;
    case '\n': memcpy(out, "\\n", 2); return 2;
    case '\r': memcpy(out, "\\r", 2); return 2;
    case '\t': memcpy(out, "\\t", 2); return 2;
    case 0x1b: memcpy(out, "\\e", 2); return 2;
    }
    len = c >= 0x80 ? iot_utf8_len(s, n) : 0;
    if (len) {
        uint32_t cp = utf8_cp(s, len);

        *used = len;
        if (!invisible(cp)) {
            memcpy(out, s, len);
            return len;
        }
        out[0] = '\\';
        out[1] = 'u';
        for (int i = 0; i < 4; i++)
            out[2 + i] = hex[(cp >> (12 - 4 * i)) & 0xf];
        return 6;
    }
    /* C0, DEL, and a byte that is not UTF-8 */
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 0xf];
    return 4;
}

/* The length of s shown (text_one over all of it). */
static size_t text_len(const unsigned char *u, size_t n)
{
    size_t total = 0;

    while (n) {
        char one[8];
        size_t used;

        total += text_one(u, n, one, &used);
        u += used;
        n -= used;
    }
    return total;
}

const char *iot_text_safe(char *buf, size_t size, const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "?");
    size_t n = strlen((const char *)u), at = 0;
    /* room kept for "..." only when the whole does not fit */
    size_t room = text_len(u, n) < size ? size : (size > 3 ? size - 3 : 0);

    if (!size)
        return buf;
    while (n) {
        char one[8];
        size_t used, k = text_one(u, n, one, &used);

        if (at + k >= room)
            break;
        memcpy(buf + at, one, k);
        at += k;
        u += used;
        n -= used;
    }
    if (n && at + 3 < size) {
        memcpy(buf + at, "...", 3);
        at += 3;
    }
    buf[at] = 0;
    return buf;
}

void iot_text_write(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "?");

    if (!s)
        n = 1;

    while (n) {
        size_t run = 0;

        /* plain runs in one go */
        while (run < n && u[run] >= 0x20 && u[run] < 0x7f && u[run] != '\\')
            run++;
        if (run) {
            fwrite(u, 1, run, f);
        } else {
            char one[8];
            size_t k = text_one(u, n, one, &run);

            fwrite(one, 1, k, f);
        }
        u += run;
        n -= run;
    }
}

int iot_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;

    while (n) {
        size_t k = *u < 0x80 ? 1 : iot_utf8_len(u, n);

        if (!k)
            return 0;
        u += k;
        n -= k;
    }
    return 1;
}

char *iot_utf8_repaired(const char *s)
{
    size_t n = strlen(s), i = 0;
    char *out = n <= (SIZE_MAX - 1) / 3 ? malloc(n * 3 + 1) : NULL;
    char *p = out;

    if (!out)
        return NULL;
    while (i < n) {
        size_t k = iot_utf8_len((const unsigned char *)s + i, n - i);

        if (k) {
            memcpy(p, s + i, k);
            p += k;
            i += k;
        } else {
            memcpy(p, "\xef\xbf\xbd", 3);
            p += 3;
            i++;
        }
    }
    *p = 0;
    return out;
}

void iot_csv_write(FILE *f, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = s ? strlen(s) : 0;
    int quote = s && s[strcspn(s, ",\"")] != 0;

    if (quote)
        fputc('"', f);
    if (n && strchr("=+-@", s[0]))
        fputc('\'', f);
    while (n) {
        char one[8];
        size_t used, k = text_one(u, n, one, &used);

        if (k == 1 && one[0] == '"')
            fputc('"', f);
        fwrite(one, 1, k, f);
        u += used;
        n -= used;
    }
    if (quote)
        fputc('"', f);
}
