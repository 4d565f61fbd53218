/*
 * jsonl.c - the JSONL event model (SPEC "JSONL events"): one definition of
 * every field and every kind's members (schema.h) for both directions and
 * for both lines written (an event's own keys, and the dump's every key),
 * so dump followed by analyze of the dump sees the same events as
 * analyzing the trace.
 */
#include <inttypes.h>
#include <stddef.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "iotrace.h"
#include "text.h"

/* ------------------------------------------------------------ writing */

/* A line is built in memory and written with one fwrite. */
struct line {
    char *p;
    size_t len, cap;
    int oom;
};

static void line_reserve(struct line *l, size_t n)
{
    if (l->len + n <= l->cap || l->oom)
        return;
    if (iot_grow(&l->p, &l->cap, l->len + n, 1) < 0)
        l->oom = 1;
}

static void line_put(struct line *l, const char *s, size_t n)
{
    line_reserve(l, n);
    if (l->oom)
        return;
    memcpy(l->p + l->len, s, n);
    l->len += n;
}

static void line_str(struct line *l, const char *s)
{
    line_put(l, s, strlen(s));
}

static void line_int(struct line *l, int64_t v)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p = e;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    line_put(l, p, (size_t)(e - p));
}

static void line_uint(struct line *l, uint64_t u)
{
    char tmp[24], *e = tmp + sizeof(tmp), *p = e;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    line_put(l, p, (size_t)(e - p));
}

static void line_json_string(struct line *l, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    line_put(l, "\"", 1);
    while (i < n) {
        size_t run = i;

        /* copy plain runs in one go */
        while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            line_put(l, s + i, run - i);
            i = run;
            continue;
        }
        unsigned c = u[i];
        if (c == '"') { line_put(l, "\\\"", 2); i++; }
        else if (c == '\\') { line_put(l, "\\\\", 2); i++; }
        else if (c == '\n') { line_put(l, "\\n", 2); i++; }
        else if (c == '\t') { line_put(l, "\\t", 2); i++; }
        else if (c == '\r') { line_put(l, "\\r", 2); i++; }
        else if (c < 0x20) {
            char esc[8];
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            line_put(l, esc, 6);
            i++;
        } else {
            size_t k = iot_utf8_len(u + i, n - i);
            if (k) {
                line_put(l, s + i, k);
                i += k;
            } else {
                line_put(l, "\\ufffd", 6);
                i++;
            }
        }
    }
    line_put(l, "\"", 1);
}

void iot_json_write_string(FILE *f, const char *s, size_t len)
{
    struct line l = { 0 };

    line_json_string(&l, s, len);
    if (!l.oom)
        fwrite(l.p, 1, l.len, f);
    free(l.p);
}

static void key_int(struct line *l, const char *key, int64_t v)
{
    line_str(l, key);
    line_int(l, v);
}

/* s as a JSON string; NULL as "", or as null where absent is null */
static void put_str(struct line *l, const char *s, int null_if_none)
{
    if (!s && null_if_none)
        line_put(l, "null", 4);
    else
        line_json_string(l, s ? s : "", s ? strlen(s) : 0);
}

static void key_str(struct line *l, const char *key, const char *s)
{
    line_str(l, key);
    put_str(l, s, 0);
}

/* ,"key": */
static void key(struct line *l, const char *k)
{
    line_put(l, ",\"", 2);
    line_str(l, k);
    line_put(l, "\":", 2);
}

/* ,"key":v, or null when it does not apply */
static void key_int_or_null(struct line *l, const char *k, int have, int64_t v)
{
    key(l, k);
    if (have)
        line_int(l, v);
    else
        line_put(l, "null", 4);
}

static void put_argv(struct line *l, int argc, const char *const *argv)
{
    line_put(l, "[", 1);
    for (int i = 0; i < argc; i++) {
        if (i)
            line_put(l, ",", 1);
        put_str(l, argv[i], 1);
    }
    line_put(l, "]", 1);
}

