/*
 * decode_ext.c - the extension records (docs/trace-format.md 5.9) this
 * version reads, for decode.c: each read within its length, so that bytes
 * a later version appends to a payload are stepped over.
 */
#include <string.h>

#include "decode_int.h"
#include "records.h"

/*
 * Where an extension record's payload (5.9) is read: the decoder bounded to
 * it, so that bytes a later version appends are stepped over.
 */
struct ext {
    const uint8_t *end, *stop;   /* the chunk's end, the payload's */
};

/*
 * Enter an extension record's payload and start ev with its kind and
 * time: 0, or -1 when its length or time is damaged (then past it, or
 * nothing entered: the caller is done).
 */
static int ext_open(struct iot_dec *d, struct ext *x, struct iot_event *ev, int kind)
{
    uint64_t len, v;

    if (iot_get_varint(&d->p, d->end, &len) < 0 || len > (uint64_t)(d->end - d->p))
        return -1;
    x->end = d->end;
    x->stop = d->p + len;
    d->end = x->stop;
    memset(ev, 0, sizeof(*ev));
    ev->kind = kind;
    if (iot_get_varint(&d->p, d->end, &v) < 0 ||
        !time_ok(ev->t = tadd(d->base_t, iot_unzigzag(v)))) {
        d->end = x->end;
        d->p = x->stop;
        return -1;
    }
    ev->t -= d->origin;
    return 0;
}

/* Leave the payload, past its end whatever was read of it; ret (0 or -1)
   says whether ev was read whole, and then it gets the chunk's pid and tid. */
static int ext_close(struct iot_dec *d, const struct ext *x, struct iot_event *ev, int ret)
{
    if (ret == 0) {
        ev->pid = d->pid;
        ev->tid = d->tid;
    }
    d->end = x->end;
    d->p = x->stop;
    return ret;
}

/*
 * A module record (5.10): its payload is read within its length, so bytes a
 * later version appends to it are stepped over.
 */
static int get_module(struct iot_dec *d, struct iot_event *ev)
{
    static const char hex[] = "0123456789abcdef";
    char id[2 * 64];
    uint64_t v;
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_MODULE) < 0)
        return -1;
    if (!(ev->path = get_string(d)))
        goto bad;
    GET(ev->bias);
    GET(v);
    if (v > 64 || v > (uint64_t)(d->end - d->p))
        goto bad;
    for (uint64_t i = 0; i < v; i++) {
        id[2 * i] = hex[d->p[i] >> 4];
        id[2 * i + 1] = hex[d->p[i] & 15];
    }
    if (!(ev->build_id = iot_intern(d->st, id, (size_t)(2 * v))))
        goto bad;
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

/*
 * A JIT symbol record (5.13), read within its length like a module record.
 * A size of 0 or one past the address space is damage.
 */
static int get_jit_symbol(struct iot_dec *d, struct iot_event *ev)
{
    uint64_t size;
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_JIT_SYMBOL) < 0)
        return -1;
    GET(ev->bias);
    GET(size);
    if (size == 0 || size > (uint64_t)INT64_MAX || size - 1 > UINT64_MAX - ev->bias)
        goto bad;
    ev->code_size = size;
    if (!(ev->symbol = get_string(d)))
        goto bad;
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

/* A Python code record (5.18): code, file, qualname, first line, line table. */
static int get_py_code(struct iot_dec *d, struct iot_event *ev)
{
    uint64_t first, n;
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_PY_CODE) < 0)
        return -1;
    GET(ev->bias);
    if (!(ev->py_file = get_string(d)) || !(ev->symbol = get_string(d)))
        goto bad;
    GET(first);
    GET(n);
    if (first > INT32_MAX || n > (uint64_t)(d->end - d->p) || n > IOT_MAX_STRING ||
        !(ev->py_lines = iot_py_lines_text(d->st, d->p, (size_t)n, (int64_t)first)))
        goto bad;
    ev->first_line = (int64_t)first;
    d->p += n;
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

/*
 * A label record (5.14): t, key, value, read within its length like a
 * module record's payload.
 */
static int get_label(struct iot_dec *d, struct iot_event *ev)
{
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_LABEL) < 0)
        return -1;
    if (!(ev->label_key = get_string(d)) || !(ev->label_value = get_string(d)))
        goto bad;
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

/*
 * A name record (5.17): t, what (0 a home, 1 a template, 2 a runtime's
 * variable), path, then for a template where its X's were, within the
 * path, and for a variable its value; read within its length like a module
 * record's payload. Another `what`, an empty path or a range outside the
 * path is stepped over as an unknown kind.
 */
static int get_name(struct iot_dec *d, struct iot_event *ev)
{
    uint64_t what, at = 0, n = 0;
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_HOME) < 0)
        return -1;
    GET(what);
    if (what > 2 || !(ev->path = get_string(d)) || !*ev->path)
        goto bad;
    if (what == 2) {
        ev->kind = IOT_EV_RUNTIME_ENV;
        ev->label_key = ev->path;
        ev->path = NULL;
        if (!(ev->label_value = get_string(d)))
            goto bad;
    } else if (what == 1) {
        size_t len = strlen(ev->path);

        GET(at);
        GET(n);
        if (n == 0 || at > len || n > len - at)
            goto bad;
        ev->kind = IOT_EV_TEMPLATE;
        ev->random_at = (int64_t)at;
        ev->random_len = (int64_t)n;
    }
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

/*
 * A waits record (5.16): t, the count of waits so far, read within its
 * length like a label record; a count past int64 is damage.
 */
static int get_waits(struct iot_dec *d, struct iot_event *ev)
{
    uint64_t v;
    struct ext x;

    if (ext_open(d, &x, ev, IOT_EV_WAITS) < 0)
        return -1;
    GET(v);
    if (v > (uint64_t)INT64_MAX)
        goto bad;
    ev->waits = (int64_t)v;
    return ext_close(d, &x, ev, 0);
bad:
    return ext_close(d, &x, ev, -1);
}

int iot_dec_ext(struct iot_dec *d, unsigned tag, struct iot_event *ev)
{
    switch (tag) {
    case IOT_TAG_MODULE:
        return get_module(d, ev);
    case IOT_TAG_LABEL:
        return get_label(d, ev);
    case IOT_TAG_NAME:
        return get_name(d, ev);
    case IOT_TAG_WAITS:
        return get_waits(d, ev);
    case IOT_TAG_PY_CODE:
        return get_py_code(d, ev);
    default:
        return get_jit_symbol(d, ev);
    }
}
