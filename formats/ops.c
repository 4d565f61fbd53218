/* ops.c - the op table at run time, generated from IOT_OPS. */
#include <string.h>

#include "iotrace.h"

const struct iot_op_info iot_ops[IOT_OP_COUNT] = {
#define IOT_OP_ROW_(e, name, dir, pos, cls, api, role, fields) \
    { name, IOT_DIR_##dir, pos, IOT_CLASS_##cls, IOT_API_##api, IOT_ROLE_##role, fields },
    IOT_OPS(IOT_OP_ROW_)
#undef IOT_OP_ROW_
};

const char *iot_op_name(unsigned op)
{
    return op < IOT_OP_COUNT ? iot_ops[op].name : NULL;
}

int iot_op_from_name(const char *name, size_t len)
{
    for (unsigned i = 0; i < IOT_OP_COUNT; i++)
        if (strlen(iot_ops[i].name) == len && memcmp(iot_ops[i].name, name, len) == 0)
            return (int)i;
    return -1;
}
