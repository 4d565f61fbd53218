/*
 * pyframe_code.c - Python code records (docs/trace-format.md, 5.18) and the
 * text of Python frames (pyframe.h).
 *
 * A code object is looked at once per process, at the first stack that
 * holds it: it must have PyCode_Type as its type (else the layout was
 * misread, and its frames are left out of the stack), then its file,
 * qualified name (3.8-3.10 have none: the name), first line and line table
 * are read and written as one record. The line table is each version's
 * own (3.8-3.9 co_lnotab, 3.10 co_linetable, 3.11+ the location table),
 * written as one form: ranges of code bytes and their lines, so the
 * analyzer needs no version. A code object freed and another made at the
 * same address keeps the first one's record: the interpreter's code
 * objects mostly live as long as their module.
 *
 * Everything here runs under stack.c's lock.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "internal.h"
#include "pyframe.h"
#include "rec.h"
#include "sandbox.h"

#define CODE_SLOTS 8192
#define NAME_MAX_  1024          /* code points of a file or name kept */
#define LINES_MAX  (64u << 10)   /* bytes of a line table read */

enum { CODE_GOOD = 1, CODE_BAD = 2 };

static struct {
    uintptr_t code;
    uint64_t ident;
    uint16_t gen;       /* code objects seen at the address before this one */
    uint8_t st;
} codes[CODE_SLOTS];
static unsigned ncodes;

static uint8_t table_in[LINES_MAX];
static uint8_t table_out[2 * LINES_MAX];
static struct { uint32_t start; int32_t line; } entries[LINES_MAX / 2];

/*
 * The slot of the frame's code object, taken when new (and again by a new
 * code object at the address of an earlier one); NULL when the table is full.
 */
static unsigned code_slot(const struct rec_pyframe *f, int *fresh)
{
    unsigned k = (unsigned)((f->code * 0x9e3779b97f4a7c15ull) >> 40) % CODE_SLOTS;

    *fresh = 0;
    for (unsigned i = 0; i < CODE_SLOTS; i++, k = (k + 1) % CODE_SLOTS) {
        if (codes[k].code == f->code) {
            if (codes[k].ident != f->ident) {
                codes[k].ident = f->ident;
                codes[k].gen++;
                *fresh = 1;
            }
            return k;
        }
        if (codes[k].code == 0) {
            if (ncodes >= CODE_SLOTS / 2)
                return CODE_SLOTS;
            ncodes++;
            codes[k].code = f->code;
            codes[k].ident = f->ident;
            *fresh = 1;
            return k;
        }
    }
    return CODE_SLOTS;
}

/* The code's key in frames and records: its address, bits 48-63 its count. */
static uint64_t code_key(unsigned k)
{
    return (uint64_t)codes[k].code | (uint64_t)codes[k].gen << 48;
}

static size_t put_uvarint(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/*
 * The line table being built: entries (start byte, line), line 0 "no
 * line". An entry at the start of the last one replaces it; one with the
 * last one's line adds nothing.
 */
struct lines_out {
    struct { uint32_t start; int32_t line; } *e;
    size_t n, cap;
    int64_t first_line;
};

static void put_entry(struct lines_out *o, uint64_t start, int64_t line)
{
    if (start > UINT32_MAX || line < 0 || line > INT32_MAX)
        return;
    if (o->n && o->e[o->n - 1].start == start)
        o->n--;
    if (o->n && o->e[o->n - 1].line == line)
        return;
    if (o->n < o->cap)
        o->e[o->n++].start = (uint32_t)start, o->e[o->n - 1].line = (int32_t)line;
}

/* The entries as the record's bytes into table_out: each the varint
   distance from the previous start and the zigzag change of line (from
   the first line). */
static size_t lines_bytes(const struct lines_out *o)
{
    size_t len = 0;
    uint64_t start = 0;
    int64_t line = o->first_line;

    for (size_t i = 0; i < o->n && len + 20 <= sizeof(table_out); i++) {
        int64_t d = o->e[i].line - line;

        len += put_uvarint(table_out + len, o->e[i].start - start);
        len += put_uvarint(table_out + len, (uint64_t)d << 1 ^ (uint64_t)(d >> 63));
        start = o->e[i].start;
        line = o->e[i].line;
    }
    return len;
}

/* 3.11+: a location table's signed varint (6 bits a byte, 0x40 goes on). */
static int loc_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    unsigned shift = 0;
    uint8_t b;

    *v = 0;
    do {
        if (*p >= end || shift > 60)
            return -1;
        b = *(*p)++;
        *v |= (uint64_t)(b & 63) << shift;
        shift += 6;
    } while (b & 64);
    return 0;
}

