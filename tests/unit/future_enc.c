/*
 * future_enc.c - formats/encode.c compiled with rows appended to IOT_OPS and
 * IOT_FIELDS, as a later version that adds ops and fields would have them
 * (schema.h says how rows are appended). Its functions are renamed so that
 * they do not stand in for the real encoder's; this file's struct iot_event
 * has the same members as everyone's, and the extra fields reuse existing
 * members for their values.
 */
#include <stdint.h>
#include <string.h>

/*
 * The added ops: one right after this version's last, and one that needs
 * the escape tag (filler rows take the numbers between).
 */
#define FUTURE_FILL_(X, n) X(FUTURE_FILL_##n, "future_fill_" #n, NONE, 0, META, POSIX, CHANGE, 0)
#define FUTURE_FILL10_(X, d)                                                                \
    FUTURE_FILL_(X, d##0) FUTURE_FILL_(X, d##1) FUTURE_FILL_(X, d##2) FUTURE_FILL_(X, d##3) \
    FUTURE_FILL_(X, d##4) FUTURE_FILL_(X, d##5) FUTURE_FILL_(X, d##6) FUTURE_FILL_(X, d##7) \
    FUTURE_FILL_(X, d##8) FUTURE_FILL_(X, d##9)
#define IOT_OPS_NEXT(X)                                                                 \
    X(FUTURE_NEAR, "future_near", WRITE, 0, DATA, POSIX, WRITE, IOT_F(FD) | IOT_F(SIZE)) \
    FUTURE_FILL10_(X, 1) FUTURE_FILL10_(X, 2)                                           \
    X(FUTURE_FAR, "future_far", READ, 1, DATA, POSIX, READ, IOT_F(FD) | IOT_F(SIZE))

/* The added fields, one of each wire encoding a later version may use. */
#define IOT_FIELDS_NEXT(X)                             \
    X(FUTURE_FLAG, 17, fd,   FLAG,  "future_flag")     \
    X(FUTURE_NUM,  21, size, I64,   "future_num")      \
    X(FUTURE_BLOB, 28, path, BYTES, "future_blob")

/* What the two new field types mean to the encoder. */
static inline uint8_t *put_blob(uint8_t *p, const char *s);
#define IOT_PUT_FLAG(p, ev, m)   (p)
#define IOT_SAME_FLAG(a, b, m)   1
#define IOT_PUT_BYTES(p, ev, m)  put_blob(p, (ev)->m)
#define IOT_SAME_BYTES(a, b, m)  ((a)->m == (b)->m)

#define iot_enc_begin   future_enc_begin
#define iot_enc_str     future_enc_str
#define iot_enc_str_keyed future_enc_str_keyed
#define iot_enc_call    future_enc_call
#define iot_enc_io      future_enc_io
#define iot_enc_process future_enc_process
#define iot_enc_thread  future_enc_thread
#define iot_enc_exit    future_enc_exit
#define iot_enc_module  future_enc_module
#define iot_enc_jit_symbol future_enc_jit_symbol
#define iot_enc_py_code future_enc_py_code
#define iot_enc_label   future_enc_label
#define iot_enc_home    future_enc_home
#define iot_enc_template future_enc_template
#define iot_enc_runtime_env future_enc_runtime_env
#define iot_enc_waits   future_enc_waits
#define iot_enc_kill_chunk future_enc_kill_chunk
#include "encode.c"

#include "future_enc.h"

_Static_assert(IOT_OP_FUTURE_FAR >= IOT_TAG_CALL_EXT, "FUTURE_FAR needs the escape tag");

static inline uint8_t *put_blob(uint8_t *p, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    p = iot_put_varint(p, n);
    memcpy(p, s ? s : "", n);
    return p + n;
}

unsigned future_op_number(int which)
{
    return which == FUTURE_OP_NEAR ? IOT_OP_FUTURE_NEAR : IOT_OP_FUTURE_FAR;
}

size_t future_records(uint8_t *buf, size_t cap, int64_t base_t, const struct future_call *calls,
                      size_t n, size_t ext_after, int64_t exit_t, uint32_t *nrec)
{
    static const char *const argv[] = { "future" };
    /* a record kind this version does not know (0x44 is the module
       record, 0x45 the untimed repeat), with a payload to skip */
    static const uint8_t ext[] = { 0x46, 5, 0x80, 0x41, 0x42, 0x00, 0xff };
    struct iot_enc e;

    iot_enc_begin(&e, buf, cap, base_t);
    if (iot_enc_process(&e, 1, base_t, 1763800000000000000LL, "/usr/bin/future", 1, argv) < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const struct future_call *c = &calls[i];
        struct iot_event ev = { 0 };

        ev.kind = IOT_EV_CALL;
        ev.op = (uint8_t)(c->known_op >= 0 ? (unsigned)c->known_op : future_op_number(c->future_op));
        ev.t = c->t;
        ev.dur = c->dur;
        ev.ret = c->ret;
        ev.fd = c->fd;
        ev.has = IOT_HAS_FD;
        if (c->size >= 0) {
            ev.size = c->size;
            ev.has |= IOT_HAS_SIZE;
        }
        if (c->path) {
            ev.path = c->path;
            if (iot_enc_str(&e, c->path, strlen(c->path), &ev.path_id) < 0)
                return 0;
            ev.has |= IOT_HAS_PATH;
        }
        if (c->future_fields)
            ev.has |= IOT_HAS_FUTURE_FLAG | IOT_HAS_FUTURE_NUM | IOT_HAS_FUTURE_BLOB;
        if (iot_enc_call(&e, &ev) < 0)
            return 0;
        if (i == ext_after) {
            if (e.len + sizeof(ext) > e.cap)
                return 0;
            memcpy(e.buf + e.len, ext, sizeof(ext));
            e.len += sizeof(ext);
            e.nrec++;
        }
    }
    if (iot_enc_exit(&e, exit_t, 0, 0) < 0)
        return 0;
    *nrec = e.nrec;
    return e.len;
}
