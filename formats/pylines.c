/*
 * pylines.c - a Python code record's line table (docs/trace-format.md,
 * 5.18) between its bytes and the event's text, "OFF:LINE OFF:LINE ...".
 *
 * The bytes are pairs: the varint distance of an entry's first code byte
 * from the previous entry's (from 0), and the zigzag change of its line
 * from the previous entry's (from the record's first line). The text holds
 * the same entries with absolute numbers, so that each form is made from
 * the other exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "iotrace.h"
#include "varint.h"

/* Lines outside this are damage: a code object's lines are an int. */
#define LINE_MAX_ 0x7fffffffLL

const char *iot_py_lines_text(struct iot_strtab *st, const uint8_t *p, size_t n,
                              int64_t first_line)
{
    const uint8_t *end = p + n;
    uint64_t off = 0, d, z;
    int64_t line = first_line;
    /* a pair is at least 2 bytes; its text at most 10 + 1 + 10 + 1 */
    char *text = malloc(n / 2 * 22 + 1);
    size_t len = 0;
    const char *s = NULL;

    if (!text)
        return NULL;
    while (p < end) {
        if (iot_get_varint(&p, end, &d) < 0 || iot_get_varint(&p, end, &z) < 0 ||
            d > UINT32_MAX - off)
            goto out;
        off += d;
        line += iot_unzigzag(z);
        if (line < 0 || line > LINE_MAX_)
            goto out;
        len += (size_t)sprintf(text + len, "%s%llu:%lld", len ? " " : "",
                               (unsigned long long)off, (long long)line);
    }
    s = iot_intern(st, text, len);
out:
    free(text);
    return s;
}

long iot_py_lines_parse(const char *text, int64_t first_line, uint8_t *out, size_t cap)
{
    unsigned long long off, prev_off = 0;
    long long line, prev_line = first_line;
    size_t len = 0;
    const char *p = text ? text : "";

    while (*p) {
        int used = 0;

        if (sscanf(p, "%llu:%lld%n", &off, &line, &used) != 2 || used <= 0 || off < prev_off ||
            off > UINT32_MAX || line < 0 || line > LINE_MAX_ || len + 20 > cap)
            return -1;
        len += (size_t)(iot_put_varint(out + len, off - prev_off) - (out + len));
        len += (size_t)(iot_put_varint(out + len, iot_zigzag(line - prev_line)) - (out + len));
        prev_off = off;
        prev_line = line;
        p += used;
        if (*p == ' ' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    return (long)len;
}
