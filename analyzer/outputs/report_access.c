/*
 * What the HTML report's charts need beyond the sums (report.h): each data
 * call's request size in a log2 histogram, and where in its file it went.
 * A file's data calls at a known offset are counted, and those that did not
 * start where the one before ended (jumps); a file that jumps keeps points
 * (time, offset, length) for the offsets-over-time chart, within bounds
 * whatever the trace's length: REPORT_OFFSET_FILES files, each
 * REPORT_OFFSET_POINTS points, thinned as they fill.
 */
#include <stdlib.h>

#include "report.h"
#include "saturate.h"

/* How many jumps a file makes before it keeps points: one seek back to
   the start is no random access. */
#define JUMPS_TO_KEEP 4
/* What the chart calls random: at least this many jumps, and one data call
   in RANDOM_SHARE jumping. */
#define RANDOM_JUMPS 8
#define RANDOM_SHARE 4

static int size_bucket(int64_t size)
{
    int k = 0;

    while (size > 1 && k < REPORT_SIZE_BUCKETS - 1) {
        size >>= 1;
        k++;
    }
    return k;
}

/* The offsets of the file keeping points that jumped least, for a file
   that jumped far more; NULL when every one is worth more. */
static struct report_offsets *take_points(struct report *r, const struct report_file *f)
{
    struct report_file *least = NULL;

    for (size_t i = 0; i < r->nfile; i++) {
        struct report_file *g = r->filev[i];

        if (g->offsets && (!least || g->jumps < least->jumps))
            least = g;
    }
    if (!least || f->jumps <= 2 * least->jumps)
        return NULL;
    struct report_offsets *o = least->offsets;

    least->offsets = NULL;
    return o;
}

static void keep_point(struct report_offsets *o, int64_t t, int64_t off, int64_t len, int write)
{
    if (++o->skip < o->stride)
        return;
    o->skip = 0;
    if (o->n == REPORT_OFFSET_POINTS) {
        /* full: every other point, and half as many from now on */
        for (size_t i = 0; i < REPORT_OFFSET_POINTS / 2; i++)
            o->v[i] = o->v[2 * i];
        o->n = REPORT_OFFSET_POINTS / 2;
        o->stride *= 2;
    }
    o->v[o->n++] = (struct report_point){t, off, len > INT32_MAX ? INT32_MAX : (int32_t)len, write};
}

void report_access(struct report *r, struct engine *e, const struct iot_event *ev,
                   struct report_file *f, int dir)
{
    int64_t size = ev->has & IOT_HAS_SIZE ? ev->size : ev->ret, off, len;

    r->sizes[dir == IOT_DIR_WRITE][size_bucket(size)]++;
    if (!f || !engine_call_offset(e, ev, &off))
        return;
    len = ev->ret > 0 ? ev->ret : 0;
    f->accesses++;
    if (f->next_off >= 0 && off != f->next_off)
        f->jumps++;
    f->next_off = iot_sadd(off, len);   /* a hostile trace's offsets saturate */
    if (!f->offsets && f->jumps >= JUMPS_TO_KEEP) {
        if (r->noffsets < REPORT_OFFSET_FILES) {
            if ((f->offsets = calloc(1, sizeof(*f->offsets))) != NULL)
                r->noffsets++;
        } else {
            f->offsets = take_points(r, f);
        }
        if (f->offsets)
            *f->offsets = (struct report_offsets){.stride = 1};
    }
    if (f->offsets)
        keep_point(f->offsets, ev->t, off, len, dir == IOT_DIR_WRITE);
}

size_t report_random_files(const struct report *r, const struct report_file **v, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < r->nfile; i++) {
        const struct report_file *f = r->filev[i];
        size_t k;

        if (!f->offsets || f->jumps < RANDOM_JUMPS || f->jumps * RANDOM_SHARE < f->accesses)
            continue;
        /* insertion into the top max by jumps */
        for (k = n; k > 0 && v[k - 1]->jumps < f->jumps; k--)
            if (k < max)
                v[k] = v[k - 1];
        if (k < max) {
            v[k] = f;
            n += n < max;
        }
    }
    return n;
}
