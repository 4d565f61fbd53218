/* path.c - see path.h. Only strlen, memcpy and strrchr: safe in the recorder. */
#include <string.h>

#include "path.h"

const char *iot_path_skip_dot(const char *rel)
{
    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    return rel;
}

size_t iot_path_join(char *buf, size_t cap, size_t dirlen, const char *rel)
{
    size_t rl;

    rel = iot_path_skip_dot(rel);
    if (rel[0] == '.' && rel[1] == '\0')
        rel++;
    rl = strlen(rel);
    if (dirlen + 1 + rl + 1 > cap)
        return 0;
    /* "/" is the one directory that already ends in a separator */
    if (dirlen > 1 && rl)
        buf[dirlen++] = '/';
    memcpy(buf + dirlen, rel, rl + 1);
    return dirlen + rl;
}

const char *iot_path_base(const char *p)
{
    const char *s;

    if (!p)
        return "unknown";
    s = strrchr(p, '/');
    return s ? s + 1 : p;
}
