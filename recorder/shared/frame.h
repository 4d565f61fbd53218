/*
 * frame.h - a chunk compressed into one zstd frame and appended to the
 * trace with one write(): O_APPEND keeps the frames of several writers
 * whole. Used by a process writing its own trace (tracefile.c) and by the
 * collector (collector.c).
 */
#ifndef REC_FRAME_H
#define REC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "iotrace.h"

#pragma GCC visibility push(hidden)

struct rec_framer {
    struct iot_chunker *chunker;
    uint8_t *buf;            /* compressed frame scratch */
    size_t cap;
    /*
     * Whether the file size limit may be asked for (getrlimit, fstat): NULL
     * always. The library says no where a seccomp filter may stand, and
     * then frames are written unchecked.
     */
    int (*may_probe)(void);
};

/*
 * Compress and append one chunk. A frame that would pass RLIMIT_FSIZE is
 * not written (the kernel would raise SIGXFSZ): as much of the chunk as
 * fits is, as a PARTIAL chunk of its own, and the result is EFBIG. 0, or
 * an errno value (ENOMEM: the chunk could not be compressed).
 */
int rec_frame_write(struct rec_framer *f, int fd, const struct iot_chunk_hdr *h,
                    const void *records);

/* write() all of buf with raw syscalls, retrying EINTR: 0, or -1 (errno). */
long rec_sys_write_all(int fd, const void *buf, size_t n);

#pragma GCC visibility pop

#endif
