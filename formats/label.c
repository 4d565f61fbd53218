/*
 * label.c - the labels a recording is given (iorecord --label KEY=VALUE,
 * IORECORD_LABELS="k=v,k2=v2"): what a valid one is, and the list form
 * both the launcher and the preload read. Neither allocates, so the
 * preload may call them in its constructor.
 */
#include <stdio.h>
#include <string.h>

#include "iotrace.h"

#define IOT_STR2_(x) #x
#define IOT_STR_(x) IOT_STR2_(x)

static int key_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

int iot_label_check(const char *key, size_t klen, const char *value, size_t vlen, char *errbuf)
{
    const char *why = NULL;

    if (klen == 0)
        why = "an empty key";
    else if (klen > IOT_LABEL_MAX_KEY)
        why = "a key longer than " IOT_STR_(IOT_LABEL_MAX_KEY) " bytes";
    else if (vlen > IOT_LABEL_MAX_VALUE)
        why = "a value longer than " IOT_STR_(IOT_LABEL_MAX_VALUE) " bytes";
    for (size_t i = 0; !why && i < klen; i++)
        if (!key_char((unsigned char)key[i]))
            why = "a key not of [A-Za-z0-9_.-]";
    /* ',' separates the labels of IORECORD_LABELS: no value can hold it */
    for (size_t i = 0; !why && i < vlen; i++)
        if ((unsigned char)value[i] < 0x20 || (unsigned char)value[i] > 0x7e || value[i] == ',')
            why = "a value with a character that is not printable ASCII, or a ','";
    if (!why)
        return 0;
    if (errbuf)
        snprintf(errbuf, IOT_ERRBUF_SIZE, "label '%.*s': %s", (int)(klen > 64 ? 64 : klen),
                 key, why);
    return -1;
}

int iot_labels_parse(const char *list, iot_label_fn *each, void *arg, char *errbuf)
{
    const char *p = list;
    int n = 0;

    if (!list || !*list)
        return 0;
    for (;;) {
        const char *end = strchr(p, ','), *eq;
        size_t len = end ? (size_t)(end - p) : strlen(p);

        eq = memchr(p, '=', len);
        if (!eq) {
            if (errbuf)
                snprintf(errbuf, IOT_ERRBUF_SIZE, "label '%.*s': not KEY=VALUE",
                         (int)(len > 64 ? 64 : len), p);
            return -1;
        }
        if (iot_label_check(p, (size_t)(eq - p), eq + 1, len - (size_t)(eq - p) - 1, errbuf) < 0)
            return -1;
        if (++n > IOT_LABEL_MAX_COUNT) {
            if (errbuf)
                snprintf(errbuf, IOT_ERRBUF_SIZE, "more than %d labels", IOT_LABEL_MAX_COUNT);
            return -1;
        }
        if (each)
            each(arg, p, (size_t)(eq - p), eq + 1, len - (size_t)(eq - p) - 1);
        if (!end)
            return n;
        p = end + 1;
    }
}
