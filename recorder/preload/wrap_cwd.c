/*
 * wrap_cwd.c - chdir and fchdir: followed by the cached cwd where a filter
 * may stand (cwd.c), and recorded as a cwd call (the analyzer takes paths
 * under it as relative to it).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "real.h"
#include "rec.h"
#include "sandbox.h"
#include "wrap.h"

/* The new cwd as a cwd call, through rec_call. */
static void cwd_record(void)
{
    char buf[PATH_MAX];
    struct iot_event ev = rec_event(IOT_OP_CWD, 0, 0);
    int saved = errno;
    uint64_t s;

    if (rec_active && rec_cwd_now(buf, sizeof(buf))) {
        s = rec_stamp();
        rec_call(&ev, buf, NULL, NULL, s, s);
    }
    errno = saved;
}

REAL_HERE(int, chdir, (const char *));
REAL_HERE(int, fchdir, (int));

int chdir(const char *path)
{
    int r = CALL_REAL(-1, chdir, path);

    /* followed only where the cache stands in for getcwd */
    if (r == 0 && rec_active && rec_filter_may_stand()) {
        int saved = errno;

        rec_cwd_moved(path);   /* it succeeded: the kernel read path */
        errno = saved;
    }
    if (r == 0)
        cwd_record();
    return r;
}

int fchdir(int fd)
{
    int r = CALL_REAL(-1, fchdir, fd);

    if (r == 0 && rec_filter_may_stand())
        rec_cwd_forget();
    if (r == 0)
        cwd_record();
    return r;
}
