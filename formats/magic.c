/*
 * magic.c - how a native trace begins. A file of its own so that the
 * recorder, which links the format library statically, can tell a trace
 * it may append to without pulling in the reader.
 */
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
