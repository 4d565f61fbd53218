/*
 * creds.c - a process whose credentials change lets go of the recording
 * first.
 *
 * Under iorecord every recorded process maps the collector's segment, which
 * holds the records of every process of the run (root's command lines, the
 * paths it opened), and holds its memfd and liveness pipe. A daemon that
 * drops to another user (setuid(nobody) in nginx's workers) and is then
 * taken over must not read those records nor harm the collector; without a
 * collector, its trace fd could truncate the trace. So before any call
 * that changes the process's user ids, group ids or supplementary groups,
 * through libc or through syscall(), the recorder:
 *   - records `unrecorded` with mode `creds` and the executable's path (the
 *     process was recorded up to that call) and publishes it;
 *   - turns recording off in the process (every wrapper passes through);
 *   - replaces the segment's mapping with private memory in place (a thread
 *     in the middle of an append writes there harmlessly instead of
 *     faulting), and closes the memfd (its POSIX lock goes with it: the
 *     collector sees the process gone and writes what it published, as
 *     after a kill) and the pipe; without a collector it writes its queue
 *     and closes the trace fd;
 *   - leaves its children unrecorded too: the exec and spawn wrappers take
 *     the library out of LD_PRELOAD and drop the IORECORD_ variables
 *     (rec_env_unpreload), so no child tries to open the root-owned trace.
 * A process the kernel started secure (AT_SECURE: setuid, setgid, file
 * capabilities), should the loader have preloaded us at all, does the same
 * at start-up.
 *
 * Under iorecord's kernel path (as root) the process asks for it first
 * (kernel_ask.c): the kernel path records its file syscalls from the
 * credential change on, so the worker is recorded after all, by the root
 * launcher, and holds nothing of the recorder's.
 *
 * Why not record the worker on through a channel of its own: it could only
 * write frames to an fd the collector reads. A trace file fd can be
 * truncated by its holder, and a pipe or socket the collector polls is a
 * new input for it; until it has one, the worker is listed as unrecorded.
 * A call that changes nothing (setuid to the uid the process has in all
 * three places, setgroups to its current groups) is passed through while
 * recording goes on: servers make them to check.
 */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>
#include <sys/mman.h>

#include "internal.h"
#include "real.h"

static int let_go;   /* recording was given up here: children are not preloaded */

int rec_unpreloaded(void)
{
    return __atomic_load_n(&let_go, __ATOMIC_ACQUIRE);
}

/* The executable's path, for the `unrecorded` record ("?" when unknown). */
static const char *exe_path(char *buf, size_t cap)
{
    long n = syscall(SYS_readlink, "/proc/self/exe", buf, cap - 1);

    if (n <= 0)
        return "?";
    buf[n] = '\0';
    return buf;
}

static void record_given_up(void)
{
    struct iot_event ev = rec_event(IOT_OP_UNRECORDED, 0, 0);
    char exe[PATH_MAX];
    uint64_t s = rec_stamp();

    ev.has |= IOT_HAS_PATH | IOT_HAS_MODE;
    rec_call(&ev, exe_path(exe, sizeof(exe)), "creds", NULL, s, s);
    rec_flush_all();
}

/* Close one of the recorder's fds; it is the program's number again. */
static void close_own(int kind)
{
    int fd = rec_own_fd_get(kind);

    if (fd < 0)
        return;
    rec_own_fd_set(kind, -1);
    syscall(SYS_close, fd);
}

void rec_let_go(void)
{
    int saved = errno;

    if (rec_guard == REC_GUARD_OFF) {
        /* A vfork child: its memory is its parent's, which records on;
           only its fd table is its own (the exec wrappers see the fds
           gone and do not preload its program). */
        for (int k = REC_OWN_TRACE; k <= REC_OWN_LIVE; k++)
            if (rec_own_fd_get(k) >= 0)
                syscall(SYS_close, rec_own_fd_get(k));
        return;
    }
    if (__atomic_exchange_n(&let_go, 1, __ATOMIC_ACQ_REL))
        return;
    if (rec_active && !rec_guard)
        record_given_up();
    __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
    /* Silently: a thread of ours still in an append takes no buffer now
       (it would wait on a collector it cannot see, then warn). */
    __atomic_store_n(&rec_stopped, 1, __ATOMIC_RELEASE);
    if (rec_collected && rec_seg)
        rec_seg_view_privatise(rec_seg);
    close_own(REC_OWN_SEG);
    close_own(REC_OWN_LIVE);
    close_own(REC_OWN_TRACE);
    errno = saved;
}

