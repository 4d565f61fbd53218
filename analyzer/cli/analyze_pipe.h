/*
 * pipe.h - a lone native trace read on a thread of its own (analyze_pipe.c).
 */
#ifndef ANALYZE_PIPE_H
#define ANALYZE_PIPE_H

#include <stddef.h>

#include "engine.h"
#include "iotrace.h"

/*
 * Where the events go, on the caller's thread, in time order: the next
 * evs[0..n) to events; the next calls c[0..n) that stand for events
 * (struct engine_call) to calls, or when calls is NULL, those events to
 * events too.
 */
struct pipe_sink {
    void (*events)(void *arg, const struct iot_event *const *evs, size_t n);
    void (*calls)(void *arg, const struct engine_call *c, size_t n);
    void *arg;
};

/*
 * Read tr to its end on a second thread, handing its events to `to` in
 * order on this one. 0 at the end, -1 with a message in errbuf (the
 * reader's, or out of memory).
 */
int analyze_pipe(struct iot_trace *tr, const struct pipe_sink *to, char *errbuf);

/* How many threads analyse the lone native trace tr: jobs, or when 0, 2
   (one reads, one analyses, and the reader's own decompresses ahead) where
   this process may run on two CPUs or more (its affinity mask) and tr has
   8 MiB or more, else 1. */
int analyze_threads(int jobs, const struct iot_trace *tr);

#endif /* ANALYZE_PIPE_H */
