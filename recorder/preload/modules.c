/*
 * modules.c - the loaded modules and their records (modules.h).
 *
 * A scan walks dl_iterate_phdr: for each module its address range, load
 * bias, .eh_frame_hdr (for the unwinder) and GNU build-id, read from its
 * PT_NOTE segments in memory, so no file is opened. A module's record (full
 * path, bias, build-id) is written once per process, at the first stack and
 * after a scan finds a new module: enough for ioanalyze to find the file,
 * or its separate debug info, and symbolize the raw addresses of stacks.
 */
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena.h"
#include "internal.h"
#include "modules.h"
#include "rec.h"

#define MAX_MODULES 1024

static struct rec_module mods[MAX_MODULES];
static unsigned nmods;
static unsigned long long seen_adds;   /* dlpi_adds at the last scan */
int rec_modules_unrecorded;

struct scan {
    struct rec_module *out;
    unsigned n;
    unsigned long long adds;
};

/* The GNU build-id note in a PT_NOTE segment, copied into m. */
static void find_build_id(struct rec_module *m, const ElfW(Phdr) *ph)
{
    const uint8_t *p = (const uint8_t *)(m->bias + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    size_t align = ph->p_align == 8 ? 8 : 4;

    while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        size_t name = (nh->n_namesz + align - 1) & ~(align - 1);
        size_t desc = (nh->n_descsz + align - 1) & ~(align - 1);
        const uint8_t *d = p + sizeof(*nh) + name;

        if (name > (size_t)(end - p) || desc > (size_t)(end - d))
            return;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
            memcmp(p + sizeof(*nh), "GNU", 4) == 0 && nh->n_descsz <= REC_BUILD_ID_MAX) {
            memcpy(m->build_id, d, nh->n_descsz);
            m->id_len = (uint8_t)nh->n_descsz;
            return;
        }
        p = d + desc;
    }
}

/* The executable's path: the process record's (meta.c), read at start-up,
   so that no readlink is made later, where a seccomp filter may stand. */
static const char *exe_path(void)
{
    return rec_image_exe();
}

/* The path kept for a module: an earlier scan's copy when it had one. */
static const char *keep_path(const char *name)
{
    size_t len = strlen(name);
    char *s;

    for (unsigned i = 0; i < nmods; i++)
        if (strcmp(mods[i].path, name) == 0)
            return mods[i].path;
    if ((s = rec_arena_alloc(len + 1)) != NULL)
        memcpy(s, name, len + 1);
    return s;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
    struct scan *sc = data;
    struct rec_module *m;

    sc->adds = info->dlpi_adds;
    (void)size;
    if (sc->n == MAX_MODULES)
        return 1;
    m = &sc->out[sc->n];
    memset(m, 0, sizeof(*m));
    m->bias = info->dlpi_addr;
    m->lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD) {
            if (m->bias + ph->p_vaddr < m->lo)
                m->lo = m->bias + ph->p_vaddr;
            if (m->bias + ph->p_vaddr + ph->p_memsz > m->hi)
                m->hi = m->bias + ph->p_vaddr + ph->p_memsz;
        } else if (ph->p_type == PT_GNU_EH_FRAME) {
            m->eh_hdr = (const uint8_t *)(m->bias + ph->p_vaddr);
        } else if (ph->p_type == PT_NOTE && !m->id_len) {
            find_build_id(m, ph);
        }
    }
    if (m->lo >= m->hi)
        return 0;
    m->path = keep_path(info->dlpi_name && *info->dlpi_name ? info->dlpi_name : exe_path());
    if (!m->path)
        return 1;
    sc->n++;
    return 0;
}

int rec_modules_scan(void)
{
    static struct rec_module fresh[MAX_MODULES];
    struct scan sc = { fresh, 0, 0 };

    dl_iterate_phdr(scan_one, &sc);
    /* a module still loaded where it was keeps its record */
    for (unsigned i = 0; i < sc.n; i++) {
        for (unsigned j = 0; j < nmods; j++)
            if (mods[j].lo == fresh[i].lo && mods[j].path == fresh[i].path)
                fresh[i].recorded = mods[j].recorded;
        if (!fresh[i].recorded)
            rec_modules_unrecorded = 1;
    }
    memcpy(mods, fresh, sc.n * sizeof(*mods));
    nmods = sc.n;
    seen_adds = sc.adds;
    return 0;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

const struct rec_module *rec_module_at(uintptr_t addr)
{
    unsigned long long adds = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < nmods; i++)
            if (addr >= mods[i].lo && addr < mods[i].hi)
                return &mods[i];
        if (pass == 0) {
            dl_iterate_phdr(count_adds, &adds);
            if (adds == seen_adds)
                return NULL;
            rec_modules_scan();
        }
    }
    return NULL;
}

void rec_modules_record(void)
{
    struct rec_thread *t = rec_self;
    const struct rec_clock *c = __atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE);
    int64_t now = rec_ns_with(c, rec_stamp());

    if (!t)
        return;
    for (unsigned i = 0; i < nmods; i++) {
        struct rec_module *m = &mods[i];

        if (m->recorded)
            continue;
        if (iot_enc_module(&t->enc, now, m->path, m->bias, m->build_id, m->id_len) != 0) {
            rec_chunk_switch(t, now);
            if (iot_enc_module(&t->enc, now, m->path, m->bias, m->build_id, m->id_len) != 0)
                continue;
        }
        rec_publish(t);
        m->recorded = 1;
    }
    rec_modules_unrecorded = 0;
}

void rec_modules_forked(void)
{
    for (unsigned i = 0; i < nmods; i++)
        mods[i].recorded = 0;
    rec_modules_unrecorded = nmods > 0;
}
