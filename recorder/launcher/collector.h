/*
 * collector.h - iorecord's collector: a process of its own that compresses
 * and writes the trace from the segment every recorded process appends to
 * (segment.h), so that no recorded process compresses, writes, or holds
 * records only in its private memory.
 */
#ifndef REC_COLLECTOR_H
#define REC_COLLECTOR_H

#include <sys/types.h>

struct rec_seg_hdr;

struct collector {
    pid_t pid;
    struct rec_seg_hdr *seg;     /* the launcher's mapping */
    int seg_fd;                  /* for the command: inherited across exec */
    int live_fd;                 /* write end of the liveness pipe, the same */
};

/*
 * Start the collector appending to trace_fd (which it takes), the trace
 * the user named `output` (for messages), to be renamed from spool onto
 * out should iorecord be gone when the last process ends (spool "" when
 * written in place). 0, or -1 with errno.
 */
int collector_start(struct collector *c, int trace_fd, const char *output,
                    const char *spool, const char *out);
/* The command was started with the fds: iorecord needs the mapping only. */
void collector_command_started(struct collector *c);
/*
 * Have everything published so far written (the chunks of exited processes
 * whole, the open chunks of live ones as they are) and wait for it.
 */
void collector_flush(struct collector *c);
/*
 * iorecord is done with the trace (renamed it onto the output). Until then
 * it holds the liveness pipe, so the collector cannot end, and rename the
 * spool, before iorecord's flush and rename.
 */
void collector_end(struct collector *c);

#endif
