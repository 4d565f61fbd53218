/*
 * launch_ask.c - the kernel path on demand (launch.h): in AUTO as root, a
 * run whose command the preload enters loads no BPF program, so the
 * machine's other syscalls pay nothing for it. A recorded process that
 * meets what the preload cannot see (it is about to exec a static or
 * set-id program; it is a Go program or has liburing loaded) asks for the
 * kernel path through a unix socket the launcher listens on, named in
 * IORECORD_KERNEL, and waits for the one-byte answer
 * (recorder/preload/kernel_ask.c). A process the preload lets go before a
 * credential change (a server's worker dropping root) asks the same way,
 * with its own request, in BOTH too: the kernel path then records it from
 * that change on.
 *
 * Invariants:
 *  - the asker is the process the socket's peer credentials name (the
 *    kernel's word, in the launcher's pid namespace), never a pid it sends;
 *  - the kernel path is started once; once started it stays to the end of
 *    the command, and later askers are followed by it too; a start that
 *    failed is said once and not tried again (each asker hears "no");
 *  - the socket is made after the collector was forked (so only the
 *    launcher holds it) and is close-on-exec; closed when the command has
 *    ended, so a late asker's connect is refused at once rather than wait.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "launch.h"
#include "msg.h"

int launch_ask_open(struct launch_ask *a)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    unsigned long long nonce = 0;
    socklen_t len;

    a->fd = -1;
    a->pidfd = -1;
    a->refused = 0;
    if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
        nonce ^= (unsigned long long)(uintptr_t)&nonce;
    snprintf(a->name, sizeof(a->name), "iorecord-%d-%016llx", (int)getpid(), nonce);
    /* abstract: nothing in the file system to leave behind or to reach
       through a chroot */
    memcpy(addr.sun_path + 1, a->name, strlen(a->name));
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a->name));
    a->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (a->fd < 0)
        return -1;
    if (bind(a->fd, (struct sockaddr *)&addr, len) != 0 || listen(a->fd, 64) != 0) {
        close(a->fd);
        a->fd = -1;
        return -1;
    }
    return 0;
}

/* Sleep until an asker comes, the command ends, or timeout_ms pass. */
static void wait_asker(struct launch_ask *a, pid_t child, int timeout_ms)
{
    struct pollfd p[2] = { { .fd = a->fd, .events = POLLIN }, { .fd = -1, .events = POLLIN } };

    if (a->pidfd == -1)
        a->pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (a->pidfd < 0)
        a->pidfd = -2;  /* not to be tried again */
    p[1].fd = a->pidfd >= 0 ? a->pidfd : -1;
    /* without a pidfd the command's end is seen within a tenth of a second */
    if (a->pidfd < 0 && (timeout_ms < 0 || timeout_ms > 100))
        timeout_ms = 100;
    poll(p, 2, timeout_ms);
}

/* The process at the other end of conn, or -1. */
static pid_t asker_of(int conn)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0)
        return -1;
    return cred.pid;
}

/*
 * The asker's one-byte request on conn, waited for LAUNCH_ASK_REQUEST_MS at
 * most: accept can return before the asker's send has come, and a request
 * taken for another (a 'c' read as nothing, so followed as 'k') would have
 * the kernel path leave out the very calls the asker let go of.
 */
#define LAUNCH_ASK_REQUEST_MS 2000
static ssize_t request_of(int conn, char *req)
{
    struct pollfd p = { .fd = conn, .events = POLLIN };
    ssize_t got;

    for (;;) {
        got = recv(conn, req, 1, MSG_DONTWAIT);
        if (got >= 0 || (errno != EAGAIN && errno != EINTR))
            return got;
        if (errno == EAGAIN && poll(&p, 1, LAUNCH_ASK_REQUEST_MS) <= 0)
            return -1;
    }
}

void launch_ask_serve(struct launch_ask *a, pid_t child, int timeout_ms, struct kcap **kc,
                      launch_ask_start start, void *ctx)
{
    char why[256] = "", req;
    int conn;
    ssize_t got;

    if (a->fd < 0)
        return;
    wait_asker(a, child, timeout_ms);
    while ((conn = accept4(a->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        pid_t pid = asker_of(conn);
        char answer = '0';

        /* the request is one byte: 'c', the asker lets the recording go before a
           credential change (kcap_let_go), 'k' follow it (kcap_adopt) */
        got = request_of(conn, &req);
        if (got != 1 || (req != 'c' && req != 'k'))
            pid = -1;   /* nothing asked in time: answered "no" */
        if (!*kc && !a->refused && pid > 0) {
            *kc = start(ctx, why, sizeof(why));
            if (!*kc) {
                a->refused = 1;
                iot_warn("kernel capture path not started (%s): static and set-id programs and "
                         "raw syscalls (Go, io_uring) are not recorded", why);
            }
        }
        if (*kc && pid > 0 &&
            (req == 'c' ? kcap_let_go(*kc, pid) : kcap_adopt(*kc, pid)) == 0)
            answer = '1';
        (void)send(conn, &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(conn);
    }
}

void launch_ask_close(struct launch_ask *a)
{
    if (a->fd >= 0)
        close(a->fd);
    if (a->pidfd >= 0)
        close(a->pidfd);
    a->fd = -1;
    a->pidfd = -1;
}
