/*
 * perfetto.h - `ioanalyze dump --format perfetto`: the Chrome trace-event
 * JSON that ui.perfetto.dev and chrome://tracing open. Written as the events
 * go by (nothing is held per event): a track per thread, process and
 * thread names as metadata ("M") events, each call a complete ("X") event
 * with its path, size and result, each exit an instant; the issues follow
 * as instants when the analysis is done.
 */
#ifndef PERFETTO_H
#define PERFETTO_H

#include <stdio.h>

#include <jansson.h>

#include "issue_rec.h"

#include "engine.h"

struct perfetto;

/* Starts the JSON object on f; NULL out of memory. */
struct perfetto *perfetto_begin(FILE *f);
/* struct analyze_opts' observe hook: arg is the struct perfetto. */
void perfetto_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n);
/* dump --top (output_format.h): one call as one complete event to `to`,
   and such an event put into the array. */
void perfetto_write_call(void *arg, FILE *to, struct engine *e, const struct iot_event *ev);
int perfetto_put_element(void *arg, const char *s, size_t len);
/* The issues as instants on their threads, then the end of the JSON; frees
   pf. 0, or -1 on a write error. */
int perfetto_end(struct perfetto *pf, const struct issue_list *issues);

#endif /* PERFETTO_H */
