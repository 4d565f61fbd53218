/* fuzz_jsonl.c - the JSONL event parser, line by line, and its writer. */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "iotrace.h"

void fuzz_jsonl(const uint8_t *data, size_t size)
{
    struct iot_strtab *st = iot_strtab_create();
    struct iot_jsonl_scratch *sc = iot_jsonl_scratch_create();
    FILE *null = fopen("/dev/null", "w");
    const char *p = (const char *)data, *end = p + size;
    char err[IOT_ERRBUF_SIZE];
    struct iot_event ev;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

        /* whatever parses must also format */
        if (iot_jsonl_parse(p, len, &ev, st, sc, err) == 1 && null)
            iot_jsonl_write(null, &ev);
        p += len + 1;
    }
    if (null)
        fclose(null);
    iot_jsonl_scratch_free(sc);
    iot_strtab_free(st);
}

FUZZ_ENTRY(fuzz_jsonl)
