/*
 * jsonl.c - the JSONL event model (SPEC "JSONL events"): one definition of
 * every field for both directions, so dump followed by analyze of the dump
 * sees the same events as analyzing the trace.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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
    size_t ncap = l->cap ? l->cap : 512;
    while (ncap < l->len + n)
        ncap *= 2;
    char *np = realloc(l->p, ncap);
    if (!np) {
        l->oom = 1;
        return;
    }
    l->p = np;
    l->cap = ncap;
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

static void key_str(struct line *l, const char *key, const char *s)
{
    line_str(l, key);
    line_json_string(l, s ? s : "", s ? strlen(s) : 0);
}

static void format_call(struct line *l, const struct iot_event *ev)
{
    uint32_t has = ev->has;

    key_int(l, "{\"ev\":\"call\",\"t\":", ev->t);
    key_int(l, ",\"pid\":", ev->pid);
    key_int(l, ",\"tid\":", ev->tid);
    key_str(l, ",\"op\":", iot_op_name(ev->op));
    if (!(has & IOT_HAS_NO_DUR))
        key_int(l, ",\"dur\":", ev->dur);
    key_int(l, ",\"ret\":", ev->ret);
#define JSONL_PUT_I32(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_U32(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_I64(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_OCT(l, k, v)     key_int(l, k, v)
#define JSONL_PUT_HEX(l, k, v)     (line_str(l, k), line_uint(l, v))
#define JSONL_PUT_STR(l, k, v)     key_str(l, k, v)
#define JSONL_PUT_BUFMODE(l, k, v) key_str(l, k, iot_bufmode_name(v) ? iot_bufmode_name(v) : "full")
#define JSONL_PUT_FIELD_(name, bit, member, type, key) \
    if (has & IOT_HAS_##name) JSONL_PUT_##type(l, ",\"" key "\":", ev->member);
    IOT_FIELDS(JSONL_PUT_FIELD_)
#undef JSONL_PUT_FIELD_
    line_put(l, "}\n", 2);
}

int iot_jsonl_write(FILE *f, const struct iot_event *ev)
{
    struct line l = { 0 };
    int ret = -1;

    switch (ev->kind) {
    case IOT_EV_CALL:
        format_call(&l, ev);
        break;
    case IOT_EV_PROCESS:
        key_int(&l, "{\"ev\":\"process\",\"t\":", ev->t);
        key_int(&l, ",\"pid\":", ev->pid);
        key_int(&l, ",\"ppid\":", ev->ppid);
        key_str(&l, ",\"exe\":", ev->exe);
        line_str(&l, ",\"cmdline\":[");
        for (int i = 0; i < ev->argc; i++) {
            if (i)
                line_put(&l, ",", 1);
            line_json_string(&l, ev->argv[i], strlen(ev->argv[i]));
        }
        key_int(&l, "],\"start_unix_ns\":", ev->start_unix_ns);
        if (ev->tid && ev->tid != ev->pid)
            key_int(&l, ",\"tid\":", ev->tid);
        line_put(&l, "}\n", 2);
        break;
    case IOT_EV_THREAD:
        key_int(&l, "{\"ev\":\"thread\",\"t\":", ev->t);
        key_int(&l, ",\"pid\":", ev->pid);
        key_int(&l, ",\"tid\":", ev->tid);
        key_str(&l, ",\"name\":", ev->name);
        line_put(&l, "}\n", 2);
        break;
    case IOT_EV_EXIT:
        key_int(&l, "{\"ev\":\"exit\",\"t\":", ev->t);
        key_int(&l, ",\"pid\":", ev->pid);
        if (ev->tid && ev->tid != ev->pid)
            key_int(&l, ",\"tid\":", ev->tid);
        key_int(&l, ",\"status\":", ev->status);
        if (ev->has & IOT_HAS_SIGNAL)
            key_int(&l, ",\"signal\":", ev->signal);
        line_put(&l, "}\n", 2);
        break;
    case IOT_EV_MODULE:
        key_int(&l, "{\"ev\":\"module\",\"t\":", ev->t);
        key_int(&l, ",\"pid\":", ev->pid);
        if (ev->tid && ev->tid != ev->pid)
            key_int(&l, ",\"tid\":", ev->tid);
        key_str(&l, ",\"path\":", ev->path);
        key_int(&l, ",\"bias\":", (int64_t)ev->bias);
        key_str(&l, ",\"build_id\":", ev->build_id ? ev->build_id : "");
        line_put(&l, "}\n", 2);
        break;
    default:
        goto out;
    }
    if (!l.oom && fwrite(l.p, 1, l.len, f) == l.len)
        ret = 0;
out:
    free(l.p);
    return ret;
}

/* ------------------------------------------------------------ parsing */

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
    return 0;
}

