/*
 * decode.c - the inverse of encode.c for one chunk. Every length and id read
 * from the input is checked before use: the input may be damaged or hostile.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "decode.h"
#include "decode_int.h"
#include "grow.h"
#include "records.h"

#define BAD_DAMAGED 1
#define BAD_LARGE 2

/* prev_fields before the chunk's first call record: no slot ever holds it */
static const uint8_t no_call[1];

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
    d->prev_fields = no_call;
    /* a negative tid makes no call plain (iot_event_plain) */
    d->bad0 = h->tid < 0 ? BAD_LARGE : 0;
    d->st = st;
    d->nstrs = 0;
    if (!d->held)
        d->held = d->held_own;
    memset(d->held, 0, IOT_DEC_BATCH * sizeof(*d->held));
    d->last_slot = 0;
    d->last_here = 0;
}

void iot_dec_free(struct iot_dec *d)
{
    free(d->strs);
    free(d->argv);
    d->strs = NULL;
    d->argv = NULL;
    d->strs_cap = d->argv_cap = 0;
}


static inline int dur_ok(int64_t dur)
{
    return dur >= 0 && dur <= IOT_MAX_TIME;
}

static const char *lookup(const struct iot_dec *d, uint64_t id)
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
    if (iot_grow(&d->strs, &d->strs_cap, d->nstrs + 1, sizeof(*d->strs)) < 0) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
        return -1;
    }
    d->strs[d->nstrs++] = s;
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged string record");
    return -1;
}

/*
 * Reading a call record's varints: the reader keeps IOT_DEC_PAD zero bytes
 * after a chunk's records, so a varint is read without a bounds check per
 * byte (a zero byte ends any varint, and one record reads less than the pad
 * even when damaged); the end is checked once per record. A varint longer
 * than 10 bytes sets BAD_DAMAGED in *bad; one of 2^49 or more sets
 * BAD_LARGE (the event is not plain). Both happen only in rd_long: the
 * short varints of most records pay nothing for it.
 */
static const uint8_t *rd_long(const uint8_t *p, uint64_t *out, int *bad)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b = *p++;

        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            /* a zigzag value below 2^49 is within +-2^48, an unsigned one below 2^49 */
            _Static_assert(IOT_PLAIN_LIMIT >= (int64_t)1 << 49, "BAD_LARGE implies plain's bound");
            *bad |= (v >> 49 != 0) * BAD_LARGE;
            *out = v;
            return p;
        }
    }
    *bad |= BAD_DAMAGED;
    *out = 0;
    return p;
}

static inline const uint8_t *rd(const uint8_t *p, uint64_t *out, int *bad)
{
    /* one to three bytes: fds, flags, sizes, gaps, durations, offsets below 1 MiB */
    if (p[0] < 0x80) {
        *out = p[0];
        return p + 1;
    }
    if (p[1] < 0x80) {
        *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        return p + 2;
    }
    if (p[2] < 0x80) {
        *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
        return p + 3;
    }
    return rd_long(p, out, bad);
}

