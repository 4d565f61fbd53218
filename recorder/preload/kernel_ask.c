/*
 * kernel_ask.c - asking iorecord for its kernel capture path, when this
 * process meets what the preload cannot see: it is about to exec a static
 * or set-id program (the exec and spawn wrappers), it is a Go program or
 * has liburing loaded (bypass.c), it is about to set up an io_uring
 * through syscall() (wrap_syscall.c), or it is about to change its
 * credentials, before which the preload lets it go (creds.c): the kernel
 * path then records it from that change on. As root in AUTO the launcher loads no
 * BPF program until a process asks (recorder/launcher/launch_ask.c); it
 * then follows this process and every process it makes from then on, and
 * answers '1' (or '0': it could not start it).
 *
 * Invariants:
 *  - the program is never held for long: the answer is waited for
 *    REC_KERNEL_ASK_MS at most, and with no launcher listening (it is gone,
 *    the command has ended, another network namespace) the connect fails
 *    at once; on any failure the process goes on, and its `unrecorded`
 *    record stands;
 *  - the socket is the recorder's for the length of the question only: it
 *    is close-on-exec, sits at a high number and is closed
 *    before returning, so neither the program nor an exec'd image holds it;
 *  - raw system calls and stack memory only: this runs in exec wrappers,
 *    perhaps in a vfork child;
 *  - under a seccomp filter that may stand, nothing is asked: a socket
 *    call could be the one the filter kills the process for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include "internal.h"
#include "sandbox.h"
#include "wrap.h"

#define REC_KERNEL_ASK_MS 5000

/* The launcher's socket's abstract name (IORECORD_KERNEL), "" when none. */
static char ask_name[80];
/* The process the kernel path follows already (it said '1'); a pid, not a
   flag, since a vfork child writes it in its parent's memory. */
static long followed;

void rec_kernel_ask_init(void)
{
    const char *s = getenv("IORECORD_KERNEL");

    ask_name[0] = '\0';
    followed = -1;
    if (s && *s && strlen(s) < sizeof(ask_name))
        strcpy(ask_name, s);
}

const char *rec_kernel_ask_name(void)
{
    return ask_name;
}

/*
 * fd moved out of the program's usual range for the question's length,
 * below the top of its limit where ownfds.c keeps ours (no rlimit is
 * touched: other threads may be running); fd itself when it cannot be.
 */
static int fd_high(int fd)
{
    struct rlimit rl;
    long nfd;

    if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0 || rl.rlim_cur < 256)
        return fd;
    nfd = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC,
                  (long)(rl.rlim_cur > 4096 ? 4096 : rl.rlim_cur) - 64);
    if (nfd < 0)
        return fd;
    syscall(SYS_close, fd);
    return (int)nfd;
}

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The one-byte answer on fd, waited for until deadline: 1 for '1', else 0. */
static int answer_of(int fd, int64_t deadline)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char c = 0;
    long r;

    for (;;) {
        int64_t left = deadline - mono_ms();
        struct timespec ts = { left / 1000, (left % 1000) * 1000000L };

        if (left <= 0)
            return 0;
        r = syscall(SYS_ppoll, &p, 1, &ts, NULL, 0);
        if (r > 0)
            break;
        if (r < 0 && errno != EINTR)
            return 0;
    }
    do
        r = syscall(SYS_recvfrom, fd, &c, 1, MSG_DONTWAIT, NULL, NULL);
    while (r < 0 && errno == EINTR);
    return r == 1 && c == '1';
}

/* Ask req ('k': follow me; 'c': I let the recording go at my next
   credential change): 1 when the launcher said yes. */
static int ask(char req)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    size_t n = strlen(ask_name);
    int saved = errno, fd, ok = 0;
    long self = syscall(SYS_getpid);

    if (req == 'k' && followed == self)
        return 1;
    if (!n || rec_filter_may_stand())
        return 0;
    /* abstract: the name follows a NUL */
    memcpy(addr.sun_path + 1, ask_name, n);
    fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto out;
    fd = fd_high(fd);
    if (syscall(SYS_connect, fd, &addr, offsetof(struct sockaddr_un, sun_path) + 1 + n) == 0 &&
        syscall(SYS_sendto, fd, &req, 1, MSG_NOSIGNAL, NULL, 0) == 1)
        ok = answer_of(fd, mono_ms() + REC_KERNEL_ASK_MS);
    syscall(SYS_close, fd);
out:
    if (ok)
        followed = self;
    errno = saved;
    return ok;
}

int rec_kernel_ask(void)
{
    return ask('k');
}

int rec_kernel_ask_let_go(void)
{
    return ask('c');
}