static int parse_process(struct parse *p, struct iot_event *ev, struct iot_strtab *st,
                         struct iot_jsonl_scratch *s)
{
    json_t *cmd = json_object_get(p->obj, "cmdline");
    size_t n;

    if (get_i32(p, "ppid", &ev->ppid) < 0 || get_int(p, "start_unix_ns", &ev->start_unix_ns) < 0 ||
        get_int(p, "t", &ev->t) < 0 || get_str(p, "exe", st, &ev->exe) < 0 ||
        get_i32(p, "tid", &ev->tid) < 0)
        return -1;
    if (!ev->exe)
        ev->exe = iot_intern(st, "", 0);
    if (!ev->tid)
        ev->tid = ev->pid;
    if (cmd && !json_is_array(cmd))
        return bad(p, "cmdline", "expected an array of strings");
    n = cmd ? json_array_size(cmd) : 0;
    if (n + 1 > s->cap) {
        const char **na = realloc(s->argv, (n + 1) * sizeof(*na));
        if (!na)
            return bad(p, "cmdline", "out of memory");
        s->argv = na;
        s->cap = n + 1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *a = json_array_get(cmd, i);

        if (!json_is_string(a))
            return bad(p, "cmdline", "expected an array of strings");
        s->argv[i] = iot_intern(st, json_string_value(a), json_string_length(a));
        if (!s->argv[i])
            return bad(p, "cmdline", "out of memory");
    }
    s->argv[n] = NULL;
    ev->argc = (int)n;
    ev->argv = s->argv;
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
    if (strcmp(k, "call") == 0) {
        ev->kind = IOT_EV_CALL;
        ret = parse_call(&p, ev, st);
        if (ret != 0)
            goto out;
        ev->plain = (uint8_t)iot_event_plain(ev);
    } else if (strcmp(k, "process") == 0) {
        ev->kind = IOT_EV_PROCESS;
        if (parse_process(&p, ev, st, s) < 0)
            goto out;
    } else if (strcmp(k, "thread") == 0) {
        ev->kind = IOT_EV_THREAD;
        if (need(&p, get_i32(&p, "tid", &ev->tid), "tid") < 0 || get_int(&p, "t", &ev->t) < 0 ||
            get_str(&p, "name", st, &ev->name) < 0)
            goto out;
        if (!ev->name)
            ev->name = iot_intern(st, "", 0);
    } else if (strcmp(k, "exit") == 0) {
        ev->kind = IOT_EV_EXIT;
        if (need(&p, get_int(&p, "t", &ev->t), "t") < 0 || get_i32(&p, "status", &ev->status) < 0 ||
            get_i32(&p, "tid", &ev->tid) < 0)
            goto out;
        if (!ev->tid)
            ev->tid = ev->pid;
        int r = get_i32(&p, "signal", &ev->signal);
        if (r < 0)
            goto out;
        if (r)
            ev->has |= IOT_HAS_SIGNAL;
    } else if (strcmp(k, "module") == 0) {
        ev->kind = IOT_EV_MODULE;
        if (need(&p, get_str(&p, "path", st, &ev->path), "path") < 0 ||
            get_int(&p, "t", &ev->t) < 0 || get_u64(&p, "bias", &ev->bias) < 0 ||
            get_str(&p, "build_id", st, &ev->build_id) < 0 || get_i32(&p, "tid", &ev->tid) < 0)
            goto out;
        if (!ev->tid)
            ev->tid = ev->pid;
        if (!ev->build_id)
            ev->build_id = iot_intern(st, "", 0);
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
