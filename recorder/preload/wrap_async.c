/*
 * wrap_async.c - say what was not seen: I/O that no wrapper can
 * follow is recorded as the fact that it happened (op async:
 * which call, on which fd, how much, where), so the analysis can say what
 * it could not judge: glibc's POSIX AIO (its helper threads' preads run
 * inside libc), and io_uring and Linux AIO submitted through syscall()
 * (wrap_syscall.c, whose syscall() wrapper calls rec_async).
 */
#include <aio.h>

#include "real.h"
#include "rec.h"
#include "wrap.h"

void rec_async(const char *what, int fd, int64_t size, int64_t offset,
               int64_t r, int err, uint64_t s0, uint64_t s1)
{
    struct iot_event ev = rec_event(IOT_OP_ASYNC, r, err);

    if (fd >= 0) {
        ev.has |= IOT_HAS_FD;
        ev.fd = fd;
    }
    if (size >= 0) {
        ev.has |= IOT_HAS_SIZE | IOT_HAS_OFFSET;
        ev.size = size;
        ev.offset = offset;
    }
    ev.has |= IOT_HAS_MODE;
    rec_call(&ev, NULL, what, NULL, s0, s1);
}

REAL_HERE(int, aio_read, (struct aiocb *));
REAL_HERE(int, aio_write, (struct aiocb *));
REAL_HERE(int, aio_read64, (struct aiocb64 *));
REAL_HERE(int, aio_write64, (struct aiocb64 *));
REAL_HERE(int, lio_listio, (int, struct aiocb *const[], int, struct sigevent *));
REAL_HERE(int, lio_listio64, (int, struct aiocb64 *const[], int, struct sigevent *));

/*
 * One request: its fd, length and offset. The control block is taken as
 * void * (the prototypes declare it non-null; a program may pass NULL and
 * get EINVAL or a crash of its own, never one of ours).
 */
#define AIO_REC(name, type)                                                    \
    static void rec_##name(const void *p, int r, int err, uint64_t s0,         \
                           uint64_t s1)                                        \
    {                                                                          \
        const type *cb = p;                                                    \
        rec_async(#name, cb ? cb->aio_fildes : -1,                             \
                  cb ? (int64_t)cb->aio_nbytes : -1,                           \
                  cb ? (int64_t)cb->aio_offset : 0, r, err, s0, s1);           \
    }

#define WRAP_AIO(name, type)                                                   \
    AIO_REC(name, type)                                                        \
    int name(type *cb)                                                         \
    {                                                                          \
        WRAP_BODY(int, -1, name, rec_##name(cb, r, ERR_OF(r), s0, s1), cb);    \
    }

WRAP_AIO(aio_read, struct aiocb)
WRAP_AIO(aio_write, struct aiocb)
WRAP_AIO(aio_read64, struct aiocb64)
WRAP_AIO(aio_write64, struct aiocb64)

/*
 * A list: one record per request in it, the call's result on each. libc
 * reads the list only once it has accepted the call (it succeeded, or
 * some requests failed: EAGAIN, EIO); else the list is not read here
 * either: it may be any pointer.
 */
#define WRAP_LIO(name, type)                                                   \
    static void rec_##name(const void *p, int n, int r, int err, uint64_t s0,  \
                           uint64_t s1)                                        \
    {                                                                          \
        type *const *list = p;                                                 \
        if (r != 0 && err != EAGAIN && err != EIO)                             \
            return;                                                            \
        for (int i = 0; list && i < n; i++)                                    \
            if (list[i] && list[i]->aio_lio_opcode != LIO_NOP)                 \
                rec_async(#name, list[i]->aio_fildes,                          \
                          (int64_t)list[i]->aio_nbytes,                        \
                          (int64_t)list[i]->aio_offset, r, err, s0, s1);       \
    }                                                                          \
    int name(int mode, type *const list[], int n, struct sigevent *sev)        \
    {                                                                          \
        WRAP_BODY(int, -1, name, rec_##name(list, n, r, ERR_OF(r), s0, s1),    \
                  mode, list, n, sev);                                         \
    }

WRAP_LIO(lio_listio, struct aiocb)
WRAP_LIO(lio_listio64, struct aiocb64)
