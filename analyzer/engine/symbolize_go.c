/*
 * symbolize_go.c - a Go binary's addresses to functions and source lines
 * from its .gopclntab (symbolize_go.h), which every Go binary carries,
 * stripped or not: Go's DWARF has no address ranges libdw can look a
 * CU up by, and `-ldflags=-s -w` leaves no DWARF or symbol table at all.
 *
 * The table's layout is Go 1.18's and 1.20's (magic 0xfffffff0 and
 * 0xfffffff1, 64-bit): a header of offsets, a sorted function table
 * (entry, _func) and, per function, the pc-value tables that give each
 * pc's file and line. A table of another version (Go 1.16's 0xfffffffa,
 * older) is not read: the frame keeps what libdw gave. An inlined call
 * is shown at its own line under the function it was inlined into, as
 * Go's runtime.FuncForPC does.
 *
 * Every read is checked against the section's bounds: a damaged or
 * hostile binary gives no answer, never a read past the table.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_go.h"

#define GO_FILES 64
#define MAX_SECTION (256u << 20)

struct go_file {
    struct go_file *next;
    char *path;
    uint8_t *tab;           /* the section, NULL when the file has none we read */
    size_t len;
    uint64_t nfunc, text;
    uint64_t funcname, cu, filetab, pctab, functab;
};

struct go_tables {
    struct go_file *files;
    unsigned n;
};

struct go_tables *go_tables_create(void)
{
    return calloc(1, sizeof(struct go_tables));
}

void go_tables_free(struct go_tables *g)
{
    if (!g)
        return;
    while (g->files) {
        struct go_file *f = g->files;

        g->files = f->next;
        free(f->path);
        free(f->tab);
        free(f);
    }
    free(g);
}

static int get_u32(const struct go_file *f, uint64_t at, uint32_t *v)
{
    if (at > f->len || f->len - at < 4)
        return -1;
    memcpy(v, f->tab + at, 4);
    return 0;
}

static int get_u64(const struct go_file *f, uint64_t at, uint64_t *v)
{
    if (at > f->len || f->len - at < 8)
        return -1;
    memcpy(v, f->tab + at, 8);
    return 0;
}

/* A NUL-terminated string at at, or NULL. */
static const char *get_str(const struct go_file *f, uint64_t at)
{
    if (at >= f->len || !memchr(f->tab + at, '\0', f->len - at))
        return NULL;
    return (const char *)f->tab + at;
}

/* The .gopclntab section of the ELF file at path into f; 0, or -1. */
static int read_section(FILE *fp, struct go_file *f)
{
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL, *str;
    char *names = NULL;
    int rc = -1;

    if (fread(&eh, sizeof(eh), 1, fp) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
        return -1;
    sh = calloc(eh.e_shnum, sizeof(*sh));
    if (!sh || fseeko(fp, (off_t)eh.e_shoff, SEEK_SET) != 0 ||
        fread(sh, sizeof(*sh), eh.e_shnum, fp) != eh.e_shnum)
        goto out;
    str = &sh[eh.e_shstrndx];
    if (str->sh_size == 0 || str->sh_size > (1u << 20) || !(names = calloc(1, str->sh_size + 1)) ||
        fseeko(fp, (off_t)str->sh_offset, SEEK_SET) != 0 ||
        fread(names, 1, str->sh_size, fp) != str->sh_size)
        goto out;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= str->sh_size || strcmp(names + sh[i].sh_name, ".gopclntab") != 0 ||
            sh[i].sh_type == SHT_NOBITS || sh[i].sh_size < 72 || sh[i].sh_size > MAX_SECTION)
            continue;
        f->tab = malloc(sh[i].sh_size);
        if (!f->tab || fseeko(fp, (off_t)sh[i].sh_offset, SEEK_SET) != 0 ||
            fread(f->tab, 1, sh[i].sh_size, fp) != sh[i].sh_size) {
            free(f->tab);
            f->tab = NULL;
            goto out;
        }
        f->len = sh[i].sh_size;
        rc = 0;
        break;
    }
out:
    free(names);
    free(sh);
    return rc;
}

