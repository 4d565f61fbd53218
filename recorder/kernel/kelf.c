/*
 * kelf.c - what the kernel path's stacks need to know of a module file
 * (kstack.h): its load segments, to place a mapping's addresses at the
 * file's ELF virtual addresses; its GNU build-id; whether its code keeps
 * frame pointers, which a BPF stack walk follows; and whether the bytes
 * before an address are a call.
 *
 * Only 64-bit little-endian ELF (the kernel path records x86_64). Reads
 * are bounded: the headers, the notes, and at most FP_SAMPLE functions'
 * first bytes.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kstack.h"

#define FP_SAMPLE 256
#define MAX_PHDRS 64

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The build-id in the PT_NOTE segment ph of fd into m. */
static void note_build_id(int fd, const Elf64_Phdr *ph, struct kelf *m)
{
    uint8_t buf[1024];
    size_t len = ph->p_filesz < sizeof(buf) ? ph->p_filesz : sizeof(buf);
    size_t at = 0;

    if (read_at(fd, buf, len, ph->p_offset) < 0)
        return;
    while (at + sizeof(Elf64_Nhdr) <= len) {
        Elf64_Nhdr nh;
        size_t name, desc;

        memcpy(&nh, buf + at, sizeof(nh));
        name = (nh.n_namesz + 3) & ~(size_t)3;
        desc = (nh.n_descsz + 3) & ~(size_t)3;
        if (name > len || desc > len || at + sizeof(nh) + name + desc > len)
            return;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp(buf + at + sizeof(nh), "GNU", 4) == 0 && nh.n_descsz <= sizeof(m->build_id)) {
            memcpy(m->build_id, buf + at + sizeof(nh) + name, nh.n_descsz);
            m->id_len = (uint8_t)nh.n_descsz;
            return;
        }
        at += sizeof(nh) + name + desc;
    }
}

/* Whether code at a function's first bytes sets up a frame pointer. */
static int frame_prologue(const uint8_t *b)
{
    static const uint8_t push_mov[4] = { 0x55, 0x48, 0x89, 0xe5 };
    static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

    if (memcmp(b, endbr64, 4) == 0)
        b += 4;
    return memcmp(b, push_mov, 4) == 0;
}

/*
 * The sections that tell how the code was built: .gopclntab (Go, which
 * keeps frame pointers on amd64), else a sample of .symtab's functions'
 * prologues. Sets m->go and m->frame_pointers.
 */
static void read_sections(int fd, const Elf64_Ehdr *eh, struct kelf *m)
{
    Elf64_Shdr *sh = NULL, *symtab = NULL;
    char *names = NULL;
    size_t n = eh->e_shnum;
    unsigned sampled = 0, framed = 0;

    if (n == 0 || n > 4096 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= n)
        return;
    sh = malloc(n * sizeof(*sh));
    if (!sh || read_at(fd, sh, n * sizeof(*sh), eh->e_shoff) < 0)
        goto out;
    if (sh[eh->e_shstrndx].sh_size > (1u << 20) ||
        !(names = malloc(sh[eh->e_shstrndx].sh_size + 1)) ||
        read_at(fd, names, sh[eh->e_shstrndx].sh_size, sh[eh->e_shstrndx].sh_offset) < 0)
        goto out;
    names[sh[eh->e_shstrndx].sh_size] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *name = sh[i].sh_name < sh[eh->e_shstrndx].sh_size ? names + sh[i].sh_name : "";

        if (strcmp(name, ".gopclntab") == 0 || strcmp(name, ".note.go.buildid") == 0)
            m->go = 1;
        if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_entsize == sizeof(Elf64_Sym))
            symtab = &sh[i];
    }
    if (m->go) {
        m->frame_pointers = 1;
        goto out;
    }
    /* every nth function symbol of some size: its code's first bytes */
    if (symtab && symtab->sh_size / sizeof(Elf64_Sym) > 0) {
        size_t nsym = symtab->sh_size / sizeof(Elf64_Sym), step = nsym / FP_SAMPLE + 1;

        for (size_t i = 0; i < nsym && sampled < FP_SAMPLE; i += step) {
            Elf64_Sym sym;
            uint8_t code[8];
            uint64_t off = 0;
            int found = 0;

            if (read_at(fd, &sym, sizeof(sym), symtab->sh_offset + i * sizeof(sym)) < 0)
                break;
            if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size < 32 || !sym.st_value)
                continue;
            for (unsigned s = 0; s < m->nseg && !found; s++)
                if (sym.st_value >= m->seg[s].vaddr &&
                    sym.st_value < m->seg[s].vaddr + m->seg[s].filesz) {
                    off = sym.st_value - m->seg[s].vaddr + m->seg[s].offset;
                    found = 1;
                }
            if (!found || read_at(fd, code, sizeof(code), off) < 0)
                continue;
            sampled++;
            framed += frame_prologue(code);
        }
    }
    /* most of its functions set one up: built with -fno-omit-frame-pointer */
    m->frame_pointers = sampled >= 8 && framed * 4 >= sampled * 3;
out:
    free(names);
    free(sh);
}

int kelf_read(const char *path, struct kelf *m)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph[MAX_PHDRS];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    memset(m, 0, sizeof(*m));
    if (fd < 0)
        return -1;
    if (read_at(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS ||
        read_at(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff) < 0) {
        close(fd);
        return -1;
    }
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && m->nseg < KELF_SEGS) {
            m->seg[m->nseg].vaddr = ph[i].p_vaddr;
            m->seg[m->nseg].offset = ph[i].p_offset;
            m->seg[m->nseg].filesz = ph[i].p_filesz;
            m->seg[m->nseg].exec = (ph[i].p_flags & PF_X) != 0;
            m->nseg++;
        } else if (ph[i].p_type == PT_NOTE && !m->id_len) {
            note_build_id(fd, &ph[i], m);
        }
    }
    read_sections(fd, &eh, m);
    m->fd = fd;
    return 0;
}

void kelf_close(struct kelf *m)
{
    if (m->fd > 0)
        close(m->fd);
    m->fd = -1;
}

int kelf_bias(const struct kelf *m, uint64_t start, uint64_t file_off, uint64_t *bias)
{
    for (unsigned s = 0; s < m->nseg; s++)
        if (file_off >= (m->seg[s].offset & ~0xfffull) &&
            file_off < m->seg[s].offset + m->seg[s].filesz) {
            /* the mapping's first byte is file_off: its vaddr follows */
            *bias = start - (m->seg[s].vaddr - m->seg[s].offset + file_off);
            return 0;
        }
    return -1;
}

int kelf_after_call(const struct kelf *m, uint64_t vaddr)
{
    uint8_t b[8];
    uint64_t off = 0;
    int found = 0;

    for (unsigned s = 0; s < m->nseg && !found; s++)
        if (m->seg[s].exec && vaddr >= m->seg[s].vaddr + 8 &&
            vaddr <= m->seg[s].vaddr + m->seg[s].filesz) {
            off = vaddr - m->seg[s].vaddr + m->seg[s].offset;
            found = 1;
        }
    if (!found || m->fd < 0 || read_at(m->fd, b, sizeof(b), off - sizeof(b)) < 0)
        return 0;
    /* call rel32; call through a register or memory: ff /2 with a ModRM
       (and SIB, displacement) of 2, 3, 6 or 7 bytes in all */
    if (b[3] == 0xe8)
        return 1;
    for (int len = 2; len <= 7; len++) {
        uint8_t op = b[8 - len], modrm = b[8 - len + 1];

        if (op == 0xff && ((modrm >> 3) & 7) == 2)
            return 1;
    }
    return 0;
}
