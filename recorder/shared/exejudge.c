/*
 * exejudge.c - whether the preload can enter a program (exejudge.h).
 * Linked into the library and into iorecord: raw syscalls and no state.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exejudge.h"

static long pread_at(int fd, void *buf, size_t n, uint64_t off)
{
    return syscall(SYS_pread64, fd, buf, n, (long)off);
}

/* The file offset of virtual address a, from the PT_LOAD that maps it, or -1. */
static long vaddr_to_off(int fd, const Elf64_Ehdr *eh, uint64_t a)
{
    for (unsigned i = 0; i < eh->e_phnum && i < 256; i++) {
        Elf64_Phdr ph;

        if (pread_at(fd, &ph, sizeof(ph), eh->e_phoff + (uint64_t)i * eh->e_phentsize) !=
            (long)sizeof(ph))
            return -1;
        if (ph.p_type == PT_LOAD && a >= ph.p_vaddr && a < ph.p_vaddr + ph.p_filesz)
            return (long)(a - ph.p_vaddr + ph.p_offset);
    }
    return -1;
}

/*
 * The ELF file fd (header eh, program header dyn its PT_DYNAMIC) lists an
 * AddressSanitizer runtime as DT_NEEDED: its name into asan. ASan's runtime
 * exits 1 unless it is the first object loaded.
 */
static void asan_needed(int fd, const Elf64_Ehdr *eh, const Elf64_Phdr *dyn, char *asan)
{
    Elf64_Dyn d[512];
    uint64_t strtab = 0;
    long n, str_off;

    n = pread_at(fd, d, dyn->p_filesz < sizeof(d) ? dyn->p_filesz : sizeof(d), dyn->p_offset);
    n = n > 0 ? n / (long)sizeof(d[0]) : 0;
    for (long i = 0; i < n && d[i].d_tag != DT_NULL; i++)
        if (d[i].d_tag == DT_STRTAB)
            strtab = d[i].d_un.d_ptr;
    str_off = strtab ? vaddr_to_off(fd, eh, strtab) : -1;
    for (long i = 0; str_off >= 0 && i < n && d[i].d_tag != DT_NULL; i++) {
        char lib[REC_EXE_NAME];
        long got;

        if (d[i].d_tag != DT_NEEDED)
            continue;
        got = pread_at(fd, lib, sizeof(lib) - 1, (uint64_t)str_off + d[i].d_un.d_val);
        if (got <= 0)
            continue;
        lib[got] = '\0';
        if (strncmp(lib, "libasan.so", 10) == 0) {
            memcpy(asan, lib, strlen(lib) + 1);
            return;
        }
    }
}

/* An ELF program: static without PT_INTERP, else the ASan runtime it needs. */
static void judge_elf(int fd, const unsigned char *h, struct rec_exe_verdict *v)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph, dyn = { 0 };
    int interp = 0;

    memcpy(&eh, h, sizeof(eh));
    for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
        if (pread_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * eh.e_phentsize) !=
            (long)sizeof(ph))
            break;
        if (ph.p_type == PT_INTERP)
            interp = 1;
        else if (ph.p_type == PT_DYNAMIC)
            dyn = ph;
    }
    if (!interp)
        v->why = "static";
    else if (dyn.p_type == PT_DYNAMIC)
        asan_needed(fd, &eh, &dyn, v->asan);
}

static void judge(const char *path, int depth, struct rec_exe_verdict *v)
{
    unsigned char h[REC_EXE_FILE];
    struct stat st;
    char caps[64];
    long n;
    int fd;

    if (!path || syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0) != 0 || !S_ISREG(st.st_mode))
        return;
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
        ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
        v->why = "setuid";
        return;
    }
    /* root (real uid 0) gains no secure-exec from file capabilities */
    if (getuid() != 0 &&
        syscall(SYS_getxattr, path, "security.capability", caps, sizeof(caps)) > 0) {
        v->why = "fcaps";
        return;
    }
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    n = pread_at(fd, h, sizeof(h) - 1, 0);
    if (n >= 4 && h[0] == '#' && h[1] == '!' && depth == 0) {
        size_t i = 2, k = 0;

        h[n] = '\0';
        while (h[i] == ' ' || h[i] == '\t')
            i++;
        while (h[i] && h[i] != ' ' && h[i] != '\t' && h[i] != '\n')
            v->file[k++] = (char)h[i++];
        v->file[k] = '\0';
        syscall(SYS_close, fd);
        if (k)
            judge(v->file, 1, v);
        return;
    }
    if (n >= (long)sizeof(Elf64_Ehdr) && !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64)
        judge_elf(fd, h, v);
    syscall(SYS_close, fd);
}

void rec_exe_judge(const char *path, struct rec_exe_verdict *v)
{
    size_t n = path ? strlen(path) : 0;

    v->why = NULL;
    v->asan[0] = '\0';
    v->file[0] = '\0';
    if (path && n < sizeof(v->file))
        memcpy(v->file, path, n + 1);
    judge(path, 0, v);
}
