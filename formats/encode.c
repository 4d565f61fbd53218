/*
 * encode.c - appending records to a chunk buffer (the recorder's hot path).
 *
 * Nothing here allocates, locks or makes a system call. Each append first
 * checks for the worst-case size of its record, so a record is either written
 * whole or not at all and the buffer always ends at a record boundary.
 */
#include <string.h>

#include "codec.h"
#include "enc_io.h"
#include "hash.h"
#include "records.h"

void iot_enc_begin(struct iot_enc *e, void *buf, size_t cap, int64_t base_t)
{
    e->buf = buf;
    e->cap = cap;
    e->len = 0;
    e->nrec = 0;
    e->base_t = base_t;
    e->prev_end = base_t;
    e->have_prev = 0;
    e->next_str_id = 1;
    memset(e->strcache, 0, sizeof(e->strcache));
}

static inline size_t room(const struct iot_enc *e)
{
    return e->cap - e->len;
}

int iot_enc_str(struct iot_enc *e, const char *s, size_t len, uint32_t *id)
{
    /* only a cache key: equality is confirmed by length (below) */
    return iot_enc_str_keyed(e, s, len, iot_hash_words(s, len), id);
}

int iot_enc_str_keyed(struct iot_enc *e, const char *s, size_t len, uint64_t key, uint32_t *id)
{
    uint64_t h = key | 1;  /* 0 marks an empty cache slot */
    unsigned slot = (unsigned)(h % IOT_ENC_STRCACHE);
    uint8_t *p;

    /*
     * A cache hit is trusted only when hash and length agree; with a 64-bit
     * hash a false match is far less likely than a bit flip on disk.
     */
    if (e->strcache[slot].hash == h && e->strcache[slot].len == len) {
        *id = e->strcache[slot].id;
        return 0;
    }
    if (room(e) < 1 + 2 * IOT_VARINT_MAX + len)
        return -1;
    p = e->buf + e->len;
    *p++ = IOT_TAG_STR;
    p = iot_put_varint(p, e->next_str_id);
    p = iot_put_varint(p, len);
    memcpy(p, s, len);
    p += len;
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    e->strcache[slot].hash = h;
    e->strcache[slot].len = (uint32_t)len;
    e->strcache[slot].id = e->next_str_id;
    *id = e->next_str_id++;
    return 0;
}

