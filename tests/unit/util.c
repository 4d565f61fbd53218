#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static char tmp_dir[64];

const char *unit_tmp_path(const char *name)
{
    static char path[128];

    if (!tmp_dir[0]) {
        strcpy(tmp_dir, "/tmp/ioscope-unit-XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(tmp_dir) != NULL);
    }
    snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
    return path;
}

void unit_tmp_remove(void)
{
    char cmd[sizeof(tmp_dir) + 16];

    if (!tmp_dir[0] || getenv("IOSCOPE_KEEP"))
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp_dir);
}

unsigned char *unit_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;

    CU_ASSERT_FATAL(f != NULL);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    buf = malloc(*len ? *len : 1);
    CU_ASSERT_FATAL(buf != NULL && fread(buf, 1, *len, f) == *len);
    fclose(f);
    return buf;
}

void unit_spill(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");

    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_FATAL(fwrite(buf, 1, len, f) == len);
    fclose(f);
}
