/* fuzz_strace.c - the strace log parser on arbitrary text. */
#include <stdio.h>

#include "fuzz.h"
#include "iotrace.h"
#include "strace.h"

void fuzz_strace(const uint8_t *data, size_t size)
{
    struct iot_strtab *st = iot_strtab_create();
    char err[IOT_ERRBUF_SIZE];
    struct strace_src *s;
    struct strace_info info;
    struct iot_event ev;
    FILE *f;

    /* fmemopen refuses a zero-sized buffer; an empty log is still a case */
    f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "r");
    if (!f || !st)
        goto out;
    strace_detect((const char *)data, size);
    /* a -ff name makes the parser take its pid from the file name */
    s = strace_open(f, size & 1 ? "fuzz.log.4242" : "fuzz.log", st, err);
    if (s) {
        while (strace_next(s, &ev, err) == 1)
            ;
        strace_info(s, &info);
        strace_close(s);
    }
out:
    if (f)
        fclose(f);
    iot_strtab_free(st);
}

FUZZ_ENTRY(fuzz_strace)