void rec_creds_startup(void)
{
    if (getauxval(AT_SECURE))
        rec_let_go();
}

/*
 * Without a collector a secure process would open the output itself, as
 * the user its privileges make it: it could create or append to a file
 * its caller could not write. It opens nothing, says so once, and lets go.
 */
int rec_creds_output_refused(void)
{
    if (!getauxval(AT_SECURE))
        return 0;
    rec_warn_refuse("not opened by a setuid, setgid or file-capability program (it could "
                    "write where its caller could not): the program runs unrecorded");
    rec_let_go();
    return 1;
}

/* ------------------------------------------------- would the call change */

/* Whether an id argument (-1: leave it) differs from the current value. */
static int differs(unsigned arg, unsigned cur)
{
    return arg != (unsigned)-1 && arg != cur;
}

/* setresuid/setresgid's three ids against the current ones. */
static int res_changes(int gid, unsigned r, unsigned e, unsigned s)
{
    unsigned cr, ce, cs;
    long ok = syscall(gid ? SYS_getresgid : SYS_getresuid, &cr, &ce, &cs);

    return ok != 0 || differs(r, cr) || differs(e, ce) || differs(s, cs);
}

/*
 * setuid/setgid set all three ids when privileged, the effective one
 * otherwise: taken as a change unless all three already are v.
 */
static int all_three_change(int gid, unsigned v)
{
    return res_changes(gid, v, v, v);
}

static int groups_change(size_t n, const gid_t *list)
{
    gid_t cur[256];
    long m = syscall(SYS_getgroups, 256, cur);

    if (m < 0 || (size_t)m != n || !list)
        return m != 0 || n != 0;
    for (size_t i = 0; i < n; i++) {
        long j = 0;

        while (j < m && cur[j] != list[i])
            j++;
        if (j == m)
            return 1;
    }
    return 0;
}

static void before(int changes)
{
    if (changes && !rec_unpreloaded()) {
        /* not in a vfork child: its parent records on (rec_let_go) */
        if (rec_guard != REC_GUARD_OFF)
            rec_kernel_ask_let_go();
        rec_let_go();
    }
}

/* ----------------------------------------------------------- the calls */

REAL_HERE(int, setuid, (uid_t));
REAL_HERE(int, setgid, (gid_t));
REAL_HERE(int, seteuid, (uid_t));
REAL_HERE(int, setegid, (gid_t));
REAL_HERE(int, setreuid, (uid_t, uid_t));
REAL_HERE(int, setregid, (gid_t, gid_t));
REAL_HERE(int, setresuid, (uid_t, uid_t, uid_t));
REAL_HERE(int, setresgid, (gid_t, gid_t, gid_t));
REAL_HERE(int, setgroups, (size_t, const gid_t *));
REAL_HERE(int, initgroups, (const char *, gid_t));
REAL_HERE(int, setfsuid, (uid_t));
REAL_HERE(int, setfsgid, (gid_t));

int setuid(uid_t u)
{
    before(all_three_change(0, u));
    return CALL_REAL(-1, setuid, u);
}

int setgid(gid_t g)
{
    before(all_three_change(1, g));
    return CALL_REAL(-1, setgid, g);
}

int seteuid(uid_t u)
{
    before(res_changes(0, (unsigned)-1, u, (unsigned)-1));
    return CALL_REAL(-1, seteuid, u);
}

int setegid(gid_t g)
{
    before(res_changes(1, (unsigned)-1, g, (unsigned)-1));
    return CALL_REAL(-1, setegid, g);
}

int setreuid(uid_t r, uid_t e)
{
    before(all_three_change(0, r) || all_three_change(0, e));
    return CALL_REAL(-1, setreuid, r, e);
}

int setregid(gid_t r, gid_t e)
{
    before(all_three_change(1, r) || all_three_change(1, e));
    return CALL_REAL(-1, setregid, r, e);
}

