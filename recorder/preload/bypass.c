/*
 * bypass.c - saying, at start, that this process makes file calls past
 * libc: the Go runtime (a cgo program loads libc, so the preload, but the
 * runtime's own file I/O is raw system calls) and liburing (the ring's
 * submissions are system calls the library makes itself, and the I/O they
 * ask for is done by the kernel). The preload sees none of those calls, so
 * the trace says so with an `unrecorded` record naming the program or the
 * library and why ("go", "liburing"): ioanalyze reports it (rule
 * unobserved) unless a kernel capture recorded the process's calls; under
 * iorecord as root it is asked for then (kernel_ask.c).
 *
 * Read from the modules' program headers in memory, as modules.c reads
 * build-ids: no file is opened. A library dlopen'ed later is not looked at.
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "internal.h"

#define GO_NOTE_TYPE 4    /* the Go toolchain's build-id note (owner "Go", type 4) */

/* Whether one of a module's PT_NOTE segments holds a note owned by "Go". */
static int has_go_note(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const unsigned char *p, *end;

        if (ph->p_type != PT_NOTE)
            continue;
        p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (nh->n_namesz + 3) & ~(size_t)3, desc = (nh->n_descsz + 3) & ~(size_t)3;

            if (name > (size_t)(end - p) - sizeof(*nh) ||
                desc > (size_t)(end - p) - sizeof(*nh) - name)
                break;
            /* the Go linker writes the owner as "Go\0\0" (n_namesz 4) */
            if (nh->n_type == GO_NOTE_TYPE && (nh->n_namesz == 3 || nh->n_namesz == 4) &&
                memcmp(p + sizeof(*nh), "Go", 3) == 0)
                return 1;
            p += sizeof(*nh) + name + desc;
        }
    }
    return 0;
}

struct bypass_seen {
    int first;                 /* the first module is the program */
    int go;
    char uring[PATH_MAX];      /* liburing's path, "" when not loaded */
};

static int look(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct bypass_seen *b = arg;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');

    (void)size;
    if (b->first) {
        b->first = 0;
        b->go = has_go_note(info);
        return 0;
    }
    base = base ? base + 1 : name;
    if (!b->uring[0] && strncmp(base, "liburing.so", 11) == 0 &&
        strlen(name) < sizeof(b->uring))
        strcpy(b->uring, name);
    return 0;
}

static void say(const char *path, const char *why)
{
    struct iot_event ev = rec_event(IOT_OP_UNRECORDED, 0, 0);
    uint64_t s = rec_stamp();

    ev.has |= IOT_HAS_PATH | IOT_HAS_MODE;
    rec_call(&ev, path, why, NULL, s, s);
}

void rec_bypass_startup(void)
{
    struct bypass_seen b = {.first = 1};

    dl_iterate_phdr(look, &b);
    if (b.go)
        say(rec_image_exe(), "go");
    if (b.uring[0])
        say(b.uring, "liburing");
    /* before the program's first call: the kernel path sees those past libc */
    if (b.go || b.uring[0])
        rec_kernel_ask();
}
