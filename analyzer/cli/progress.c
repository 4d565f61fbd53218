/* The progress line (progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "msg.h"
#include "progress.h"

/* The clock is read once per this many events: a few hundred times a
   second at the analyzer's speed, nothing beside the events themselves. */
#define CHECK_EVERY 16384
/* Redraws at most this often (s). */
#define REDRAW 0.25
#define DEFAULT_DELAY 1.0

/* The one being shown: messages erase it first (iot_msg_before). */
static struct progress *current;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void erase(void)
{
    if (current && current->shown) {
        fputs("\r\033[K", stderr);
        current->shown = 0;
    }
}

/* "1.2 GiB" */
static void human_bytes(char *buf, size_t cap, uint64_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    unsigned u = 0;

    while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void draw(struct progress *p)
{
    char line[256], size[32];
    uint64_t done, total;
    int n;

    if (p->events < 1000000)
        n = snprintf(line, sizeof(line), "%s: %llu event%s", p->label,
                     (unsigned long long)p->events, p->events == 1 ? "" : "s");
    else
        n = snprintf(line, sizeof(line), "%s: %.1f M events", p->label, (double)p->events / 1e6);
    if (n > 0 && (size_t)n < sizeof(line) && input_progress(p->in, &done, &total) && total) {
        human_bytes(size, sizeof(size), total);
        snprintf(line + n, sizeof(line) - (size_t)n, ", %d%% of %s",
                 done >= total ? 100 : (int)(done * 100 / total), size);
    }
    /* one write: the line never shows half drawn */
    fprintf(stderr, "\r%s\033[K", line);
    p->shown = 1;
}

struct progress *progress_start(struct progress *p, const char *label, const struct input *in)
{
    const char *d = getenv("IOANALYZE_PROGRESS_DELAY");
    char *end;

    if (!label || !in || !isatty(STDERR_FILENO))
        return NULL;
    *p = (struct progress){.label = label, .in = in, .start = now_s(), .delay = DEFAULT_DELAY};
    if (d && *d) {
        double v = strtod(d, &end);

        if (*end == '\0' && v >= 0)
            p->delay = v;
    }
    current = p;
    iot_msg_before(erase);
    return p;
}

void progress_check(struct progress *p)
{
    double t = now_s();

    p->next_check = p->events + CHECK_EVERY;
    if (t - p->start < p->delay || (p->shown && t - p->drawn_at < REDRAW))
        return;
    draw(p);
    p->drawn_at = t;
}

void progress_end(struct progress *p)
{
    if (!p)
        return;
    erase();
    iot_msg_before(NULL);
    current = NULL;
}
