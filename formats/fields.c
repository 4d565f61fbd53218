/* fields.c - the field table at run time, generated from IOT_FIELDS. */
#include <string.h>

#include "codec.h"

const struct iot_field_info iot_fields[IOT_FIELD_COUNT] = {
#define IOT_FIELD_ROW_(name, bit, member, type, key) { key, IOT_HAS_##name, IOT_FT_##type },
    IOT_FIELDS(IOT_FIELD_ROW_)
#undef IOT_FIELD_ROW_
};

static const char *const bufmode_names[] = { "full", "line", "none" };

const char *iot_bufmode_name(unsigned bufmode)
{
    return bufmode <= IOT_BUF_NONE ? bufmode_names[bufmode] : NULL;
}

int iot_field_from_key(const char *key, size_t len)
{
    for (unsigned i = 0; i < IOT_FIELD_COUNT; i++)
        if (strlen(iot_fields[i].key) == len && memcmp(iot_fields[i].key, key, len) == 0)
            return (int)i;
    return -1;
}

/* STR fields have no integer value; the value of the others as int64_t. */
#define INT_OF_I32(ev, m)     (ev)->m
#define INT_OF_U32(ev, m)     (ev)->m
#define INT_OF_I64(ev, m)     (ev)->m
#define INT_OF_OCT(ev, m)     (ev)->m
#define INT_OF_HEX(ev, m)     (int64_t)(ev)->m
#define INT_OF_STR(ev, m)     0
#define INT_OF_BUFMODE(ev, m) (ev)->m

int64_t iot_field_int(const struct iot_event *ev, unsigned i)
{
    switch (i) {
#define IOT_FIELD_INT_(name, bit, member, type, key) \
    case IOT_FIELD_IDX_##name: return INT_OF_##type(ev, member);
    IOT_FIELDS(IOT_FIELD_INT_)
#undef IOT_FIELD_INT_
    }
    return 0;
}

#define STR_OF_I32(ev, m)     NULL
#define STR_OF_U32(ev, m)     NULL
#define STR_OF_I64(ev, m)     NULL
#define STR_OF_OCT(ev, m)     NULL
#define STR_OF_HEX(ev, m)     NULL
#define STR_OF_STR(ev, m)     (ev)->m
#define STR_OF_BUFMODE(ev, m) NULL

const char *iot_field_str(const struct iot_event *ev, unsigned i)
{
    switch (i) {
#define IOT_FIELD_STR_(name, bit, member, type, key) \
    case IOT_FIELD_IDX_##name: return STR_OF_##type(ev, member);
    IOT_FIELDS(IOT_FIELD_STR_)
#undef IOT_FIELD_STR_
    }
    return NULL;
}
