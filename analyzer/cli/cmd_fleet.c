/*
 * ioanalyze fleet: runs the fleet program, ioanalyze-fleet (fleet/, Python
 * on Dask), as git runs git-foo. It analyses each trace with this same
 * ioanalyze (IOANALYZE names it to the program and to its local workers),
 * so the rules, config and plugins are ours (docs/fleet.md).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "install_dirs.h"
#include "msg.h"

#define FLEET_PROG "ioanalyze-fleet"

/* dir[0..dlen) + rest into out when it fits and is executable. */
static int candidate(char *out, size_t cap, const char *dir, size_t dlen, const char *rest)
{
    size_t rlen = strlen(rest);

    if (dlen + rlen + 1 > cap)
        return 0;
    memcpy(out, dir, dlen);
    memcpy(out + dlen, rest, rlen + 1);
    return access(out, X_OK) == 0;
}

/*
 * The fleet program. In order: beside us (as git finds git-foo); the
 * installed layout seen from where we are (BINDIR's prefix before
 * PKGLIBDIR/fleet, so a staged tree uses its own); the build tree
 * (../lib/fleet); PKGLIBDIR/fleet itself. 0, or -1 when none is there.
 */
static int find_fleet(char *out, size_t cap, char *self, size_t self_cap)
{
    size_t blen = strlen(IOSCOPE_BINDIR), dlen;
    ssize_t n = readlink("/proc/self/exe", self, self_cap - 1);

    if (n > 0) {
        self[n] = '\0';
        dlen = (size_t)(strrchr(self, '/') - self);
        if (candidate(out, cap, self, dlen, "/" FLEET_PROG))
            return 0;
        if (dlen >= blen && strncmp(self + dlen - blen, IOSCOPE_BINDIR, blen) == 0 &&
            candidate(out, cap, self, dlen - blen, IOSCOPE_PKGLIBDIR "/fleet/" FLEET_PROG))
            return 0;
        if (candidate(out, cap, self, dlen, "/../lib/fleet/" FLEET_PROG))
            return 0;
    } else {
        self[0] = '\0';
    }
    return candidate(out, cap, IOSCOPE_PKGLIBDIR, strlen(IOSCOPE_PKGLIBDIR),
                     "/fleet/" FLEET_PROG) ? 0 : -1;
}

int cmd_fleet(int argc, char **argv)
{
    char prog[PATH_MAX], self[PATH_MAX];

    (void)argc;
    if (find_fleet(prog, sizeof(prog), self, sizeof(self)) < 0) {
        iot_error("fleet: cannot find %s beside ioanalyze nor in %s/fleet/ "
                  "(make install puts it there)", FLEET_PROG, IOSCOPE_PKGLIBDIR);
        return 2;
    }
    if (self[0])
        setenv("IOANALYZE", self, 1);
    argv[0] = prog;
    execv(prog, argv);
    iot_error("fleet: cannot run '%s': %s", prog, strerror(errno));
    return 2;
}
