/* ops.c - the op table generated from IOT_OPS. */
#include <string.h>

#include "iotrace.h"

static const struct {
    const char *name;
    unsigned cls;
} op_table[IOT_OP_COUNT] = {
#define IOT_OP_ROW_(e, name, cls) { name, cls },
    IOT_OPS(IOT_OP_ROW_)
#undef IOT_OP_ROW_
};

const char *iot_op_name(unsigned op)
{
    return op < IOT_OP_COUNT ? op_table[op].name : NULL;
}

unsigned iot_op_class(unsigned op)
{
    return op < IOT_OP_COUNT ? op_table[op].cls : 0;
}

int iot_op_from_name(const char *name, size_t len)
{
    for (unsigned i = 0; i < IOT_OP_COUNT; i++)
        if (strlen(op_table[i].name) == len && memcmp(op_table[i].name, name, len) == 0)
            return (int)i;
    return -1;
}