int setresuid(uid_t r, uid_t e, uid_t s)
{
    before(res_changes(0, r, e, s));
    return CALL_REAL(-1, setresuid, r, e, s);
}

int setresgid(gid_t r, gid_t e, gid_t s)
{
    before(res_changes(1, r, e, s));
    return CALL_REAL(-1, setresgid, r, e, s);
}

int setgroups(size_t n, const gid_t *list)
{
    before(groups_change(n, list));
    return CALL_REAL(-1, setgroups, n, list);
}

/* glibc's initgroups calls its own setgroups, which no wrapper sees. */
int initgroups(const char *user, gid_t g)
{
    before(1);
    return CALL_REAL(-1, initgroups, user, g);
}

int setfsuid(uid_t u)
{
    before((unsigned)u != (unsigned)syscall(SYS_setfsuid, -1));
    return CALL_REAL(-1, setfsuid, u);
}

int setfsgid(gid_t g)
{
    before((unsigned)g != (unsigned)syscall(SYS_setfsgid, -1));
    return CALL_REAL(-1, setfsgid, g);
}

void rec_creds_syscall(long n, const long *a)
{
    switch (n) {
    case SYS_setuid:    before(all_three_change(0, (unsigned)a[0])); break;
    case SYS_setgid:    before(all_three_change(1, (unsigned)a[0])); break;
    case SYS_setreuid:  before(all_three_change(0, (unsigned)a[0]) ||
                               all_three_change(0, (unsigned)a[1])); break;
    case SYS_setregid:  before(all_three_change(1, (unsigned)a[0]) ||
                               all_three_change(1, (unsigned)a[1])); break;
    case SYS_setresuid: before(res_changes(0, (unsigned)a[0], (unsigned)a[1],
                                           (unsigned)a[2])); break;
    case SYS_setresgid: before(res_changes(1, (unsigned)a[0], (unsigned)a[1],
                                           (unsigned)a[2])); break;
    case SYS_setgroups: before(groups_change((size_t)a[0], (const gid_t *)a[1])); break;
    case SYS_setfsuid:  before((unsigned)a[0] != (unsigned)syscall(SYS_setfsuid, -1)); break;
    case SYS_setfsgid:  before((unsigned)a[0] != (unsigned)syscall(SYS_setfsgid, -1)); break;
    default:            break;
    }
}

/* ------------------------------------------------- children, unrecorded */

static int is_ours_var(const char *s)
{
    return strncmp(s, "IORECORD_", 9) == 0;
}

/*
 * envp for a child that must not be recorded: LD_PRELOAD without this
 * library (dropped when nothing else is left), no IORECORD_ variable. In
 * one mmap'd block like rec_env_fix's (released with rec_env_free).
 */
char **rec_env_unpreload(char *const envp[])
{
    static char *const empty[] = { NULL };
    size_t n = 0, size, k = 0, ll = strlen(rec_lib_path);
    const char *pre = NULL;
    char *base, *str, **out;

    if (!envp)
        envp = empty;
    for (; envp[n]; n++)
        if (strncmp(envp[n], "LD_PRELOAD=", 11) == 0)
            pre = envp[n] + 11;
    size = sizeof(size_t) + (n + 1) * sizeof(char *) + (pre ? strlen(pre) + 16 : 0);
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return (char **)envp;
    memcpy(base, &size, sizeof(size));
    out = (char **)(base + sizeof(size_t));
    str = (char *)(out + n + 1);
    for (size_t i = 0; i < n; i++) {
        const char *p;
        char *w;

        if (is_ours_var(envp[i]))
            continue;
        if (strncmp(envp[i], "LD_PRELOAD=", 11) != 0) {
            out[k++] = envp[i];
            continue;
        }
        w = stpcpy(str, "LD_PRELOAD=");
        for (p = envp[i] + 11; *p;) {
            size_t l = strcspn(p, ": ");

            if (l && !(ll && l == ll && strncmp(p, rec_lib_path, ll) == 0)) {
                if (w[-1] != '=')
                    *w++ = ':';
                memcpy(w, p, l);
                w += l;
            }
            p += l;
            if (*p)
                p++;
        }
        *w = '\0';
        if (w[-1] != '=') {
            out[k++] = str;
            str = w + 1;
        }
    }
    out[k] = NULL;
    return out;
}
