/*
 * progress.h - the one progress line of ioanalyze, for every command that
 * reads whole inputs (analyze, profile, dump, info, diff): the events read
 * and, when the inputs' sizes are known, the share of their bytes read (of
 * a compressed trace, the compressed bytes), e.g.
 *
 *     ioanalyze analyze: 12.4 M events, 37% of 41.2 MiB
 *
 * drawn on stderr only when it is a terminal, redrawn at most four times a
 * second, erased when reading ends and before any message (msg.h). A
 * command whose output streams to the terminal (dump) passes no label then.
 *
 * IOANALYZE_PROGRESS_DELAY=SECONDS: how long reading goes on before the line
 * first appears (default 1, so quick runs show nothing; 0: at the first
 * events, which makes it certain for tests).
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>

struct input;

/* Filled by progress_start; the caller only keeps it. */
struct progress {
    uint64_t events;       /* read so far */
    uint64_t next_check;   /* at this count the clock is read again */
    const char *label;
    const struct input *in;
    double start, delay, drawn_at;
    int shown;             /* the line is on the terminal now */
};

/*
 * Progress of reading in, labelled label ("ioanalyze dump"). Returns p, or
 * NULL when nothing is to be shown (label NULL, stderr not a terminal);
 * progress_add() and progress_end() take that NULL and do nothing.
 */
struct progress *progress_start(struct progress *p, const char *label, const struct input *in);

/* Not for callers: progress_add() calls it now and then. */
void progress_check(struct progress *p);

/* n more events read; cheap enough to call for every event. */
static inline void progress_add(struct progress *p, uint64_t n)
{
    if (p && (p->events += n) >= p->next_check)
        progress_check(p);
}

/* Reading is over: erase the line. */
void progress_end(struct progress *p);

#endif /* PROGRESS_H */
