/*
 * wrap_fds.c - fds that are not files.
 *
 * None of these moves file data. They are recorded because an fd number is
 * reused: without them, a pipe that gets the number of a file closed where
 * no wrapper saw it would have its reads charged to that file.
 */
#include <sys/socket.h>

#include "real.h"
#include "rec.h"
#include "wrap.h"

static void rec_newfds(unsigned op, int fd, int newfd, int r, int err,
                       uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(op, r, err);

    if (r >= 0 && fd >= 0) {
        rec_fd_mark(fd);
        ev.has |= IOT_HAS_FD;
        ev.fd = fd;
    }
    if (r >= 0 && newfd >= 0) {
        rec_fd_mark(newfd);
        ev.has |= IOT_HAS_NEWFD;
        ev.newfd = newfd;
    }
    rec_call(&ev, NULL, NULL, NULL, s0, s1);
}

/* pipe(2)-shaped: two new fds in an array. */
#define WRAP_PAIR(name, params, fds, ...)                                      \
    int name params                                                            \
    {                                                                          \
        WRAP_BODY_NEWFD(int, -1, name,                                         \
                  rec_newfds(IOT_OP_PIPE, r == 0 ? fds[0] : -1,                \
                             r == 0 ? fds[1] : -1, r, ERR_OF(r), s0, s1),      \
                  __VA_ARGS__);                                                \
    }

WRAP_PAIR(pipe, (int fds[2]), fds, fds)
WRAP_PAIR(pipe2, (int fds[2], int flags), fds, fds, flags)
WRAP_PAIR(socketpair, (int d, int t, int p, int fds[2]), fds, d, t, p, fds)

/* socket(2)-shaped: the new fd is the return value. */
#define WRAP_ONE(name, params, ...)                                            \
    int name params                                                            \
    {                                                                          \
        WRAP_BODY_NEWFD(int, -1, name,                                         \
                  rec_newfds(IOT_OP_SOCKET, r, -1, r, ERR_OF(r), s0, s1),      \
                  __VA_ARGS__);                                                \
    }

WRAP_ONE(socket, (int d, int t, int p), d, t, p)
WRAP_ONE(accept, (int s, struct sockaddr *a, socklen_t *l), s, a, l)
WRAP_ONE(accept4, (int s, struct sockaddr *a, socklen_t *l, int f), s, a, l, f)
