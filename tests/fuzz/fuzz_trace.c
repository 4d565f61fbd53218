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
    const struct iot_event *ref;

    if (tr) {
        /* both ways of reading: by copy, and by reference as the analyzer does */
        if (size & 1)
            while (iot_trace_next_ref(tr, &ref, err) == 1)
                ;
        else
            while (iot_trace_next(tr, &ev, err) == 1)
                ;
        iot_trace_close(tr);
    }
    iot_strtab_free(st);
    fuzz_file_close();
}

FUZZ_ENTRY(fuzz_trace)
