/*
 * heap.h - the binary min-heap the analyzer's queues share: the merge of
 * its inputs (input.c), the strace logs by next line and by held event
 * (strace_lines.c), the strace events held for ordering (strace_heap.c)
 * and the unfinished calls (strace_tasks.c).
 *
 * Generated per element type, so that the comparison inlines:
 *
 *   IOT_HEAP_DEFINE(name, type, ctx_type, before, placed)
 *
 * defines `static void name_fix(ctx_type ctx, type *a, size_t n, size_t i)`,
 * which moves a[i] up or down to its place among a[0..n). before(ctx, x, y)
 * (pointers to elements) is nonzero when x comes out before y: a strict
 * order. placed(ctx, a, i) runs each time an element is stored at a[i], for
 * elements that know their place (IOT_HEAP_UNPLACED when none do).
 *
 *   push:     a[n] = x; name_fix(ctx, a, n + 1, n)
 *   pop:      top = a[0]; a[0] = a[n - 1]; name_fix(ctx, a, n - 1, 0) if n > 1
 *   remove i: a[i] = a[n - 1]; name_fix(ctx, a, n - 1, i) if i < n - 1
 *   re-key i: name_fix(ctx, a, n, i)
 *
 * (The reader's merge of a trace's thread streams is not one of these: it is
 * tuned for its one comparison per event, formats/reader_merge.c.)
 */
#ifndef IOT_HEAP_H
#define IOT_HEAP_H

#include <stddef.h>

#define IOT_HEAP_UNPLACED(ctx, a, i) ((void)0)

#define IOT_HEAP_DEFINE(name, type, ctx_type, before, placed)                   \
    static void name##_fix(ctx_type ctx, type *a, size_t n, size_t i)           \
    {                                                                           \
        type x_ = a[i];                                                         \
        int up_ = 0;                                                            \
                                                                                \
        (void)ctx;   /* for orders and places that need none */                \
        while (i > 0 && before(ctx, &x_, &a[(i - 1) / 2])) {                    \
            a[i] = a[(i - 1) / 2];                                              \
            placed(ctx, a, i);                                                  \
            i = (i - 1) / 2;                                                    \
            up_ = 1;                                                            \
        }                                                                       \
        while (!up_) {                                                          \
            size_t c_ = 2 * i + 1;                                              \
                                                                                \
            if (c_ >= n)                                                        \
                break;                                                          \
            if (c_ + 1 < n && before(ctx, &a[c_ + 1], &a[c_]))                  \
                c_++;                                                           \
            if (!before(ctx, &a[c_], &x_))                                      \
                break;                                                          \
            a[i] = a[c_];                                                       \
            placed(ctx, a, i);                                                  \
            i = c_;                                                             \
        }                                                                       \
        a[i] = x_;                                                              \
        placed(ctx, a, i);                                                      \
    }

#endif
