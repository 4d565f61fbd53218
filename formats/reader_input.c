/*
 * reader_input.c - the reader's input policy: how an input is opened and
 * mapped for pass 1, how standard input becomes a file, which inputs stay
 * open until pass 2, and how pass 2 reads a frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "reader_int.h"
#include "records.h"
#include "spool.h"
#include "varint.h"

/*
 * Inputs whose file stays open for pass 2: at most 64, and a quarter of the
 * process's limit on open files; the others are opened for each frame (a
 * few microseconds per chunk of tens of KB), so that a directory of
 * thousands of traces does not run into that limit. Standard input,
 * spooled to an unlinked file, and a descriptor the caller handed over
 * always stay open.
 */
size_t iot_trace_keep_open_max(void)
{
    struct rlimit rl;
    size_t n = 64;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
        n = (size_t)(rl.rlim_cur / 4);
    return n;
}

int trace_input_open(struct trace_input *in, const char *path, int fd, int keep_open,
                     char *errbuf)
{
    int is_stdin = fd < 0 && strcmp(path, "-") == 0;
    int err;
    struct stat sb;

    /* a descriptor handed over may have no name to reopen: it stays open */
    if (fd >= 0)
        keep_open = 1;
    else if (is_stdin)  /* a pipe cannot be mapped, a copy can */
        fd = iot_spool(0, NULL, 0, iot_spool_max());
    else
        fd = open(path, O_RDONLY | O_CLOEXEC);
    err = errno;  /* open's, before strdup can change it */
    in->map = NULL;
    in->size = 0;
    in->fd = -1;
    in->name = strdup(is_stdin ? "<stdin>" : path);
    if (fd < 0 || !in->name) {
        if (fd < 0 && err == EFBIG) {
            if (errbuf)
                iot_spool_too_big(errbuf, IOT_ERRBUF_SIZE, "<stdin>",
                                  "a trace read from a pipe");
        } else {
            trace_set_err(errbuf, "cannot open trace '%s': %s", is_stdin ? "<stdin>" : path,
                          strerror(fd < 0 ? err : ENOMEM));
        }
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fstat(fd, &sb) < 0) {
        trace_set_err(errbuf, "cannot read trace '%s': %s", in->name, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        trace_set_err(errbuf, "cannot read trace '%s': %s", in->name,
                      S_ISDIR(sb.st_mode) ? "Is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    in->size = (size_t)sb.st_size;
    if (in->size) {
        void *m = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);

        if (m == MAP_FAILED) {
            trace_set_err(errbuf, "cannot map trace '%s': %s", in->name, strerror(errno));
            close(fd);
            return -1;
        }
        in->map = m;
    }
    if (keep_open || is_stdin)
        in->fd = fd;
    else
        close(fd);
    return 0;
}

/*
 * Pass 1 walks the mapping once (pass 2 reads the frames,
 * trace_input_read_frame): pages behind it are not needed again, so they
 * leave the process's resident set instead of making it grow with the trace
 * (the kernel maps pages around each fault, so without this the whole file
 * would count).
 */
#define FAULT_AROUND ((uintptr_t)64 << 10)  /* Linux's default fault-around window */

void trace_input_release(const struct trace_input *in, size_t off, size_t len)
{
    /*
     * Whole fault-around windows: a fault maps the pages around it too, and
     * pages walked earlier, mapped again that way, would stay. Pages not
     * walked yet just fault back in.
     */
    uintptr_t start = ((uintptr_t)in->map + off) & ~(FAULT_AROUND - 1);
    uintptr_t end = ((uintptr_t)in->map + off + len + FAULT_AROUND - 1) & ~(FAULT_AROUND - 1);
    uintptr_t map_end = ((uintptr_t)in->map + in->size + 4095) & ~(uintptr_t)4095;

    if (start < (uintptr_t)in->map)
        start = (uintptr_t)in->map;  /* the mapping is page-aligned */

    if (end > map_end)
        end = map_end;
    if (end > start)
        madvise((void *)start, end - start, MADV_DONTNEED);
}

void trace_input_unmap(struct trace_input *in)
{
    if (in->map) {
        munmap((void *)in->map, in->size);
        in->map = NULL;
    }
}

/*
 * Pass 2 reads each frame once, so reading costs one copy where the mapping
 * cost a fault per window and giving the pages back (trace_input_release).
 * A frame that cannot be read counts as a damaged chunk, as a mapping would
 * have raised SIGBUS.
 */
const uint8_t *trace_input_read_frame(struct iot_trace *tr, const struct trace_input *in,
                                      const struct chunk_ref *c)
{
    int fd = in->fd >= 0 ? in->fd : open(in->name, O_RDONLY | O_CLOEXEC);
    const uint8_t *ret = NULL;
    size_t got = 0;

    if (fd < 0)
        return NULL;
    if (iot_grow(&tr->cbuf, &tr->cbuf_cap, c->csize, 1) < 0)
        goto out;
    ret = tr->cbuf;
    while (got < c->csize) {
        ssize_t r = pread(fd, tr->cbuf + got, c->csize - got, (off_t)(c->off + got));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ret = NULL;
            break;
        }
        got += (size_t)r;
    }
out:
    if (fd != in->fd)
        close(fd);
    return ret;
}

void trace_input_close(struct trace_input *in)
{
    trace_input_unmap(in);
    if (in->fd >= 0)
        close(in->fd);
    free(in->name);
}