/* A kind's member of each type (IOT_KIND_MEMBERS) after its key. */
#define JSONL_MEMBER_I32(l, ev, m, dump)   line_int(l, (ev)->m)
#define JSONL_MEMBER_I64(l, ev, m, dump)   line_int(l, (ev)->m)
#define JSONL_MEMBER_UNIXNS(l, ev, m, dump) line_int(l, (ev)->m)
#define JSONL_MEMBER_U64(l, ev, m, dump)   line_int(l, (int64_t)(ev)->m)
#define JSONL_MEMBER_STR(l, ev, m, dump)   put_str(l, (ev)->m, dump)
#define JSONL_MEMBER_HEXID(l, ev, m, dump) put_str(l, (ev)->m, 0)
#define JSONL_MEMBER_ARGV(l, ev, m, dump)  put_argv(l, (ev)->argc, (ev)->argv)

/* Whether a need (IOT_KIND_MEMBERS) has the member in ev of its kind. */
#define JSONL_HAS_REQ(ev) 1
#define JSONL_HAS_OPT(ev) 1
#define JSONL_HAS_TID(ev) ((ev)->tid && (ev)->tid != (ev)->pid)
#define JSONL_HAS_SIG(ev) ((ev)->has & IOT_HAS_SIGNAL)

/*
 * A member a call has too (tid, path): the dump writes it in the call's
 * column. Asked of constant offsets, so the compiler answers it.
 */
static inline int is_call_member(size_t off)
{
    return off == offsetof(struct iot_event, tid)
#define JSONL_CALL_MEMBER_(name, bit, member, type, key) || off == offsetof(struct iot_event, member)
        IOT_FIELDS(JSONL_CALL_MEMBER_)
#undef JSONL_CALL_MEMBER_
        ;
}

/*
 * The bytes of s in hex when they are not UTF-8 (a path is bytes: the
 * string beside it shows each stray byte as U+FFFD, and two paths can
 * become one), else null: the lossless column is there only when needed.
 */
static void put_hex_if_not_utf8(struct line *l, const char *s)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t n = s ? strlen(s) : 0, i = 0;

    while (i < n) {
        size_t k = u[i] < 0x80 ? 1 : iot_utf8_len(u + i, n - i);

        if (!k)
            break;
        i += k;
    }
    if (i == n) {
        line_put(l, "null", 4);
        return;
    }
    line_reserve(l, 2 * n + 2);
    line_put(l, "\"", 1);
    for (i = 0; i < n; i++) {
        char b[2] = {digits[u[i] >> 4], digits[u[i] & 15]};

        line_put(l, b, 2);
    }
    line_put(l, "\"", 1);
}

/* A Unix time in ns also as a decimal string: exact for every reader,
   those whose numbers are doubles included. */
static void key_int_string_or_null(struct line *l, const char *k, int have, int64_t v)
{
    key(l, k);
    if (!have) {
        line_put(l, "null", 4);
        return;
    }
    line_put(l, "\"", 1);
    line_int(l, v);
    line_put(l, "\"", 1);
}

/* key with its last two letters (ns) made ms, in buf */
static const char *ms_key(const char *k, char *buf, size_t size)
{
    size_t n = strlen(k);

    if (n < 2 || n >= size)
        return k;
    memcpy(buf, k, n - 2);
    memcpy(buf + n - 2, "ms", 3);
    return buf;
}

/* The members of ev's kind that it has, in table order: its own keys only. */
static void own_members(struct line *l, const struct iot_event *ev)
{
#define JSONL_OWN_(KIND, m, type, k, tk, need, ph)      \
    if (ev->kind == IOT_EV_##KIND && JSONL_HAS_##need(ev)) { \
        line_str(l, ",\"" k "\":");                     \
        JSONL_MEMBER_##type(l, ev, m, 0);               \
    }
    IOT_KIND_MEMBERS(JSONL_OWN_)
#undef JSONL_OWN_
}

/*
 * Every member of every kind but those a call has too, null where ev's
 * kind has none; a Unix time in ns is followed by the same in ms, under
 * its key with _ms for _ns (start_unix_ms: exact as a double, which the ns
 * are not: dump_jsonl.c).
 */
