/*
 * pipe.h - a lone native trace read on a thread of its own (analyze_pipe.c).
 */
#ifndef ANALYZE_PIPE_H
#define ANALYZE_PIPE_H

#include <stddef.h>

#include "iotrace.h"

/* Called on the caller's thread with the next evs[0..n) in time order. */
typedef void analyze_pipe_fn(void *arg, const struct iot_event *const *evs, size_t n);

/*
 * Read tr to its end on a second thread, calling each with its events in
 * order on this one. 0 at the end, -1 with a message in errbuf (the
 * reader's, or out of memory).
 */
int analyze_pipe(struct iot_trace *tr, analyze_pipe_fn *each, void *arg, char *errbuf);

/* How many threads analyse the lone native trace tr: jobs, or when 0, 2
   (one reads, one analyses, and the reader's own decompresses ahead) where
   this process may run on two CPUs or more (its affinity mask) and tr has
   8 MiB or more, else 1. */
int analyze_threads(int jobs, const struct iot_trace *tr);

#endif /* ANALYZE_PIPE_H */
