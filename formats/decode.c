/*
 * decode.c - the inverse of encode.c for one chunk. Every length and id read
 * from the input is checked before use: the input may be damaged or hostile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "records.h"
#include "varint.h"

void iot_dec_start(struct iot_dec *d, const struct iot_chunk_hdr *h,
                   const uint8_t *records, struct iot_strtab *st, int64_t origin)
{
    d->p = records;
    d->end = records + h->bytes;
    d->pid = h->pid;
    d->tid = h->tid;
    d->base_t = h->base_t;
    d->prev_end = h->base_t;
    d->origin = origin;
    d->have_prev = 0;
    d->st = st;
    d->nstrs = 0;
    d->nread = 0;
    d->out_prev = NULL;
}

void iot_dec_free(struct iot_dec *d)
{
    free(d->strs);
    free(d->argv);
    d->strs = NULL;
    d->argv = NULL;
    d->strs_cap = d->argv_cap = 0;
}

#define GET(v) do { if (iot_get_varint(&d->p, d->end, &(v)) < 0) goto bad; } while (0)

/*
 * Time arithmetic on deltas read from the input: wraps instead of
 * overflowing (hostile deltas), and the result is then checked by
 * time_ok() against IOT_MAX_TIME, which the chunk's base time also obeys.
 */
static inline int64_t tadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int time_ok(int64_t t)
{
    return t >= -IOT_MAX_TIME && t <= IOT_MAX_TIME;
}

static inline int dur_ok(int64_t dur)
{
    return dur >= 0 && dur <= IOT_MAX_TIME;
}

/* Reads a length-prefixed byte string and interns it. */
static const char *get_string(struct iot_dec *d)
{
    uint64_t len;
    const char *s;

    if (iot_get_varint(&d->p, d->end, &len) < 0 || len > IOT_MAX_STRING ||
        len > (uint64_t)(d->end - d->p))
        return NULL;
    s = iot_intern(d->st, (const char *)d->p, (size_t)len);
    d->p += len;
    return s;
}

static const char *lookup(struct iot_dec *d, uint64_t id)
{
    return id >= 1 && id <= d->nstrs ? d->strs[id - 1] : NULL;
}

static int define_string(struct iot_dec *d, char *errbuf)
{
    uint64_t id;
    const char *s;

    if (iot_get_varint(&d->p, d->end, &id) < 0)
        goto bad;
    /* Ids are dense and in order, so a table indexed by id is safe. */
    if (id != d->nstrs + 1) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "string id %llu out of sequence", (unsigned long long)id);
        return -1;
    }
    s = get_string(d);
    if (!s)
        goto bad;
    if (d->nstrs == d->strs_cap) {
        size_t ncap = d->strs_cap ? d->strs_cap * 2 : 64;
        const char **n = realloc(d->strs, ncap * sizeof(*n));

        if (!n) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
            return -1;
        }
        d->strs = n;
        d->strs_cap = ncap;
    }
    d->strs[d->nstrs++] = s;
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged string record");
    return -1;
}

static int get_call(struct iot_dec *d, unsigned op, struct iot_event *ev, char *errbuf)
{
    uint64_t has, v;

    /*
     * Field by field rather than memset: clearing the whole struct with
     * `rep stos` was the decoder's largest single cost.
     */
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)op;
    ev->bufmode = 0;
    ev->err = ev->fd = ev->newfd = ev->whence = ev->in_fd = ev->last_fd = 0;
    ev->flags = ev->size = ev->offset = ev->file_size = 0;
    ev->stream = 0;
    ev->path = ev->mode = ev->stack = NULL;
    ev->path_id = ev->mode_id = ev->stack_id = 0;
    ev->ppid = 0;
    ev->start_unix_ns = 0;
    ev->exe = NULL;
    ev->argc = 0;
    ev->argv = NULL;
    ev->name = NULL;
    ev->status = ev->signal = 0;
    GET(has);
    if (has & ~(uint64_t)IOT_CALL_HAS_MASK || op >= IOT_OP_COUNT)
        goto bad;
    ev->has = (uint32_t)has;
    GET(v); ev->t = tadd(d->prev_end, iot_unzigzag(v));
    GET(v); ev->dur = (int64_t)v;
    if (!time_ok(ev->t) || !dur_ok(ev->dur))
        goto bad;
    GET(v); ev->ret = iot_unzigzag(v);
    if (has & IOT_HAS_ERRNO)     { GET(v); ev->err = (int32_t)v; }
    if (has & IOT_HAS_FD)        { GET(v); ev->fd = (int32_t)iot_unzigzag(v); }
    if (has & IOT_HAS_PATH)      { GET(v); ev->path_id = (uint32_t)v; if (!(ev->path = lookup(d, v))) goto bad; }
    if (has & IOT_HAS_FLAGS)     { GET(v); ev->flags = (int64_t)v; }
    if (has & IOT_HAS_MODE)      { GET(v); ev->mode_id = (uint32_t)v; if (!(ev->mode = lookup(d, v))) goto bad; }
    if (has & IOT_HAS_SIZE)      { GET(v); ev->size = iot_unzigzag(v); }
    if (has & IOT_HAS_OFFSET)    { GET(v); ev->offset = iot_unzigzag(v); }
    if (has & IOT_HAS_WHENCE)    { GET(v); ev->whence = (int32_t)v; }
    if (has & IOT_HAS_NEWFD)     { GET(v); ev->newfd = (int32_t)iot_unzigzag(v); }
    if (has & IOT_HAS_STREAM)    { GET(v); ev->stream = v; }
    if (has & IOT_HAS_FILE_SIZE) { GET(v); ev->file_size = iot_unzigzag(v); }
    if (has & IOT_HAS_STACK)     { GET(v); ev->stack_id = (uint32_t)v; if (!(ev->stack = lookup(d, v))) goto bad; }
    if (has & IOT_HAS_BUFMODE)   { GET(v); if (v > IOT_BUF_NONE) goto bad; ev->bufmode = (uint8_t)v; }
    if (has & IOT_HAS_IN_FD)     { GET(v); ev->in_fd = (int32_t)iot_unzigzag(v); }
    if (has & IOT_HAS_LAST_FD)   { GET(v); ev->last_fd = (int32_t)iot_unzigzag(v); }
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged %s record", iot_op_name(op) ? iot_op_name(op) : "call");
    return -1;
}

