/*
 * magic.c - how a native trace begins. A file of its own so that the
 * recorder, which links the format library statically, can tell a trace
 * it may append to without pulling in the reader.
 */
#include <string.h>
#include <zstd.h>

#include "iotrace.h"
#include "records.h"
#include "varint.h"

int iot_is_native_trace(const void *buf, size_t len)
{
    const uint8_t *p = buf;

    return len >= 4 && (iot_get_le32(p) == ZSTD_MAGICNUMBER ||
                        iot_get_le32(p) == IOT_INDEX_FRAME_MAGIC);
}

long iot_native_trace_resync(const void *buf, size_t len)
{
    const uint8_t *p = buf;

    /* an index frame: its magic, its size (48) and the chunk header's
       magic: twelve bytes that text or another format hardly holds */
    for (size_t i = 1; i + 12 <= len; i++)
        if (iot_get_le32(p + i) == IOT_INDEX_FRAME_MAGIC && iot_get_le32(p + i + 4) == 48 &&
            memcmp(p + i + 8, IOT_CHUNK_MAGIC, 4) == 0)
            return (long)i;
    return -1;
}
