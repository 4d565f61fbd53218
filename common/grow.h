/*
 * grow.h - the one growable array of ioscope: capacity doubles, the size
 * computation cannot overflow, and a failed allocation leaves the array as
 * it was.
 *
 *     struct row *rows = NULL; size_t cap = 0, n = 0;
 *     if (n == cap && iot_grow(&rows, &cap, n + 1, sizeof(*rows)) < 0)
 *         return -1;
 *     rows[n++] = r;
 */
#ifndef IOT_GROW_H
#define IOT_GROW_H

#include <stddef.h>

/*
 * Makes *arrayp (an array of *capp elements of elsize bytes, possibly NULL)
 * hold at least `need` elements. Returns 0, or -1 when out of memory or when
 * need * elsize would overflow; *arrayp and *capp are then unchanged.
 * arrayp is the address of the array pointer (any element type).
 */
int iot_grow(void *arrayp, size_t *capp, size_t need, size_t elsize);

#endif /* IOT_GROW_H */