static int get_process(struct iot_dec *d, struct iot_event *ev, char *errbuf)
{
    uint64_t v, argc;

    memset(ev, 0, sizeof(*ev));
    ev->kind = IOT_EV_PROCESS;
    GET(v); ev->t = tadd(d->base_t, iot_unzigzag(v));
    if (!time_ok(ev->t))
        goto bad;
    GET(v); ev->ppid = (int32_t)iot_unzigzag(v);
    GET(v); ev->start_unix_ns = iot_unzigzag(v);
    if (!(ev->exe = get_string(d)))
        goto bad;
    GET(argc);
    if (argc > IOT_MAX_ARGS || argc > (uint64_t)(d->end - d->p))
        goto bad;
    if (argc + 1 > d->argv_cap) {
        const char **n = realloc(d->argv, (argc + 1) * sizeof(*n));

        if (!n)
            goto bad;
        d->argv = n;
        d->argv_cap = argc + 1;
    }
    for (uint64_t i = 0; i < argc; i++)
        if (!(d->argv[i] = get_string(d)))
            goto bad;
    d->argv[argc] = NULL;
    ev->argc = (int)argc;
    ev->argv = d->argv;
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged process record");
    return -1;
}

int iot_dec_next(struct iot_dec *d, struct iot_event *ev, char *errbuf)
{
    uint64_t v;

    while (d->p < d->end) {
        unsigned tag = *d->p++;

        d->nread++;
        if (tag <= IOT_TAG_CALL_MAX) {
            d->out_prev = NULL;
            if (get_call(d, tag, ev, errbuf) < 0)
                return -1;
            d->prev = *ev;
            d->have_prev = 1;
        } else if (tag == IOT_TAG_REPEAT) {
            int64_t gap;

            if (!d->have_prev)
                goto bad;
            GET(v); gap = iot_unzigzag(v);
            GET(v);
            if (ev != d->out_prev)
                *ev = d->prev;
            ev->t = tadd(d->prev_end, gap);
            ev->dur = (int64_t)v;
            if (!time_ok(ev->t) || !dur_ok(ev->dur))
                goto bad;
            d->prev_end = ev->t + ev->dur;
            ev->t -= d->origin;
            return 1;
        } else if (tag == IOT_TAG_STR) {
            if (define_string(d, errbuf) < 0)
                return -1;
            continue;
        } else if (tag == IOT_TAG_PROCESS) {
            d->out_prev = NULL;
            if (get_process(d, ev, errbuf) < 0)
                return -1;
            ev->pid = d->pid;
            ev->tid = d->tid;
            ev->t -= d->origin;
            return 1;
        } else if (tag == IOT_TAG_THREAD) {
            d->out_prev = NULL;
            memset(ev, 0, sizeof(*ev));
            ev->kind = IOT_EV_THREAD;
            GET(v); ev->t = tadd(d->base_t, iot_unzigzag(v));
            if (!time_ok(ev->t))
                goto bad;
            ev->t -= d->origin;
            if (!(ev->name = get_string(d)))
                goto bad;
            ev->pid = d->pid;
            ev->tid = d->tid;
            return 1;
        } else if (tag == IOT_TAG_EXIT) {
            d->out_prev = NULL;
            memset(ev, 0, sizeof(*ev));
            ev->kind = IOT_EV_EXIT;
            GET(v); ev->t = tadd(d->base_t, iot_unzigzag(v));
            if (!time_ok(ev->t))
                goto bad;
            ev->t -= d->origin;
            GET(v); ev->status = (int32_t)iot_unzigzag(v);
            GET(v); ev->signal = (int32_t)iot_unzigzag(v);
            if (ev->signal)
                ev->has |= IOT_HAS_SIGNAL;
            ev->pid = d->pid;
            ev->tid = d->tid;
            return 1;
        } else {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "unknown record tag 0x%02x", tag);
            return -1;
        }
        /* a call: times become relative to the origin */
        d->prev_end = ev->t + ev->dur;
        ev->pid = d->pid;
        ev->tid = d->tid;
        d->prev.pid = d->pid;
        d->prev.tid = d->tid;
        ev->t -= d->origin;
        d->out_prev = ev;
        return 1;
    }
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged record");
    return -1;
}