static void all_members(struct line *l, const struct iot_event *ev)
{
    int own;

#define JSONL_ALL_(KIND, m, type, k, tk, need, ph)                  \
    if (!is_call_member(offsetof(struct iot_event, m))) {           \
        own = ev->kind == IOT_EV_##KIND && JSONL_HAS_##need(ev);     \
        key(l, k);                                                  \
        if (own)                                                    \
            JSONL_MEMBER_##type(l, ev, m, 1);                       \
        else                                                        \
            line_put(l, "null", 4);                                 \
        JSONL_MS_TWIN_##type(l, k, own, ev->m);                     \
    }
#define JSONL_MS_TWIN_I32(l, k, own, v)
#define JSONL_MS_TWIN_I64(l, k, own, v)
#define JSONL_MS_TWIN_U64(l, k, own, v)
#define JSONL_MS_TWIN_STR(l, k, own, v)
#define JSONL_MS_TWIN_HEXID(l, k, own, v)
#define JSONL_MS_TWIN_ARGV(l, k, own, v)
#define JSONL_MS_TWIN_UNIXNS(l, k, own, v)                                      \
    (key_int_or_null(l, ms_key(k, (char[40]){ 0 }, 40), own, (int64_t)(v) / 1000000), \
     key_int_string_or_null(l, k "_str", own, (int64_t)(v)))
    IOT_KIND_MEMBERS(JSONL_ALL_)
#undef JSONL_ALL_
}

int iot_jsonl_write_line(FILE *f, const struct iot_event *ev, const struct iot_jsonl_extra *x)
{
    const char *kind = iot_kind_name(ev->kind);
    int call = ev->kind == IOT_EV_CALL;
    uint32_t has = call ? ev->has : 0;
    struct line l = { 0 };
    int ret = -1;

    if (!kind)
        return -1;
    line_str(&l, "{\"ev\":\"");
    line_str(&l, kind);
    key_int(&l, "\",\"t\":", ev->t);
    if (x)
        key_int_or_null(&l, "unix_ms", x->have_unix_ms, x->unix_ms);
    key_int(&l, ",\"pid\":", ev->pid);
    if (x) {
        key_int(&l, ",\"tid\":", ev->tid ? ev->tid : ev->pid);
        key(&l, "process");
        put_str(&l, x->process, 1);
        key(&l, "op");
        put_str(&l, call ? iot_op_name(ev->op) : NULL, 1);
        key_int_or_null(&l, "dur", call && !(has & IOT_HAS_NO_DUR), ev->dur);
        key_int_or_null(&l, "ret", call, ev->ret);
    } else if (call) {
        key_int(&l, ",\"tid\":", ev->tid);
        key_str(&l, ",\"op\":", iot_op_name(ev->op));
        if (!(has & IOT_HAS_NO_DUR))
            key_int(&l, ",\"dur\":", ev->dur);
        key_int(&l, ",\"ret\":", ev->ret);
    }
#define JSONL_PUT_I32(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_U32(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_I64(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_OCT(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_HEX(l, k, v)     (line_str(l, k), line_uint(l, v))
#define JSONL_PUT_STR(l, k, v)     (line_str(l, k), put_str(l, v, x != NULL))
#define JSONL_PUT_BUFMODE(l, k, v) key_str(l, k, iot_bufmode_name(v) ? iot_bufmode_name(v) : "full")
    /* the dump's path column is the file a call touched, a module's path */
#define JSONL_PUT_FIELD_(name, bit, member, type, k)                        \
    if (x && IOT_HAS_##name == IOT_HAS_PATH) {                              \
        key(&l, k);                                                         \
        put_str(&l, x->path, 1);                                            \
        key(&l, "path_hex");                                                \
        put_hex_if_not_utf8(&l, x->path);                                   \
    } else if (has & IOT_HAS_##name) {                                      \
        JSONL_PUT_##type(&l, ",\"" k "\":", ev->member);                     \
    } else if (x) {                                                         \
        key_int_or_null(&l, k, 0, 0);                                       \
    }
    IOT_FIELDS(JSONL_PUT_FIELD_)
#undef JSONL_PUT_FIELD_
    if (x)
        all_members(&l, ev);
    else
        own_members(&l, ev);
    line_put(&l, "}\n", 2);
    if (!l.oom && fwrite(l.p, 1, l.len, f) == l.len)
        ret = 0;
    free(l.p);
    return ret;
}

