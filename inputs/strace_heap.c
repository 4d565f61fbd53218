/*
 * strace_heap.c - the strace importer's events out in time order.
 *
 * Lines are taken in time order (strace_log_earliest), but their events do
 * not always follow: a call left <unfinished ...> is emitted when it resumes
 * and carries the time it started, and an open waits for the -k stack lines
 * under it. So events wait in a min-heap on (time, arrival) until no line
 * still to come can yield an earlier one (release_bound).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "heap.h"
#include "strace_int.h"

/* Events held back for ordering; beyond this they leave even if a call that
 * started earlier is still unfinished (a thread blocked for the whole run). */
#define MAX_HELD 65536

/* Earlier time first; equal times in the order they were emitted. */
static int qev_less(const struct strace_qev *a, const struct strace_qev *b)
{
    return a->ev.t < b->ev.t || (a->ev.t == b->ev.t && a->seq < b->seq);
}

#define QEV_BEFORE(ctx, x, y) qev_less(x, y)
IOT_HEAP_DEFINE(qev_heap, struct strace_qev, void *, QEV_BEFORE, IOT_HEAP_UNPLACED)

int strace_emit(struct strace_src *s, const struct iot_event *ev)
{
    size_t i;

    if (s->nheap == s->capheap &&
        iot_grow(&s->heap, &s->capheap, s->nheap + 1, sizeof(*s->heap)) < 0)
        return -1;
    i = s->nheap++;
    s->cur->info.events++;
    s->heap[i].ev = *ev;
    s->heap[i].seq = s->seq++;
    qev_heap_fix(NULL, s->heap, s->nheap, i);
    return 0;
}

static void heap_pop(struct strace_src *s, struct iot_event *ev)
{
    *ev = s->heap[0].ev;
    s->heap[0] = s->heap[--s->nheap];
    if (s->nheap > 1)
        qev_heap_fix(NULL, s->heap, s->nheap, 0);
}

/*
 * Events earlier than this may leave: no line still to come and no
 * unfinished call can produce an event that starts before it.
 */
static int64_t release_bound(struct strace_src *s, const struct strace_log *next,
                             int64_t pend_oldest)
{
    int64_t bound = next ? next->abs - s->origin : INT64_MAX;

    if (next && pend_oldest < bound)
        bound = pend_oldest;
    if (s->logq[LOGQ_HELD].n && s->logq[LOGQ_HELD].a[0]->held.ev.t < bound)
        bound = s->logq[LOGQ_HELD].a[0]->held.ev.t;
    return bound;
}

int strace_pop(struct strace_src *s, const struct strace_log *next, int64_t pend_oldest,
               struct iot_event *ev)
{
    if (!s->nheap)
        return 0;
    if (s->nheap < MAX_HELD && s->heap[0].ev.t > release_bound(s, next, pend_oldest))
        return 0;
    heap_pop(s, ev);
    return 1;
}

/* ------------------------------------------------------- -k stacks */

int strace_flush_held(struct strace_src *s, struct strace_log *l)
{
    struct strace_log *cur = s->cur;
    int rc;

    if (!l->held.has)
        return 0;
    l->held.has = 0;
    strace_logq_update(&s->logq[LOGQ_HELD], l, 0);
    if (l->held.stklen) {
        l->held.ev.stack = iot_intern(s->st, l->held.stk, l->held.stklen);
        if (!l->held.ev.stack)
            return -1;
        l->held.ev.has |= IOT_HAS_STACK;
    }
    /* the event counts for the log that held it */
    s->cur = l;
    rc = strace_emit(s, &l->held.ev);
    s->cur = cur;
    return rc;
}

int strace_emit_open(struct strace_src *s, const struct iot_event *ev)
{
    struct strace_log *l = s->cur;

    if (l->held.no_k)
        return strace_emit(s, ev);
    if (strace_flush_held(s, l) < 0)
        return -1;
    l->held.ev = *ev;
    l->held.has = 1;
    strace_logq_update(&s->logq[LOGQ_HELD], l, 1);
    l->held.frames = 0;
    l->held.stklen = 0;
    return 0;
}

/*
 * The frame is added in the recorder's form: "func+0xOFF (module)", or
 * "module+0xOFF" without a symbol. Frames inside libc before the first frame
 * of the program are dropped: the recorder's stacks start at the caller of
 * the libc function.
 */
int strace_stack_frame(struct strace_src *s, struct strace_log *l, const char *body, size_t n)
{
    struct strace_held *h = &l->held;
    const char *mod = NULL, *fn = NULL, *off = NULL, *base = NULL;
    long ml, fl, ol;
    char frame[512];
    int len;

    if (!h->has)
        return 0;
    h->frames++;
    if (strace_re_match(s, s->re_frame, body, n) <= 0)
        return 0;
    ml = strace_re_group(s, 1, body, &mod);
    fl = strace_re_group(s, 2, body, &fn);
    ol = strace_re_group(s, 3, body, &off);
    base = mod;
    for (long i = 0; i < ml; i++)
        if (mod[i] == '/')
            base = mod + i + 1;
    if (!h->stklen && ml - (base - mod) >= 7 && memcmp(base, "libc.so", 7) == 0)
        return 0;
    /* a frame strace could not name keeps the module's path, as the
       recorder's frames do, so that ioanalyze symbolizes it */
    if (fl > 0)
        len = snprintf(frame, sizeof(frame), "%s%.*s (%.*s)", h->stklen ? "\n" : "",
                       (int)fl, fn, (int)(ml - (base - mod)), base);
    else
        len = snprintf(frame, sizeof(frame), "%s%.*s+%.*s", h->stklen ? "\n" : "",
                       (int)(mod[0] == '/' ? ml : ml - (base - mod)), mod[0] == '/' ? mod : base,
                       (int)ol, off);
    if (len < 0 || (size_t)len >= sizeof(frame))
        return 0;
    if (iot_grow(&h->stk, &h->stkcap, h->stklen + (size_t)len + 1, 1) < 0)
        return -1;
    memcpy(h->stk + h->stklen, frame, (size_t)len);
    h->stklen += (size_t)len;
    return 0;
}

int strace_stack_end(struct strace_src *s, struct strace_log *l)
{
    if (l->held.has && !l->held.frames)
        l->held.no_k = 1;
    return strace_flush_held(s, l);
}