/* The members of the optional fields in gone (has-bits): back to zero. */
static void clear_fields(struct iot_event *ev, uint32_t gone)
{
#define IOT_CLEAR_FIELD_(name, bit, member, type, key) \
    if (gone & IOT_HAS_##name) IOT_CLEAR_##type(ev, member);
    IOT_FIELDS(IOT_CLEAR_FIELD_)
#undef IOT_CLEAR_FIELD_
}

#define VARYING (IOT_HAS_ERRNO | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_WHENCE)
/* The bits of the calls most traces are made of (get_call's own path). */
#define SHAPE_DATA (VARYING | IOT_HAS_FD | IOT_HAS_NO_DUR)

/* One field read into ev: the body of the decoders below. */
#define DEC_LOOKUP(v) lookup(d, v)
#define GET_FIELD_(name, bit, member, type, key)                     \
    if (has & IOT_HAS_##name) {                                      \
        p = rd(p, &v, bad);                                          \
        IOT_GET_##type(ev, member, v, bad, DEC_LOOKUP);              \
    }
#define OR_BIT_(name, bit, member, type, key) | IOT_HAS_##name
#define OPEN_BITS (0u IOT_FIELDS_OPEN(OR_BIT_))
#define LATE_BITS (0u IOT_FIELDS_LATE(OR_BIT_))
_Static_assert((((LATE_BITS & -LATE_BITS) - 1) & IOT_WIRE_VALID_BITS & ~IOT_CALL_HAS_MASK) == 0,
               "a bit this reader does not know lies above the early groups (get_fields)");

/*
 * The fields of a record whose has-bits this reader does not all know
 * (a newer writer's): every bit in order, the known ones read into ev, the
 * others skipped by the wire encoding their bit's range fixes (schema.h).
 */
static __attribute__((noinline, cold)) const uint8_t *
get_fields_any(const struct iot_dec *d, const uint8_t *p, uint32_t wire_has,
               struct iot_event *ev, int *bad)
{
    uint64_t v;

    for (unsigned b = 0; b < 32; b++) {
        uint32_t has = wire_has & (1u << b);

        if (!has || (has & IOT_WIRE_FLAG_BITS))
            continue;
        if (has & IOT_HAS_ALL) {
            IOT_FIELDS(GET_FIELD_)
        } else if (has & IOT_WIRE_VARINT_BITS) {
            p = rd(p, &v, bad);
        } else if (has & IOT_WIRE_BYTES_BITS) {
            p = rd(p, &v, bad);
            if (v > (uint64_t)(d->end - p)) {
                *bad |= BAD_DAMAGED;
                return p;
            }
            p += v;
        } else {
            *bad |= BAD_DAMAGED;
        }
    }
    return p;
}

/*
 * A call's ret and fields after dur, in has-bit order, into ev, which holds
 * a call already (absent fields zero). wire_has is the record's: bits this
 * reader does not know are skipped, and ev->has keeps the others. Only the
 * fields present are written, and those the previous call had and this one
 * has not are cleared: a thread's calls mostly share one shape, so that is
 * rarely any.
 */
static const uint8_t *get_fields(const struct iot_dec *d, const uint8_t *p, uint32_t wire_has,
                                 struct iot_event *ev, int *bad)
{
    uint32_t has = wire_has & IOT_CALL_HAS_MASK;
    /*
     * The fields a data call or seek may have or not are cleared every
     * time (a slot's previous call is often of another shape, as the op
     * varies), the others only when the previous call had them.
     */
    uint32_t gone = ev->has & ~has & IOT_HAS_ALL & ~VARYING;
    const uint8_t *fields;
    uint64_t v;

    ev->err = 0;
    ev->size = 0;
    ev->offset = 0;
    ev->whence = 0;
    if (gone)
        clear_fields(ev, gone);
    ev->has = has;
    p = rd(p, &v, bad);
    ev->ret = iot_unzigzag(v);
    fields = p;
    /*
     * Fields in has-bit order; the groups that data calls and seeks never
     * have (opens, stdio, closes) are tested once each, so such a call
     * tests seven bits instead of fifteen. Bits this reader does not know
     * all lie above the known ones but NO_DUR (schema.h), so they are
     * looked for with the late group, and their record is read again from
     * its first field the slow way.
     */
    IOT_FIELDS_EARLY(GET_FIELD_)
    if (has & OPEN_BITS) {
        IOT_FIELDS_OPEN(GET_FIELD_)
    }
    IOT_FIELDS_DATA(GET_FIELD_)
    if (wire_has & (LATE_BITS | ~IOT_CALL_HAS_MASK)) {
        if (__builtin_expect(wire_has != has, 0))
            return get_fields_any(d, fields, wire_has, ev, bad);
        IOT_FIELDS_LATE(GET_FIELD_)
    }
    return p;
}

/*
 * The fields of a call whose has-bits are within SHAPE_DATA (a data call
 * or seek), read into a slot whose has-bits are too (or that is cleared):
 * every member such a call may have is written, so none needs clearing.
 */
#define GET_DATA_FIELD_(name, bit, member, type, key)                \
    v = 0;                                                           \
    if (has & IOT_HAS_##name)                                        \
        p = rd(p, &v, bad);                                          \
    IOT_GET_##type(ev, member, v, bad, DEC_LOOKUP);
static inline __attribute__((always_inline)) const uint8_t *
get_data_fields(const uint8_t *p, uint32_t has, struct iot_event *ev, int *bad)
{
    uint64_t v;

    p = rd(p, &v, bad);
    ev->ret = iot_unzigzag(v);
    IOT_FIELDS_EARLY(GET_DATA_FIELD_)
    IOT_FIELDS_DATA(GET_DATA_FIELD_)
    return p;
}

/*
 * A call's plain (iot_event_plain), its record just read with bad as given:
 * no varint of the record reached 2^49 (BAD_LARGE), which bounds every
 * quantity, and the tid is not negative (d->bad0), so only the sign of ret
 * is left to look at.
 */
static inline uint8_t plain(uint32_t has, int64_t ret, int bad)
{
    return !(bad & BAD_LARGE) & !(has & (IOT_HAS_ERRNO | IOT_HAS_NO_DUR)) & (ret >= 0);
}

/*
 * A call record after its tag (and the op's varint, for the escape tag).
 * The members of the other event kinds are zero in any call the decoder
 * wrote, so they are cleared only when ev held another kind of event.
 */
static inline __attribute__((always_inline)) int
get_call(struct iot_dec *d, unsigned op, struct iot_event *ev, char *errbuf)
{
    const uint8_t *p = d->p;
    uint64_t has, gap, dur;
    int bad = d->bad0;

    if (ev->kind != IOT_EV_CALL)
        memset(ev, 0, sizeof(*ev));
    p = rd(p, &has, &bad);
    p = rd(p, &gap, &bad);
    p = rd(p, &dur, &bad);
    if (has & ~(uint64_t)IOT_WIRE_VALID_BITS)
        bad = BAD_DAMAGED;
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)op;
    ev->t = tadd(d->prev_end, iot_unzigzag(gap));
    ev->dur = (int64_t)dur;
    d->prev_fields = p;
    if (((has | ev->has) & ~(uint64_t)SHAPE_DATA) == 0) {
        ev->has = (uint32_t)has;
        p = get_data_fields(p, (uint32_t)has, ev, &bad);
    } else {
        p = get_fields(d, p, (uint32_t)has, ev, &bad);
    }
    ev->plain = plain((uint32_t)has, ev->ret, bad);
    if ((bad & BAD_DAMAGED) || p > d->end || !time_ok(ev->t) || !dur_ok(ev->dur)) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged %s record",
                 iot_op_name(op) ? iot_op_name(op) : "call");
        return -1;
    }
    d->p = p;
    d->prev_op = op;
    d->prev_has = (uint32_t)has;
    return 0;
}

