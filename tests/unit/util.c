#include <stdlib.h>
#include <time.h>

#include "unit.h"

uint64_t unit_seed(void)
{
    static uint64_t seed;
    const char *s;

    if (seed)
        return seed;
    s = getenv("IOSCOPE_SEED");
    seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    if (!seed)
        seed = 1;
    return seed;
}

uint64_t unit_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}
