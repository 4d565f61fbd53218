/* grow.c - see grow.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* The first allocation holds this many elements (or `need`, if more). */
#define GROW_FIRST 16

int iot_grow(void *arrayp, size_t *capp, size_t need, size_t elsize)
{
    void *old, *n;
    size_t cap = *capp;

    if (need <= cap)
        return 0;
    cap = cap ? cap : GROW_FIRST;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    if (elsize && cap > SIZE_MAX / elsize)
        return -1;
    memcpy(&old, arrayp, sizeof(old));
    n = realloc(old, cap * elsize);
    if (!n)
        return -1;
    memcpy(arrayp, &n, sizeof(n));
    *capp = cap;
    return 0;
}