static int64_t loc_svarint(uint64_t u)
{
    return (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

static void lines_from(const uint8_t *p, size_t n, struct lines_out *o)
{
    const uint8_t *end = p + n;
    uint64_t addr = 0, skip;
    int64_t line = o->first_line;

    if (rec_py.minor <= 9) {
        put_entry(o, 0, line);
        for (; end - p >= 2; p += 2) {
            addr += p[0];
            line += (int8_t)p[1];
            put_entry(o, addr, line);
        }
    } else if (rec_py.minor == 10) {
        for (; end - p >= 2; p += 2) {
            if ((int8_t)p[1] != -128)
                line += (int8_t)p[1];
            put_entry(o, addr, (int8_t)p[1] == -128 ? 0 : line);
            addr += p[0];
        }
    } else {
        while (p < end && (*p & 0x80)) {
            unsigned code = (*p >> 3) & 15, units = (*p & 7) + 1;
            int none = code == 15;

            p++;
            if (code == 14 || code == 13) {
                if (loc_varint(&p, end, &skip) < 0)
                    return;
                line += loc_svarint(skip);
                for (int i = 0; code == 14 && i < 3; i++)
                    if (loc_varint(&p, end, &skip) < 0)
                        return;
            } else if (code >= 10 && code <= 12) {
                line += code - 10;
                p += 2;
            } else if (code < 10) {
                p += 1;
            }
            put_entry(o, addr, none ? 0 : line);
            addr += 2 * units;
        }
    }
}

/* A str object's text as UTF-8 into out (cap > 4): its length, 0 when unread. */
static size_t read_str(uintptr_t obj, char *out, size_t cap)
{
    static uint8_t raw[4 * NAME_MAX_];   /* under the lock, as its callers */
    uint8_t head[72];
    int64_t len;
    uint32_t st;
    unsigned kind;
    size_t n = 0;
    int hsize;

    if (!obj || rec_py_peek(obj, head, (size_t)rec_py.str_ascii) < 0)
        return 0;
    memcpy(&len, head + 16, sizeof(len));
    memcpy(&st, head + 32, sizeof(st));
    kind = (st >> 2) & 7;
    /* compact strings only: what a code object's names are */
    if (!(st & 0x20) || len < 0 || (kind != 1 && kind != 2 && kind != 4))
        return 0;
    if (len > NAME_MAX_)
        len = NAME_MAX_;
    hsize = (st & 0x40) ? rec_py.str_ascii : rec_py.str_compact;
    if (rec_py_peek(obj + (uintptr_t)hsize, raw, (size_t)len * kind) < 0)
        return 0;
    for (int64_t i = 0; i < len && n + 4 < cap; i++) {
        uint32_t c = kind == 1 ? raw[i] : kind == 2 ? (uint32_t)raw[2 * i] | raw[2 * i + 1] << 8
                   : (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                     (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;

        if (c < 0x80) {
            out[n++] = (char)c;
        } else if (c < 0x800) {
            out[n++] = (char)(0xc0 | c >> 6);
            out[n++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            out[n++] = (char)(0xe0 | c >> 12);
            out[n++] = (char)(0x80 | (c >> 6 & 63));
            out[n++] = (char)(0x80 | (c & 63));
        } else if (c < 0x110000) {
            out[n++] = (char)(0xf0 | c >> 18);
            out[n++] = (char)(0x80 | (c >> 12 & 63));
            out[n++] = (char)(0x80 | (c >> 6 & 63));
            out[n++] = (char)(0x80 | (c & 63));
        }
    }
    return n;
}

static void write_record(uint64_t code, const char *file, size_t flen, const char *name,
                         size_t nlen, uint64_t first, size_t llen)
{
    struct rec_thread *t = rec_self;
    int64_t now;

    if (!t)
        return;
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), rec_stamp());
    if (iot_enc_py_code(&t->enc, now, code, file, flen, name, nlen, first, table_out, llen) != 0) {
        rec_chunk_switch(t, now);
        if (iot_enc_py_code(&t->enc, now, code, file, flen, name, nlen, first, table_out,
                            llen) != 0)
            return;
    }
    rec_publish(t);
}

/* Look at a new code object: CODE_GOOD once its record is written. */
static uint8_t look_at(uintptr_t code, uint64_t key)
{
    uint8_t head[256];
    uintptr_t type, file, name, lines;
    int32_t first;
    int64_t size = 0;
    /* under the lock: off the program's stack, which may be a small thread's */
    static char ftext[4 * NAME_MAX_ + 8], ntext[4 * NAME_MAX_ + 8];
    size_t flen, nlen;
    struct lines_out o = { (void *)entries, 0, LINES_MAX / 2, 0 };
    int hlen = rec_py.co_lines + 8;

    if (rec_py_peek(code, head, (size_t)hlen) < 0)
        return CODE_BAD;
    memcpy(&type, head + 8, sizeof(type));
    if (type != rec_py_code_type)
        return CODE_BAD;
    memcpy(&file, head + rec_py.co_filename, sizeof(file));
    memcpy(&name, head + (rec_py.co_qualname >= 0 ? rec_py.co_qualname : rec_py.co_name),
           sizeof(name));
    memcpy(&first, head + rec_py.co_firstlineno, sizeof(first));
    memcpy(&lines, head + rec_py.co_lines, sizeof(lines));
    flen = read_str(file, ftext, sizeof(ftext));
    /* a script run by a relative name (3.8 keeps it so): made absolute
       against the working directory, as the recorder's paths are */
    if (flen && ftext[0] != '/' && ftext[0] != '<') {
        char dir[PATH_MAX];
        int saved = errno;
        size_t dlen = rec_cwd_now(dir, sizeof(dir));

        errno = saved;
        if (dlen && dlen + 1 + flen < sizeof(ftext)) {
            memmove(ftext + dlen + 1, ftext, flen);
            memcpy(ftext, dir, dlen);
            ftext[dlen] = '/';
            flen += dlen + 1;
        }
    }
    nlen = read_str(name, ntext, sizeof(ntext));
    o.first_line = first > 0 ? first : 0;
    /* a bytes object: its size at 16, its bytes from 32 */
    if (lines && rec_py_peek(lines + 16, &size, sizeof(size)) == 0 && size > 0) {
        if ((uint64_t)size > LINES_MAX)
            size = LINES_MAX;
        if (rec_py_peek(lines + 32, table_in, (size_t)size) == 0)
            lines_from(table_in, (size_t)size, &o);
    }
    write_record(key, ftext, flen, ntext, nlen, (uint64_t)o.first_line, lines_bytes(&o));
    return CODE_GOOD;
}

int rec_py_frame_text(char *buf, size_t cap, const struct rec_pyframe *f)
{
    int fresh;
    unsigned k = code_slot(f, &fresh);
    uint64_t key = k < CODE_SLOTS ? code_key(k) : f->code;

    if (k < CODE_SLOTS && fresh)
        codes[k].st = look_at(f->code, key);
    if (k < CODE_SLOTS && codes[k].st == CODE_BAD)
        return 0;
    return snprintf(buf, cap, "[py:%d]+0x%llx+0x%x", (int)rec_pid, (unsigned long long)key,
                    (unsigned)f->offset);
}

void rec_py_forked(void)
{
    memset(codes, 0, sizeof(codes));
    ncodes = 0;
}