/*
 * A call of an op this reader does not know (a newer writer's): read like
 * any call, so the times and the REPEATs after it stay right, and dropped.
 */
static __attribute__((noinline, cold)) int skip_call(struct iot_dec *d, unsigned op,
                                                     char *errbuf)
{
    struct iot_event scratch = { 0 };

    if (get_call(d, op, &scratch, errbuf) < 0)
        return -1;
    d->prev_end = scratch.t + scratch.dur;
    d->calls_unknown++;
    return 0;
}

/* ev := the previous call again (its times are set by the caller). */
static void refill_prev(struct iot_dec *d, struct iot_event *ev)
{
    int bad = d->bad0;

    memset(ev, 0, sizeof(*ev));
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)d->prev_op;
    ev->pid = d->pid;
    ev->tid = d->tid;
    /* decoded once already, so it cannot be damaged now */
    get_fields(d, d->prev_fields, d->prev_has, ev, &bad);
    /* plain as far as the fields go: the caller checks the times */
    ev->plain = plain(d->prev_has, ev->ret, bad);
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

/*
 * A call's members, from one call slot into another: those before the other
 * kinds' members, which are zero in any call slot.
 */
static inline void copy_call(struct iot_event *to, const struct iot_event *from)
{
    _Static_assert(offsetof(struct iot_event, newpath_id) < offsetof(struct iot_event, ppid),
                   "a call's members come before the other kinds'");
    memcpy(to, from, offsetof(struct iot_event, ppid));
}

/*
 * evs[n] := the previous call again, at gap g after the previous call's
 * end, lasting dur (its record read up to d->p, with damage flags damaged:
 * BAD_LARGE at most); untimed: a REPEAT_UNTIMED (5.12). Returns 1, 0 when
 * the call is one this reader skipped (so is its repeat), -1 on damage.
 */
