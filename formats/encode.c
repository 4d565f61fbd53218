/*
 * encode.c - appending records to a chunk buffer (the recorder's hot path).
 *
 * Nothing here allocates, locks or makes a system call. Each append first
 * checks for the worst-case size of its record, so a record is either written
 * whole or not at all and the buffer always ends at a record boundary.
 */
#include <string.h>

#include "iotrace.h"
#include "records.h"
#include "varint.h"

/* Worst case of a call record: tag, has, gap, dur, ret and 15 fields. */
#define CALL_MAX (1 + 5 * IOT_VARINT_MAX + 15 * IOT_VARINT_MAX)

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

/* FNV-1a: only a cache key; equality is confirmed against the bytes. */
static uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ULL;
    }
    return h | 1;  /* 0 marks an empty cache slot */
}

int iot_enc_str(struct iot_enc *e, const char *s, size_t len, uint32_t *id)
{
    uint64_t h = str_hash(s, len);
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

    if (has & IOT_HAS_ERRNO)     p = iot_put_varint(p, (uint32_t)ev->err);
    if (has & IOT_HAS_FD)        p = iot_put_varint(p, iot_zigzag(ev->fd));
    if (has & IOT_HAS_PATH)      p = iot_put_varint(p, ev->path_id);
    if (has & IOT_HAS_FLAGS)     p = iot_put_varint(p, (uint64_t)ev->flags);
    if (has & IOT_HAS_MODE)      p = iot_put_varint(p, ev->mode_id);
    if (has & IOT_HAS_SIZE)      p = iot_put_varint(p, iot_zigzag(ev->size));
    if (has & IOT_HAS_OFFSET)    p = iot_put_varint(p, iot_zigzag(ev->offset));
    if (has & IOT_HAS_WHENCE)    p = iot_put_varint(p, (uint32_t)ev->whence);
    if (has & IOT_HAS_NEWFD)     p = iot_put_varint(p, iot_zigzag(ev->newfd));
    if (has & IOT_HAS_STREAM)    p = iot_put_varint(p, ev->stream);
    if (has & IOT_HAS_FILE_SIZE) p = iot_put_varint(p, iot_zigzag(ev->file_size));
    if (has & IOT_HAS_STACK)     p = iot_put_varint(p, ev->stack_id);
    if (has & IOT_HAS_BUFMODE)   p = iot_put_varint(p, ev->bufmode);
    if (has & IOT_HAS_IN_FD)     p = iot_put_varint(p, iot_zigzag(ev->in_fd));
    if (has & IOT_HAS_LAST_FD)   p = iot_put_varint(p, iot_zigzag(ev->last_fd));
    return p;
}

/* Whether ev repeats the previous call in everything but its times. */
static int same_as_prev(const struct iot_enc *e, const struct iot_event *ev)
{
    const struct iot_event *p = &e->prev;
    uint32_t has = ev->has;

    if (!e->have_prev || p->op != ev->op || p->has != has || p->ret != ev->ret)
        return 0;
    if ((has & IOT_HAS_ERRNO) && p->err != ev->err) return 0;
    if ((has & IOT_HAS_FD) && p->fd != ev->fd) return 0;
    if ((has & IOT_HAS_PATH) && p->path_id != ev->path_id) return 0;
    if ((has & IOT_HAS_FLAGS) && p->flags != ev->flags) return 0;
    if ((has & IOT_HAS_MODE) && p->mode_id != ev->mode_id) return 0;
    if ((has & IOT_HAS_SIZE) && p->size != ev->size) return 0;
    if ((has & IOT_HAS_OFFSET) && p->offset != ev->offset) return 0;
    if ((has & IOT_HAS_WHENCE) && p->whence != ev->whence) return 0;
    if ((has & IOT_HAS_NEWFD) && p->newfd != ev->newfd) return 0;
    if ((has & IOT_HAS_STREAM) && p->stream != ev->stream) return 0;
    if ((has & IOT_HAS_FILE_SIZE) && p->file_size != ev->file_size) return 0;
    if ((has & IOT_HAS_STACK) && p->stack_id != ev->stack_id) return 0;
    if ((has & IOT_HAS_BUFMODE) && p->bufmode != ev->bufmode) return 0;
    if ((has & IOT_HAS_IN_FD) && p->in_fd != ev->in_fd) return 0;
    if ((has & IOT_HAS_LAST_FD) && p->last_fd != ev->last_fd) return 0;
    return 1;
}

int iot_enc_call(struct iot_enc *e, const struct iot_event *ev)
{
    int repeat = same_as_prev(e, ev);
    uint8_t *p;

    if (room(e) < CALL_MAX)
        return -1;
    p = e->buf + e->len;
    *p++ = repeat ? IOT_TAG_REPEAT : (uint8_t)(ev->op & IOT_TAG_CALL_MAX);
    if (!repeat)
        p = iot_put_varint(p, ev->has & IOT_CALL_HAS_MASK);
    p = iot_put_varint(p, iot_zigzag(ev->t - e->prev_end));
    p = iot_put_varint(p, (uint64_t)ev->dur);
    if (!repeat) {
        p = iot_put_varint(p, iot_zigzag(ev->ret));
        p = put_fields(p, ev);
        e->prev = *ev;
        e->prev.has &= IOT_CALL_HAS_MASK;
        /* iot_enc_io compares err unconditionally: keep it 0 when absent */
        if (!(ev->has & IOT_HAS_ERRNO))
            e->prev.err = 0;
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
    uint32_t has = IOT_HAS_FD | IOT_HAS_SIZE | (err ? IOT_HAS_ERRNO : 0);
    const struct iot_event *pv = &e->prev;
    uint8_t *p;

    if (room(e) < CALL_MAX)
        return -1;
    p = e->buf + e->len;
    if (e->have_prev && pv->op == op && pv->has == has && pv->fd == fd &&
        pv->size == size && pv->ret == ret && pv->err == err) {
        *p++ = IOT_TAG_REPEAT;
        p = iot_put_varint(p, iot_zigzag(t - e->prev_end));
        p = iot_put_varint(p, (uint64_t)dur);
    } else {
        *p++ = (uint8_t)(op & IOT_TAG_CALL_MAX);
        p = iot_put_varint(p, has);
        p = iot_put_varint(p, iot_zigzag(t - e->prev_end));
        p = iot_put_varint(p, (uint64_t)dur);
        p = iot_put_varint(p, iot_zigzag(ret));
        if (err)
            p = iot_put_varint(p, (uint32_t)err);
        p = iot_put_varint(p, iot_zigzag(fd));
        p = iot_put_varint(p, iot_zigzag(size));
        e->prev.op = (uint8_t)op;
        e->prev.has = has;
        e->prev.fd = fd;
        e->prev.size = size;
        e->prev.ret = ret;
        e->prev.err = err;
        e->have_prev = 1;
    }
    e->prev_end = t + dur;
    e->len = (size_t)(p - e->buf);
    e->nrec++;
    return 0;
}

static uint8_t *put_bytes(uint8_t *p, const char *s, size_t len)
{
    p = iot_put_varint(p, len);
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
