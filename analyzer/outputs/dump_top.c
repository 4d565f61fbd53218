/* The N slowest calls of a dump (dump_top.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump_top.h"
#include "heap.h"

struct top_call {
    int64_t dur;
    uint64_t seq;      /* order seen: of equal durations the earlier is kept, and first */
    char *text;
    size_t len;
};

struct dump_top {
    struct top_call *heap;   /* the fastest kept call on top */
    size_t n, max;
    uint64_t seq;
    FILE *mem;
    char *buf;
    size_t bufsize;
};

/* Heap order: the call to drop first (faster; of equal ones the later) on top. */
static int drops_before(const struct top_call *a, const struct top_call *b)
{
    return a->dur < b->dur || (a->dur == b->dur && a->seq > b->seq);
}

#define TOP_BEFORE(ctx, x, y) ((void)(ctx), drops_before(x, y))
IOT_HEAP_DEFINE(top_heap, struct top_call, const void *, TOP_BEFORE, IOT_HEAP_UNPLACED)

struct dump_top *dump_top_create(size_t n)
{
    struct dump_top *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    t->max = n;
    t->heap = calloc(n, sizeof(*t->heap));
    t->mem = open_memstream(&t->buf, &t->bufsize);
    if (!t->heap || !t->mem) {
        dump_top_free(t);
        return NULL;
    }
    return t;
}

int dump_top_wants(const struct dump_top *t, const struct iot_event *ev)
{
    /* a later call of the same duration as the fastest kept one loses */
    return t->n < t->max || ev->dur > t->heap[0].dur;
}

FILE *dump_top_begin(struct dump_top *t)
{
    rewind(t->mem);
    return t->mem;
}

int dump_top_end(struct dump_top *t, const struct iot_event *ev)
{
    long len;
    char *text;

    if (fflush(t->mem) != 0 || (len = ftell(t->mem)) < 0)
        return -1;
    text = malloc((size_t)len + 1);
    if (!text)
        return -1;
    memcpy(text, t->buf, (size_t)len);
    if (t->n == t->max) {
        free(t->heap[0].text);
        t->heap[0] = (struct top_call){ev->dur, t->seq++, text, (size_t)len};
        top_heap_fix(NULL, t->heap, t->n, 0);
    } else {
        t->heap[t->n++] = (struct top_call){ev->dur, t->seq++, text, (size_t)len};
        top_heap_fix(NULL, t->heap, t->n, t->n - 1);
    }
    return 0;
}

static int slowest_first(const void *a, const void *b)
{
    const struct top_call *x = a, *y = b;

    return drops_before(y, x) ? -1 : drops_before(x, y) ? 1 : 0;
}

int dump_top_finish(struct dump_top *t, int (*emit)(void *arg, const char *s, size_t len),
                    void *arg)
{
    int ret = 0;

    qsort(t->heap, t->n, sizeof(*t->heap), slowest_first);
    for (size_t i = 0; i < t->n && ret == 0; i++)
        ret = emit(arg, t->heap[i].text, t->heap[i].len);
    dump_top_free(t);
    return ret;
}

void dump_top_free(struct dump_top *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->heap[i].text);
    free(t->heap);
    if (t->mem)
        fclose(t->mem);
    free(t->buf);
    free(t);
}
