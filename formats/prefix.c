/*
 * prefix.c - where a chunk's records may be cut: the longest run of whole
 * records from the start within a byte budget. A chunk cut there is a valid
 * chunk (its string definitions precede their uses), which lets a writer
 * that cannot write a whole chunk's frame write as much of it as fits.
 */
#include "iotrace.h"
#include "records.h"
#include "varint.h"

/* Skip n varints at *p; -1 when the records end inside one. */
static int skip_varints(const uint8_t **p, const uint8_t *end, int n, uint64_t *last)
{
    uint64_t v = 0;

    while (n-- > 0)
        if (iot_get_varint(p, end, &v) < 0)
            return -1;
    if (last)
        *last = v;
    return 0;
}

/* Skip a varint length and that many bytes. */
static int skip_bytes(const uint8_t **p, const uint8_t *end)
{
    uint64_t len;

    if (iot_get_varint(p, end, &len) < 0 || len > (uint64_t)(end - *p))
        return -1;
    *p += len;
    return 0;
}

/* The end of the record at p (before end), or NULL when it is not whole. */
static const uint8_t *record_end(const uint8_t *p, const uint8_t *end)
{
    unsigned tag = *p++;
    uint64_t v, has, argc;

    if (tag <= IOT_TAG_CALL_MAX) {
        if (tag == IOT_TAG_CALL_EXT && skip_varints(&p, end, 1, NULL) < 0)
            return NULL;
        /* has, gap, dur, ret, then the fields by the ranges of their bits */
        if (skip_varints(&p, end, 1, &has) < 0 || skip_varints(&p, end, 3, NULL) < 0)
            return NULL;
        for (unsigned b = 0; b < 32; b++) {
            uint32_t bit = 1u << b;

            if (!(has & bit) || (bit & IOT_WIRE_FLAG_BITS))
                continue;
            if (bit & IOT_WIRE_BYTES_BITS ? skip_bytes(&p, end) < 0
                                          : skip_varints(&p, end, 1, NULL) < 0)
                return NULL;
        }
        return p;
    }
    switch (tag) {
    case IOT_TAG_REPEAT:
        return skip_varints(&p, end, 2, NULL) < 0 ? NULL : p;
    case IOT_TAG_STR:
        return skip_varints(&p, end, 1, NULL) < 0 || skip_bytes(&p, end) < 0 ? NULL : p;
    case IOT_TAG_PROCESS:
        if (skip_varints(&p, end, 3, NULL) < 0 || skip_bytes(&p, end) < 0 ||
            skip_varints(&p, end, 1, &argc) < 0)
            return NULL;
        for (v = 0; v < argc; v++)
            if (skip_bytes(&p, end) < 0)
                return NULL;
        return p;
    case IOT_TAG_THREAD:
        return skip_varints(&p, end, 1, NULL) < 0 || skip_bytes(&p, end) < 0 ? NULL : p;
    case IOT_TAG_EXIT:
        return skip_varints(&p, end, 3, NULL) < 0 ? NULL : p;
    default:
        if (tag >= IOT_TAG_EXT_FIRST && tag <= IOT_TAG_EXT_LAST)
            return skip_bytes(&p, end) < 0 ? NULL : p;
        return NULL;
    }
}

size_t iot_records_prefix(const void *records, size_t bytes, size_t budget, uint32_t *nrec)
{
    const uint8_t *start = records, *p = start, *end = start + bytes;
    uint32_t n = 0;

    while (p < end) {
        const uint8_t *next = record_end(p, end);

        if (!next || (size_t)(next - start) > budget)
            break;
        p = next;
        n++;
    }
    *nrec = n;
    return (size_t)(p - start);
}
