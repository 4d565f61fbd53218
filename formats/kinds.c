/* kinds.c - the kinds of event at run time, from IOT_KINDS. */
#include "iotrace.h"

static const char *const kind_names[IOT_KIND_COUNT] = {
#define IOT_KIND_NAME_(NAME, name, t) name,
    IOT_KINDS(IOT_KIND_NAME_)
#undef IOT_KIND_NAME_
};

const char *iot_kind_name(unsigned kind)
{
    return kind < IOT_KIND_COUNT ? kind_names[kind] : NULL;
}
