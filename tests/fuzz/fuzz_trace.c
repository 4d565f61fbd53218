/* fuzz_trace.c - the native trace reader on arbitrary bytes. */
#include "fuzz.h"
#include "iotrace.h"

void fuzz_trace(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    struct iot_strtab *st = iot_strtab_create();
    char err[IOT_ERRBUF_SIZE];
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    struct iot_event ev;

    if (tr) {
        while (iot_trace_next(tr, &ev, err) == 1)
            ;
        iot_trace_close(tr);
    }
    iot_strtab_free(st);
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_trace)