static inline __attribute__((always_inline)) int
repeat_call(struct iot_dec *d, struct iot_event *evs, unsigned n, uint64_t g, uint64_t dur,
            int damaged, int untimed)
{
    struct iot_event *ev = &evs[n];
    const uint8_t **held = &d->held[n];
    int64_t t;

    if (*held != d->prev_fields) {
        if (d->prev_fields == no_call)
            return -1;  /* a REPEAT before any call */
        if (d->prev_op >= IOT_OP_COUNT) {
            /* of a call this reader skipped: skip it too */
            t = tadd(d->prev_end, iot_unzigzag(g));
            if (!time_ok(t) || !dur_ok((int64_t)dur))
                return -1;
            d->prev_end = t + (int64_t)dur;
            d->calls_unknown++;
            return 0;
        }
        /* the slot written last holds it, unless a non-call came between */
        unsigned last = n ? n - 1 : d->last_slot;

        if ((n || d->last_here) && d->held[last] == d->prev_fields) {
            if (ev->kind == IOT_EV_CALL)
                copy_call(ev, &evs[last]);
            else
                *ev = evs[last];
        } else
            refill_prev(d, ev);
        *held = d->prev_fields;
    }
    if (untimed && (ev->has & IOT_HAS_STACK)) {
        /* an untimed repeat carries no stack: it was the previous call's
           own (5.12); the slot is filled afresh for the next REPEAT */
        ev->has &= ~IOT_HAS_STACK;
        ev->stack = NULL;
        *held = NULL;
    }
    if (__builtin_expect(damaged, 0)) {
        /* a large gap or duration: this event is not plain, and the slot
           is filled afresh for the next REPEAT in it */
        ev->plain = 0;
        *held = NULL;
    }
    t = tadd(d->prev_end, iot_unzigzag(g));
    if (!time_ok(t) || !dur_ok((int64_t)dur))
        return -1;
    d->prev_end = t + (int64_t)dur;
    ev->t = t - d->origin;
    ev->dur = (int64_t)dur;
    return 1;
}

/*
 * One event into evs[n]. d->held[n] says which call record's fields that
 * slot holds (NULL: none of this chunk's), so that a REPEAT of it only has
 * to set the times. Returns 1, 2 for a process event, 0 at the chunk's end,
 * -1 on damage.
 */
static __attribute__((noinline)) int dec_one(struct iot_dec *d, struct iot_event *evs, unsigned n, char *errbuf)
{
    struct iot_event *ev = &evs[n];
    const uint8_t **held = &d->held[n];
    const uint8_t *p = d->p;  /* in a register for REPEATs; the others use d->p */
    uint64_t v, g, dur;       /* g, dur: a repeat's times */
    int damaged, r;

    while (p < d->end) {
        unsigned tag = *p++;

        if (tag == IOT_TAG_REPEAT) {
            damaged = 0;
            p = rd(rd(p, &g, &damaged), &dur, &damaged);
            if ((damaged & BAD_DAMAGED) || p > d->end)
                goto bad;
            d->p = p;
            r = repeat_call(d, evs, n, g, dur, damaged, 0);
            if (r < 0)
                goto bad;
            if (r)
                return r;
            continue;
        }
        d->p = p;
        if (tag <= IOT_TAG_CALL_MAX) {
            unsigned op = tag;

            if (__builtin_expect(tag == IOT_TAG_CALL_EXT, 0)) {
                int damaged = 0;

                d->p = rd(d->p, &v, &damaged);
                if (damaged || v > IOT_MAX_OP)
                    goto bad;
                op = (unsigned)v;
            }
            if (__builtin_expect(op >= IOT_OP_COUNT, 0)) {
                if (skip_call(d, op, errbuf) < 0)
                    return -1;
                p = d->p;
                continue;
            }
            *held = NULL;
            if (get_call(d, op, ev, errbuf) < 0)
                return -1;
            *held = d->prev_fields;
            d->fields_unknown += (d->prev_has & ~IOT_CALL_HAS_MASK) != 0;
        } else if (tag == IOT_TAG_MODULE || tag == IOT_TAG_LABEL || tag == IOT_TAG_JIT_SYMBOL ||
                   tag == IOT_TAG_NAME || tag == IOT_TAG_WAITS || tag == IOT_TAG_PY_CODE) {
            const uint8_t *at = d->p;

            *held = NULL;
            if (iot_dec_ext(d, tag, ev) == 0)
                return 1;
            /* a payload that is not the record its tag says (written before
               the tag was taken, or damaged within its length) is stepped
               over like an unknown kind, when its length holds */
            d->p = at;
            p = at;
            if (iot_get_varint(&p, d->end, &v) < 0 || v > (uint64_t)(d->end - p))
                goto bad;
            p += v;
            d->p = p;
            d->records_unknown++;
            continue;
        } else if (tag == IOT_TAG_REPEAT_UNTIMED) {
            /* the previous call again at prev_end, lasting 0 (5.12); what a
               later version appends to the payload is stepped over */
            damaged = 0;
            p = rd(p, &v, &damaged);
            if (damaged || p > d->end || v > (uint64_t)(d->end - p))
                goto bad;
            p += v;
            d->p = p;
            r = repeat_call(d, evs, n, 0, 0, 0, 1);
            if (r < 0)
                goto bad;
            if (r)
                return r;
            continue;
        } else if (tag >= IOT_TAG_EXT_FIRST && tag <= IOT_TAG_EXT_LAST) {
            /* a record of a kind a newer writer added: skipped whole */
            int damaged = 0;

            p = rd(p, &v, &damaged);
            if (damaged || p > d->end || v > (uint64_t)(d->end - p))
                goto bad;
            p += v;
            d->p = p;
            d->records_unknown++;
            continue;
        } else if (tag == IOT_TAG_STR) {
            if (define_string(d, errbuf) < 0)
                return -1;
            p = d->p;
            continue;
        } else if (tag == IOT_TAG_PROCESS) {
            *held = NULL;
            if (get_process(d, ev, errbuf) < 0)
                return -1;
            ev->pid = d->pid;
            ev->tid = d->tid;
            ev->t -= d->origin;
            return 2;  /* its argv is the decoder's, reused by the next one */
        } else if (tag == IOT_TAG_THREAD) {
            *held = NULL;
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
            *held = NULL;
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
        ev->t -= d->origin;
        return 1;
    }
    return 0;
bad:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "damaged record");
    return -1;
}