/* The header: Go 1.18 or 1.20, 64-bit, one byte per instruction unit. */
static int read_header(struct go_file *f)
{
    uint32_t magic;
    uint64_t nfiles;

    if (get_u32(f, 0, &magic) < 0 || (magic != 0xfffffff0u && magic != 0xfffffff1u) ||
        f->tab[6] != 1 || f->tab[7] != 8)
        return -1;
    if (get_u64(f, 8, &f->nfunc) < 0 || get_u64(f, 16, &nfiles) < 0 ||
        get_u64(f, 24, &f->text) < 0 || get_u64(f, 32, &f->funcname) < 0 ||
        get_u64(f, 40, &f->cu) < 0 || get_u64(f, 48, &f->filetab) < 0 ||
        get_u64(f, 56, &f->pctab) < 0 || get_u64(f, 64, &f->functab) < 0)
        return -1;
    /* the function table: nfunc + 1 pairs of 32-bit offsets */
    if (f->functab > f->len || f->nfunc > (f->len - f->functab) / 8)
        return -1;
    return 0;
}

static struct go_file *file_of(struct go_tables *g, const char *path)
{
    struct go_file *f;
    FILE *fp;

    for (f = g->files; f; f = f->next)
        if (strcmp(f->path, path) == 0)
            return f;
    if (g->n >= GO_FILES || !(f = calloc(1, sizeof(*f))))
        return NULL;
    f->path = strdup(path);
    if (!f->path) {
        free(f);
        return NULL;
    }
    fp = fopen(path, "rbe");
    if (fp) {
        if (read_section(fp, f) < 0 || read_header(f) < 0) {
            free(f->tab);
            f->tab = NULL;
        }
        fclose(fp);
    }
    f->next = g->files;
    g->files = f;
    g->n++;
    return f;
}

static int uvarint(const struct go_file *f, uint64_t *at, uint64_t *v)
{
    uint64_t x = 0;

    for (unsigned shift = 0; shift < 64 && *at < f->len; shift += 7) {
        uint8_t b = f->tab[(*at)++];

        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* The value a pc-value table (at pctab + off) gives pc in a function entered at entry. */
static int pc_value(const struct go_file *f, uint32_t off, uint64_t entry, uint64_t pc,
                    int64_t *out)
{
    uint64_t at = f->pctab + off, cur = entry;
    int64_t val = -1;

    if (!off)
        return -1;
    for (int first = 1;; first = 0) {
        uint64_t uv, delta;

        if (uvarint(f, &at, &uv) < 0 || (uv == 0 && !first))
            return -1;
        val += (uv & 1) ? -(int64_t)(uv >> 1) - 1 : (int64_t)(uv >> 1);
        if (uvarint(f, &at, &delta) < 0)
            return -1;
        cur += delta;
        if (pc < cur) {
            *out = val;
            return 0;
        }
    }
}

int go_lookup(struct go_tables *g, const char *path, uint64_t addr, const char **function,
              const char **file, int *line)
{
    struct go_file *f = g && path ? file_of(g, path) : NULL;
    uint64_t lo = 0, hi, fn;
    uint32_t entry, funcoff, nameoff, pcfile, pcln, cuoff, fileoff;
    int64_t fileno, ln;

    if (!f || !f->tab || f->nfunc == 0 || addr < f->text)
        return 0;
    /* the last function whose entry is at or below addr */
    hi = f->nfunc;
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;

        if (get_u32(f, f->functab + mid * 8, &entry) < 0)
            return 0;
        if (f->text + entry <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (get_u32(f, f->functab + lo * 8, &entry) < 0 || f->text + entry > addr ||
        get_u32(f, f->functab + lo * 8 + 4, &funcoff) < 0 ||
        get_u32(f, f->functab + f->nfunc * 8, &fileoff) < 0 || addr >= f->text + fileoff)
        return 0;
    fn = f->functab + funcoff;
    if (get_u32(f, fn + 4, &nameoff) < 0 || get_u32(f, fn + 20, &pcfile) < 0 ||
        get_u32(f, fn + 24, &pcln) < 0 || get_u32(f, fn + 32, &cuoff) < 0 ||
        !(*function = get_str(f, f->funcname + nameoff)))
        return 0;
    *file = NULL;
    *line = 0;
    if (pc_value(f, pcfile, f->text + entry, addr, &fileno) == 0 && fileno >= 0 &&
        pc_value(f, pcln, f->text + entry, addr, &ln) == 0 && ln > 0 && ln < (1 << 30) &&
        get_u32(f, f->cu + ((uint64_t)cuoff + (uint64_t)fileno) * 4, &fileoff) == 0 &&
        fileoff != UINT32_MAX && (*file = get_str(f, f->filetab + fileoff)) != NULL)
        *line = (int)ln;
    return 1;
}
