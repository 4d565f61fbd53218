/*
 * read_trace - decodes every event of traces with the format library and
 * prints the decode rate: the floor under anything the analyzer does.
 *   read_trace TRACE...
 */
#include <stdio.h>
#include <time.h>

#include "iotrace.h"

int main(int argc, char **argv)
{
    struct iot_strtab *st = iot_strtab_create();
    char err[IOT_ERRBUF_SIZE];
    struct iot_trace *tr;
    const struct iot_event *ev;
    struct timespec a, b;
    unsigned long long n = 0, bytes = 0;
    int r;

    if (argc < 2) {
        fprintf(stderr, "usage: read_trace TRACE...\n");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    tr = iot_trace_open((const char *const *)argv + 1, (size_t)argc - 1, st, err);
    if (!tr) {
        fprintf(stderr, "read_trace: %s\n", err);
        return 2;
    }
    while ((r = iot_trace_next_ref(tr, &ev, err)) == 1) {
        n++;
        bytes += (unsigned long long)ev->size;  /* touch the event */
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%llu events in %.3f s: %.1f M events/s (checksum %llu)\n", n, secs, (double)n / secs / 1e6, bytes);
    iot_trace_close(tr);
    iot_strtab_free(st);
    return r < 0;
}
