/*
 * dump_filter.h - which events `ioanalyze dump` writes: --pid, --tid,
 * --path, --op, --since, --until, --min-dur and --config's ignore patterns
 * (docs/analyzer.md, "Dump filters"). --top N is dump_top.h's.
 *
 * A call is written when every filter given admits it. An event of another
 * kind (process, thread, exit, module) is written when no filter of calls
 * only (--tid, --path, --op, --min-dur, --top) is given and
 * --pid, --since and --until admit it; a format that names its tracks
 * (perfetto) takes the process and thread events of the pids admitted
 * whatever the rest.
 */
#ifndef DUMP_FILTER_H
#define DUMP_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "issue_rec.h"

#include "config.h"
#include "engine.h"

struct dump_filter {
    int32_t *pids; size_t npids;     /* none: every pid */
    int32_t *tids; size_t ntids;
    const char *path;                /* a glob (fnmatch, no flags: * crosses /) */
    uint8_t *ops;                    /* IOT_OP_COUNT flags, NULL: every op */
    /* --since, --until: on the trace's clock (t) or, abs, in Unix ms */
    int has_since, has_until, since_abs, until_abs;
    int64_t since, until;
    int64_t min_dur;                 /* ns; 0: none */
    size_t top;                      /* --top N: dump_top.h */
    const struct config *ignore;     /* --config: its ignore_paths; NULL none */
    int calls_only;                  /* a filter of calls only is given */
};

/*
 * Sets the filter's option name (without dashes) from value. 0, or -1
 * with one line in err (size bytes) saying what is wrong with value.
 */
int dump_filter_set(struct dump_filter *f, const char *name, const char *value, char *err,
                    size_t size);
/* Whether any filter is given. */
int dump_filter_any(const struct dump_filter *f);
/*
 * Whether ev is written; e answers its path and Unix time (the engine
 * before it is fed ev). names: the format names tracks (see above).
 */
int dump_filter_admit(const struct dump_filter *f, struct engine *e, const struct iot_event *ev,
                      int names);
/* Whether an issue (its pid, tid and path) is shown. */
int dump_filter_admit_issue(const struct dump_filter *f, const struct issue *issue);
void dump_filter_release(struct dump_filter *f);

#endif /* DUMP_FILTER_H */