/* The fields after ret, in has-bit order; returns the new end. */
static uint8_t *put_fields(uint8_t *p, const struct iot_event *ev)
{
    uint32_t has = ev->has;

#define IOT_PUT_FIELD_(name, bit, member, type, key) \
    if (has & IOT_HAS_##name) p = IOT_PUT_##type(p, ev, member);
    IOT_FIELDS(IOT_PUT_FIELD_)
#undef IOT_PUT_FIELD_
    return p;
}

/* Whether ev repeats the previous call in everything but its times. */
static int same_as_prev(const struct iot_enc *e, const struct iot_event *ev)
{
    const struct iot_event *p = &e->prev;
    uint32_t has = ev->has;

    if (!e->have_prev || p->op != ev->op || p->has != has || p->ret != ev->ret)
        return 0;
#define IOT_SAME_FIELD_(name, bit, member, type, key) \
    if ((has & IOT_HAS_##name) && !IOT_SAME_##type(p, ev, member)) return 0;
    IOT_FIELDS(IOT_SAME_FIELD_)
#undef IOT_SAME_FIELD_
    return 1;
}

int iot_enc_call(struct iot_enc *e, const struct iot_event *ev)
{
    int repeat = same_as_prev(e, ev);
    uint8_t *p;

    if (room(e) < IOT_CALL_MAX)
        return -1;
    p = e->buf + e->len;
    if (repeat) {
        *p++ = IOT_TAG_REPEAT;
    } else {
        p = iot_put_op(p, ev->op);
        p = iot_put_varint(p, ev->has & IOT_CALL_HAS_MASK);
    }
    p = iot_put_varint(p, iot_zigzag(ev->t - e->prev_end));
    p = iot_put_varint(p, (uint64_t)ev->dur);
    if (!repeat) {
        p = iot_put_varint(p, iot_zigzag(ev->ret));
        p = put_fields(p, ev);
        e->prev = *ev;
        e->prev.has &= IOT_CALL_HAS_MASK;
        /* iot_enc_io_inline compares err and stream unconditionally: keep
           them 0 when absent */
        if (!(ev->has & IOT_HAS_ERRNO))
            e->prev.err = 0;
        if (!(ev->has & IOT_HAS_STREAM))
            e->prev.stream = 0;
        e->have_prev = 1;
    }
    e->prev_end = ev->t + ev->dur;
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

int iot_enc_io(struct iot_enc *e, unsigned op, int32_t fd, int64_t size,
               int64_t ret, int32_t err, int64_t t, int64_t dur)
{
    return iot_enc_io_inline(e, op, fd, 0, size, ret, err, t, dur);
}

static uint8_t *put_bytes(uint8_t *p, const char *s, size_t len)
{
    p = iot_put_varint(p, len);
    if (len)   /* s may be NULL when empty (a module without a build-id) */
        memcpy(p, s, len);
    return p + len;
}

int iot_enc_process(struct iot_enc *e, int32_t ppid, int64_t t,
                    int64_t start_unix_ns, const char *exe, int argc,
                    const char *const *argv)
{
    size_t need = 1 + 5 * IOT_VARINT_MAX + strlen(exe ? exe : "");
    uint8_t *p;

    for (int i = 0; i < argc; i++)
        need += IOT_VARINT_MAX + strlen(argv[i]);
    if (argc < 0 || room(e) < need)
        return -1;
    p = e->buf + e->len;
    *p++ = IOT_TAG_PROCESS;
    p = iot_put_varint(p, iot_zigzag(t - e->base_t));
    p = iot_put_varint(p, iot_zigzag(ppid));
    p = iot_put_varint(p, iot_zigzag(start_unix_ns));
    p = put_bytes(p, exe ? exe : "", strlen(exe ? exe : ""));
    p = iot_put_varint(p, (uint64_t)argc);
    for (int i = 0; i < argc; i++)
        p = put_bytes(p, argv[i], strlen(argv[i]));
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

int iot_enc_thread(struct iot_enc *e, int64_t t, const char *name)
{
    size_t len = strlen(name ? name : "");
    uint8_t *p;

    if (room(e) < 1 + 2 * IOT_VARINT_MAX + len)
        return -1;
    p = e->buf + e->len;
    *p++ = IOT_TAG_THREAD;
    p = iot_put_varint(p, iot_zigzag(t - e->base_t));
    p = put_bytes(p, name ? name : "", len);
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

int iot_enc_exit(struct iot_enc *e, int64_t t, int32_t status, int32_t sig)
{
    uint8_t *p;

    if (room(e) < 1 + 3 * IOT_VARINT_MAX)
        return -1;
    p = e->buf + e->len;
    *p++ = IOT_TAG_EXIT;
    p = iot_put_varint(p, iot_zigzag(t - e->base_t));
    p = iot_put_varint(p, iot_zigzag(status));
    p = iot_put_varint(p, iot_zigzag(sig));
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

/* The bytes put_bytes writes for len bytes. */
static size_t bytes_len(size_t len)
{
    return iot_varint_len(len) + len;
}

/*
 * An extension record (module, JIT symbol, label, name): its tag, its payload's
 * length (body bytes, its time included) and its time, written; the place
 * its other fields go, or NULL when the chunk has no room for it.
 */
static uint8_t *ext_begin(struct iot_enc *e, uint8_t tag, size_t body, uint64_t zt)
{
    uint8_t *p;

    if (room(e) < 1 + IOT_VARINT_MAX + body)
        return NULL;
    p = e->buf + e->len;
    *p++ = tag;
    p = iot_put_varint(p, body);
    return iot_put_varint(p, zt);
}

/* The extension record ext_begin began ends at p. */
static int ext_end(struct iot_enc *e, uint8_t *p)
{
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

int iot_enc_module(struct iot_enc *e, int64_t t, const char *path, uint64_t bias,
                   const void *build_id, size_t id_len)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    size_t plen = strlen(path);
    uint8_t *p = ext_begin(e, IOT_TAG_MODULE, iot_varint_len(zt) + bytes_len(plen) +
                                                  iot_varint_len(bias) + bytes_len(id_len), zt);

    if (!p)
        return -1;
    p = put_bytes(p, path, plen);
    p = iot_put_varint(p, bias);
    p = put_bytes(p, (const char *)build_id, id_len);
    return ext_end(e, p);
}

int iot_enc_jit_symbol(struct iot_enc *e, int64_t t, uint64_t start, uint64_t size,
                       const char *name, size_t name_len)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    uint8_t *p = ext_begin(e, IOT_TAG_JIT_SYMBOL, iot_varint_len(zt) + iot_varint_len(start) +
                                                      iot_varint_len(size) + bytes_len(name_len),
                           zt);

    if (!p)
        return -1;
    p = iot_put_varint(p, start);
    p = iot_put_varint(p, size);
    p = put_bytes(p, name, name_len);
    return ext_end(e, p);
}

int iot_enc_py_code(struct iot_enc *e, int64_t t, uint64_t code, const char *file, size_t flen,
                    const char *qualname, size_t qlen, uint64_t first_line, const void *lines,
                    size_t llen)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    uint8_t *p = ext_begin(e, IOT_TAG_PY_CODE, iot_varint_len(zt) + iot_varint_len(code) +
                                                   bytes_len(flen) + bytes_len(qlen) +
                                                   iot_varint_len(first_line) + bytes_len(llen),
                           zt);

    if (!p)
        return -1;
    p = iot_put_varint(p, code);
    p = put_bytes(p, file, flen);
    p = put_bytes(p, qualname, qlen);
    p = iot_put_varint(p, first_line);
    p = put_bytes(p, (const char *)lines, llen);
    return ext_end(e, p);
}

int iot_enc_label(struct iot_enc *e, int64_t t, const char *key, size_t klen, const char *value,
                  size_t vlen)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    uint8_t *p = ext_begin(e, IOT_TAG_LABEL, iot_varint_len(zt) + bytes_len(klen) + bytes_len(vlen),
                           zt);

    if (!p)
        return -1;
    p = put_bytes(p, key, klen);
    p = put_bytes(p, value, vlen);
    return ext_end(e, p);
}

/* The name record (5.17): what is 0 for a home, 1 for a template (at, n
   follow the path), 2 for a runtime's variable (the value follows). */
static int enc_name(struct iot_enc *e, int64_t t, uint64_t what, const char *path, size_t len,
                    size_t at, size_t n, const char *value, size_t vlen)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    size_t body = iot_varint_len(zt) + iot_varint_len(what) + bytes_len(len) +
                  (what == 1 ? iot_varint_len(at) + iot_varint_len(n) : 0) +
                  (what == 2 ? bytes_len(vlen) : 0);
    uint8_t *p = ext_begin(e, IOT_TAG_NAME, body, zt);

    if (!p)
        return -1;
    p = iot_put_varint(p, what);
    p = put_bytes(p, path, len);
    if (what == 1) {
        p = iot_put_varint(p, at);
        p = iot_put_varint(p, n);
    } else if (what == 2) {
        p = put_bytes(p, value, vlen);
    }
    return ext_end(e, p);
}

int iot_enc_home(struct iot_enc *e, int64_t t, const char *path, size_t len)
{
    return enc_name(e, t, 0, path, len, 0, 0, NULL, 0);
}

int iot_enc_runtime_env(struct iot_enc *e, int64_t t, const char *name, size_t nlen,
                        const char *value, size_t vlen)
{
    if (nlen == 0)
        return -1;
    return enc_name(e, t, 2, name, nlen, 0, 0, value, vlen);
}

int iot_enc_template(struct iot_enc *e, int64_t t, const char *path, size_t len, size_t at,
                     size_t n)
{
    if (at > len || n > len - at)
        return -1;
    return enc_name(e, t, 1, path, len, at, n, NULL, 0);
}

int iot_enc_waits(struct iot_enc *e, int64_t t, uint64_t waits)
{
    uint64_t zt = iot_zigzag(t - e->base_t);
    uint8_t *p = ext_begin(e, IOT_TAG_WAITS, iot_varint_len(zt) + iot_varint_len(waits), zt);

    if (!p)
        return -1;
    p = iot_put_varint(p, waits);
    return ext_end(e, p);
}

int iot_enc_kill_chunk(void *buf, size_t cap, int32_t pid, int sig, int64_t t,
                       uint64_t chain_id, struct iot_chunk_hdr *h)
{
    struct iot_enc e;

    iot_enc_begin(&e, buf, cap, t);
    if (iot_enc_exit(&e, t, 128 + sig, sig) < 0)
        return -1;
    memset(h, 0, sizeof(*h));
    h->version = IOT_FORMAT_VERSION;
    h->flags = IOT_CHUNK_LAST;
    h->pid = pid;
    h->tid = pid;
    h->chain_id = chain_id;
    h->nrec = e.nrec;
    h->base_t = t;
    h->bytes = (uint32_t)e.len;
    return 0;
}