/*
 * The two records most traces are made of, read in the batch loop itself:
 * a REPEAT of the call its slot holds, and a data call or seek into a slot
 * that holds one (or none). Each is read up to its end before anything of
 * the decoder changes; a record that turns out otherwise (damaged, times
 * out of range) is left to dec_one, which reads it again from its tag.
 */
int iot_dec_batch(struct iot_dec *d, struct iot_event *evs, unsigned max, int *last,
                  char *errbuf)
{
    const uint8_t *p = d->p, *end = d->end;
    const uint8_t **held = d->held;
    unsigned n = 0;
    int r = 1;

    if (max > IOT_DEC_BATCH)
        max = IOT_DEC_BATCH;
    while (n < max) {
        struct iot_event *ev = &evs[n];
        unsigned tag = p < end ? *p : 256;  /* none: dec_one returns 0 */

        if (tag == IOT_TAG_REPEAT && held[n] != d->prev_fields && n &&
            held[n - 1] == d->prev_fields && ev->kind == IOT_EV_CALL) {
            /* the call is in the slot before: its members (repeat_call) */
            copy_call(ev, ev - 1);
            held[n] = d->prev_fields;
        }
        if (tag == IOT_TAG_REPEAT && held[n] == d->prev_fields) {
            uint64_t g, dur;
            int damaged = 0;
            const uint8_t *q = rd(rd(p + 1, &g, &damaged), &dur, &damaged);
            int64_t t = tadd(d->prev_end, iot_unzigzag(g));

            if (__builtin_expect(!damaged && q <= end && time_ok(t) && dur_ok((int64_t)dur), 1)) {
                d->prev_end = t + (int64_t)dur;
                ev->t = t - d->origin;
                ev->dur = (int64_t)dur;
                p = q;
                n++;
                continue;
            }
        } else if (tag < IOT_TAG_CALL_EXT && tag < IOT_OP_COUNT && ev->kind == IOT_EV_CALL) {
            uint64_t has, gap, dur;
            int bad = 0;  /* d->bad0 is taken in at the end */
            const uint8_t *q = rd(p + 1, &has, &bad), *fields;

            if (((has | ev->has) & ~(uint64_t)SHAPE_DATA) == 0) {
                q = rd(rd(q, &gap, &bad), &dur, &bad);
                fields = q;
                q = get_data_fields(q, (uint32_t)has, ev, &bad);

                int64_t t = tadd(d->prev_end, iot_unzigzag(gap));

                if (__builtin_expect(!(bad & BAD_DAMAGED) && q <= end && time_ok(t) &&
                                     dur_ok((int64_t)dur), 1)) {
                    ev->op = (uint8_t)tag;
                    ev->has = (uint32_t)has;
                    ev->plain = plain((uint32_t)has, ev->ret, bad | d->bad0);
                    ev->pid = d->pid;
                    ev->tid = d->tid;
                    ev->t = t - d->origin;
                    ev->dur = (int64_t)dur;
                    d->prev_end = t + (int64_t)dur;
                    d->prev_fields = fields;
                    d->prev_op = tag;
                    d->prev_has = (uint32_t)has;
                    held[n] = fields;
                    p = q;
                    n++;
                    continue;
                }
                /* its fields were written: the slot holds no call now */
                held[n] = NULL;
            }
        }
        d->p = p;
        r = dec_one(d, evs, n, errbuf);
        p = d->p;
        if (r <= 0)
            break;
        n++;
        if (r == 2) {
            /* a process event: the batch ends at it (its argv) */
            r = 1;
            break;
        }
    }
    d->p = p;
    if (n) {
        d->last_slot = n - 1;
        d->last_here = 1;
    }
    *last = r;
    return (int)n;
}
