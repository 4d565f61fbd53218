/*
 * frame.c - compressing a chunk into one frame and appending it (frame.h),
 * with raw syscalls only: linked into libiorecord.so, where no wrapper of
 * ours may see the recorder's own writes, and into the collector.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "frame.h"

long rec_sys_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        long w = syscall(SYS_write, fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * Bytes the trace may still grow by under RLIMIT_FSIZE (SIZE_MAX without a
 * limit): a write past it would raise SIGXFSZ in the program.
 */
static size_t frame_room(int fd)
{
    struct rlimit rl;
    struct stat st;

    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        syscall(SYS_fstat, fd, &st) != 0)
        return SIZE_MAX;
    return (uint64_t)st.st_size >= (uint64_t)rl.rlim_cur ? 0
                                                          : (size_t)(rl.rlim_cur - (uint64_t)st.st_size);
}

/* Append one frame with one write(): 0, or an errno value. */
static int write_frame(int fd, const void *p, size_t n)
{
    if (rec_sys_write_all(fd, p, n) != 0)
        return errno ? errno : EIO;
    return 0;
}

/*
 * The chunk's frame does not fit under the file size limit: write the
 * longest run of its records whose frame does (a valid chunk of its own,
 * marked PARTIAL), so that the trace keeps what it can. One chunk's frame
 * can be larger than a small limit (a 64 KiB chunk of irregular times
 * compresses to 26 KB or more): writing nothing then left an empty trace.
 * The frame's size grows with the records kept, so a binary search over
 * the budget of record bytes finds it in a few compressions.
 */
static int emit_cut(struct rec_framer *f, int fd, const struct iot_chunk_hdr *h, const void *records, size_t room)
{
    struct iot_chunk_hdr cut = *h;
    size_t lo = 0, hi = h->bytes, n = 0;

    cut.flags = IOT_CHUNK_PARTIAL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;

        cut.bytes = (uint32_t)iot_records_prefix(records, h->bytes, mid, &cut.nrec);
        n = cut.bytes ? iot_chunk_compress(f->chunker, &cut, records, f->buf, f->cap) : 0;
        if (n && n <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    cut.bytes = (uint32_t)iot_records_prefix(records, h->bytes, lo, &cut.nrec);
    if (!cut.bytes)
        return EFBIG;
    n = iot_chunk_compress(f->chunker, &cut, records, f->buf, f->cap);
    if (n && n <= room && write_frame(fd, f->buf, n) != 0)
        return errno ? errno : EIO;
    return EFBIG;
}

int rec_frame_write(struct rec_framer *f, int fd, const struct iot_chunk_hdr *h,
                    const void *records)
{
    size_t n = iot_chunk_compress(f->chunker, h, records, f->buf, f->cap);
    size_t room;

    if (n == 0)
        return ENOMEM;
    room = !f->may_probe || f->may_probe() ? frame_room(fd) : SIZE_MAX;
    if (n > room)
        return emit_cut(f, fd, h, records, room);
    return write_frame(fd, f->buf, n);
}
