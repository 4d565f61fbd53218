/*
 * launch_asan.c - the AddressSanitizer runtime a program links, which must
 * come first in LD_PRELOAD: ASan's runtime checks at start-up that it is
 * the first object loaded after the program and exits 1 otherwise ("ASan
 * runtime does not come first"). A program built with -fsanitize=address
 * lists it as DT_NEEDED (libasan.so.N); iorecord puts that name, as the
 * program names it (the loader finds it as it would a DT_NEEDED one), before
 * the recorder when LD_PRELOAD does not start with an ASan runtime already.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

/* The file offset of virtual address v, from the PT_LOAD that maps it. */
static long vaddr_to_off(int fd, const Elf64_Ehdr *eh, uint64_t v)
{
    for (int i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;

        if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + (uint64_t)i * eh->e_phentsize)) !=
            (ssize_t)sizeof(ph))
            return -1;
        if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz)
            return (long)(v - ph.p_vaddr + ph.p_offset);
    }
    return -1;
}

int launch_asan_runtime(const char *path, char *name, size_t cap)
{
    Elf64_Ehdr eh;
    Elf64_Phdr dyn = { 0 };
    Elf64_Dyn d[512];
    uint64_t strtab = 0;
    long str_off, n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;

    if (fd < 0)
        return 0;
    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
        goto out;
    for (int i = 0; i < eh.e_phnum && dyn.p_type != PT_DYNAMIC; i++)
        if (pread(fd, &dyn, sizeof(dyn),
                  (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof(dyn))
            goto out;
    if (dyn.p_type != PT_DYNAMIC)
        goto out;
    n = pread(fd, d, dyn.p_filesz < sizeof(d) ? dyn.p_filesz : sizeof(d), (off_t)dyn.p_offset);
    n = n > 0 ? n / (long)sizeof(d[0]) : 0;
    for (long i = 0; i < n && d[i].d_tag != DT_NULL; i++)
        if (d[i].d_tag == DT_STRTAB)
            strtab = d[i].d_un.d_ptr;
    str_off = strtab ? vaddr_to_off(fd, &eh, strtab) : -1;
    for (long i = 0; str_off >= 0 && i < n && d[i].d_tag != DT_NULL && !found; i++) {
        char lib[256];
        ssize_t got;

        if (d[i].d_tag != DT_NEEDED)
            continue;
        got = pread(fd, lib, sizeof(lib) - 1, (off_t)(str_off + (long)d[i].d_un.d_val));
        if (got <= 0)
            continue;
        lib[got] = '\0';
        if (strncmp(lib, "libasan.so", 10) == 0 && strlen(lib) < cap) {
            strcpy(name, lib);
            found = 1;
        }
    }
out:
    close(fd);
    return found;
}
