/*
 * nextsym.c - dlsym(RTLD_NEXT) answers, looked up in the GNU hash tables
 * of the objects after this library, for start-up.
 *
 * dlsym takes the loader's lock, finds the caller's object and walks the
 * search scope for every name; rec_resolve() asks for a few hundred names
 * at each process start. Here the objects after ours are gathered once
 * (dl_iterate_phdr, in link-map order) and each name is looked up as the
 * loader would: defined, not a hidden version, the unversioned or the one
 * default version. Anything this does not settle exactly is left to dlsym
 * (rec_next_sym returns NULL): a name no object defines, an IFUNC or any
 * type but a plain function, and every name when the objects cannot be
 * read as expected.
 *
 * Why the first definer in link-map order is dlsym's answer: the chain is
 * the load order, and objects loaded at start-up come first, in the same
 * breadth-first order as the global search scope. Only a later dlopen
 * (RTLD_LOCAL: in the chain, not in the scope) could be found here and
 * not by dlsym, and it is after libc in the chain. So the walk stops at
 * libc and only libc's or a start-up object's definition is taken; one
 * that is not libc's is left to dlsym too (a program's interposer is rare
 * and dlsym is the authority on it).
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "internal.h"

#define BLOOM_BITS (8 * sizeof(ElfW(Addr)))

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;

    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

/* A pointer of the dynamic section: absolute, except in the vdso's. */
static uintptr_t dyn_ptr(ElfW(Addr) base, ElfW(Addr) p)
{
    return p < base ? base + p : p;
}

static int is_libc(const char *name)
{
    const char *slash = strrchr(name, '/');

    return strcmp(slash ? slash + 1 : name, "libc.so.6") == 0;
}

static int gather(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct rec_next_scope *s = arg;
    const ElfW(Dyn) *dyn = NULL;
    struct rec_next_obj *o;

    (void)size;
    if (!s->after_self) {
        s->after_self = info->dlpi_addr == (ElfW(Addr))__ehdr_start;
        return 0;
    }
    if (s->n == REC_NEXT_MAX)
        return 1;                          /* too many: not done, dlsym */
    o = &s->obj[s->n];
    memset(o, 0, sizeof(*o));
    o->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = dyn_ptr(o->base, dyn->d_un.d_ptr);

        switch (dyn->d_tag) {
        case DT_GNU_HASH: o->gnu_hash = (const uint32_t *)p; break;
        case DT_SYMTAB:   o->symtab = (const ElfW(Sym) *)p; break;
        case DT_STRTAB:   o->strtab = (const char *)p; break;
        case DT_VERSYM:   o->versym = (const ElfW(Versym) *)p; break;
        default: break;
        }
    }
    if (!o->gnu_hash || !o->symtab || !o->strtab)
        return 1;                          /* not readable here: dlsym */
    s->n++;
    if (is_libc(info->dlpi_name)) {
        s->done = 1;
        return 1;
    }
    return 0;
}

int rec_next_init(struct rec_next_scope *s)
{
    memset(s, 0, sizeof(*s));
    dl_iterate_phdr(gather, s);
    return s->done ? 0 : -1;
}

/* What name is in o: */
#define LOOK_NONE   0   /* not defined */
#define LOOK_FOUND  1   /* *addr */
#define LOOK_UNSURE 2   /* defined in a way left to dlsym */

static int look(const struct rec_next_obj *o, const char *name, uint32_t h,
                void **addr)
{
    const uint32_t *ht = o->gnu_hash;
    uint32_t nbuckets = ht[0], symoffset = ht[1], bloom_size = ht[2];
    uint32_t shift = ht[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(ht + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    ElfW(Addr) word, mask;
    const ElfW(Sym) *versioned = NULL;
    int nversioned = 0;
    uint32_t i;

    if (nbuckets == 0 || bloom_size == 0)
        return LOOK_NONE;
    word = bloom[(h / BLOOM_BITS) % bloom_size];
    mask = ((ElfW(Addr))1 << (h % BLOOM_BITS)) |
           ((ElfW(Addr))1 << ((h >> shift) % BLOOM_BITS));
    if ((word & mask) != mask)
        return LOOK_NONE;
    i = buckets[h % nbuckets];
    if (i < symoffset)
        return LOOK_NONE;
    for (;; i++) {
        uint32_t h2 = chain[i - symoffset];
        const ElfW(Sym) *sym = &o->symtab[i];

        if ((h | 1) == (h2 | 1) && sym->st_shndx != SHN_UNDEF &&
            strcmp(o->strtab + sym->st_name, name) == 0) {
            ElfW(Versym) v = o->versym ? o->versym[i] : 1;

            if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_value == 0 ||
                ELF64_ST_BIND(sym->st_info) == STB_GNU_UNIQUE)
                return LOOK_UNSURE;
            if ((v & 0x7fff) < 2) {        /* unversioned: the loader takes it */
                *addr = (void *)(o->base + sym->st_value);
                return LOOK_FOUND;
            }
            if (!(v & 0x8000)) {           /* the default version */
                versioned = sym;
                nversioned++;
            }                              /* a hidden version: skipped */
        }
        if (h2 & 1)
            break;
    }
    if (nversioned > 1)
        return LOOK_UNSURE;
    if (nversioned == 0)
        return LOOK_NONE;
    *addr = (void *)(o->base + versioned->st_value);
    return LOOK_FOUND;
}

void *rec_next_sym(const struct rec_next_scope *s, const char *name)
{
    uint32_t h = gnu_hash(name);
    void *addr = NULL;

    for (int k = 0; k < s->n; k++) {
        int r = look(&s->obj[k], name, h, &addr);

        if (r == LOOK_NONE)
            continue;
        /* libc is the last object: a definition before it is left to dlsym */
        return r == LOOK_FOUND && k == s->n - 1 ? addr : NULL;
    }
    return NULL;
}
