/*
 * argsafe.c - what a wrapper may read of the pointers a program passed.
 *
 * A program may hand a call any pointer and expect the kernel's EFAULT
 * (Rust's standard library probes statx with a NULL path). The recorder
 * must never fault where the call itself does not, so a pointer the kernel
 * takes is read only when the call shows that the kernel read it:
 *   - it succeeded;
 *   - it failed with an error that path lookup gives, which the kernel
 *     returns only after copying the whole string in (ENOENT, ENOTDIR, ...);
 * and otherwise, when no seccomp filter may stand, through
 * process_vm_readv on ourselves, which returns EFAULT instead of faulting.
 * Where a filter may stand that syscall is not made (the filter might kill
 * the process for it) and the path is left out of the record. A pointer in
 * the first page or in the kernel's half of the address space is never
 * read at all. Arguments that libc reads itself in user space (fopen's
 * mode, mkstemp's template) are readable whenever the native call did not
 * crash, and need none of this.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sandbox.h"
#include "wrap.h"

/*
 * The errors path lookup returns after getname() copied the whole name.
 * EACCES and EPERM are also what seccomp filters most often return for a
 * syscall they refuse (without reading anything): they count only where no
 * filter may stand.
 */
static int lookup_error(int err)
{
    switch (err) {
    case ENOENT: case ENOTDIR: case ELOOP: case EEXIST: case EISDIR:
    case EROFS: case ETXTBSY: case ENXIO: case EXDEV: case ENOTEMPTY:
    case EMLINK: case EBUSY: case EBADF:   /* EBADF: the dirfd, after the name */
        return 1;
    case EACCES: case EPERM:
        return !rec_filter_may_stand();
    default:
        return 0;
    }
}

int rec_path_readable(const void *p, int err)
{
    return rec_ptr_plausible(p) && (err == 0 || lookup_error(err));
}

/*
 * Copy the string at p (up to cap - 1 bytes) into buf without faulting:
 * process_vm_readv stops at the first unreadable byte. Page by page, so a
 * string that ends just before an unmapped page still copies. Its length,
 * or -1 when a byte before its end could not be read.
 */
static long copy_unfaulting(const char *p, char *buf, size_t cap)
{
    size_t got = 0;

    while (got < cap - 1) {
        uintptr_t at = (uintptr_t)p + got;
        size_t want = 4096 - (at & 4095);
        struct iovec local, remote;
        char *nul;
        long n;

        if (want > cap - 1 - got)
            want = cap - 1 - got;
        local = (struct iovec){ buf + got, want };
        remote = (struct iovec){ (void *)at, want };
        n = syscall(SYS_process_vm_readv, (long)rec_pid, &local, 1L, &remote, 1L, 0L);
        if (n <= 0)
            return -1;
        nul = memchr(buf + got, '\0', (size_t)n);
        if (nul)
            return nul - buf;
        got += (size_t)n;
    }
    return -1;   /* longer than any path the kernel takes */
}

const char *rec_path_arg(const char *p, int err, char *copy, size_t cap)
{
    int saved;
    long n;

    if (rec_path_readable(p, err))
        return p;
    if (!rec_ptr_plausible(p) || err == EFAULT || err == ENAMETOOLONG)
        return NULL;
    if (rec_filter_may_stand()) {
        rec_skipped(REC_SKIP_PATH);
        return NULL;
    }
    saved = errno;
    n = copy_unfaulting(p, copy, cap);
    errno = saved;
    return n >= 0 ? copy : NULL;
}