static void column(struct iot_jsonl_column *out, size_t cap, size_t *n, const char *name,
                   enum iot_jsonl_type type)
{
    if (*n < cap) {
        snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
        out[*n].type = type;
    }
    (*n)++;
}

/*
 * The dump line's columns, in its order (iot_jsonl_write_line with x): the
 * same tables in the same order as the writer above, which a unit test
 * holds to every line written.
 */
size_t iot_jsonl_dump_columns(struct iot_jsonl_column *out, size_t cap)
{
    size_t n = 0;

#define JSONL_COL(k, type) column(out, cap, &n, k, IOT_JSONL_##type)
    JSONL_COL("ev", STRING);
    JSONL_COL("t", INT64);
    JSONL_COL("unix_ms", INT64);
    JSONL_COL("pid", INT32);
    JSONL_COL("tid", INT32);
    JSONL_COL("process", STRING);
    JSONL_COL("op", STRING);
    JSONL_COL("dur", INT64);
    JSONL_COL("ret", INT64);
#define JSONL_COL_I32     INT32
#define JSONL_COL_U32     INT64
#define JSONL_COL_I64     INT64
#define JSONL_COL_OCT     INT64
#define JSONL_COL_HEX     UINT64
#define JSONL_COL_STR     STRING
#define JSONL_COL_BUFMODE STRING
#define JSONL_COL_UNIXNS  INT64
#define JSONL_COL_U64     INT64
#define JSONL_COL_HEXID   STRING
#define JSONL_COL_ARGV    STRINGS
#define JSONL_COL_TYPE_(t) JSONL_COL_TYPE2_(t)
#define JSONL_COL_TYPE2_(t) IOT_JSONL_##t
#define JSONL_COL_FIELD_(name, bit, member, type, k)                        \
    column(out, cap, &n, k, JSONL_COL_TYPE_(JSONL_COL_##type));            \
    if (IOT_HAS_##name == IOT_HAS_PATH)                                     \
        JSONL_COL("path_hex", STRING);
    IOT_FIELDS(JSONL_COL_FIELD_)
#undef JSONL_COL_FIELD_
#define JSONL_COL_TWIN_I32(k)
#define JSONL_COL_TWIN_I64(k)
#define JSONL_COL_TWIN_U64(k)
#define JSONL_COL_TWIN_STR(k)
#define JSONL_COL_TWIN_HEXID(k)
#define JSONL_COL_TWIN_ARGV(k)
#define JSONL_COL_TWIN_UNIXNS(k)                                            \
    column(out, cap, &n, ms_key(k, (char[40]){ 0 }, 40), IOT_JSONL_INT64);  \
    JSONL_COL(k "_str", STRING);
#define JSONL_COL_MEMBER_(KIND, m, type, k, tk, need, ph)                   \
    if (!is_call_member(offsetof(struct iot_event, m))) {                   \
        column(out, cap, &n, k, JSONL_COL_TYPE_(JSONL_COL_##type));        \
        JSONL_COL_TWIN_##type(k)                                            \
    }
    IOT_KIND_MEMBERS(JSONL_COL_MEMBER_)
#undef JSONL_COL_MEMBER_
#undef JSONL_COL
    return n;
}

int iot_jsonl_write(FILE *f, const struct iot_event *ev)
{
    return iot_jsonl_write_line(f, ev, NULL);
}

/* ------------------------------------------------------------ parsing */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

struct iot_jsonl_scratch {
    const char **argv;
    size_t cap;
};

struct iot_jsonl_scratch *iot_jsonl_scratch_create(void)
{
    return calloc(1, sizeof(struct iot_jsonl_scratch));
}

void iot_jsonl_scratch_free(struct iot_jsonl_scratch *s)
{
    if (!s)
        return;
    free(s->argv);
    free(s);
}

/* Context of one parse, so helpers can report the key they choke on. */
struct parse {
    json_t *obj;
    char *errbuf;
};

static int bad(struct parse *p, const char *key, const char *what)
{
    snprintf(p->errbuf, IOT_ERRBUF_SIZE, "key \"%s\": %s", key, what);
    return -1;
}

/* 1 present (stored), 0 absent, -1 wrong type. */
static int get_int(struct parse *p, const char *key, int64_t *out)
{
    json_t *v = json_object_get(p->obj, key);

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return bad(p, key, "expected an integer");
    *out = (int64_t)json_integer_value(v);
    return 1;
}

static int get_i32(struct parse *p, const char *key, int32_t *out)
{
    int64_t v;
    int r = get_int(p, key, &v);

    if (r == 1) {
        if (v < INT32_MIN || v > INT32_MAX)
            return bad(p, key, "out of range");
        *out = (int32_t)v;
    }
    return r;
}

static int get_str(struct parse *p, const char *key, struct iot_strtab *st, const char **out)
{
    json_t *v = json_object_get(p->obj, key);

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return bad(p, key, "expected a string");
    *out = iot_intern(st, json_string_value(v), json_string_length(v));
    if (!*out)
        return bad(p, key, iot_strtab_full(st) ? "more than 1 GiB of distinct strings" : "out of memory");
    return 1;
}

static int get_u64(struct parse *p, const char *key, uint64_t *out)
{
    int64_t v;
    int r = get_int(p, key, &v);

    /* ids above INT64_MAX do not survive Jansson's signed integers */
    if (r == 1)
        *out = (uint64_t)v;
    return r;
}

static int get_bufmode(struct parse *p, const char *key, uint8_t *out)
{
    json_t *v = json_object_get(p->obj, key);

    if (!v || json_is_null(v))
        return 0;
    for (unsigned m = 0; json_is_string(v) && iot_bufmode_name(m); m++)
        if (strcmp(json_string_value(v), iot_bufmode_name(m)) == 0) {
            *out = (uint8_t)m;
            return 1;
        }
    return bad(p, key, "expected \"full\", \"line\" or \"none\"");
}

static int need(struct parse *p, int r, const char *key)
{
    if (r == 0)
        return bad(p, key, "missing");
    return r;
}

/* An optional field: sets the has-bit when present. */
#define OPT(r, bit) do { int r_ = (r); if (r_ < 0) return -1; if (r_) ev->has |= (bit); } while (0)

/*
 * The path's bytes from "path_hex" when the line has it (the dump writes it
 * when the path is not UTF-8): the path read back is the one recorded, not
 * its U+FFFD-substituted text. 1 taken, 0 none, -1 malformed.
 */
static int get_path_hex(struct parse *p, struct iot_strtab *st, const char **out)
{
    json_t *v = json_object_get(p->obj, "path_hex");
    const char *h;
    size_t n;
    char *bytes;

    if (!v || json_is_null(v))
        return 0;
    h = json_string_value(v);
    n = h ? strlen(h) : 1;
    if (n % 2 || !(bytes = malloc(n / 2 + 1)))
        return bad(p, "path_hex", "expected an even number of hex digits");
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(h[i]), lo = hex_digit(h[i + 1]);

        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            free(bytes);
            return bad(p, "path_hex", "expected hex digits of a path");
        }
        bytes[i / 2] = (char)(hi << 4 | lo);
    }
    *out = iot_intern(st, bytes, n / 2);
    free(bytes);
    return *out ? 1 : bad(p, "path_hex", "out of memory");
}

static int parse_call(struct parse *p, struct iot_event *ev, struct iot_strtab *st)
{
    json_t *op = json_object_get(p->obj, "op");
    int op_id, r;

    if (!op)
        return bad(p, "op", "missing");
    if (!json_is_string(op))
        return bad(p, "op", "expected a string");
    op_id = iot_op_from_name(json_string_value(op), json_string_length(op));
    if (op_id < 0) {
        snprintf(p->errbuf, IOT_ERRBUF_SIZE, "op \"%.40s\"", json_string_value(op));
        return IOT_JSONL_UNKNOWN;
    }
    ev->op = (uint8_t)op_id;
    if (need(p, get_i32(p, "tid", &ev->tid), "tid") < 0 ||
        need(p, get_int(p, "t", &ev->t), "t") < 0 ||
        need(p, get_int(p, "ret", &ev->ret), "ret") < 0)
        return -1;
    r = get_int(p, "dur", &ev->dur);
    if (r < 0)
        return -1;
    if (r == 0)
        ev->has |= IOT_HAS_NO_DUR;
    else if (ev->dur < 0)
        return bad(p, "dur", "negative");
#define JSONL_GET_I32(key, m)     get_i32(p, key, &ev->m)
#define JSONL_GET_U32(key, m)     get_i32(p, key, &ev->m)
#define JSONL_GET_I64(key, m)     get_int(p, key, &ev->m)
#define JSONL_GET_OCT(key, m)     get_int(p, key, &ev->m)
#define JSONL_GET_HEX(key, m)     get_u64(p, key, &ev->m)
#define JSONL_GET_STR(key, m)     get_str(p, key, st, &ev->m)
#define JSONL_GET_BUFMODE(key, m) get_bufmode(p, key, &ev->m)
#define JSONL_GET_FIELD_(name, bit, member, type, key) \
    OPT(JSONL_GET_##type(key, member), IOT_HAS_##name);
    IOT_FIELDS(JSONL_GET_FIELD_)
#undef JSONL_GET_FIELD_
    OPT(get_path_hex(p, st, &ev->path), IOT_HAS_PATH);
    return 0;
}

/* An array of strings into argc/argv (in s, until the next parse). */
static int get_argv(struct parse *p, const char *key, struct iot_strtab *st,
                    struct iot_jsonl_scratch *s, struct iot_event *ev)
{
    json_t *cmd = json_object_get(p->obj, key);
    size_t n;

    if (cmd && !json_is_array(cmd))
        return bad(p, key, "expected an array of strings");
    n = cmd ? json_array_size(cmd) : 0;
    if (n + 1 > s->cap) {
        const char **na = realloc(s->argv, (n + 1) * sizeof(*na));
        if (!na)
            return bad(p, key, "out of memory");
        s->argv = na;
        s->cap = n + 1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *a = json_array_get(cmd, i);

        if (!json_is_string(a))
            return bad(p, key, "expected an array of strings");
        s->argv[i] = iot_intern(st, json_string_value(a), json_string_length(a));
        if (!s->argv[i])
            return bad(p, key, "out of memory");
    }
    s->argv[n] = NULL;
    ev->argc = (int)n;
    ev->argv = s->argv;
    return cmd != NULL;
}

/* Whether a line of the kind must have t (IOT_KINDS). */
static const uint8_t t_required[IOT_KIND_COUNT] = {
#define JSONL_T_REQ 1
#define JSONL_T_OPT 0
#define JSONL_T_NEED_(NAME, name, t) JSONL_T_##t,
    IOT_KINDS(JSONL_T_NEED_)
#undef JSONL_T_NEED_
};

/* The members of an event that is not a call (IOT_KIND_MEMBERS), its kind set. */
static int parse_kind(struct parse *p, struct iot_event *ev, struct iot_strtab *st,
                      struct iot_jsonl_scratch *s)
{
    int r;

#define JSONL_READ_I32(k, m)    get_i32(p, k, &ev->m)
#define JSONL_READ_I64(k, m)    get_int(p, k, &ev->m)
#define JSONL_READ_UNIXNS(k, m) get_int(p, k, &ev->m)
#define JSONL_READ_U64(k, m)    get_u64(p, k, &ev->m)
#define JSONL_READ_STR(k, m)    get_str(p, k, st, &ev->m)
#define JSONL_READ_HEXID(k, m)  get_str(p, k, st, &ev->m)
#define JSONL_READ_ARGV(k, m)   get_argv(p, k, st, s, ev)
    /* what a member's absence (r == 0) makes of it */
#define JSONL_ABSENT_REQ(k, m, type) if (!r) return bad(p, k, "missing");
#define JSONL_ABSENT_OPT(k, m, type) JSONL_EMPTY_##type(m)
#define JSONL_ABSENT_TID(k, m, type) if (!ev->m) ev->m = ev->pid;
#define JSONL_ABSENT_SIG(k, m, type) if (r) ev->has |= IOT_HAS_SIGNAL;
#define JSONL_EMPTY_I32(m)
#define JSONL_EMPTY_I64(m)
#define JSONL_EMPTY_UNIXNS(m)
#define JSONL_EMPTY_U64(m)
#define JSONL_EMPTY_ARGV(m)
#define JSONL_EMPTY_STR(m)     if (!ev->m) ev->m = iot_intern(st, "", 0);
#define JSONL_EMPTY_HEXID(m)   if (!ev->m) ev->m = iot_intern(st, "", 0);
#define JSONL_GET_MEMBER_(KIND, m, type, k, tk, need, ph) \
    if (ev->kind == IOT_EV_##KIND) {                      \
        r = JSONL_READ_##type(k, m);                       \
        if (r < 0)                                        \
            return -1;                                    \
        JSONL_ABSENT_##need(k, m, type)                   \
    }
    IOT_KIND_MEMBERS(JSONL_GET_MEMBER_)
#undef JSONL_GET_MEMBER_
    /* a path that is not UTF-8 comes as path_hex too (the dump's column) */
    if ((ev->kind == IOT_EV_MODULE || ev->kind == IOT_EV_HOME || ev->kind == IOT_EV_TEMPLATE) &&
        get_path_hex(p, st, &ev->path) < 0)
        return -1;
    if (ev->kind == IOT_EV_TEMPLATE &&
        (ev->random_len <= 0 || ev->random_at < 0 || ev->random_at > (int64_t)strlen(ev->path) ||
         ev->random_len > (int64_t)strlen(ev->path) - ev->random_at))
        return bad(p, "random_len", "expected a range of bytes within the path");
    return 0;
}

int iot_jsonl_parse(const char *line, size_t len, struct iot_event *ev,
                    struct iot_strtab *st, struct iot_jsonl_scratch *s, char *errbuf)
{
    struct parse p = { NULL, errbuf };
    json_error_t jerr;
    json_t *kind;
    const char *k;
    size_t i;
    int ret = -1;

    for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'); i++)
        ;
    if (i == len)
        return 0;
    memset(ev, 0, sizeof(*ev));
    p.obj = json_loadb(line, len, 0, &jerr);
    if (!p.obj) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "invalid JSON: %s (column %d)", jerr.text, jerr.column);
        return -1;
    }
    if (!json_is_object(p.obj)) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "expected a JSON object");
        goto out;
    }
    kind = json_object_get(p.obj, "ev");
    if (!kind || !json_is_string(kind)) {
        bad(&p, "ev", kind ? "expected a string" : "missing");
        goto out;
    }
    if (need(&p, get_i32(&p, "pid", &ev->pid), "pid") < 0)
        goto out;
    k = json_string_value(kind);
    for (ev->kind = 0; iot_kind_name(ev->kind) && strcmp(k, iot_kind_name(ev->kind)) != 0; ev->kind++)
        ;
    if (ev->kind == IOT_EV_CALL) {
        ret = parse_call(&p, ev, st);
        if (ret != 0)
            goto out;
        ev->plain = (uint8_t)iot_event_plain(ev);
    } else if (ev->kind < IOT_KIND_COUNT) {
        int r = get_int(&p, "t", &ev->t);

        if (r < 0 || (r == 0 && t_required[ev->kind] && bad(&p, "t", "missing") < 0) ||
            parse_kind(&p, ev, st, s) < 0)
            goto out;
    } else {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "event \"%.40s\"", k);
        ret = IOT_JSONL_UNKNOWN;
        goto out;
    }
    ret = 1;
out:
    json_decref(p.obj);
    return ret;
}
